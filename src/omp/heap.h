// The shared heap of an OpenMP program (docs/OPENMP.md, "What is shared").
//
// The program's malloc, calloc, realloc, posix_memalign, aligned_alloc,
// memalign, valloc and free, C++'s new and delete and Fortran's ALLOCATE
// and DEALLOCATE come here (omp/start.c redirects the program's own calls;
// calls from libraries stay with the C library). Each process allocates
// from an arena of its own in the shared region, without asking anyone:
// the arenas are disjoint, so two processes never hand out the same
// bytes, and every process can use any block, wherever it came from.
//
// A block is a 16-byte header, in shared memory right before the payload,
// that says the block's capacity and which arena it belongs to. Small
// blocks come in size classes of 16 bytes up to 512, then four classes per
// power of two up to 32 KiB; larger ones are runs of whole pages, kept in
// a free map that merges neighbours. Freed blocks are kept for reuse in
// private lists. A block freed by another process than the one that
// allocated it is left alone (counted in foreign_frees): that process's
// lists are its own, and reusing the memory from here could hand out
// bytes still in use there.
//
// Memory never handed out before is all zeros (the region's pages read as
// zeros until written), so calloc of fresh memory writes nothing: its pages
// stay untouched until the program writes them, which lets their homes go
// to the processes that first write them (first touch).
//
// Thread safety: one mutex per heap; OpenMP programs allocate from their
// one thread per process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace scopedsm::omp {

class SharedHeap {
 public:
  static constexpr size_t kHeader = 16;
  static constexpr size_t kMaxSmall = 32768;

  // Our arena: [arena, arena + bytes), page-aligned, never written before.
  // `owner` tells our blocks from other arenas' in the headers.
  void init(std::byte* arena, uint64_t bytes, uint32_t owner, size_t page_size);
  bool ready() const { return arena_ != nullptr; }

  // nullptr when the arena is full (the caller reports it). `align` is a
  // power of two; 16 or less gives 16-byte alignment.
  void* allocate(size_t size, size_t align = 16);
  // calloc: zeroed, of n * size bytes (nullptr if that overflows or is full).
  void* allocate_zeroed(size_t n, size_t size);
  // A block of any arena (or one already freed: reported by the caller).
  enum class FreeResult { kFreed, kForeign, kDoubleFree, kNotABlock };
  FreeResult free(void* p);
  // The payload capacity of a block of any arena; 0 if `p` is not a block.
  static size_t capacity(const void* p);

  struct Counters {
    uint64_t allocations = 0, frees = 0, foreign_frees = 0;
    uint64_t bytes_in_use = 0;   // payload capacity of our blocks in use
    uint64_t bytes_reserved = 0;  // arena bytes handed out by the bump pointer
  };
  Counters counters() const;

  // The size class (index) of a small request, and its capacity.
  static uint32_t class_of(size_t size);
  static size_t class_capacity(uint32_t c);
  static constexpr uint32_t kClasses = 32 + 6 * 4;

 private:
  struct Header {
    uint64_t capacity;  // payload bytes
    uint32_t magic;     // kLive ^ owner, or kFree ^ owner
    uint32_t shift;     // aligned blocks: bytes from the block's real header to this one; else 0
  };
  static constexpr uint32_t kLive = 0x5c0bed00u;
  static constexpr uint32_t kFreed = 0xdeadf4eeu;
  static Header* header_of(const void* p) { return reinterpret_cast<Header*>(const_cast<std::byte*>(static_cast<const std::byte*>(p)) - kHeader); }

  void* take(size_t capacity, bool* fresh);    // a block of `capacity` (a class's, or whole pages)
  std::byte* bump(size_t bytes, size_t align);  // fresh arena memory, or nullptr
  void* place_header(std::byte* block, size_t capacity);

  mutable std::mutex mu_;
  std::byte* arena_ = nullptr;  // guarded by mu_ after init
  std::byte* top_ = nullptr;    // guarded by mu_: the bump pointer
  std::byte* end_ = nullptr;
  uint32_t owner_ = 0;
  size_t page_ = 4096;
  std::vector<std::vector<std::byte*>> small_free_;   // guarded by mu_: per class, block starts (headers)
  std::map<std::byte*, size_t> large_free_;           // guarded by mu_: run start -> bytes
  std::multimap<size_t, std::byte*> large_by_size_;   // guarded by mu_: the same runs by size
  Counters counters_;                                 // guarded by mu_
};

}  // namespace scopedsm::omp
