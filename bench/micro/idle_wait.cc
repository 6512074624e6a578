// idle_wait: how much CPU a process burns while it waits. Rank 0 computes
// (outside any ScopeDSM call) for --busy-ms; every other rank waits for it in
// jia_barrier. The figure is the waiting rank's CPU time (user + system, all
// its threads: application and service) divided by the wall time of the
// wait: 0 means it left its core to others, 1 means it spun a whole core.
//
// Baseline in the same run, interleaved: the same wait in MPI_Barrier, which
// Open MPI implements by polling.
//
// Lower is better; the target ("no thread may spin a core while it waits")
// is reported as 0.1 of a core.
//
//   idle_wait [--reps=5] [--rounds=3] [--busy-ms=200]
#include <mpi.h>
#include <sys/resource.h>

#include <cstdint>
#include <vector>

#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "idle_wait";

uint64_t cpu_ns() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) { return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull + tv.tv_usec * 1000ull; };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

volatile double sink;

void compute_for(uint64_t ns) {
  const uint64_t end = bench::now_ns() + ns;
  double x = 1.0;
  while (bench::now_ns() < end)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

// One wait: rank 0 computes, the others wait in `wait`. Returns the waiting
// rank's CPU fraction on rank 1, 0 elsewhere.
template <typename Wait>
double one_wait(uint64_t busy_ns, Wait wait) {
  const int rank = scopedsm_rank();
  if (rank == 0) {
    compute_for(busy_ns);
    wait();
    return 0;
  }
  const uint64_t c0 = cpu_ns(), t0 = bench::now_ns();
  wait();
  const uint64_t c1 = cpu_ns(), t1 = bench::now_ns();
  return static_cast<double>(c1 - c0) / static_cast<double>(t1 - t0);
}

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "busy-ms"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 5));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 3));
  const uint64_t busy_ns = static_cast<uint64_t>(opt.integer("busy-ms", 200)) * 1000000ull;
  if (!opt.ok()) bench::die(kName, opt.error());
  const int rank = scopedsm_rank(), nprocs = scopedsm_size();
  if (nprocs < 2) bench::die(kName, "needs at least 2 processes");

  bench::Report report;
  report.bench = kName;
  report.procs = nprocs;
  report.unit = "core";
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds mpi;
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<double> dsm_round, mpi_round;
    for (size_t i = 0; i < reps; ++i) {
      bench::quiesce();
      dsm_round.push_back(one_wait(busy_ns, [] { scopedsm_barrier(); }));
      bench::quiesce();
      mpi_round.push_back(one_wait(busy_ns, [] { MPI_Barrier(MPI_COMM_WORLD); }));
    }
    if (rank == 1) {
      report.measured.add_round(std::move(dsm_round));
      mpi.add_round(std::move(mpi_round));
    }
  }
  // Rank 1 measured; rank 0 prints.
  double mine[6] = {0, 0, 0, 0, 0, 0}, got[6];
  if (rank == 1) {
    auto a = report.measured.all(), b = mpi.all();
    double v[6] = {a.median, a.min, a.max, b.median, b.min, b.max};
    for (int i = 0; i < 6; ++i) mine[i] = v[i];
  }
  MPI_Reduce(mine, got, 6, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    report.measured.add_round({got[0], got[1], got[2]});
    report.has_baseline = true;
    report.baseline_what = "MPI_Barrier_wait";
    report.baseline.median = got[3];
    report.baseline.min = got[4];
    report.baseline.max = got[5];
    report.baseline.count = 3;
    report.target_ratio = 0;
    report.extra["target_core_fraction"] = 0.1;
    report.extra["busy_ms"] = static_cast<double>(busy_ns) / 1e6;
    report.extra["measures"] = "CPU time of a rank waiting in jia_barrier / wall time of the wait";
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
