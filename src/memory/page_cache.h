// The cache of remote pages: a fixed number of slots, each holding one page
// homed elsewhere, plus one twin buffer per slot.
//
// Replacement is round-robin over occupied slots (JIAJIA's "round robin
// way"); the coherence engine decides what evicting a page means (a dirty
// page's diff goes home first).
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
  // The next occupied slot in round-robin order (the cache must be full).
  uint32_t next_victim();
  void occupy(uint32_t slot, uint64_t page);
  void free(uint32_t slot);

  uint64_t page_in(uint32_t slot) const { return pages_[slot]; }
  std::byte* twin(uint32_t slot) const { return twins_ + static_cast<size_t>(slot) * page_size_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return capacity_ - free_.size(); }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  std::vector<uint64_t> pages_;   // page held by each slot, or kEmpty
  std::vector<uint32_t> free_;    // stack of free slots
  std::byte* twins_ = nullptr;    // capacity pages, lazily backed
  uint64_t capacity_ = 0;
  size_t page_size_ = 4096;
  uint32_t hand_ = 0;
};

}  // namespace scopedsm
