// Litmus: the lock-protected counter (G2, G5, G6).
//
// Three counters, each protected by its own lock; counters 0 and 1 share a
// page (written under different locks), counter 2 has a page of its own
// homed elsewhere. In every iteration each process increments one counter
// inside its lock. Every critical section of lock k increments counter k
// exactly once, so the value it reads must equal the version of its grant
// (the number of earlier critical sections of that lock), and after the
// final barrier every counter is exact.
#include "litmus.h"

using namespace litmus;

int main(int argc, char** argv) {
  const long iters = start("counter", &argc, &argv, 2000);
  const int np = nprocs();
  const size_t pg = page();
  // Pages homed at ranks 1 % np and 2 % np (cyclic one-page blocks from 1).
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(2 * pg, pg, 1 % np));
  uint64_t* counter[3] = {reinterpret_cast<uint64_t*>(base), reinterpret_cast<uint64_t*>(base + 64),
                          reinterpret_cast<uint64_t*>(base + pg + 8)};
  const int lock[3] = {7, 8, 9};

  for (long i = 0; i < iters; ++i) {
    const int k = static_cast<int>((i + rank()) % 3);
    jia_lock(lock[k]);
    const uint64_t v = version(lock[k]);
    expect_eq(i, k == 0 ? "counter 0 at grant" : k == 1 ? "counter 1 at grant" : "counter 2 at grant", *counter[k], v);
    *counter[k] = v + 1;
    jia_unlock(lock[k]);
  }
  jia_barrier();
  uint64_t total = 0;
  for (int k = 0; k < 3; ++k) {
    uint64_t expected = 0;
    for (int r = 0; r < np; ++r)
      for (long i = 0; i < iters; ++i)
        if ((i + r) % 3 == k) ++expected;
    expect_eq(iters, "final counter value", *counter[k], expected);
    total += *counter[k];
  }
  expect_eq(iters, "final total", total, static_cast<uint64_t>(iters) * static_cast<uint64_t>(np));
  return finish(iters);
}
