// read_fault: the first read of a page whose home is another rank.
//
// Rank 0 reads one word of a fresh page homed at rank 1, one page per timed
// iteration, so each iteration is exactly one fault: SIGSEGV, a GETP to the
// home's service thread, the page back, mprotect. The home filled each page
// with its index first, so every fetched page is checked.
//
// Baseline, measured in the same run and interleaved round by round: an MPI
// round trip of 4 KiB each way between the same two ranks, plus one local
// SIGSEGV + mprotect cycle.
//
// With --home-busy the home's application thread computes (no MPI, no
// ScopeDSM call) while rank 0 faults; otherwise it waits in a barrier.
//
//   read_fault [--reps=1000] [--rounds=10] [--warmup=100] [--home-busy]
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/local_costs.h"
#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "read_fault";
constexpr int kTagStop = 9101;
constexpr uint64_t kComputeChunkNs = 5000000;  // the busy home looks for "stop" this often

// The home computes until the reader says stop. Returns milliseconds computed.
double compute_until_stopped(int reader) {
  int stop = 0;
  MPI_Request req;
  MPI_Irecv(&stop, 1, MPI_INT, reader, kTagStop, MPI_COMM_WORLD, &req);
  const uint64_t t0 = bench::now_ns();
  int done = 0;
  uint64_t sink = 0;
  while (!done) {
    sink += bench::compute_for_ns(kComputeChunkNs);
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  }
  bench::keep(sink);
  return static_cast<double>(bench::now_ns() - t0) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup", "home-busy"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 1000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 100));
  const bool busy = opt.flag("home-busy");
  if (!opt.ok()) bench::die(kName, opt.error());
  const int rank = scopedsm_rank();
  if (scopedsm_size() < 2) bench::die(kName, "needs at least 2 processes");
  const int reader = 0, home = 1;

  const size_t ps = scopedsm_page_size();
  const size_t pages = warmup + reps * rounds;
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(pages * ps, pages * ps, home));
  if (scopedsm_home_of(base) != home || scopedsm_home_of(base + (pages - 1) * ps) != home)
    bench::die(kName, "the pages are not homed at rank 1");
  if (rank == home)
    for (size_t p = 0; p < pages; ++p) *reinterpret_cast<uint64_t*>(base + p * ps) = p + 1;

  size_t next = 0;
  uint64_t wrong = 0;
  auto faults = [&](size_t n) {
    std::vector<double> samples;
    samples.reserve(n);
    for (size_t i = 0; i < n; ++i, ++next) {
      const volatile uint64_t* word = reinterpret_cast<const volatile uint64_t*>(base + next * ps);
      const uint64_t t0 = bench::now_ns();
      const uint64_t v = *word;  // one fault
      const uint64_t t1 = bench::now_ns();
      if (v != next + 1) ++wrong;
      samples.push_back(bench::ns_to_us(t1 - t0));
    }
    return samples;
  };

  bench::quiesce();
  if (rank == reader) faults(warmup);
  scopedsm_stats_start();

  bench::Report report;
  report.bench = busy ? "read_fault_home_busy" : "read_fault";
  report.procs = scopedsm_size();
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds rtt, segv;
  for (size_t r = 0; r < rounds; ++r) {
    bench::quiesce();
    std::vector<double> trips = bench::mpi_round_trips(reader, home, 4096, reps, 10);
    if (rank == reader) {
      rtt.add_round(std::move(trips));
      segv.add_round(bench::segv_mprotect_cycles(reps, 10));
    }
    bench::quiesce();
    if (rank == reader) {
      report.measured.add_round(faults(reps));
      if (busy) {
        int stop = 1;
        MPI_Send(&stop, 1, MPI_INT, home, kTagStop, MPI_COMM_WORLD);
      }
    } else if (rank == home && busy) {
      compute_until_stopped(reader);
    }
  }
  scopedsm_stats_stop();
  std::string stats = bench::gather_runtime_stats();

  if (rank == reader) {
    if (wrong != 0) bench::die(kName, std::to_string(wrong) + " fetched pages held the wrong contents");
    report.has_baseline = true;
    report.baseline_what = "mpi_rtt_4k+segv_mprotect";
    report.baseline = bench::add(rtt.all(), segv.all());
    report.target_ratio = 1.5;
    report.extra.boolean("home_busy", busy);
    report.extra.summary("mpi_rtt_4k", rtt.all());
    report.extra.summary("segv_mprotect", segv.all());
    report.extra.number("p90", bench::quantile(report.measured.every(), 0.9));
    report.extra.integer("pages_checked", static_cast<long long>(next));
    report.extra.integer("mpi_eager_limit", bench::mpi_eager_limit());
    report.extra.raw("runtime_stats", stats);
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
