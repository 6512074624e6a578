// read_fault: the first read of a page whose home is another rank.
//
// Rank 0 reads one word of a fresh page homed at rank 1, one page per timed
// iteration, so each iteration is exactly one fault: SIGSEGV, a GETP to the
// home's service thread, the page back, mprotect. The home filled each page
// with its index first, so every fetched page is checked.
//
// Baseline, measured in the same run and interleaved round by round, for the
// path the page takes:
//   home on this node, node sharing on:  one local SIGSEGV + mprotect cycle
//                                        + a memcpy of a page
//   otherwise:                           one local SIGSEGV + mprotect cycle
//                                        + an MPI_Get of a page (passive target)
// The JSON also reports the MPI round trip of 4 KiB each way (the message
// path's floor) and every component.
//
// With --home-busy the home's application thread computes (no MPI, no
// ScopeDSM call) while rank 0 faults; otherwise it waits in a barrier.
//
// With --refetch the same `reps` pages are read every round: before each
// round the home rewrites them and a barrier invalidates the reader's
// copies, as in an iterative program. Without it every fault is the first
// touch of a fresh page.
//
// "Exactly one fault" needs fetch runs off: its sweep is sequential, so
// with runs (SCOPEDSM_FETCH_PAGES, default 16) most reads would find their
// page prefetched. The benchmark sets SCOPEDSM_FETCH_PAGES=1 unless the
// environment sets it (docs/PERFORMANCE.md's sequential scan sets it to 16).
//
//   read_fault [--reps=1000] [--rounds=10] [--warmup=100] [--home-busy] [--refetch]
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
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
  setenv("SCOPEDSM_FETCH_PAGES", "1", 0);  // one fault per read; see above
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup", "home-busy", "refetch"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 1000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 100));
  const bool busy = opt.flag("home-busy");
  const bool refetch = opt.flag("refetch");
  if (!opt.ok()) bench::die(kName, opt.error());
  const int rank = scopedsm_rank();
  if (scopedsm_size() < 2) bench::die(kName, "needs at least 2 processes");
  const int reader = 0, home = 1;

  const size_t ps = scopedsm_page_size();
  const size_t pages = refetch ? std::max(reps, warmup) : warmup + reps * rounds;
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(pages * ps, pages * ps, home));
  if (scopedsm_home_of(base) != home || scopedsm_home_of(base + (pages - 1) * ps) != home)
    bench::die(kName, "the pages are not homed at rank 1");
  if (rank == home)
    for (size_t p = 0; p < pages; ++p) *reinterpret_cast<uint64_t*>(base + p * ps) = p + 1;

  size_t next = 0, checked = 0;
  uint64_t wrong = 0, generation = 0;  // what the home last wrote: page + 1 + generation * pages
  auto faults = [&](size_t n) {
    std::vector<double> samples;
    samples.reserve(n);
    if (refetch) next = 0;
    for (size_t i = 0; i < n; ++i, ++next, ++checked) {
      const volatile uint64_t* word = reinterpret_cast<const volatile uint64_t*>(base + next * ps);
      const uint64_t t0 = bench::now_ns();
      const uint64_t v = *word;  // one fault
      const uint64_t t1 = bench::now_ns();
      if (v != next + 1 + generation * pages) ++wrong;
      samples.push_back(bench::ns_to_us(t1 - t0));
    }
    return samples;
  };

  bench::quiesce();
  if (rank == reader) faults(warmup);
  scopedsm_stats_start();

  bench::Report report;
  report.bench = std::string(refetch ? "read_refetch" : "read_fault") + (busy ? "_home_busy" : "");
  report.procs = scopedsm_size();
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  // Whether the page is copied from the home's memory (same node, sharing on).
  const bool node_copy = bench::runtime_counter(kName, "node_shared") != 0;
  bench::Rounds rtt, segv, copy, get;
  for (size_t r = 0; r < rounds; ++r) {
    if (refetch) {
      // A new generation of the pages, once the reader is done with the
      // last one; the barrier in quiesce() invalidates the reader's copies.
      scopedsm_barrier();
      ++generation;
      if (rank == home)
        for (size_t p = 0; p < pages; ++p) *reinterpret_cast<uint64_t*>(base + p * ps) = p + 1 + generation * pages;
    }
    bench::quiesce();
    std::vector<double> trips = bench::mpi_round_trips(reader, home, 4096, reps, 10);
    std::vector<double> gets = bench::mpi_gets(reader, home, ps, reps, 10);
    if (rank == reader) {
      rtt.add_round(std::move(trips));
      get.add_round(std::move(gets));
      segv.add_round(bench::segv_mprotect_cycles(reps, 10));
      copy.add_round(bench::page_copies(reps, 10));
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
  const bench::Json stats = bench::gather_runtime_stats();

  if (rank == reader) {
    if (wrong != 0) bench::die(kName, std::to_string(wrong) + " fetched pages held the wrong contents");
    report.has_baseline = true;
    report.baseline_what = node_copy ? "segv_mprotect+memcpy_page" : "segv_mprotect+mpi_get_page";
    report.baseline = bench::add(segv.all(), node_copy ? copy.all() : get.all());
    report.target_ratio = 1.5;
    report.extra["home_busy"] = busy;
    report.extra["node_copy"] = node_copy;
    report.extra["mpi_rtt_4k"] = bench::summary_json(rtt.all());
    report.extra["mpi_get_page"] = bench::summary_json(get.all());
    report.extra["memcpy_page"] = bench::summary_json(copy.all());
    report.extra["segv_mprotect"] = bench::summary_json(segv.all());
    report.extra["p90"] = bench::quantile(report.measured.every(), 0.9);
    report.extra["pages_checked"] = static_cast<long long>(checked);
    report.extra["refetch"] = refetch;
    report.extra["mpi_eager_limit"] = bench::mpi_eager_limit();
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
