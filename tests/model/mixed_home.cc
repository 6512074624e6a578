// Litmus: home and non-home writers mixed on one page (G1–G3, G6), which
// exercises adaptive write detection: a home page nobody else holds is
// written untrapped, and must be re-trapped when a copy goes out.
//
// Two pages, homed at rank 0 and at rank 1 % np. On each page:
//   count, last     — written in every critical section of lock L;
//   lw[r]           — rank r's word, written in its critical sections of L;
//   own[b][r], ch[b][r] — rank r's word and char of bank b, written outside
//                     any lock (bank r % 2 in round r).
// Round r: S steps of { write own/ch of bank r % 2; lock L; check; write;
// unlock L }, then the barrier, then every process checks every own/ch of
// the bank. Inside L the model requires count == version(L) on both pages
// and lw[last] == count (the latest holder's own word is visible).
#include "litmus.h"

using namespace litmus;

namespace {
constexpr int kSteps = 3;
uint64_t own_val(long r, int step, size_t who) {
  return (static_cast<uint64_t>(r) << 20) | (static_cast<uint64_t>(step) << 8) | who;
}
uint8_t ch_val(long r, int step, size_t who) { return static_cast<uint8_t>(r * 8 + step * 2 + static_cast<long>(who) * 32 + 1); }

struct Page {
  uint64_t* words;
  uint64_t& count() { return words[0]; }
  uint64_t& last() { return words[1]; }
  uint64_t& lw(size_t r) { return words[8 + r]; }
  uint64_t& own(long bank, size_t r) { return words[128 + static_cast<size_t>(bank) * 64 + r]; }
  uint8_t& ch(long bank, size_t r) { return reinterpret_cast<uint8_t*>(words + 384)[static_cast<size_t>(bank) * 64 + r]; }
};
}  // namespace

int main(int argc, char** argv) {
  const long iters = start("mixed_home", &argc, &argv, 500);
  const size_t np = static_cast<size_t>(nprocs());
  const size_t me = static_cast<size_t>(rank());
  const size_t pg = page();
  Page pages[2] = {{static_cast<uint64_t*>(scopedsm_alloc_cyclic(pg, pg, 0))},
                   {static_cast<uint64_t*>(scopedsm_alloc_cyclic(pg, pg, 1 % static_cast<int>(np)))}};
  const int lock = 61;

  for (long r = 0; r < iters; ++r) {
    const long bank = r % 2;
    for (int s = 0; s < kSteps; ++s) {
      for (Page& p : pages) {
        p.own(bank, me) = own_val(r, s, me);
        p.ch(bank, me) = ch_val(r, s, me);
      }
      jia_lock(lock);
      const uint64_t v = version(lock);
      for (int k = 0; k < 2; ++k) {
        Page& p = pages[k];
        expect_eq(r, k == 0 ? "count on the page homed at 0" : "count on the page homed at 1", p.count(), v);
        if (v > 0) {
          if (p.last() >= np) violation(r, "page %d: last holder %" PRIu64 " is not a rank", k, p.last());
          expect_eq(r, k == 0 ? "lw[last] on the page homed at 0" : "lw[last] on the page homed at 1",
                    p.lw(static_cast<size_t>(p.last())), v);
        }
        expect_eq(r, "own word after the acquire", p.own(bank, me), own_val(r, s, me));
        p.count() = v + 1;
        p.last() = me;
        p.lw(me) = v + 1;
      }
      jia_unlock(lock);
    }
    jia_barrier();
    for (int k = 0; k < 2; ++k)
      for (size_t who = 0; who < np; ++who)
        if (pages[k].own(bank, who) != own_val(r, kSteps - 1, who) || pages[k].ch(bank, who) != ch_val(r, kSteps - 1, who))
          violation(r, "after the barrier, page %d: rank %zu's word 0x%" PRIx64 " / char %u, expected 0x%" PRIx64 " / %u", k,
                    who, pages[k].own(bank, who), pages[k].ch(bank, who), own_val(r, kSteps - 1, who),
                    ch_val(r, kSteps - 1, who));
  }
  return finish(iters);
}
