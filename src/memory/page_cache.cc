#include "memory/page_cache.h"

#include <sys/mman.h>

#include <algorithm>

namespace scopedsm {

PageCache::~PageCache() {
  if (twins_ != nullptr) munmap(twins_, capacity_ * page_size_);
}

Status PageCache::init(uint64_t capacity, size_t page_size, CachePolicy policy) {
  capacity_ = capacity;
  page_size_ = page_size;
  policy_ = policy;
  pages_.assign(capacity, kEmpty);
  older_.assign(capacity, kNoSlot);
  newer_.assign(capacity, kNoSlot);
  far_.assign(capacity, 0);
  in_victims_.assign(capacity, 0);
  main_ = victims_ = Queue{};
  set_policy(policy);
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

void PageCache::link_back(Queue& q, uint32_t slot) {
  older_[slot] = q.tail;
  newer_[slot] = kNoSlot;
  if (q.tail != kNoSlot) newer_[q.tail] = slot;
  else q.head = slot;
  q.tail = slot;
  ++q.size;
  in_victims_[slot] = &q == &victims_;
}

void PageCache::link_front(Queue& q, uint32_t slot) {
  older_[slot] = kNoSlot;
  newer_[slot] = q.head;
  if (q.head != kNoSlot) older_[q.head] = slot;
  else q.tail = slot;
  q.head = slot;
  ++q.size;
  in_victims_[slot] = &q == &victims_;
}

void PageCache::set_policy(CachePolicy policy) {
  while (victims_.tail != kNoSlot) {
    const uint32_t s = victims_.tail;
    unlink(victims_, s);
    link_front(main_, s);
  }
  policy_ = policy;
  victims_cap_ = policy == CachePolicy::kRemoteVictim && capacity_ > 4 ? std::min(capacity_ / 2, capacity_ - 4) : 0;
}

void PageCache::unlink(Queue& q, uint32_t slot) {
  if (older_[slot] != kNoSlot) newer_[older_[slot]] = newer_[slot];
  else q.head = newer_[slot];
  if (newer_[slot] != kNoSlot) older_[newer_[slot]] = older_[slot];
  else q.tail = older_[slot];
  older_[slot] = newer_[slot] = kNoSlot;
  --q.size;
}

uint32_t PageCache::next_victim() {
  for (;;) {
    uint32_t s = main_.head;
    if (s == kNoSlot) {
      // Everything left is in the victim queue (pages pinned in main_ went
      // round; only possible with few slots free of pins).
      s = victims_.head;
      if (s == kNoSlot) return kNoSlot;
      unlink(victims_, s);
      link_back(victims_, s);
      return s;
    }
    if (!far_[s] || victims_cap_ == 0) {
      unlink(main_, s);
      link_back(main_, s);
      return s;
    }
    // A far page leaves the main queue for the victim queue; when that is
    // full, its oldest page is the victim (and goes to the back of main_,
    // from where free() takes it, or where it waits if the caller keeps it).
    unlink(main_, s);
    if (victims_.size < victims_cap_) {
      link_back(victims_, s);
      continue;  // terminates: victims_ grows to victims_cap_ at most
    }
    uint32_t v = victims_.head;
    unlink(victims_, v);
    link_back(victims_, s);
    link_back(main_, v);
    return v;
  }
}

void PageCache::occupy(uint32_t slot, uint64_t page, bool far) {
  pages_[slot] = page;
  far_[slot] = far ? 1 : 0;
  link_back(main_, slot);
}

void PageCache::free(uint32_t slot) {
  unlink(queue_of(slot), slot);
  pages_[slot] = kEmpty;
  free_.push_back(slot);
}

}  // namespace scopedsm
