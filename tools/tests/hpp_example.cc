// hpp_example.cc - a C++ program on scopedsm.hpp, compiled by scopedsm-c++
// in the tools tests: typed allocation, RAII lock, barrier, and a check.
#include <cstdio>
#include <scopedsm.hpp>

int main(int argc, char** argv) {
  scopedsm::Runtime dsm(argc, argv);
  const int n = 8192;
  int* values = scopedsm::alloc_array<int>(n);
  long* total = scopedsm::alloc_one<long>();
  const int rank = scopedsm::rank();
  const int size = scopedsm::size();
  long mine = 0;
  for (int i = rank; i < n; i += size) {
    values[i] = i;
    mine += i;
  }
  {
    scopedsm::LockGuard guard(1);
    *total += mine;
  }
  scopedsm::barrier();
  long expected = static_cast<long>(n) * (n - 1) / 2;
  long seen = 0;
  for (int i = 0; i < n; ++i) seen += values[i];
  if (*total != expected || seen != expected)
    scopedsm_fatal("hpp_example: total %ld, array sum %ld, expected %ld", *total, seen, expected);
  if (rank == 0) std::printf("hpp_example: ok on %d processes\n", size);
  return 0;
}
