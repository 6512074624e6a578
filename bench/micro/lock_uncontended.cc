// lock_uncontended: jia_lock + jia_unlock of a lock homed at another rank
// that nobody else wants, with nothing written in the critical section.
// The acquire is an ACQ/ACQGRANT round trip with the lock's home; the
// release sends REL without waiting.
//
// Reported: acquire + release per pair. Extra: the acquire and release
// alone, and the same pair for a lock homed at the calling rank itself.
// Baseline in the same run, interleaved: MPI round trip of 8 bytes.
//
//   lock_uncontended [--reps=2000] [--rounds=10] [--warmup=200]
#include <cstdint>
#include <vector>

#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "lock_uncontended";

struct PairTimes {
  std::vector<double> pair, acquire, release;
};

PairTimes lock_pairs(int lock, size_t n) {
  PairTimes t;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t t0 = bench::now_ns();
    scopedsm_lock(lock);
    const uint64_t t1 = bench::now_ns();
    scopedsm_unlock(lock);
    const uint64_t t2 = bench::now_ns();
    t.pair.push_back(bench::ns_to_us(t2 - t0));
    t.acquire.push_back(bench::ns_to_us(t1 - t0));
    t.release.push_back(bench::ns_to_us(t2 - t1));
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 2000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 200));
  if (!opt.ok()) bench::die(kName, opt.error());
  const int rank = scopedsm_rank(), nprocs = scopedsm_size();
  if (nprocs < 2) bench::die(kName, "needs at least 2 processes");
  const int client = 0, home = 1;
  const int remote_lock = home;   // homed at rank 1 (lock l lives at l % nprocs)
  const int local_lock = nprocs;  // homed at rank 0, the client itself

  bench::quiesce();
  if (rank == client) {
    lock_pairs(remote_lock, warmup);
    lock_pairs(local_lock, warmup);
  }
  scopedsm_stats_start();

  bench::Report report;
  report.bench = kName;
  report.procs = nprocs;
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds rtt, acquire, release, local;
  for (size_t r = 0; r < rounds; ++r) {
    bench::quiesce();
    std::vector<double> trips = bench::mpi_round_trips(client, home, 8, reps, 20);
    if (rank == client) rtt.add_round(std::move(trips));
    bench::quiesce();
    if (rank == client) {
      PairTimes t = lock_pairs(remote_lock, reps);
      report.measured.add_round(std::move(t.pair));
      acquire.add_round(std::move(t.acquire));
      release.add_round(std::move(t.release));
    }
    bench::quiesce();
    if (rank == client) local.add_round(lock_pairs(local_lock, reps).pair);
  }
  scopedsm_stats_stop();
  std::string stats = bench::gather_runtime_stats();

  if (rank == client) {
    report.has_baseline = true;
    report.baseline_what = "mpi_rtt_8b";
    report.baseline = rtt.all();
    report.target_ratio = 2.0;
    report.extra.summary("acquire", acquire.all());
    report.extra.summary("release", release.all());
    report.extra.summary("lock_homed_here", local.all());
    report.extra.number("p90", bench::quantile(report.measured.every(), 0.9));
    report.extra.raw("runtime_stats", stats);
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
