// lock_uncontended: jia_lock + jia_unlock of a lock homed at another rank
// that nobody else wants, with nothing written in the critical section.
// The acquire is an ACQ/ACQGRANT round trip with the lock's home; the
// release sends REL without waiting.
//
// Reported: acquire + release per pair. Extra: the acquire and release
// alone, the same pair for a lock homed at the calling rank itself, and,
// after all rounds, the pair again once --noticed pages (homed at rank 1)
// have been written under the lock: the lock's home keeps their write
// notices until the next barrier, which shows what a grant costs with them.
// Baseline in the same run, interleaved: MPI round trip of 8 bytes.
//
//   lock_uncontended [--reps=2000] [--rounds=10] [--warmup=200] [--noticed=4000]
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
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup", "noticed"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 2000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 200));
  const size_t noticed = static_cast<size_t>(opt.integer("noticed", 4000));
  if (!opt.ok()) bench::die(kName, opt.error());
  const int rank = scopedsm_rank(), nprocs = scopedsm_size();
  if (nprocs < 2) bench::die(kName, "needs at least 2 processes");
  const int client = 0, home = 1;
  const int remote_lock = home;   // homed at rank 1 (lock l lives at l % nprocs)
  const int local_lock = nprocs;  // homed at rank 0, the client itself
  const size_t ps = scopedsm_page_size();
  const size_t notice_pages = noticed > 0 ? noticed : 1;
  auto* pages = static_cast<char*>(scopedsm_alloc_cyclic(notice_pages * ps, notice_pages * ps, home));

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
  // The lock's home now collects a write notice for each page written under
  // the lock (100 pages per critical section); then empty pairs again.
  bench::Rounds after_notices;
  bench::quiesce();
  if (rank == client && noticed > 0) {
    for (size_t p = 0; p < noticed;) {
      scopedsm_lock(remote_lock);
      for (size_t k = 0; k < 100 && p < noticed; ++k, ++p) pages[p * ps] = 1;
      scopedsm_unlock(remote_lock);
    }
    lock_pairs(remote_lock, warmup);
    after_notices.add_round(lock_pairs(remote_lock, reps).pair);
  }
  scopedsm_stats_stop();
  const bench::Json stats = bench::gather_runtime_stats();

  if (rank == client) {
    report.has_baseline = true;
    report.baseline_what = "mpi_rtt_8b";
    report.baseline = rtt.all();
    report.target_ratio = 2.0;
    report.extra["acquire"] = bench::summary_json(acquire.all());
    report.extra["release"] = bench::summary_json(release.all());
    report.extra["lock_homed_here"] = bench::summary_json(local.all());
    report.extra["noticed_pages"] = static_cast<long long>(noticed);
    report.extra["after_noticed_pages"] = bench::summary_json(after_notices.all());
    report.extra["p90"] = bench::quantile(report.measured.every(), 0.9);
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
