// The cache of remote pages: a fixed number of slots, each holding one page
// homed elsewhere, plus one twin buffer per slot.
//
// Replacement is first-in first-out by fetch order (docs/PROTOCOL.md §1):
// the victim is the page placed (occupy, at its fetch) longest ago. A page
// invalidated before its turn leaves the queue, and a fetched page joins at
// the back whichever free slot it lands in, so the most recently fetched
// pages stay (with 4 slots, all four pages of one instruction). A victim the
// caller must keep (a page pinned by scopedsm_prepare) goes to the back.
// The coherence engine decides what evicting a page means (a dirty page's
// diff goes home first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "memory/page_table.h"

namespace scopedsm {

class PageCache {
 public:
  PageCache() = default;
  ~PageCache();
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  Status init(uint64_t capacity, size_t page_size);

  // A free slot, or kNoSlot when every slot is occupied.
  uint32_t take_free();
  // The occupied slot placed longest ago, or kNoSlot when none is. It moves
  // to the back of the queue: a caller that must keep it (a page pinned by
  // scopedsm_prepare) asks again for the next oldest; one that evicts it
  // calls free().
  uint32_t next_victim();
  // Places `page` in a slot taken with take_free(); it joins the back of the queue.
  void occupy(uint32_t slot, uint64_t page);
  void free(uint32_t slot);

  uint64_t page_in(uint32_t slot) const { return pages_[slot]; }
  std::byte* twin(uint32_t slot) const { return twins_ + static_cast<size_t>(slot) * page_size_; }
  uint64_t capacity() const { return capacity_; }
  // The pages in occupied slots, oldest first (O(occupied), not O(capacity)).
  template <typename F>
  void for_each_page(F&& f) const {
    for (uint32_t s = head_; s != kNoSlot; s = newer_[s]) f(pages_[s]);
  }
  uint64_t used() const { return capacity_ - free_.size(); }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  void link_back(uint32_t slot);
  void unlink(uint32_t slot);

  std::vector<uint64_t> pages_;   // page held by each slot, or kEmpty
  std::vector<uint32_t> free_;    // stack of free slots
  // The queue of occupied slots, oldest first, as a doubly linked list
  // through the slots: an invalidation frees a slot in the middle in O(1).
  std::vector<uint32_t> older_;   // towards head_, kNoSlot at the head
  std::vector<uint32_t> newer_;   // towards tail_, kNoSlot at the tail
  uint32_t head_ = kNoSlot;       // oldest occupied slot
  uint32_t tail_ = kNoSlot;       // newest occupied slot
  std::byte* twins_ = nullptr;    // capacity pages, lazily backed
  uint64_t capacity_ = 0;
  size_t page_size_ = 4096;
};

}  // namespace scopedsm
