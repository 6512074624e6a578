// write_fault_release: write one word of a page homed at another rank
// inside a critical section, then unlock; the unlock returns once the diff
// is applied and acknowledged at the home. One page per critical section.
//
// Timed per page, from just before the write to the return of the unlock:
//   fresh   (reported) the page is not cached: fault, GETP round trip, twin,
//           then at unlock the diff, DIFF/DIFFGRANT round trip, REL
//   cached  (extra)    the page was read into the cache (untimed) first:
//           fault, twin, diff, DIFF/DIFFGRANT round trip, REL
// The lock is homed at rank 1, the pages' home; its acquire is not timed.
// Afterwards the home checks that every written word arrived.
//
// Baseline in the same run, interleaved: MPI round trip of 4 KiB each way.
//
//   write_fault_release [--reps=1000] [--rounds=10] [--warmup=100]
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "write_fault_release";

uint64_t value_for(size_t page) { return 0xabcd000000000000ull + page; }

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 1000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 100));
  if (!opt.ok()) bench::die(kName, opt.error());
  const int rank = scopedsm_rank(), nprocs = scopedsm_size();
  if (nprocs < 2) bench::die(kName, "needs at least 2 processes");
  const int writer = 0, home = 1;
  const int lock = home;  // lock l is homed at rank l % nprocs

  const size_t ps = scopedsm_page_size();
  const size_t per_kind = warmup + reps * rounds;
  const size_t pages = 2 * per_kind;  // fresh pages, then pages for the cached variant
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(pages * ps, pages * ps, home));
  if (scopedsm_home_of(base) != home || scopedsm_home_of(base + (pages - 1) * ps) != home)
    bench::die(kName, "the pages are not homed at rank 1");
  // The word written sits mid-page, away from the first word the reads use.
  const size_t word = ps / 2 / sizeof(uint64_t);

  size_t next = 0;
  std::vector<double> fault_part, unlock_part;  // the two halves of each sample
  auto writes = [&](size_t n, bool cached) {
    std::vector<double> samples;
    samples.reserve(n);
    for (size_t i = 0; i < n; ++i, ++next) {
      auto* page = reinterpret_cast<volatile uint64_t*>(base + next * ps);
      if (cached) {
        uint64_t v = page[0];  // untimed: brings the page into the cache
        bench::keep(v);
      }
      scopedsm_lock(lock);
      const uint64_t t0 = bench::now_ns();
      page[word] = value_for(next);
      const uint64_t t1 = bench::now_ns();
      scopedsm_unlock(lock);
      const uint64_t t2 = bench::now_ns();
      samples.push_back(bench::ns_to_us(t2 - t0));
      fault_part.push_back(bench::ns_to_us(t1 - t0));
      unlock_part.push_back(bench::ns_to_us(t2 - t1));
    }
    return samples;
  };

  bench::quiesce();
  if (rank == writer) {
    writes(warmup, false);
    next = per_kind;
    writes(warmup, true);
  }
  scopedsm_stats_start();

  bench::Report report;
  report.bench = kName;
  report.procs = nprocs;
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds rtt, cached, fresh_fault, fresh_unlock, cached_fault, cached_unlock;
  size_t next_fresh = warmup, next_cached = per_kind + warmup;
  for (size_t r = 0; r < rounds; ++r) {
    bench::quiesce();
    std::vector<double> trips = bench::mpi_round_trips(writer, home, 4096, reps, 10);
    if (rank == writer) rtt.add_round(std::move(trips));
    bench::quiesce();
    if (rank == writer) {
      next = next_fresh;
      fault_part.clear();
      unlock_part.clear();
      report.measured.add_round(writes(reps, false));
      fresh_fault.add_round(fault_part);
      fresh_unlock.add_round(unlock_part);
      next_fresh = next;
    }
    bench::quiesce();
    if (rank == writer) {
      next = next_cached;
      fault_part.clear();
      unlock_part.clear();
      cached.add_round(writes(reps, true));
      cached_fault.add_round(fault_part);
      cached_unlock.add_round(unlock_part);
      next_cached = next;
    }
  }
  scopedsm_stats_stop();
  const bench::Json stats = bench::gather_runtime_stats();

  // Every write was released to lock `lock` and the diffs acknowledged; the
  // home reads its own pages directly.
  scopedsm_barrier();
  long long missing = 0;
  if (rank == home) {
    for (size_t p = 0; p < pages; ++p) {
      // Warm-up and timed rounds together wrote every page once.
      const uint64_t v = reinterpret_cast<const uint64_t*>(base + p * ps)[word];
      if (v != value_for(p)) ++missing;
    }
  }
  long long missing_all = 0;
  MPI_Reduce(&missing, &missing_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

  if (rank == writer) {
    if (missing_all != 0) bench::die(kName, std::to_string(missing_all) + " written words did not reach the home");
    report.has_baseline = true;
    report.baseline_what = "mpi_rtt_4k";
    report.baseline = rtt.all();
    report.target_ratio = 2.5;
    report.extra["measures"] = "fresh page: write fault (GETP + twin) + unlock (diff, DIFF/DIFFGRANT, REL)";
    report.extra["fresh_write_fault"] = bench::summary_json(fresh_fault.all());
    report.extra["fresh_unlock"] = bench::summary_json(fresh_unlock.all());
    report.extra["cached_page"] = bench::summary_json(cached.all());
    report.extra["cached_write_fault"] = bench::summary_json(cached_fault.all());
    report.extra["cached_unlock"] = bench::summary_json(cached_unlock.all());
    report.extra["cached_ratio"] = cached.all().median / rtt.all().median;
    report.extra["p90"] = bench::quantile(report.measured.every(), 0.9);
    report.extra["words_checked"] = static_cast<long long>(pages);
    report.extra["mpi_eager_limit"] = bench::mpi_eager_limit();
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
