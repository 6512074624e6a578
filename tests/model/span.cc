// Litmus: accesses that span pages (G1, G3, G6). One instruction needs
// several pages at once: an unaligned 8-byte store and load across a page
// boundary (2 pages), memcpy/memmove across it (may use `rep movsb`: a
// source and a destination page), and on x86-64 one `movsq` whose source
// and destination both straddle a boundary (4 pages).
//
// Quads of adjacent pages are homed in 4-page blocks at every rank. In round
// r each rank, in bank r % 2 of its own quad (boundaries b1, b2, b3),
//   writes an unaligned 64-bit stamp straddling b1,
//   moves a 96-byte block (shared to shared) across b2,
//   copies the stamp with one movsq to a place straddling b3 (x86-64,
//   unless --two-pages-only),
// reads all of it back (G1), then the barrier, then every rank checks
// every rank's data of the bank (G3, G6).
//
// --two-pages-only leaves out the 4-page movsq (for caches of 2 or 3 pages,
// which the runtime no longer accepts; the minimum of 4 holds all four).
#include "litmus.h"

using namespace litmus;

namespace {
uint64_t stamp(long r, int who) { return (static_cast<uint64_t>(r) + 1) * 0x10001ull ^ (static_cast<uint64_t>(who) << 56); }
void fill(unsigned char* buf, size_t n, long r, int who) {
  for (size_t i = 0; i < n; ++i) buf[i] = static_cast<unsigned char>(r * 7 + who * 31 + static_cast<long>(i));
}
constexpr size_t kBlock = 96;

// One movsq: 8 bytes from src to dst in a single instruction.
void movsq(unsigned char* dst, const unsigned char* src) {
#if defined(__x86_64__)
  long n = 1;
  __asm__ volatile("rep movsq" : "+S"(src), "+D"(dst), "+c"(n) : : "memory");
#else
  std::memcpy(dst, src, 8);
#endif
}
}  // namespace

int main(int argc, char** argv) {
  const long iters = start("span", &argc, &argv, 500);
  bool four_pages = true;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--two-pages-only") == 0) four_pages = false;
  const int np = nprocs();
  const size_t pg = page();
  // Quad k (pages 4k .. 4k+3) is homed at rank (k + 1) % np; rank w uses
  // quad 2w + bank.
  auto* base = static_cast<unsigned char*>(scopedsm_alloc_cyclic(8 * static_cast<size_t>(np) * pg, 4 * pg, 1 % np));
  auto quad = [&](int who, long bank) { return base + (2 * static_cast<size_t>(who) + static_cast<size_t>(bank)) * 4 * pg; };

  unsigned char want[kBlock], got[kBlock];
  uint64_t back;
  for (long r = 0; r < iters; ++r) {
    const long bank = r % 2;
    unsigned char* b1 = quad(rank(), bank) + pg;
    unsigned char* b2 = b1 + pg;
    unsigned char* b3 = b2 + pg;
    const uint64_t s = stamp(r, rank());
    std::memcpy(b1 - 3, &s, sizeof s);  // 3 bytes before the boundary, 5 after
    fill(want, kBlock, r, rank());
    std::memcpy(b1 - 200, want, kBlock);               // staged in the first page
    std::memmove(b2 - kBlock / 2, b1 - 200, kBlock);   // shared to shared, across b2
    if (four_pages) movsq(b3 - 5, b1 - 3);             // pages 1-2 to pages 3-4 in one instruction
    std::memcpy(&back, b1 - 3, sizeof back);
    expect_eq(r, "own stamp across the page boundary", back, s);
    std::memcpy(got, b2 - kBlock / 2, kBlock);
    if (std::memcmp(got, want, kBlock) != 0) violation(r, "own block moved across the page boundary differs");
    if (four_pages) {
      std::memcpy(&back, b3 - 5, sizeof back);
      expect_eq(r, "own stamp copied by one movsq over four pages", back, s);
    }
    jia_barrier();
    for (int w = 0; w < np; ++w) {
      unsigned char* w1 = quad(w, bank) + pg;
      std::memcpy(&back, w1 - 3, sizeof back);
      expect_eq(r, "another rank's stamp across the page boundary after the barrier", back, stamp(r, w));
      fill(want, kBlock, r, w);
      std::memcpy(got, w1 + pg - kBlock / 2, kBlock);
      if (std::memcmp(got, want, kBlock) != 0)
        violation(r, "rank %d's block across the page boundary differs after the barrier", w);
      if (four_pages) {
        std::memcpy(&back, w1 + 2 * pg - 5, sizeof back);
        expect_eq(r, "another rank's movsq copy across the page boundary after the barrier", back, stamp(r, w));
      }
    }
  }
  return finish(iters);
}
