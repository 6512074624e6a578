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
//
// Remote-aware replacement (CachePolicy::kRemoteVictim, SCOPEDSM_CACHE_POLICY
// =remote; docs/PROTOCOL.md §1): the slots form two queues, as the RVC of
// the SHPSEC paper splits a cache into an LRU part and a remote victim cache.
// Every page joins the main queue. When a victim is wanted, the main queue's
// oldest page is it if its home is near (on this node: a copy costs a
// memcpy); a far page (homed on another node: a network round trip) moves
// instead to the victim queue, which holds at most half the slots. Only
// when the victim queue is full does its oldest page go, the far page taking
// its place. A near page thus lives for at most as many fetches as the main
// queue holds, a far one up to twice as long. With only near or only far
// pages the two queues are one FIFO. The main queue always keeps at least 4
// slots (the victim queue holds at most capacity - 4), so the three pages
// fetched just before a fourth are never its victim, as under FIFO.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "memory/page_table.h"

namespace scopedsm {

enum class CachePolicy : uint8_t { kFifo, kRemoteVictim };

class PageCache {
 public:
  PageCache() = default;
  ~PageCache();
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  Status init(uint64_t capacity, size_t page_size, CachePolicy policy = CachePolicy::kFifo);

  // A free slot, or kNoSlot when every slot is occupied.
  uint32_t take_free();
  // The occupied slot to evict next, or kNoSlot when none is: under FIFO the
  // one placed longest ago; under kRemoteVictim as the header says. It moves
  // to the back of its queue: a caller that must keep it (a page pinned by
  // scopedsm_prepare) asks again for the next; one that evicts it calls
  // free().
  uint32_t next_victim();
  // Places `page` in a slot taken with take_free(); it joins the back of the
  // main queue. `far`: its home is on another node (kRemoteVictim only).
  void occupy(uint32_t slot, uint64_t page, bool far = true);
  void free(uint32_t slot);

  uint64_t page_in(uint32_t slot) const { return pages_[slot]; }
  bool far(uint32_t slot) const { return far_[slot] != 0; }
  std::byte* twin(uint32_t slot) const { return twins_ + static_cast<size_t>(slot) * page_size_; }
  uint64_t capacity() const { return capacity_; }
  // The pages in occupied slots, oldest first (O(occupied), not O(capacity)).
  template <typename F>
  void for_each_page(F&& f) const {
    for (const Queue& q : {victims_, main_})
      for (uint32_t s = q.head; s != kNoSlot; s = newer_[s]) f(pages_[s]);
  }
  CachePolicy policy() const { return policy_; }
  // Switches the policy with pages cached (benchmarks compare the two in
  // one run): the victim part's pages, older than the main part's, join
  // the main queue at its front, in order.
  void set_policy(CachePolicy policy);
  uint64_t used() const { return capacity_ - free_.size(); }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  // A queue of occupied slots, oldest first, as a doubly linked list through
  // the slots: an invalidation frees a slot in the middle in O(1).
  struct Queue {
    uint32_t head = kNoSlot;  // oldest
    uint32_t tail = kNoSlot;  // newest
    uint64_t size = 0;
  };
  Queue& queue_of(uint32_t slot) { return in_victims_[slot] ? victims_ : main_; }
  void link_back(Queue& q, uint32_t slot);
  void link_front(Queue& q, uint32_t slot);
  void unlink(Queue& q, uint32_t slot);

  std::vector<uint64_t> pages_;   // page held by each slot, or kEmpty
  std::vector<uint32_t> free_;    // stack of free slots
  std::vector<uint32_t> older_;   // towards the head of its queue, kNoSlot at the head
  std::vector<uint32_t> newer_;   // towards the tail of its queue, kNoSlot at the tail
  std::vector<uint8_t> far_;      // the slot's page is homed on another node
  std::vector<uint8_t> in_victims_;  // the slot is on victims_, not main_
  Queue main_;                    // every occupied slot under FIFO
  Queue victims_;                 // kRemoteVictim: far pages moved out of main_
  uint64_t victims_cap_ = 0;      // most slots victims_ may hold
  CachePolicy policy_ = CachePolicy::kFifo;
  std::byte* twins_ = nullptr;    // capacity pages, lazily backed
  uint64_t capacity_ = 0;
  size_t page_size_ = 4096;
};

}  // namespace scopedsm
