#include "protocol/hints.h"

namespace scopedsm {

std::optional<PageRange> ReleaseLag::pass(uint64_t tag, const PageRange& range) {
  auto [it, fresh] = held_.try_emplace(tag, range);
  if (fresh) return std::nullopt;
  PageRange before = it->second;
  it->second = range;
  return before;
}

void NamedRanges::add(uint64_t first, uint64_t count, uint32_t epoch) {
  if (count == 0) return;
  ring_[next_] = Entry{first, first + count, epoch};
  next_ = (next_ + 1) % kSize;
  named_ = true;
  last_epoch_ = epoch;
}

bool NamedRanges::contains(uint64_t page, uint32_t epoch) const {
  if (!named_ || last_epoch_ != epoch) return false;
  for (const Entry& e : ring_)
    if (e.end != 0 && e.epoch == epoch && page >= e.first && page < e.end) return true;
  return false;
}

void ReleaseBuffer::add(uint32_t page, uint32_t priority) {
  remove(page);
  const Key key{priority, next_seq_++, page};
  order_.insert(key);
  where_.emplace(page, key);
}

bool ReleaseBuffer::take(uint32_t* page) {
  if (order_.empty()) return false;
  const Key key = *order_.begin();
  order_.erase(order_.begin());
  *page = std::get<2>(key);
  where_.erase(*page);
  return true;
}

void ReleaseBuffer::remove(uint32_t page) {
  auto it = where_.find(page);
  if (it == where_.end()) return;
  order_.erase(it->second);
  where_.erase(it);
}

void ReleaseBuffer::clear() {
  order_.clear();
  where_.clear();
}

}  // namespace scopedsm
