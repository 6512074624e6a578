// interpose: what ScopeDSM's interposed calls (src/interpose) cost a call
// whose buffer is private memory, the fast path every such call of a
// program, of libgfortran, of libstdc++ and of the MPI library takes. One
// process, the runtime running with shared memory allocated (so the test
// against the shared range is the real one).
//
// Measured: write(-1, buf, 8) through the interposed symbol (the kernel
// answers EBADF at once). Baseline, interleaved: the C library's own write,
// looked up in libc.so.6. Extra, the same pair for fwrite of 0 bytes (no
// system call: the interposed fwrite's whole cost shows) and for
// MPI_Allreduce of one double (the interposed one against PMPI_Allreduce).
// Each sample is the mean of --batch calls, in ns.
//
//   interpose [--reps=200] [--rounds=10] [--batch=10000]
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "interpose";

using WriteFn = ssize_t (*)(int, const void*, size_t);
using FwriteFn = size_t (*)(const void*, size_t, size_t, FILE*);

// Nanoseconds per call of `op`, each sample the mean of `batch` calls.
template <typename Op>
std::vector<double> per_call(size_t reps, size_t batch, Op op) {
  std::vector<double> samples;
  for (size_t i = 0; i < reps; ++i) {
    const uint64_t t0 = bench::now_ns();
    for (size_t k = 0; k < batch; ++k) op();
    samples.push_back(static_cast<double>(bench::now_ns() - t0) / static_cast<double>(batch));
  }
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  scopedsm_init(&argc, &argv);
  bench::Options opt(argc, argv, {"reps", "rounds", "batch"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 200));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t batch = static_cast<size_t>(opt.integer("batch", 10000));
  if (!opt.ok()) bench::die(kName, opt.error());
  // Shared memory exists, so the fast path compares against a real range.
  void* shared = scopedsm_alloc(1 << 20);
  bench::keep(shared);

  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  if (libc == nullptr) bench::die(kName, "libc.so.6 is not loaded");
  auto libc_write = reinterpret_cast<WriteFn>(dlsym(libc, "write"));
  auto libc_fwrite = reinterpret_cast<FwriteFn>(dlsym(libc, "fwrite"));
  if (libc_write == nullptr || libc_fwrite == nullptr) bench::die(kName, "no write or fwrite in libc.so.6");
  FILE* null = fopen("/dev/null", "w");
  char buf[8] = {};
  double in = 1, out = 0;

  bench::Report report;
  report.bench = kName;
  report.procs = scopedsm_size();
  report.unit = "ns";
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds base, fw, fw_base, ar, ar_base;
  for (size_t r = 0; r < rounds; ++r) {
    report.measured.add_round(per_call(reps, batch, [&] { bench::keep(write(-1, buf, sizeof buf)); }));
    base.add_round(per_call(reps, batch, [&] { bench::keep(libc_write(-1, buf, sizeof buf)); }));
    fw.add_round(per_call(reps, batch, [&] { bench::keep(fwrite(buf, 1, 0, null)); }));
    fw_base.add_round(per_call(reps, batch, [&] { bench::keep(libc_fwrite(buf, 1, 0, null)); }));
    ar.add_round(per_call(reps, batch / 10, [&] { MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF); }));
    ar_base.add_round(
        per_call(reps, batch / 10, [&] { PMPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF); }));
  }
  fclose(null);
  if (scopedsm_rank() == 0) {
    report.has_baseline = true;
    report.baseline_what = "libc_write_ebadf";
    report.baseline = base.all();
    report.extra["fwrite_0_bytes"] = bench::summary_json(fw.all());
    report.extra["libc_fwrite_0_bytes"] = bench::summary_json(fw_base.all());
    report.extra["mpi_allreduce_1_double_self"] = bench::summary_json(ar.all());
    report.extra["pmpi_allreduce_1_double_self"] = bench::summary_json(ar_base.all());
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
