#include "omp/heap.h"

#include <cstring>

namespace scopedsm::omp {

namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void SharedHeap::init(std::byte* arena, uint64_t bytes, uint32_t owner, size_t page_size) {
  std::lock_guard<std::mutex> lock(mu_);
  arena_ = top_ = arena;
  end_ = arena + bytes;
  owner_ = owner;
  page_ = page_size;
  small_free_.assign(kClasses, {});
}

uint32_t SharedHeap::class_of(size_t size) {
  if (size <= 512) return size == 0 ? 0 : static_cast<uint32_t>((size - 1) / 16);
  // Four classes per power of two above 512: (512, 640], (640, 768], ...
  uint32_t c = 32;
  size_t base = 512;
  for (;;) {
    const size_t step = base / 4;
    for (int i = 1; i <= 4; ++i, ++c)
      if (size <= base + step * static_cast<size_t>(i)) return c;
    base *= 2;
  }
}

size_t SharedHeap::class_capacity(uint32_t c) {
  if (c < 32) return 16 * (static_cast<size_t>(c) + 1);
  const uint32_t k = c - 32;
  const size_t base = size_t{512} << (k / 4);
  return base + base / 4 * (k % 4 + 1);
}

std::byte* SharedHeap::bump(size_t bytes, size_t align) {
  std::byte* at = reinterpret_cast<std::byte*>(round_up(reinterpret_cast<uintptr_t>(top_), align));
  if (at > end_ || static_cast<size_t>(end_ - at) < bytes) return nullptr;
  top_ = at + bytes;
  counters_.bytes_reserved = static_cast<uint64_t>(top_ - arena_);
  return at;
}

void* SharedHeap::take(size_t capacity, bool* fresh) {
  *fresh = false;
  if (capacity <= kMaxSmall) {
    const uint32_t c = class_of(capacity);
    auto& list = small_free_[c];
    if (!list.empty()) {
      std::byte* b = list.back();
      list.pop_back();
      return b;
    }
    *fresh = true;
    return bump(kHeader + class_capacity(c), 16);
  }
  const size_t bytes = round_up(capacity + kHeader, page_);
  auto it = large_by_size_.lower_bound(bytes);
  if (it != large_by_size_.end()) {
    std::byte* run = it->second;
    const size_t have = it->first;
    large_by_size_.erase(it);
    large_free_.erase(run);
    if (have > bytes) {  // the rest stays free
      large_free_[run + bytes] = have - bytes;
      large_by_size_.emplace(have - bytes, run + bytes);
    }
    return run;
  }
  *fresh = true;
  return bump(bytes, page_);
}

void* SharedHeap::place_header(std::byte* block, size_t capacity) {
  auto* h = reinterpret_cast<Header*>(block);
  h->capacity = capacity;
  h->magic = kLive ^ owner_;
  h->shift = 0;
  return block + kHeader;
}

void* SharedHeap::allocate(size_t size, size_t align) {
  if (align < 16) align = 16;
  if (size > (size_t{1} << 62) || align > (size_t{1} << 30)) return nullptr;
  const size_t want = size + (align > 16 ? align : 0);
  std::lock_guard<std::mutex> lock(mu_);
  bool fresh = false;
  auto* block = static_cast<std::byte*>(take(want == 0 ? 1 : want, &fresh));
  if (block == nullptr) return nullptr;
  const size_t capacity = want <= kMaxSmall ? class_capacity(class_of(want == 0 ? 1 : want))
                                             : round_up(want + kHeader, page_) - kHeader;
  auto* p = static_cast<std::byte*>(place_header(block, capacity));
  ++counters_.allocations;
  counters_.bytes_in_use += capacity;
  if (align <= 16) return p;
  auto* aligned = reinterpret_cast<std::byte*>(round_up(reinterpret_cast<uintptr_t>(p), align));
  if (aligned == p) return p;
  // A second header right before the aligned payload leads back to the block's own.
  auto* h = header_of(aligned);
  h->shift = static_cast<uint32_t>(aligned - p);
  h->capacity = capacity - h->shift;
  h->magic = kLive ^ owner_;
  return aligned;
}

void* SharedHeap::allocate_zeroed(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return nullptr;
  const size_t bytes = n * size;
  void* p = nullptr;
  bool fresh = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto* block = static_cast<std::byte*>(take(bytes == 0 ? 1 : bytes, &fresh));
    if (block == nullptr) return nullptr;
    const size_t capacity = bytes <= kMaxSmall ? class_capacity(class_of(bytes == 0 ? 1 : bytes))
                                               : round_up(bytes + kHeader, page_) - kHeader;
    p = place_header(block, capacity);
    ++counters_.allocations;
    counters_.bytes_in_use += capacity;
  }
  // Fresh arena memory is zeros already: leave its pages untouched.
  if (!fresh) std::memset(p, 0, bytes);
  return p;
}

size_t SharedHeap::capacity(const void* p) {
  const Header* h = header_of(p);
  return h->capacity;
}

SharedHeap::FreeResult SharedHeap::free(void* p) {
  Header* h = header_of(p);
  if (h->shift != 0 && (h->magic & 0xffffff00u) == (kLive & 0xffffff00u)) {
    auto* real = reinterpret_cast<Header*>(reinterpret_cast<std::byte*>(h) - h->shift);
    h->magic = 0;  // the aligned header is gone with the block
    h = real;
  }
  const uint32_t owner = h->magic ^ kLive;
  if ((h->magic ^ kFreed) == owner_) return FreeResult::kDoubleFree;
  if (owner != owner_) {
    if ((owner & 0xffffff00u) != 0) return FreeResult::kNotABlock;
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.foreign_frees;
    return FreeResult::kForeign;
  }
  auto* block = reinterpret_cast<std::byte*>(h);
  if (block < arena_ || block >= end_) return FreeResult::kNotABlock;
  std::lock_guard<std::mutex> lock(mu_);
  const size_t capacity = h->capacity;
  h->magic = kFreed ^ owner_;
  ++counters_.frees;
  counters_.bytes_in_use -= capacity;
  if (capacity <= kMaxSmall) {
    small_free_[class_of(capacity)].push_back(block);
    return FreeResult::kFreed;
  }
  // A run of pages: merged with free neighbours.
  size_t bytes = capacity + kHeader;
  auto next = large_free_.find(block + bytes);
  if (next != large_free_.end()) {
    for (auto r = large_by_size_.equal_range(next->second); r.first != r.second; ++r.first)
      if (r.first->second == next->first) {
        large_by_size_.erase(r.first);
        break;
      }
    bytes += next->second;
    large_free_.erase(next);
  }
  auto prev = large_free_.lower_bound(block);
  if (prev != large_free_.begin()) {
    --prev;
    if (prev->first + prev->second == block) {
      for (auto r = large_by_size_.equal_range(prev->second); r.first != r.second; ++r.first)
        if (r.first->second == prev->first) {
          large_by_size_.erase(r.first);
          break;
        }
      block = prev->first;
      bytes += prev->second;
      large_free_.erase(prev);
    }
  }
  large_free_[block] = bytes;
  large_by_size_.emplace(bytes, block);
  return FreeResult::kFreed;
}

SharedHeap::Counters SharedHeap::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

}  // namespace scopedsm::omp
