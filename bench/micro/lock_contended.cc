// lock_contended: every rank takes the same lock --iters times per round,
// incrementing a shared counter inside the critical section. Reported:
// acquisitions per second per round (all ranks' acquisitions over the
// round's wall time, from the first rank's start to the last one's end), median/p90/min/max over rounds, beside the
// baseline: a spin lock of MPI atomics homed at the same rank, measured in
// the same run (bench::mpi_spin_lock_rates; on one node only), with a ratio
// above 1 when ScopeDSM's lock is faster.
//
// The counter sits in a page homed at rank 0; the lock is homed at rank 1
// (or 0 on one process). After every round rank 0 takes the lock and checks
// the counter against the number of acquisitions so far.
//
//   lock_contended [--iters=1000] [--rounds=10] [--warmup=100]
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "lock_contended";

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"iters", "rounds", "warmup"});
  const size_t iters = static_cast<size_t>(opt.integer("iters", 1000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 100));
  if (!opt.ok()) bench::die(kName, opt.error());
  const int rank = scopedsm_rank(), nprocs = scopedsm_size();
  const int lock = nprocs > 1 ? 1 : 0;
  const size_t ps = scopedsm_page_size();
  auto* counter = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(ps, ps, 0));

  uint64_t expected = 0;
  std::vector<double> hold;  // this rank's lock + increment + unlock times
  auto run = [&](size_t n, bool timed) {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t t0 = bench::now_ns();
      scopedsm_lock(lock);
      *counter = *counter + 1;
      scopedsm_unlock(lock);
      if (timed) hold.push_back(bench::ns_to_us(bench::now_ns() - t0));
    }
    expected += n * static_cast<uint64_t>(nprocs);
  };
  auto check = [&] {
    if (rank != 0) return;
    scopedsm_lock(lock);
    const uint64_t seen = *counter;
    scopedsm_unlock(lock);
    if (seen != expected)
      bench::die(kName, "counter is " + std::to_string(seen) + ", expected " + std::to_string(expected));
  };

  bench::quiesce();
  run(warmup, false);
  scopedsm_barrier();
  check();
  scopedsm_stats_start();

  bench::Report report;
  report.bench = "lock_contended_np" + std::to_string(nprocs);
  report.procs = nprocs;
  report.unit = "acq/s";
  report.higher_is_better = true;
  report.reps = static_cast<long>(iters);
  report.rounds = static_cast<long>(rounds);
  for (size_t r = 0; r < rounds; ++r) {
    scopedsm_barrier();
    const uint64_t t0 = bench::now_ns();
    run(iters, true);
    const double span = bench::wall_span_s(t0, bench::now_ns());
    scopedsm_barrier();
    check();
    report.measured.add_round({static_cast<double>(iters) * nprocs / span});
  }
  scopedsm_stats_stop();
  const bench::Json stats = bench::gather_runtime_stats();

  bench::quiesce();
  const std::vector<double> mpi = bench::mpi_spin_lock_rates(lock, iters, rounds, warmup);
  if (rank == 0 && !mpi.empty()) {
    report.has_baseline = true;
    report.baseline_what = "spin lock of MPI atomics (MPI_Compare_and_swap, MPI_Fetch_and_op) homed at rank " +
                           std::to_string(lock) + ", every rank adding 1 inside, acq/s";
    report.baseline = bench::summarize(mpi);
  }

  if (rank == 0) {
    report.extra["iters_per_rank"] = static_cast<long long>(iters);
    report.extra["final_count"] = static_cast<long long>(expected);
    report.extra["count_verified"] = true;
    report.extra["rank0_lock_inc_unlock_us"] = bench::summary_json(bench::summarize(hold));
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
