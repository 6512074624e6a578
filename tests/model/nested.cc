// Litmus: nested locks (G1, G2).
//
// Outer lock O, inner lock I (homed at different ranks). Page Q holds
//   c    — incremented in every critical section of I, nested or not;
//   a    — incremented in every critical section of O, outside the inner one;
//   w[r] — process r's own word, written inside O before acquiring I;
// page R (homed elsewhere) holds
//   b    — incremented inside I nested in O: every critical section of O
//          has exactly one nested section of I.
// In each iteration a process either runs O{ a; w; I{ c; b } } or I{ c }
// alone. The model requires:
//   (1) an acquirer of I alone sees the inner writes: c == version(I);
//   (2) an acquirer of O sees O's data including what was written in the
//       inner sections: a == b == version(O), read before taking I;
//   (3) own writes survive: w[r], written under O and not yet flushed, is
//       still there after acquiring I, whose grant invalidates page Q
//       (others wrote c there under I), and after releasing I.
#include "litmus.h"

using namespace litmus;

int main(int argc, char** argv) {
  const long iters = start("nested", &argc, &argv, 1500);
  const int np = nprocs();
  const size_t pg = page();
  auto* q = static_cast<uint64_t*>(scopedsm_alloc_cyclic(pg, pg, 0));
  auto* rp = static_cast<uint64_t*>(scopedsm_alloc_cyclic(pg, pg, np - 1));
  uint64_t& c = q[0];
  uint64_t& a = q[1];
  uint64_t* w = q + 16;
  uint64_t& b = rp[9];
  const int outer = 41, inner = 42;  // homed at 41 % np and 42 % np

  for (long i = 0; i < iters; ++i) {
    const uint64_t stamp = static_cast<uint64_t>(i) * 64 + static_cast<uint64_t>(rank()) + 1;
    if ((i + rank()) % 3 != 0) {
      jia_lock(outer);
      const uint64_t vo = version(outer);
      expect_eq(i, "a (outer data) at the outer grant", a, vo);
      expect_eq(i, "b (inner data written inside the outer lock) at the outer grant", b, vo);
      a = vo + 1;
      w[rank()] = stamp;
      jia_lock(inner);
      const uint64_t vi = version(inner);
      expect_eq(i, "own word w[rank] after the nested acquire", w[rank()], stamp);
      expect_eq(i, "c (inner data) at the nested inner grant", c, vi);
      c = vi + 1;
      b = vo + 1;
      jia_unlock(inner);
      expect_eq(i, "own word w[rank] after the inner release", w[rank()], stamp);
      jia_unlock(outer);
    } else {
      jia_lock(inner);
      const uint64_t vi = version(inner);
      expect_eq(i, "c (inner data) at a grant of the inner lock alone", c, vi);
      c = vi + 1;
      jia_unlock(inner);
    }
  }
  jia_barrier();
  long outer_total = 0, inner_total = 0;
  for (int r = 0; r < np; ++r)
    for (long i = 0; i < iters; ++i) {
      ++inner_total;
      if ((i + r) % 3 != 0) ++outer_total;
    }
  expect_eq(iters, "final a", a, static_cast<uint64_t>(outer_total));
  expect_eq(iters, "final b", b, static_cast<uint64_t>(outer_total));
  expect_eq(iters, "final c", c, static_cast<uint64_t>(inner_total));
  for (int r = 0; r < np; ++r) {
    uint64_t last = 0;
    for (long i = 0; i < iters; ++i)
      if ((i + r) % 3 != 0) last = static_cast<uint64_t>(i) * 64 + static_cast<uint64_t>(r) + 1;
    expect_eq(iters, "w[r] of every rank after the final barrier", w[r], last);
  }
  return finish(iters);
}
