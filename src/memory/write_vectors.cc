#include "memory/write_vectors.h"

namespace scopedsm {

void WriteVectors::init(size_t page_size, size_t block_size, bool tracking) {
  block_size_ = block_size;
  blocks_ = static_cast<uint32_t>(page_size / block_size);
  tracking_.store(tracking, std::memory_order_relaxed);
}

uint64_t WriteVectors::mask_for(size_t offset, size_t len) const {
  const size_t first = offset / block_size_;
  const size_t last = (offset + len - 1) / block_size_;
  uint64_t mask = 0;
  for (size_t b = first; b <= last && b < blocks_; ++b) mask |= uint64_t{1} << b;
  return mask;
}

void WriteVectors::set_tracking(bool on) {
  MutexLock lock(&mu_);
  tracking_.store(on, std::memory_order_relaxed);
  if (!on) written_.clear();
}

std::vector<uint64_t>& WriteVectors::record(uint32_t page) {
  auto [it, fresh] = written_.try_emplace(page);
  if (fresh) it->second.assign(blocks_, ++clock_);
  return it->second;
}

void WriteVectors::note_blocks(uint32_t page, uint64_t mask) {
  if (!tracking() || mask == 0) return;
  MutexLock lock(&mu_);
  if (!tracking_.load(std::memory_order_relaxed)) return;
  std::vector<uint64_t>& blocks = record(page);
  const uint64_t now = ++clock_;
  for (uint32_t b = 0; b < blocks_; ++b)
    if (mask & (uint64_t{1} << b)) blocks[b] = now;
}

void WriteVectors::forget(uint32_t page) {
  if (!tracking()) return;
  MutexLock lock(&mu_);
  written_.erase(page);
}

uint64_t WriteVectors::changed_since(uint32_t page, uint64_t since, uint64_t* version) {
  MutexLock lock(&mu_);
  if (!tracking_.load(std::memory_order_relaxed)) {
    *version = 0;
    return all_blocks();
  }
  const std::vector<uint64_t>& blocks = record(page);
  *version = clock_;
  if (since == 0 || since > clock_) return all_blocks();  // no version, or not one of ours
  uint64_t mask = 0;
  for (uint32_t b = 0; b < blocks_; ++b)
    if (blocks[b] > since) mask |= uint64_t{1} << b;
  return mask;
}

}  // namespace scopedsm
