// Litmus: write after eviction under a tiny cache (G1, G6).
// Run with SCOPEDSM_CACHE_PAGES=4 (CTest does): the cache holds far fewer
// pages than each pass touches, so every written page is evicted — its diff
// sent home at once — and fetched again.
//
// Two banks of 12 pages homed round-robin at every rank. Each process owns
// one 64-bit word and one char of every page. In round r, on bank r % 2, it
//   pass 1: writes its word and char on every page (evicting as it goes);
//   pass 2: reads its own word back on every page (each was evicted and is
//           fetched again: it must hold pass 1's value) and writes new values
//           (in alternate rounds inside a critical section of its own lock);
// then the barrier; then it reads every process's word and char of every
// page of the bank, which must hold pass 2's values.
#include "litmus.h"

using namespace litmus;

namespace {
constexpr size_t kPages = 12;
uint64_t val(long r, int pass, size_t j, size_t who) {
  return (static_cast<uint64_t>(r) << 24) | (static_cast<uint64_t>(pass) << 16) | (j << 8) | who;
}
uint8_t cval(long r, int pass, size_t who) { return static_cast<uint8_t>(r * 4 + pass * 2 + static_cast<long>(who) * 8 + 1); }
}  // namespace

int main(int argc, char** argv) {
  const long iters = start("evict", &argc, &argv, 300);
  const size_t np = static_cast<size_t>(nprocs());
  const size_t me = static_cast<size_t>(rank());
  const size_t pg = page();
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(2 * kPages * pg, pg, 0));
  auto word = [&](long bank, size_t j, size_t who) -> uint64_t& {
    return reinterpret_cast<uint64_t*>(base + (static_cast<size_t>(bank) * kPages + j) * pg)[who * 3];
  };
  auto chr = [&](long bank, size_t j, size_t who) -> uint8_t& {
    return reinterpret_cast<uint8_t*>(base + (static_cast<size_t>(bank) * kPages + j) * pg)[pg - 1 - who];
  };

  for (long r = 0; r < iters; ++r) {
    const long bank = r % 2;
    for (size_t n = 0; n < kPages; ++n) {
      const size_t j = (n + me) % kPages;
      word(bank, j, me) = val(r, 1, j, me);
      chr(bank, j, me) = cval(r, 1, me);
    }
    const bool locked = r % 2 == 1;
    if (locked) jia_lock(120 + static_cast<int>(me));
    for (size_t n = 0; n < kPages; ++n) {
      const size_t j = (n + me) % kPages;
      if (word(bank, j, me) != val(r, 1, j, me) || chr(bank, j, me) != cval(r, 1, me))
        violation(r, "page %zu of bank %ld: own word 0x%" PRIx64 " / char %u after eviction, expected 0x%" PRIx64 " / %u",
                  j, bank, word(bank, j, me), chr(bank, j, me), val(r, 1, j, me), cval(r, 1, me));
      word(bank, j, me) = val(r, 2, j, me);
      chr(bank, j, me) = cval(r, 2, me);
    }
    if (locked) jia_unlock(120 + static_cast<int>(me));
    jia_barrier();
    for (size_t j = 0; j < kPages; ++j)
      for (size_t who = 0; who < np; ++who)
        if (word(bank, j, who) != val(r, 2, j, who) || chr(bank, j, who) != cval(r, 2, who))
          violation(r, "after the barrier, page %zu of bank %ld: rank %zu's word 0x%" PRIx64 " / char %u, expected 0x%" PRIx64
                    " / %u",
                    j, bank, who, word(bank, j, who), chr(bank, j, who), val(r, 2, j, who), cval(r, 2, who));
  }
  return finish(iters);
}
