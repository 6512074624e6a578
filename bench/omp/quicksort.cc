// A task-parallel quicksort in C++ (std::vector, OpenMP tasks), built with
// g++ -fopenmp (threads) and scopedsm-c++ -fopenmp (processes); both must
// print the same checksum.
//
//   quicksort [test|bench] [serial|parallel]
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

void quicksort(std::vector<uint32_t>& v, long lo, long hi, long cutoff) {
  while (hi - lo > cutoff) {
    const uint32_t pivot = v[static_cast<size_t>(lo + (hi - lo) / 2)];
    long i = lo, j = hi - 1;
    while (i <= j) {
      while (v[static_cast<size_t>(i)] < pivot) ++i;
      while (v[static_cast<size_t>(j)] > pivot) --j;
      if (i <= j) std::swap(v[static_cast<size_t>(i++)], v[static_cast<size_t>(j--)]);
    }
#pragma omp task shared(v) firstprivate(lo, j, cutoff)
    quicksort(v, lo, j + 1, cutoff);
    lo = i;
  }
  std::sort(v.begin() + lo, v.begin() + hi);
}

}  // namespace

int main(int argc, char** argv) {
  const bool bench = argc > 1 && std::strcmp(argv[1], "bench") == 0;
  const bool parallel_init = argc > 2 && std::strcmp(argv[2], "parallel") == 0;
  const long n = bench ? 1L << 23 : 1L << 17;
  std::vector<uint32_t> v(static_cast<size_t>(n));
  auto value = [](long i) { return static_cast<uint32_t>((static_cast<uint64_t>(i) * 2654435761u) ^ (i >> 3)); };
  if (parallel_init) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) v[static_cast<size_t>(i)] = value(i);
  } else {
    for (long i = 0; i < n; i++) v[static_cast<size_t>(i)] = value(i);
  }
  const double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  quicksort(v, 0, n, 4096);
  const double t = omp_get_wtime() - t0;
  bool sorted = std::is_sorted(v.begin(), v.end());
  uint64_t sum = 0;
  for (long i = 0; i < n; i += 97) sum += v[static_cast<size_t>(i)] * static_cast<uint64_t>(i % 11 + 1);
  std::printf("checksum %.10e\n", sorted ? static_cast<double>(sum) : -1.0);
  std::printf("kernel quicksort %s %s: %.6f s (%d threads)\n", bench ? "bench" : "test",
              parallel_init ? "parallel" : "serial", t, omp_get_max_threads());
  return sorted ? 0 : 1;
}
