// Shared helpers of the memory-model litmus tests (tests/model).
//
// Every litmus program is an SPMD ScopeDSM program that repeats one pattern
// many times and checks each outcome against docs/MEMORY_MODEL.md. When it
// observes an outcome the model forbids it prints one line starting with
// "LITMUS VIOLATION" (test, rank, iteration, what was expected and seen) and
// ends the whole job with a non-zero status. On success rank 0 prints
// "LITMUS OK <test> np=<n> iterations=<k>".
//
// Options (every rank parses the same command line):
//   --iters N   iterations of the pattern (default: the test's own)
#pragma once

#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "api/test_hooks.h"
#include "jia.h"
#include "scopedsm.h"

namespace litmus {

inline const char*& test_name() {
  static const char* name = "litmus";
  return name;
}

inline long parse_iters(int argc, char** argv, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--iters") == 0) return std::strtol(argv[i + 1], nullptr, 10);
  return fallback;
}

// Initializes ScopeDSM and returns the iteration count.
inline long start(const char* name, int* argc, char*** argv, long default_iters) {
  test_name() = name;
  scopedsm_init(argc, argv);
  long iters = parse_iters(*argc, *argv, default_iters);
  if (iters <= 0) scopedsm_fatal("%s: --iters must be positive", name);
  return iters;
}

// Reports a forbidden outcome and ends the job.
[[noreturn]] inline void violation(long iter, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
inline void violation(long iter, const char* fmt, ...) {
  char detail[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "LITMUS VIOLATION %s rank %d/%d iteration %ld: %s\n", test_name(), scopedsm_rank(),
               scopedsm_size(), iter, detail);
  std::fflush(stderr);
  scopedsm_fatal("%s: the memory model was violated (see the LITMUS VIOLATION line)", test_name());
}

template <typename T>
inline void expect_eq(long iter, const char* what, T seen, T expected) {
  if (seen != expected)
    violation(iter, "%s: expected %" PRIu64 " (0x%" PRIx64 "), saw %" PRIu64 " (0x%" PRIx64 ")", what,
              static_cast<uint64_t>(expected), static_cast<uint64_t>(expected), static_cast<uint64_t>(seen),
              static_cast<uint64_t>(seen));
}

// The version carried by this process's latest grant of `lock`: critical
// sections of one lock are totally ordered by it (0 for the first one).
inline uint64_t version(int lock) { return scopedsm_test_lock_version(lock); }

inline int rank() { return scopedsm_rank(); }
inline int nprocs() { return scopedsm_size(); }
inline size_t page() { return scopedsm_page_size(); }

// Gathers every process's records on rank 0 (plain MPI on MPI_COMM_WORLD;
// ScopeDSM uses a communicator of its own). Other ranks get an empty vector.
template <typename T>
std::vector<T> gather(const std::vector<T>& mine) {
  int bytes = static_cast<int>(mine.size() * sizeof(T));
  std::vector<int> counts(static_cast<size_t>(nprocs())), displs(static_cast<size_t>(nprocs()));
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<T> all(rank() == 0 ? static_cast<size_t>(total) / sizeof(T) : 0);
  MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  return all;
}

// Prints the success line on rank 0 and shuts down.
inline int finish(long iters) {
  scopedsm_barrier();
  if (rank() == 0) std::printf("LITMUS OK %s np=%d iterations=%ld\n", test_name(), nprocs(), iters);
  std::fflush(stdout);
  scopedsm_finalize();
  return 0;
}

}  // namespace litmus
