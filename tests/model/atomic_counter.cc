// Litmus: atomics at the home (docs/MEMORY_MODEL.md A1, A2).
//
// Every process hammers a few words with relaxed atomics: a 64-bit counter
// homed at rank 0, a 32-bit one and a double homed at the last rank (same
// page), a counter incremented only by compare-and-swap loops, and min, max,
// or, xor words. Every fetch_add's old value is unique per counter (A1), a
// process's own fetch_adds return increasing values (A2), and after the final
// barrier every word is exact. The negative control atomic-torn (the home
// loads, yields, then stores) loses updates and must fail.
#include "litmus.h"

using namespace litmus;

namespace {
struct Words {
  int64_t count64;
  int32_t count32;
  int32_t pad;
  double sum;
  uint64_t cas_count;
  int64_t min;
  int64_t max;
  uint64_t bits_or;
  uint32_t bits_xor;
};
}  // namespace

int main(int argc, char** argv) {
  const long iters = start("atomic_counter", &argc, &argv, 3000);
  const int np = nprocs(), me = rank();
  auto* a = static_cast<int64_t*>(scopedsm_alloc_on(page(), 0));
  auto* w = static_cast<Words*>(scopedsm_alloc_on(page(), np - 1));
  std::vector<int64_t> seen;  // our fetch_add results on *a
  seen.reserve(static_cast<size_t>(iters));
  int64_t last = -1;
  for (long i = 0; i < iters; ++i) {
    const int64_t old = scopedsm_atomic_fetch_add_i64(a, 1, SCOPEDSM_RELAXED);
    if (old <= last) violation(i, "fetch_add returned %lld after %lld: not in program order", static_cast<long long>(old), static_cast<long long>(last));
    last = old;
    seen.push_back(old);
    scopedsm_atomic_fetch_add_i32(&w->count32, 2, SCOPEDSM_RELAXED);
    scopedsm_atomic_fetch_add_f64(&w->sum, 0.5, SCOPEDSM_RELAXED);
    uint64_t e = scopedsm_atomic_load_u64(&w->cas_count, SCOPEDSM_RELAXED);
    while (!scopedsm_atomic_compare_exchange_u64(&w->cas_count, &e, e + 1, SCOPEDSM_RELAXED)) {
    }
    if (i % 16 == 0) {
      scopedsm_atomic_fetch_min_i64(&w->min, -static_cast<int64_t>(me * iters + i), SCOPEDSM_RELAXED);
      scopedsm_atomic_fetch_max_i64(&w->max, static_cast<int64_t>(me * iters + i), SCOPEDSM_RELAXED);
      scopedsm_atomic_fetch_or_u64(&w->bits_or, 1ull << ((me * 7 + i / 16) % 64), SCOPEDSM_RELAXED);
      scopedsm_atomic_fetch_xor_u32(&w->bits_xor, 1u << (me % 32), SCOPEDSM_RELAXED);
    }
  }
  // A1: no two fetch_adds anywhere returned the same value, so the values
  // are exactly 0 .. np * iters - 1.
  std::vector<int64_t> all = gather(seen);
  if (me == 0) {
    std::vector<char> hit(static_cast<size_t>(np) * static_cast<size_t>(iters), 0);
    for (int64_t v : all) {
      if (v < 0 || v >= static_cast<int64_t>(hit.size()) || hit[static_cast<size_t>(v)])
        violation(iters, "fetch_add returned %lld twice or out of range: an update was lost", static_cast<long long>(v));
      hit[static_cast<size_t>(v)] = 1;
    }
  }
  scopedsm_barrier();
  const uint64_t total = static_cast<uint64_t>(np) * static_cast<uint64_t>(iters);
  expect_eq(iters, "64-bit counter (plain read after the barrier)", static_cast<uint64_t>(*a), total);
  expect_eq(iters, "32-bit counter", static_cast<uint64_t>(w->count32), 2 * total);
  expect_eq(iters, "double sum * 2", static_cast<uint64_t>(w->sum * 2), total);
  expect_eq(iters, "compare-and-swap counter", w->cas_count, total);
  const long last16 = (iters - 1) / 16 * 16;
  expect_eq(iters, "min", static_cast<uint64_t>(-w->min), static_cast<uint64_t>((np - 1) * iters + last16));
  expect_eq(iters, "max", static_cast<uint64_t>(w->max), static_cast<uint64_t>((np - 1) * iters + last16));
  uint32_t x = 0;
  for (int r = 0; r < np; ++r)
    if (((iters + 15) / 16) % 2 == 1) x ^= 1u << (r % 32);
  expect_eq(iters, "xor", static_cast<uint64_t>(w->bits_xor), static_cast<uint64_t>(x));
  uint64_t o = 0;
  for (int r = 0; r < np; ++r)
    for (long i = 0; i < iters; i += 16) o |= 1ull << ((r * 7 + i / 16) % 64);
  expect_eq(iters, "or", w->bits_or, o);
  return finish(iters);
}
