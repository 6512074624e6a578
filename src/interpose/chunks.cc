#include "interpose/chunks.h"

#include <climits>
#include <cstdint>

namespace scopedsm::interpose {

namespace {

// [addr, addr + len) clipped to the span; false if nothing is left. The end
// saturates: a range reaching past the top of the address space covers
// everything above addr.
bool overlap(const SharedSpan& s, uintptr_t addr, size_t len, uintptr_t* lo, uintptr_t* hi) {
  if (len == 0 || s.page_size == 0) return false;
  const uintptr_t end = len > UINTPTR_MAX - addr ? UINTPTR_MAX : addr + len;
  *lo = addr > s.base ? addr : s.base;
  *hi = end < s.end ? end : s.end;
  return *lo < *hi;
}

// How many bytes from the start of [addr, addr + len) fit in a chunk that
// may touch `left` more units; the units they touch go to *used.
size_t fit(const SharedSpan& s, uintptr_t addr, size_t len, uint64_t left, uint64_t* used) {
  *used = 0;
  uintptr_t lo = 0, hi = 0;
  if (!overlap(s, addr, len, &lo, &hi)) return len;
  if (left == 0) return 0;  // the entry starts the next chunk, private prefix and all
  const uint64_t first = (lo - s.base) / s.page_size;
  const uint64_t last = (hi - 1 - s.base) / s.page_size;
  if (last - first + 1 <= left) {
    *used = last - first + 1;
    return len;
  }
  // Up to the end of the `left`-th unit touched.
  *used = left;
  return static_cast<size_t>(s.base + (first + left) * s.page_size - addr);
}

}  // namespace

uint64_t units_touched(const SharedSpan& s, uintptr_t addr, size_t len) {
  uintptr_t lo = 0, hi = 0;
  if (!overlap(s, addr, len, &lo, &hi)) return 0;
  return (hi - 1 - s.base) / s.page_size - (lo - s.base) / s.page_size + 1;
}

uint64_t units_touched(const SharedSpan& s, const struct iovec* iov, size_t n) {
  uint64_t units = 0;
  for (size_t i = 0; i < n; ++i) units += units_touched(s, reinterpret_cast<uintptr_t>(iov[i].iov_base), iov[i].iov_len);
  return units;
}

ChunkCursor::ChunkCursor(const struct iovec* iov, size_t n, const SharedSpan& s, uint64_t budget)
    : iov_(iov), n_(n), span_(s), budget_(budget < 1 ? 1 : budget) {
  skip_empty();
}

void ChunkCursor::skip_empty() {
  while (index_ < n_ && iov_[index_].iov_len == offset_) {
    ++index_;
    offset_ = 0;
  }
}

size_t ChunkCursor::next(std::vector<struct iovec>* out) {
  out->clear();
  size_t total = 0;
  uint64_t left = budget_;
  while (index_ < n_ && out->size() < static_cast<size_t>(IOV_MAX)) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(iov_[index_].iov_base) + offset_;
    const size_t rest = iov_[index_].iov_len - offset_;
    uint64_t used = 0;
    const size_t take = fit(span_, addr, rest, left, &used);
    if (take == 0) break;
    out->push_back({reinterpret_cast<void*>(addr), take});
    total += take;
    left -= used;
    offset_ += take;
    if (take < rest) break;
    skip_empty();
  }
  return total;
}

}  // namespace scopedsm::interpose
