// A C++ program whose processes all end with std::exit, which skips the
// destructor of their scopedsm::Runtime: a clean end, as for C programs that
// return without scopedsm_finalize (tests/compat/endings.c).
#include <cstdio>
#include <cstdlib>

#include "scopedsm.hpp"

int main(int argc, char** argv) {
  scopedsm::Runtime dsm(argc, argv);
  constexpr int kN = 1024;
  int* a = scopedsm::alloc_array<int>(kN);
  for (int i = scopedsm::rank(); i < kN; i += scopedsm::size()) a[i] = 5 * i;
  scopedsm::barrier();
  for (int i = 0; i < kN; ++i)
    if (a[i] != 5 * i) scopedsm_fatal("endings_cxx: a[%d] = %d", i, a[i]);
  if (scopedsm::rank() == 0) std::printf("endings_cxx: ok on %d processes\n", scopedsm::size());
  std::fflush(stdout);
  std::exit(0);
}
