#include "memory/page_cache.h"

#include <sys/mman.h>

namespace scopedsm {

PageCache::~PageCache() {
  if (twins_ != nullptr) munmap(twins_, capacity_ * page_size_);
}

Status PageCache::init(uint64_t capacity, size_t page_size) {
  capacity_ = capacity;
  page_size_ = page_size;
  pages_.assign(capacity, kEmpty);
  free_.resize(capacity);
  // Hand out low slots first so a small working set touches few twin pages.
  for (uint64_t i = 0; i < capacity; ++i) free_[i] = static_cast<uint32_t>(capacity - 1 - i);
  void* p = mmap(nullptr, capacity * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) return Status::Error("could not reserve twin buffers for the page cache");
  twins_ = static_cast<std::byte*>(p);
  return Status::Ok();
}

uint32_t PageCache::take_free() {
  if (free_.empty()) return kNoSlot;
  uint32_t s = free_.back();
  free_.pop_back();
  return s;
}

uint32_t PageCache::next_victim() {
  for (uint64_t i = 0; i < capacity_; ++i) {
    uint32_t s = hand_;
    hand_ = static_cast<uint32_t>((hand_ + 1) % capacity_);
    if (pages_[s] != kEmpty) return s;
  }
  return kNoSlot;
}

void PageCache::occupy(uint32_t slot, uint64_t page) { pages_[slot] = page; }

void PageCache::free(uint32_t slot) {
  pages_[slot] = kEmpty;
  free_.push_back(slot);
}

}  // namespace scopedsm
