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
  older_.assign(capacity, kNoSlot);
  newer_.assign(capacity, kNoSlot);
  head_ = tail_ = kNoSlot;
  free_.resize(capacity);
  // Hand out low slots first, and reuse the slot freed last (a stack), so a
  // small working set touches few twin pages. Replacement order does not
  // depend on it.
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

void PageCache::link_back(uint32_t slot) {
  older_[slot] = tail_;
  newer_[slot] = kNoSlot;
  if (tail_ != kNoSlot) newer_[tail_] = slot;
  else head_ = slot;
  tail_ = slot;
}

void PageCache::unlink(uint32_t slot) {
  if (older_[slot] != kNoSlot) newer_[older_[slot]] = newer_[slot];
  else head_ = newer_[slot];
  if (newer_[slot] != kNoSlot) older_[newer_[slot]] = older_[slot];
  else tail_ = older_[slot];
  older_[slot] = newer_[slot] = kNoSlot;
}

uint32_t PageCache::next_victim() {
  uint32_t s = head_;
  if (s == kNoSlot) return kNoSlot;
  unlink(s);
  link_back(s);
  return s;
}

void PageCache::occupy(uint32_t slot, uint64_t page) {
  pages_[slot] = page;
  link_back(slot);
}

void PageCache::free(uint32_t slot) {
  unlink(slot);
  pages_[slot] = kEmpty;
  free_.push_back(slot);
}

}  // namespace scopedsm
