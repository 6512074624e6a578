// Every process adds to a shared counter under a lock; after a barrier the
// counter holds the sum. Built against the runtime and the sequential build.
#include <cstdio>

#include "scopedsm.hpp"

int main(int argc, char** argv) {
  scopedsm::Runtime dsm(argc, argv);
  long* counter = scopedsm::alloc_one<long>();
  {
    scopedsm::LockGuard guard(0);
    *counter += scopedsm::rank() + 1;
  }
  scopedsm::barrier();
  const long n = scopedsm::size();
  if (*counter != n * (n + 1) / 2) scopedsm_fatal("hello_cxx: counter %ld, expected %ld", *counter, n * (n + 1) / 2);
  scopedsm::barrier();
  if (scopedsm::rank() == 0) std::printf("hello_cxx: ok on %ld processes\n", n);
  return 0;
}
