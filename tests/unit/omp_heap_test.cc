// The OpenMP runtime's shared heap (omp/heap.h) on a private arena: blocks
// never overlap and stay inside the arena, their capacity covers the
// request, alignments hold, freed blocks are reused, large runs merge with
// free neighbours, calloc returns zeros (also for reused memory), and
// foreign and double frees are told apart.
#include "omp/heap.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

namespace scopedsm::omp {
namespace {

class Arena {
 public:
  explicit Arena(size_t bytes) : bytes_(bytes) {
    mem_ = static_cast<std::byte*>(
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
  }
  ~Arena() { munmap(mem_, bytes_); }
  std::byte* base() const { return mem_; }
  size_t bytes() const { return bytes_; }

 private:
  std::byte* mem_;
  size_t bytes_;
};

TEST(OmpHeap, SizeClassesCoverEveryRequest) {
  for (size_t n = 1; n <= SharedHeap::kMaxSmall; n += (n < 2048 ? 1 : 37)) {
    const uint32_t c = SharedHeap::class_of(n);
    ASSERT_LT(c, SharedHeap::kClasses) << n;
    ASSERT_GE(SharedHeap::class_capacity(c), n);
    if (c > 0) {
      ASSERT_LT(SharedHeap::class_capacity(c - 1), n) << "the smallest class that fits";
    }
  }
}

TEST(OmpHeap, BlocksNeverOverlapAndStayInTheArena) {
  Arena arena(size_t{512} << 20);
  SharedHeap heap;
  heap.init(arena.base(), arena.bytes(), 3, 4096);
  std::mt19937 rng(7);
  std::map<std::byte*, size_t> live;
  for (int i = 0; i < 5000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      ASSERT_EQ(heap.free(it->first), SharedHeap::FreeResult::kFreed);
      live.erase(it);
      continue;
    }
    const size_t n = rng() % 4 == 0 ? 40000 + rng() % 200000 : 1 + rng() % 3000;
    const size_t align = size_t{16} << (rng() % 4 == 0 ? rng() % 8 : 0);
    auto* p = static_cast<std::byte*>(heap.allocate(n, align));
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u);
    ASSERT_GE(SharedHeap::capacity(p), n);
    ASSERT_GE(p, arena.base());
    ASSERT_LE(p + n, arena.base() + arena.bytes());
    auto next = live.lower_bound(p);
    if (next != live.end()) {
      ASSERT_LE(p + n, next->first) << "overlaps the next block";
    }
    if (next != live.begin()) {
      auto prev = std::prev(next);
      ASSERT_LE(prev->first + prev->second, p) << "overlaps the previous block";
    }
    std::memset(p, 0x5a, n);
    live[p] = n;
  }
  const auto c = heap.counters();
  EXPECT_EQ(c.allocations - c.frees, live.size());
}

TEST(OmpHeap, FreedBlocksAreReusedAndLargeRunsMerge) {
  Arena arena(16u << 20);
  SharedHeap heap;
  heap.init(arena.base(), arena.bytes(), 0, 4096);
  void* a = heap.allocate(100);
  ASSERT_EQ(heap.free(a), SharedHeap::FreeResult::kFreed);
  EXPECT_EQ(heap.allocate(100), a) << "a freed small block is reused";
  void* big1 = heap.allocate(100000);
  void* big2 = heap.allocate(100000);
  const uint64_t reserved = heap.counters().bytes_reserved;
  heap.free(big1);
  heap.free(big2);
  void* merged = heap.allocate(200000);
  EXPECT_EQ(merged, big1) << "two freed neighbouring runs serve a request of both";
  EXPECT_EQ(heap.counters().bytes_reserved, reserved) << "without new arena memory";
}

TEST(OmpHeap, CallocIsZerosAlsoForReusedMemory) {
  Arena arena(16u << 20);
  SharedHeap heap;
  heap.init(arena.base(), arena.bytes(), 0, 4096);
  auto* p = static_cast<unsigned char*>(heap.allocate(5000));
  std::memset(p, 0xff, 5000);
  heap.free(p);
  auto* z = static_cast<unsigned char*>(heap.allocate_zeroed(1250, 4));
  ASSERT_EQ(z, p) << "the freed block is reused";
  EXPECT_TRUE(std::all_of(z, z + 5000, [](unsigned char b) { return b == 0; }));
  EXPECT_EQ(heap.allocate_zeroed(SIZE_MAX / 2, 4), nullptr) << "n * size overflows";
}

TEST(OmpHeap, ForeignDoubleAndNonBlocks) {
  Arena arena(16u << 20);
  SharedHeap mine, theirs;
  mine.init(arena.base(), arena.bytes() / 2, 0, 4096);
  theirs.init(arena.base() + arena.bytes() / 2, arena.bytes() / 2, 1, 4096);
  void* b = theirs.allocate(64);
  EXPECT_EQ(mine.free(b), SharedHeap::FreeResult::kForeign);
  EXPECT_EQ(mine.counters().foreign_frees, 1u);
  void* a = mine.allocate(64);
  EXPECT_EQ(mine.free(a), SharedHeap::FreeResult::kFreed);
  EXPECT_EQ(mine.free(a), SharedHeap::FreeResult::kDoubleFree);
  void* aligned = mine.allocate(64, 256);
  EXPECT_EQ(mine.free(aligned), SharedHeap::FreeResult::kFreed) << "an aligned block frees through its header";
}

TEST(OmpHeap, FullArenaReturnsNull) {
  Arena arena(1u << 20);
  SharedHeap heap;
  heap.init(arena.base(), arena.bytes(), 0, 4096);
  EXPECT_EQ(heap.allocate(2u << 20), nullptr);
  EXPECT_NE(heap.allocate(1000), nullptr);
}

}  // namespace
}  // namespace scopedsm::omp
