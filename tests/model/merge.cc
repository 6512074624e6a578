// Litmus: several writers to the same page merged (G3, G6).
//
// Two pages, homed at rank 0 and at rank np-1. Each page holds two banks of
// chars, shorts, 32-bit and 64-bit words; element e of each kind belongs to
// rank e % np, so neighbouring chars and shorts inside one 8-byte word have
// different writers. In round r every process writes all its elements of
// bank r % 2 on both pages (in alternate rounds inside a critical section
// of a lock of its own, the rest outside any), concurrently with the others,
// then the barrier, then every process checks every element of the bank.
// A diff that carried whole words instead of changed bytes, or a lost diff,
// shows up as a neighbour's value being overwritten or a stale value.
#include "litmus.h"

using namespace litmus;

namespace {

constexpr size_t kBank = 2048;  // bytes per bank; two banks per page
constexpr size_t kChars = 256, kShorts = 128, kInts = 128, kLongs = 128;

uint8_t v8(long r, size_t e) { return static_cast<uint8_t>(r * 3 + static_cast<long>(e) * 5 + 1); }
uint16_t v16(long r, size_t e) { return static_cast<uint16_t>(r * 3 + static_cast<long>(e) * 977 + 1); }
uint32_t v32(long r, size_t e) { return static_cast<uint32_t>(r * 3 + static_cast<long>(e) * 100003 + 1); }
uint64_t v64(long r, size_t e) { return (static_cast<uint64_t>(r) * 3 + 1) << 32 | e; }

struct Bank {
  uint8_t* c;
  uint16_t* s;
  uint32_t* i;
  uint64_t* l;
};

Bank bank_at(char* page_base, long bank) {
  char* b = page_base + static_cast<size_t>(bank) * kBank;
  return {reinterpret_cast<uint8_t*>(b), reinterpret_cast<uint16_t*>(b + kChars),
          reinterpret_cast<uint32_t*>(b + kChars + 2 * kShorts),
          reinterpret_cast<uint64_t*>(b + kChars + 2 * kShorts + 4 * kInts)};
}

}  // namespace

int main(int argc, char** argv) {
  const long iters = start("merge", &argc, &argv, 600);
  const size_t np = static_cast<size_t>(nprocs());
  const size_t me = static_cast<size_t>(rank());
  const size_t pg = page();
  static_assert(kChars + 2 * kShorts + 4 * kInts + 8 * kLongs <= kBank);
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(pg, pg, 0));
  auto* other = static_cast<char*>(scopedsm_alloc_cyclic(pg, pg, static_cast<int>(np) - 1));
  char* pages[2] = {base, other};

  for (long r = 0; r < iters; ++r) {
    const bool locked = (r / 2 + static_cast<long>(me)) % 2 == 1;
    if (locked) jia_lock(110 + static_cast<int>(me));
    for (char* p : pages) {
      Bank b = bank_at(p, r % 2);
      for (size_t e = me; e < kChars; e += np) b.c[e] = v8(r, e);
      for (size_t e = me; e < kShorts; e += np) b.s[e] = v16(r, e);
      for (size_t e = me; e < kInts; e += np) b.i[e] = v32(r, e);
      for (size_t e = me; e < kLongs; e += np) b.l[e] = v64(r, e);
    }
    if (locked) jia_unlock(110 + static_cast<int>(me));
    jia_barrier();
    for (int k = 0; k < 2; ++k) {
      Bank b = bank_at(pages[k], r % 2);
      const char* where = k == 0 ? "page homed at rank 0" : "page homed at rank np-1";
      for (size_t e = 0; e < kChars; ++e)
        if (b.c[e] != v8(r, e)) violation(r, "%s: char %zu (rank %zu's) is %u, expected %u", where, e, e % np, b.c[e], v8(r, e));
      for (size_t e = 0; e < kShorts; ++e)
        if (b.s[e] != v16(r, e))
          violation(r, "%s: short %zu (rank %zu's) is %u, expected %u", where, e, e % np, b.s[e], v16(r, e));
      for (size_t e = 0; e < kInts; ++e)
        if (b.i[e] != v32(r, e))
          violation(r, "%s: int %zu (rank %zu's) is %u, expected %u", where, e, e % np, b.i[e], v32(r, e));
      for (size_t e = 0; e < kLongs; ++e)
        if (b.l[e] != v64(r, e))
          violation(r, "%s: long %zu (rank %zu's) is 0x%" PRIx64 ", expected 0x%" PRIx64, where, e, e % np, b.l[e],
                    v64(r, e));
    }
  }
  return finish(iters);
}
