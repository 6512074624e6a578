// Litmus: accesses that span two pages (G1, G3, G6). One instruction needs
// both pages at once: an unaligned 8-byte store and load across a page
// boundary, and memcpy/memmove (which may use `rep movsb`) across it.
//
// Triples of adjacent pages are homed in 3-page blocks at every rank. In
// round r each rank writes, in bank r % 2 of its own triple, an unaligned
// 64-bit stamp straddling the first page boundary, and a 96-byte block
// moved (shared to shared) across the second, reads both back (G1), then
// the barrier, then every rank checks every rank's stamp and block of the
// bank (G3, G6).
#include "litmus.h"

using namespace litmus;

namespace {
uint64_t stamp(long r, int who) { return (static_cast<uint64_t>(r) + 1) * 0x10001ull ^ (static_cast<uint64_t>(who) << 56); }
void fill(unsigned char* buf, size_t n, long r, int who) {
  for (size_t i = 0; i < n; ++i) buf[i] = static_cast<unsigned char>(r * 7 + who * 31 + static_cast<long>(i));
}
constexpr size_t kBlock = 96;
}  // namespace

int main(int argc, char** argv) {
  const long iters = start("span", &argc, &argv, 500);
  const int np = nprocs();
  const size_t pg = page();
  // Triple k (pages 3k .. 3k+2) is homed at rank (k + 1) % np; rank w uses
  // triple 2w + bank.
  auto* base = static_cast<unsigned char*>(scopedsm_alloc_cyclic(6 * static_cast<size_t>(np) * pg, 3 * pg, 1 % np));
  auto triple = [&](int who, long bank) { return base + (2 * static_cast<size_t>(who) + static_cast<size_t>(bank)) * 3 * pg; };

  unsigned char want[kBlock], got[kBlock];
  for (long r = 0; r < iters; ++r) {
    const long bank = r % 2;
    unsigned char* b1 = triple(rank(), bank) + pg;
    unsigned char* b2 = b1 + pg;
    const uint64_t s = stamp(r, rank());
    std::memcpy(b1 - 3, &s, sizeof s);  // 3 bytes before the boundary, 5 after
    fill(want, kBlock, r, rank());
    std::memcpy(b1 - 200, want, kBlock);               // staged in the first page
    std::memmove(b2 - kBlock / 2, b1 - 200, kBlock);   // shared to shared, across the second boundary
    uint64_t back;
    std::memcpy(&back, b1 - 3, sizeof back);
    expect_eq(r, "own stamp across the page boundary", back, s);
    std::memcpy(got, b2 - kBlock / 2, kBlock);
    if (std::memcmp(got, want, kBlock) != 0) violation(r, "own block copied across the page boundary differs");
    jia_barrier();
    for (int w = 0; w < np; ++w) {
      unsigned char* w1 = triple(w, bank) + pg;
      std::memcpy(&back, w1 - 3, sizeof back);
      expect_eq(r, "another rank's stamp across the page boundary after the barrier", back, stamp(r, w));
      fill(want, kBlock, r, w);
      std::memcpy(got, w1 + pg - kBlock / 2, kBlock);
      if (std::memcmp(got, want, kBlock) != 0)
        violation(r, "rank %d's block across the page boundary differs after the barrier", w);
    }
  }
  return finish(iters);
}
