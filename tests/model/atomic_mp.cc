// Litmus: message passing through an atomic flag (docs/MEMORY_MODEL.md,
// "Atomics at the home": the release and acquire orders).
//
// Rank 0 writes a data page homed at the last rank with plain stores, then
// stores the iteration number into a flag homed at rank 0 with a release;
// every other rank waits for the flag with acquire loads and then reads the
// data with plain reads: it must see this iteration's data, although its
// copy of the data page holds the previous one. A barrier-free pattern: the
// only synchronization is the two atomics. Negative control: skip-invalidate
// (the acquire keeps the stale copy).
#include <sched.h>

#include "litmus.h"

using namespace litmus;

int main(int argc, char** argv) {
  const long iters = start("atomic_mp", &argc, &argv, 500);
  const int np = nprocs(), me = rank();
  auto* data = static_cast<int64_t*>(scopedsm_alloc_on(page(), np - 1));
  auto* flag = static_cast<int64_t*>(scopedsm_alloc_on(page(), 0));
  auto* done = static_cast<int64_t*>(scopedsm_alloc_on(page(), np > 1 ? 1 : 0));
  const size_t words = page() / sizeof(int64_t);
  for (long i = 1; i <= iters; ++i) {
    if (me == 0) {
      // Wait until every reader has taken the previous iteration's data.
      while (scopedsm_atomic_load_i64(done, SCOPEDSM_RELAXED) < (i - 1) * (np - 1)) sched_yield();
      for (size_t k = 0; k < words; k += 64) data[k] = i;
      scopedsm_atomic_store_i64(flag, i, SCOPEDSM_RELEASE);
    } else {
      while (scopedsm_atomic_load_i64(flag, SCOPEDSM_ACQUIRE) < i) sched_yield();
      for (size_t k = 0; k < words; k += 64) expect_eq(i, "data after the acquire", data[k], static_cast<int64_t>(i));
      scopedsm_atomic_fetch_add_i64(done, 1, SCOPEDSM_RELAXED);
    }
  }
  return finish(iters);
}
