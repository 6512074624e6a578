#include "protocol/next_touch.h"

#include <algorithm>

#include "common/clock.h"
#include "protocol/write_detection.h"

namespace scopedsm {

void NextTouch::mark(uint64_t first, uint64_t count) {
  const bool trapped = mark_pending(first, count);
  // Copies others took of our marked pages since our barrier began (queued
  // while they were untrapped) have all our writes: we wrote nothing since.
  detect_->drain_retraps(true);
  // Test only: whatever a late copier queues now reaches our next drain.
  if (trapped && c_.test_fault(TestFault::kSlowRetrapQueue)) sleep_ns(150'000'000);
}

bool NextTouch::mark_pending(uint64_t first, uint64_t count) {
  const PageFsm::Operation op = c_.fsm->operation();  // the relief waits until the copies are dropped
  std::vector<uint32_t> drop, trap;
  uint64_t marked = 0;
  for (uint64_t p = first; p < first + count; ++p) {
    PageMeta& m = (*c_.pages)[p];
    if (m.state == PageState::kUnallocated || m.home.load(std::memory_order_relaxed) == kHomeUnknown || m.home_pinned)
      continue;
    m.nt_pending = true;
    ++marked;
    // Our own pages are trapped again: a copy of an untrapped home page
    // makes the home note it as written (it cannot tell whether it wrote it
    // after the copy, §2.3), and that note would beat every touch. Trapped,
    // the home notes only its real writes.
    if (m.state == PageState::kHomeUntrapped) {
      // Test only: node peers copy the page first, while it is untrapped.
      if (trap.empty() && c_.test_fault(TestFault::kSlowRetrapQueue)) sleep_ns(50'000'000);
      c_.share->trap_settled(static_cast<uint32_t>(p));
      trap.push_back(static_cast<uint32_t>(p));
    }
    // Our next touch must fault to be seen, and must fetch what the home
    // holds now. (A barrier has just ended the interval: no copy is being
    // written.) Only in touch mode: a write faults on a read-only copy anyway.
    if (!c_.config->next_touch_write && (m.state == PageState::kReadOnly || m.state == PageState::kPrefetched))
      drop.push_back(static_cast<uint32_t>(p));
  }
  c_.fsm->to_pages(trap, PageState::kHomeClean, Cause::kNextTouch);  // before we write again
  const bool trapped = !trap.empty();
  c_.stats->next_touch_pages_marked += marked;
  c_.stats->invalidations += drop.size();
  ops_->drop_copies(drop, Cause::kNextTouch);  // sorted: one protection change per run
  return trapped;
}

void NextTouch::on_allocation(uint64_t first, uint64_t count) {
  if (const uint32_t n = c_.config->next_touch_barriers; n != 0) auto_.push_back({first, count, n});
}

void NextTouch::on_barrier() {
  if (auto_.empty()) return;
  // SCOPEDSM_NEXT_TOUCH=barrier:N: the allocations that still have
  // automatic next-touch points left.
  for (AutoNextTouch& a : auto_) {
    if (a.left == 0) continue;
    --a.left;
    mark_pending(a.first, a.count);
  }
  detect_->drain_retraps(true);  // once every range is trapped (mark)
  std::erase_if(auto_, [](const AutoNextTouch& a) { return a.left == 0; });
}

void NextTouch::on_fetch_fault(uint64_t page) {
  PageMeta& m = (*c_.pages)[page];
  if (m.nt_pending && !m.nt_touched && !c_.config->next_touch_write) {
    m.nt_touched = true;  // offered at the next barrier (add_touch_offers)
    touched_.push_back(static_cast<uint32_t>(page));
  }
}

void NextTouch::add_touch_offers(const std::vector<uint32_t>& written, std::vector<WriteNotice>* notices) {
  if (touched_.empty()) return;
  // Pending pages we only read: a touch, offered while our copy (fetched
  // since the mark) is still here. Written ones are offered with their
  // write notice (HomeMigration::offers).
  std::sort(touched_.begin(), touched_.end());
  std::vector<WriteNotice> touches;
  for (uint32_t p : touched_) {
    PageMeta& m = (*c_.pages)[p];
    m.nt_touched = false;
    if (m.nt_pending && m.state == PageState::kReadOnly && !m.unrecorded &&
        !std::binary_search(written.begin(), written.end(), p))
      touches.push_back({p, c_.rank, true, true});
  }
  touched_.clear();
  merge_sorted(notices, touches);  // no page is in both
}

}  // namespace scopedsm
