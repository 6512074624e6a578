// Litmus: message passing through a barrier (G3).
//
// Two banks of pages homed at every rank. In round r every process writes
// its share of bank r % 2 (which locations are whose rotates every round, so
// every process's cached copies go stale), some writes inside a critical
// section of a per-process lock, the rest outside any; then the barrier;
// Every other four rounds a whole page has one writer, so that a process
// that misses one other process's notices keeps a stale copy of its pages
// (with every page written by everybody, any one list of notices would
// invalidate every copy);
// then every process reads the whole bank and must see round r's value
// everywhere. Bank (r + 1) % 2 is written in the next round only, so the
// reads never race with writes.
#include "litmus.h"

using namespace litmus;

int main(int argc, char** argv) {
  const long iters = start("mp_barrier", &argc, &argv, 600);
  const int np = nprocs();
  const size_t pg = page();
  const size_t pages_per_bank = static_cast<size_t>(np) + 1;
  const size_t slots_per_page = 8;  // words spread over each page
  const size_t stride = pg / sizeof(uint64_t) / slots_per_page;
  auto* base = static_cast<uint64_t*>(scopedsm_alloc_cyclic(2 * pages_per_bank * pg, pg, 0));
  const size_t locations = pages_per_bank * slots_per_page;
  auto at = [&](long bank, size_t j) -> uint64_t& {
    return base[(static_cast<size_t>(bank) * pages_per_bank + j / slots_per_page) * (pg / sizeof(uint64_t)) +
                (j % slots_per_page) * stride + (j % 3)];
  };
  auto value = [](long round, size_t j) { return (static_cast<uint64_t>(round) + 1) << 20 | j; };
  auto writer = [&](long round, size_t j) {
    const bool by_page = (round / 4) % 2 == 1;
    return static_cast<long>((by_page ? j / slots_per_page : j) + static_cast<size_t>(round)) % np;
  };

  for (long r = 0; r < iters; ++r) {
    const long bank = r % 2;
    const bool locked = (r / 2) % 2 == 1;
    if (locked) jia_lock(100 + rank());
    for (size_t j = 0; j < locations; ++j)
      if (writer(r, j) == rank()) at(bank, j) = value(r, j);
    if (locked) jia_unlock(100 + rank());
    jia_barrier();
    for (size_t j = 0; j < locations; ++j)
      if (at(bank, j) != value(r, j))
        violation(r, "after the barrier, location %zu (bank %ld, written by rank %ld %s a lock) holds 0x%" PRIx64
                  ", expected 0x%" PRIx64,
                  j, bank, writer(r, j), locked ? "inside" : "outside",
                  at(bank, j), value(r, j));
  }
  return finish(iters);
}
