// Litmus: message passing through a condition variable (G4).
//
// In round r the setter (rank r % np) writes round r's value into data
// words on pages homed at every rank — some inside a critical section of a
// lock of its own, the rest outside any — and calls jia_setcv(cv); every
// other process calls jia_waitcv(cv) and must then see all of it. Rounds
// alternate between two condition variables; the setter of round r - 1
// resets its variable in round r, before the barrier that precedes the
// variable's next use, so no wait can return on an old set.
#include "litmus.h"

using namespace litmus;

int main(int argc, char** argv) {
  const long iters = start("mp_cv", &argc, &argv, 600);
  const int np = nprocs();
  const size_t pg = page();
  const size_t pages = static_cast<size_t>(np) + 1;
  const size_t per_page = 4;
  auto* base = static_cast<uint64_t*>(scopedsm_alloc_cyclic(pages * pg, pg, 0));
  auto at = [&](size_t j) -> uint64_t& { return base[(j / per_page) * (pg / sizeof(uint64_t)) + (j % per_page) * 61]; };
  const size_t n = pages * per_page;
  const int cv[2] = {5, 6};

  for (long r = 0; r < iters; ++r) {
    const int setter = static_cast<int>(r % np);
    const uint64_t val = (static_cast<uint64_t>(r) + 1) << 8;
    if (rank() == setter) {
      jia_lock(130 + rank());
      for (size_t j = 0; j < n; j += 2) at(j) = val | j;
      jia_unlock(130 + rank());
      for (size_t j = 1; j < n; j += 2) at(j) = val | j;
      jia_setcv(cv[r % 2]);
    } else {
      jia_waitcv(cv[r % 2]);
      for (size_t j = 0; j < n; ++j)
        if (at(j) != (val | j))
          violation(r, "after jia_waitcv(%d) returned, word %zu (written by rank %d %s a lock before jia_setcv) holds 0x%" PRIx64
                    ", expected 0x%" PRIx64,
                    cv[r % 2], j, setter, j % 2 == 0 ? "inside" : "outside", at(j), val | j);
    }
    if (r >= 1 && rank() == static_cast<int>((r - 1) % np)) jia_resetcv(cv[(r - 1) % 2]);
    jia_barrier();
  }
  return finish(iters);
}
