// The page-cache replacement policy ScopeDSM used before first-in first-out
// (src/memory/page_cache.cc up to commit 8ba5f45), kept as the baseline of
// bench/micro/cache_replacement: a hand that goes round the slot indices and
// takes the next occupied slot, and a stack of free slots, so a slot freed
// by an invalidation is the next one filled — wherever the hand is. A page
// placed just ahead of the hand is the next victim however new it is.
//
// Same interface as scopedsm::PageCache minus the twins, so one replay of an
// access trace drives either.
#pragma once

#include <cstdint>
#include <vector>

namespace bench::proto {

class RoundRobinCache {
 public:
  static constexpr uint32_t kNoSlot = UINT32_MAX;

  explicit RoundRobinCache(uint64_t capacity);
  uint32_t take_free();
  // The next occupied slot at or after the hand; the hand moves past it.
  uint32_t next_victim();
  void occupy(uint32_t slot, uint64_t page) { pages_[slot] = page; }
  void free(uint32_t slot);

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  std::vector<uint64_t> pages_;
  std::vector<uint32_t> free_;  // stack: the slot freed last is taken first
  uint32_t hand_ = 0;
};

}  // namespace bench::proto
