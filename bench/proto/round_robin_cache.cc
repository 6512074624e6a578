#include "proto/round_robin_cache.h"

namespace bench::proto {

RoundRobinCache::RoundRobinCache(uint64_t capacity) : pages_(capacity, kEmpty), free_(capacity) {
  // Slot 0 on top of the stack, as the runtime had it.
  for (uint64_t i = 0; i < capacity; ++i) free_[i] = static_cast<uint32_t>(capacity - 1 - i);
}

uint32_t RoundRobinCache::take_free() {
  if (free_.empty()) return kNoSlot;
  const uint32_t s = free_.back();
  free_.pop_back();
  return s;
}

uint32_t RoundRobinCache::next_victim() {
  const uint64_t n = pages_.size();
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t s = hand_;
    hand_ = static_cast<uint32_t>((hand_ + 1) % n);
    if (pages_[s] != kEmpty) return s;
  }
  return kNoSlot;
}

void RoundRobinCache::free(uint32_t slot) {
  pages_[slot] = kEmpty;
  free_.push_back(slot);
}

}  // namespace bench::proto
