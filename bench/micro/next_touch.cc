// next_touch: what re-homing a page on next touch costs, and what it saves
// afterwards (scopedsm_next_touch, docs/PROTOCOL.md §6c), per page.
//
// Rank 1 homes and fills fresh pages; rank 0 is the next toucher. Each
// sample is one batch of --pages pages, per page, as rank 0 sees it:
//
//   measured   scopedsm_next_touch on the batch, rank 0 reads every page of
//              it (a fault and a fetch each), a barrier (the pages move to
//              rank 0 there)
//   baseline   the same with a plain barrier instead of the next-touch
//              point: the same faults and fetches, no move
//
// The difference of the medians is the cost of re-homing a page. What it
// buys is measured after each, in the same batch: rank 0 writes one word of
// every page and a barrier follows ("write_after_rehome": its own home
// pages, no twin, no diff; "write_after_baseline": a write fault, a twin, a
// diff sent to rank 1). The break-even number of such iterations is
// rehome_extra / (write_after_baseline - write_after_rehome), reported as
// "break_even_iterations" (null unless the saving is positive). Measure on a
// quiet machine; tests run it only to check that it works.
//
// Other ranks (with more than 2 processes) only take part in the barriers.
// Every batch allocates fresh pages: pages * (reps * rounds + warmup) * 2 in all.
//
//   next_touch [--pages=128] [--reps=10] [--rounds=5] [--warmup=2]
#include <cstdint>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "next_touch";

struct Batch {
  double touch_us;  // per page: the point (or barrier), the reads, the barrier
  double write_us;  // per page: the writes, the barrier
};

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"pages", "reps", "rounds", "warmup"});
  const size_t pages = static_cast<size_t>(opt.integer("pages", 128));
  const size_t reps = static_cast<size_t>(opt.integer("reps", 10));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 5));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 2));
  if (!opt.ok()) bench::die(kName, opt.error());
  if (pages < 1 || reps < 1 || rounds < 1) bench::die(kName, "--pages, --reps and --rounds must be at least 1");
  if (scopedsm_size() < 2) bench::die(kName, "needs at least 2 processes");
  const int rank = scopedsm_rank();
  const int home = 1, toucher = 0;  // rank 0 measures and prints
  const size_t ps = scopedsm_page_size();
  const size_t words = ps / sizeof(uint64_t);
  uint64_t wrong = 0, unmoved = 0;

  // One batch on fresh pages homed at rank 1, filled by it.
  auto batch = [&](bool rehome) {
    auto* a = static_cast<uint64_t*>(scopedsm_alloc_on(pages * ps, home));
    if (rank == home)
      for (size_t p = 0; p < pages; ++p) a[p * words] = p + 1;
    scopedsm_barrier();
    bench::quiesce();
    Batch b{};
    const uint64_t t0 = bench::now_ns();
    if (rehome) scopedsm_next_touch(a, pages * ps);
    else scopedsm_barrier();
    if (rank == toucher)
      for (size_t p = 0; p < pages; ++p) wrong += a[p * words] != p + 1;
    scopedsm_barrier();
    const uint64_t t1 = bench::now_ns();
    if (rank == toucher)
      for (size_t p = 0; p < pages; ++p) a[p * words + 1] = p;
    scopedsm_barrier();
    const uint64_t t2 = bench::now_ns();
    if (rehome && scopedsm_home_of(a) != toucher) ++unmoved;
    b.touch_us = bench::ns_to_us(t1 - t0) / static_cast<double>(pages);
    b.write_us = bench::ns_to_us(t2 - t1) / static_cast<double>(pages);
    return b;
  };

  for (size_t i = 0; i < warmup; ++i) {
    batch(true);
    batch(false);
  }
  scopedsm_stats_start();
  bench::Report report;
  report.bench = kName;
  report.procs = scopedsm_size();
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds base_touch, rehome_write, base_write;
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<double> mt, bt, mw, bw;
    for (size_t i = 0; i < reps; ++i) {  // interleaved, so drift hits both alike
      const Batch m = batch(true);
      const Batch b = batch(false);
      mt.push_back(m.touch_us);
      mw.push_back(m.write_us);
      bt.push_back(b.touch_us);
      bw.push_back(b.write_us);
    }
    if (rank == toucher) {
      report.measured.add_round(std::move(mt));
      base_touch.add_round(std::move(bt));
      rehome_write.add_round(std::move(mw));
      base_write.add_round(std::move(bw));
    }
  }
  scopedsm_stats_stop();
  const bench::Json stats = bench::gather_runtime_stats();
  if (rank == toucher) {
    if (wrong != 0) bench::die(kName, std::to_string(wrong) + " page reads gave the wrong contents");
    if (unmoved != 0) bench::die(kName, "a next-touch point did not move its pages to the toucher");
    const bench::Summary m = report.measured.all(), bt = base_touch.all();
    const bench::Summary mw = rehome_write.all(), bw = base_write.all();
    report.has_baseline = true;
    report.baseline_what = "same_reads_no_rehome";
    report.baseline = bt;
    const double extra = m.median - bt.median, saving = bw.median - mw.median;
    report.extra["pages_per_batch"] = static_cast<long long>(pages);
    report.extra["rehome_extra_per_page"] = extra;
    report.extra["write_after_rehome"] = bench::summary_json(mw);
    report.extra["write_after_baseline"] = bench::summary_json(bw);
    report.extra["break_even_iterations"] = saving > 0 ? bench::Json(extra / saving) : bench::Json(nullptr);
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
