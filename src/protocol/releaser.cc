#include "protocol/releaser.h"

#include <algorithm>

#include "common/log.h"
#include "protocol/page_runs.h"

namespace scopedsm {

void Releaser::release(uint64_t first, uint64_t count, uint32_t priority, uint64_t tag, bool automatic) {
  AppCounters& stats = *c_.stats;
  (automatic ? stats.auto_releases : stats.hint_release_pages) += count;
  // Lag by one per call site: what this site named last time goes now.
  // The engine's releases lag by stream slot, apart from the program's call
  // sites (whose tags are any number the program chose).
  ReleaseLag& lag = automatic ? auto_release_lag_ : release_lag_;
  const std::optional<PageRange> held = lag.pass(tag, PageRange{first, count, priority});
  if (!held) return;
  std::vector<uint32_t> copies, homes;
  for (uint64_t p = held->first; p < held->first + held->count; ++p) {
    const PageState st = (*c_.pages)[p].state;
    if (st == PageState::kReadOnly || st == PageState::kReadWrite || st == PageState::kPrefetched ||
        st == PageState::kInFlight)
      copies.push_back(static_cast<uint32_t>(p));
    else if (is_home_state(st) && c_.region->file_backed())
      homes.push_back(static_cast<uint32_t>(p));
    else if (!automatic)
      ++stats.hint_release_filtered;  // not in memory, or home memory we cannot give back
  }
  if (!buffered()) {
    release_copies(copies);
    release_homes(homes);
    return;
  }
  for (uint32_t p : copies) released_copies_.add(p, held->priority);
  for (uint32_t p : homes) released_homes_.add(p, held->priority);
  trim_homes();
}

uint32_t Releaser::room_for(uint32_t want) {
  PageCache& cache = *c_.cache;
  uint64_t free = cache.capacity() - cache.used();
  uint32_t page = 0;
  while (free < want && released_copies_.take(&page)) {
    PageMeta& q = (*c_.pages)[page];
    if (q.slot == kNoSlot || c_.fsm->pinned(page)) continue;
    const bool dirty = q.state == PageState::kReadWrite;
    ops_->evict(q.slot, Cause::kRelease);
    ++c_.stats->pages_released;
    if (dirty) ++c_.stats->release_flushed;
    ++free;
  }
  return static_cast<uint32_t>(std::min<uint64_t>(free, want));
}

void Releaser::reserve_disk(uint64_t first, uint64_t count, const char* context) {
  if (Status st = c_.region->preallocate(first, count); !st.ok())
    fatal("%s: the disk is full (SCOPEDSM_HOME_BACKING): %s. Free space there, point SCOPEDSM_HOME_BACKING at a "
          "larger disk, or use a smaller problem",
          context, st.message().c_str());
}

void Releaser::release_copies(std::vector<uint32_t>& sorted) {
  if (sorted.empty()) return;
  // A dirty copy's diff goes home first, as at an eviction: the writes are
  // the home's earlier than the next release would have sent them, which
  // scope consistency allows (nobody may rely on seeing them before it).
  std::vector<bool> homes(static_cast<size_t>(c_.size), false);
  for (uint32_t p : sorted) {
    PageMeta& m = (*c_.pages)[p];
    if (m.state != PageState::kReadWrite || c_.test_fault(TestFault::kReleaseSkipDiff)) continue;
    ops_->make_diff(p);
    homes[static_cast<size_t>(m.home.load(std::memory_order_relaxed))] = true;
    ++c_.stats->release_flushed;
  }
  for (int h = 0; h < c_.size; ++h)
    if (homes[static_cast<size_t>(h)]) ops_->send_pending(h);
  c_.stats->pages_released += sorted.size();
  ops_->drop_copies(sorted, Cause::kRelease);
}

void Releaser::release_homes(std::vector<uint32_t>& sorted) {
  for_each_run(sorted, [this](uint64_t first, uint64_t count) { c_.region->give_back(first, count); });
  c_.stats->pages_released += sorted.size();
  homes_out(sorted.size());
}

void Releaser::trim_homes() {
  const uint64_t limit = home_memory_pages();
  if (limit == 0) return;
  std::vector<uint32_t> out;
  uint64_t resident = homes_resident_;
  uint32_t p = 0;
  while (resident > limit && released_homes_.take(&p)) {
    if (!is_home_state((*c_.pages)[p].state)) continue;
    out.push_back(p);
    --resident;
  }
  std::sort(out.begin(), out.end());
  release_homes(out);
}

}  // namespace scopedsm
