// barrier: jia_barrier with nothing written, at whatever rank count it runs
// with (run_micro.sh uses 2 and 4). Each sample is the mean of a batch of
// consecutive barriers as seen by rank 0.
//
// Baseline in the same run, interleaved: MPI_Barrier on MPI_COMM_WORLD at
// the same rank count, in batches of the same size. Extra, also
// interleaved: MPI_Allgather of 16 bytes per rank, the cost of a barrier
// that would exchange (empty) write notices as one collective.
//
// --cached=N first fills this process's cache with N valid copies of pages
// homed at the next rank (set SCOPEDSM_CACHE_PAGES at least that large):
// a barrier's cost must not grow with them (nothing at a barrier scans the
// cache or the page table; compare runs with and without).
//
//   barrier [--reps=500] [--rounds=10] [--warmup=50] [--batch=10] [--cached=0]
#include <cstdint>
#include <vector>

#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "barrier";

std::vector<double> dsm_barriers(size_t reps, size_t batch) {
  std::vector<double> samples;
  for (size_t i = 0; i < reps; ++i) {
    const uint64_t t0 = bench::now_ns();
    for (size_t k = 0; k < batch; ++k) scopedsm_barrier();
    const uint64_t t1 = bench::now_ns();
    samples.push_back(bench::ns_to_us(t1 - t0) / static_cast<double>(batch));
  }
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup", "batch", "cached"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 500));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 50));
  size_t batch = static_cast<size_t>(opt.integer("batch", 10));
  const long cached = opt.integer("cached", 0);
  if (!opt.ok()) bench::die(kName, opt.error());
  if (cached < 0) bench::die(kName, "--cached must be 0 or more");
  if (batch == 0) batch = 1;
  const int rank = scopedsm_rank(), nprocs = scopedsm_size();
  if (cached > 0 && nprocs > 1) {
    // Each rank's block of `cached` pages; everyone reads the next rank's.
    const size_t ps = scopedsm_page_size(), block = static_cast<size_t>(cached) * ps;
    auto* pages = static_cast<volatile char*>(scopedsm_alloc_cyclic(block * static_cast<size_t>(nprocs), block, 0));
    const size_t next = static_cast<size_t>((rank + 1) % nprocs) * block;
    for (size_t off = 0; off < block; off += ps) (void)pages[next + off];
    scopedsm_barrier();
  }

  bench::quiesce();
  dsm_barriers(warmup, 1);
  scopedsm_stats_start();

  bench::Report report;
  report.bench = "barrier_np" + std::to_string(nprocs);
  report.procs = nprocs;
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds mpi, allgather;
  for (size_t r = 0; r < rounds; ++r) {
    bench::quiesce();
    mpi.add_round(bench::mpi_barriers(reps, batch, 10));
    allgather.add_round(bench::mpi_allgathers(16, reps, batch, 10));
    bench::quiesce();
    report.measured.add_round(dsm_barriers(reps, batch));
  }
  scopedsm_stats_stop();
  const bench::Json stats = bench::gather_runtime_stats();

  if (rank == 0) {
    report.has_baseline = true;
    report.baseline_what = "mpi_barrier";
    report.baseline = mpi.all();
    report.target_ratio = 2.0;
    report.extra["batch"] = static_cast<long long>(batch);
    report.extra["cached_pages"] = cached;
    report.extra["mpi_allgather_16b"] = bench::summary_json(allgather.all());
    report.extra["p90"] = bench::quantile(report.measured.every(), 0.9);
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
