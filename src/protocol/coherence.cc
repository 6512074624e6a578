#include "protocol/coherence.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "common/clock.h"
#include "common/log.h"
#include "protocol/diff.h"
#include "protocol/page_source.h"
#include "protocol/messages.h"

namespace scopedsm {

namespace {

// Negative control only (SCOPEDSM_TEST_FAULT=whole-word-merge): merges every
// changed 8-byte word whole, overwriting bytes other writers own.
// Calls fn(first, count) for each maximal run of consecutive pages in `sorted`:
// one system call per run instead of one per page.
template <typename Fn>
void for_each_run(const std::vector<uint32_t>& sorted, Fn fn) {
  size_t i = 0;
  while (i < sorted.size()) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j] == sorted[j - 1] + 1) ++j;
    fn(sorted[i], j - i);
    i = j;
  }
}

size_t merge_whole_words(std::byte* home, const std::byte* page, const std::byte* twin, size_t page_size) {
  size_t changed = 0;
  for (size_t at = 0; at < page_size; at += 8) {
    if (std::memcmp(page + at, twin + at, 8) == 0) continue;
    std::memcpy(home + at, page + at, 8);
    changed += 8;
  }
  return changed;
}

}  // namespace

Coherence::Coherence(const CoherenceParts& p)
    : rank_(p.rank),
      size_(p.size),
      config_(p.config),
      write_detect_all_(p.write_detect_all && !p.cache_only),
      cache_only_(p.cache_only),
      home_migration_(p.home_migration),
      max_run_(p.auto_hints ? 1 : std::max<uint32_t>(1, std::min(p.fetch_pages, kMaxFetchPages))),
      window_(std::min<uint32_t>(4, max_run_)),
      test_faults_(p.test_faults),
      node_(p.node),
      transport_(p.transport),
      region_(p.region),
      pages_(p.pages),
      cache_(p.cache),
      stack_(p.stack),
      stats_(p.stats),
      wvec_(p.wvec),
      surface_(p.surface),
      fsm_(p.pages, p.cache, p.region, p.test_faults, p.surface->larger_blocks),
      message_source_(p.transport, p.region->page_size(), p.pages, p.wvec, p.stats),
      node_source_(p.region, p.node, (p.test_faults & static_cast<uint64_t>(TestFault::kSkipNodeRecord)) != 0,
                   (p.test_faults & static_cast<uint64_t>(TestFault::kSlowRetrapQueue)) != 0 ? 100'000'000 : 0),
      release_buffered_(p.release_buffered),
      home_memory_pages_(p.home_memory_pages),
      auto_hints_(p.auto_hints),
      streams_(p.cache->capacity() / 2, p.cache->capacity() / 2,
               (p.test_faults & static_cast<uint64_t>(TestFault::kAutoNoStream)) != 0),
      auto_over_hints_((p.test_faults & static_cast<uint64_t>(TestFault::kAutoOverHints)) != 0),
      sync_prefetch_(p.prefetch_sync) {
  fsm_.set_relief([this] { relieve_map_pressure(); });
  message_source_.set_write_vector(p.write_vector);
  pending_.resize(static_cast<size_t>(size_));
  pending_pages_.resize(static_cast<size_t>(size_));
  if (p.rma != nullptr)
    rma_source_ = std::make_unique<RmaSource>(p.rma, p.region, p.pages, p.transport, !p.cache_only, p.test_faults);
  PageSource* remote = rma_source_ ? static_cast<PageSource*>(rma_source_.get()) : &message_source_;
  sources_.resize(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    const bool near = p.node_shared && r != rank_ && node_->same_node(r);
    sources_[static_cast<size_t>(r)] = near ? static_cast<PageSource*>(&node_source_) : remote;
  }
}

std::vector<WriteNotice> Coherence::barrier_notices(const std::vector<uint32_t>& pages) {
  std::vector<WriteNotice> out;
  out.reserve(pages.size());
  for (uint32_t p : pages) {
    // Only a copy we still hold is the page's contents (our writes went home
    // as diffs, and nobody else wrote it if the offer survives the merge);
    // an evicted one is not.
    const PageMeta& m = (*pages_)[p];
    // Nor is an unrecorded one: its home may have written the page since
    // without a notice (§2.3), which would make a second writer.
    const bool offer = (home_migration_ || m.nt_pending) && m.state == PageState::kReadOnly && !m.unrecorded;
    out.push_back({p, rank_, offer || test_fault(TestFault::kStaleHomeOffer)});
  }
  if (nt_touched_.empty()) return out;
  // Pending pages we only read: a touch, offered while our copy (fetched
  // since the mark) is still here. Written ones are offered above.
  std::sort(nt_touched_.begin(), nt_touched_.end());
  std::vector<WriteNotice> touches;
  for (uint32_t p : nt_touched_) {
    PageMeta& m = (*pages_)[p];
    m.nt_touched = false;
    if (m.nt_pending && m.state == PageState::kReadOnly && !m.unrecorded &&
        !std::binary_search(pages.begin(), pages.end(), p))
      touches.push_back({p, rank_, true, true});
  }
  nt_touched_.clear();
  merge_sorted(&out, touches);  // no page is in both
  return out;
}

void Coherence::move_homes(const std::vector<WriteNotice>& notices) {
  // The next epoch starts first: what migrate_homes notes (a retrap) belongs
  // to it, and the lock stack keeps one entry per page and epoch.
  ++epoch_;
  stack_->set_epoch(epoch_);
  migrate_homes(notices);
}

void Coherence::finish_barrier(const std::vector<WriteNotice>& notices) {
  invalidate(notices);
  untrap_after_barrier(notices, epoch_ - 1);
  if (!auto_next_touch_.empty()) auto_next_touch();
}

// ---------------------------------------------------------------------------
// Re-homing on next touch (docs/PROTOCOL.md §6c)

void Coherence::mark_next_touch(uint64_t first, uint64_t count) {
  const bool trapped = mark_pending(first, count);
  // Copies others took of our marked pages since our barrier began (queued
  // while they were untrapped) have all our writes: we wrote nothing since.
  drain_retraps(true);
  // Test only: whatever a late copier queues now reaches our next drain.
  if (trapped && test_fault(TestFault::kSlowRetrapQueue)) sleep_ns(150'000'000);
}

bool Coherence::mark_pending(uint64_t first, uint64_t count) {
  const PageFsm::Operation op = fsm_.operation();  // the relief waits until the copies are dropped
  std::vector<uint32_t> drop, trap;
  uint64_t marked = 0;
  for (uint64_t p = first; p < first + count; ++p) {
    PageMeta& m = (*pages_)[p];
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
      if (trap.empty() && test_fault(TestFault::kSlowRetrapQueue)) sleep_ns(50'000'000);
      region_->share().trap_settled(static_cast<uint32_t>(p));
      trap.push_back(static_cast<uint32_t>(p));
    }
    // Our next touch must fault to be seen, and must fetch what the home
    // holds now. (A barrier has just ended the interval: no copy is being
    // written.) Only in touch mode: a write faults on a read-only copy anyway.
    if (!config_->next_touch_write && (m.state == PageState::kReadOnly || m.state == PageState::kPrefetched))
      drop.push_back(static_cast<uint32_t>(p));
  }
  fsm_.to_pages(trap, PageState::kHomeClean, Cause::kNextTouch);  // before we write again
  const bool trapped = !trap.empty();
  stats_->next_touch_pages_marked += marked;
  stats_->invalidations += drop.size();
  drop_copies(drop, Cause::kNextTouch);  // sorted: one protection change per run
  return trapped;
}

void Coherence::auto_next_touch() {
  for (AutoNextTouch& a : auto_next_touch_) {
    if (a.left == 0) continue;
    --a.left;
    mark_pending(a.first, a.count);
  }
  drain_retraps(true);  // once every range is trapped (mark_next_touch)
  std::erase_if(auto_next_touch_, [](const AutoNextTouch& a) { return a.left == 0; });
}

// ---------------------------------------------------------------------------
// Faults

void Coherence::handle_fault(uint64_t page, Access access) {
  // A fault is one operation: the relief of map pressure waits until the
  // page is as the fault leaves it (PageFsm).
  const PageFsm::Operation op = fsm_.operation();
  PageMeta& m = (*pages_)[page];
  const bool write = access == Access::kWrite;
  switch (m.state) {
    case PageState::kUnallocated:
      for (const auto& [guard, what] : guards_)
        if (guard == page) fatal("touched shared address %p: %s", static_cast<void*>(region_->app(page)), what);
      fatal("touched shared address %p, which is not part of any allocation (allocated: %" PRIu64
            " pages from %p); allocate it with %s first",
            static_cast<void*>(region_->app(page)), pages_->allocated(), static_cast<void*>(region_->base()),
            surface_->alloc);
    case PageState::kInvalid:
      if (write) ++stats_->write_faults;
      else ++stats_->read_faults;
      if (m.home.load(std::memory_order_relaxed) == kHomeUnknown) {
        claim_home(page, access);
      } else {
        fetch(page, write);
        if (m.nt_pending && !m.nt_touched && !config_->next_touch_write) {
          m.nt_touched = true;  // offered at the next barrier (barrier_notices)
          nt_touched_.push_back(static_cast<uint32_t>(page));
        }
        auto_hint(page, true);
      }
      return;
    case PageState::kReadOnly:
      ++stats_->write_faults;
      make_writable(page);
      auto_hint(page, false);
      return;
    case PageState::kPrefetched:
      if (write) ++stats_->write_faults;
      else ++stats_->read_faults;
      touch_prefetched(page, write);
      auto_hint(page, false);
      return;
    case PageState::kInFlight:
      if (write) ++stats_->write_faults;
      else ++stats_->read_faults;
      auto_hint(touch_in_flight(page, write), false);
      return;
    case PageState::kHomeClean:
      ++stats_->write_faults;
      home_write(page);
      return;
    case PageState::kReadWrite:
    case PageState::kHomeDirty:
    case PageState::kHomeUntrapped:
      break;
  }
  fatal("internal error: fault at %p on page %" PRIu64 " which is %s (protection %d)",
        static_cast<void*>(region_->app(page)), page, page_state_name(m.state),
        static_cast<int>(region_->prot(page)));
}

void Coherence::prepare(uint64_t first, uint64_t count, Access access, const char* call) {
  const PrepareRange range{first, count, access};
  if (!try_prepare(&range, 1)) {
    uint64_t remote = 0;
    for (uint64_t p = first; p < first + count; ++p)
      if (!is_home_state((*pages_)[p].state)) ++remote;
    fatal("%s: %" PRIu64 " pages homed elsewhere cannot all be cached at once (SCOPEDSM_CACHE_PAGES=%" PRIu64
          "); prepare a smaller range, or copy through a private buffer",
          call, remote, cache_->capacity());
  }
}

bool Coherence::try_prepare(const PrepareRange* ranges, size_t n) {
  uint64_t remote = 0;
  for (size_t i = 0; i < n; ++i)
    for (uint64_t p = ranges[i].first; p < ranges[i].first + ranges[i].count; ++p)
      if (!is_home_state((*pages_)[p].state)) ++remote;
  if (remote > cache_->capacity()) return false;
  // While the ranges are being made valid, their own pages are neither
  // evicted nor dropped by the relief of map pressure (which runs after
  // each fault, PageFsm).
  fsm_.unpin();
  for (size_t i = 0; i < n; ++i) fsm_.pin(ranges[i].first, ranges[i].first + ranges[i].count);
  for (size_t i = 0; i < n; ++i) {
    const Access access = ranges[i].access;
    for (uint64_t p = ranges[i].first; p < ranges[i].first + ranges[i].count; ++p) {
      PageState st = (*pages_)[p].state;
      bool ok = access == Access::kWrite ? prot_for(st) == Prot::kReadWrite : prot_for(st) != Prot::kNone;
      if (!ok) handle_fault(p, access);
    }
  }
  fsm_.unpin();
  return true;
}

uint32_t Coherence::obtain_slot(uint64_t page) {
  uint32_t slot = cache_->take_free();
  if (slot == kNoSlot && room_for_hint(1) == 1) slot = cache_->take_free();  // a released page's slot first
  if (slot == kNoSlot) {
    uint32_t victim = cache_->next_victim();
    while (fsm_.pinned(cache_->page_in(victim)))
      victim = cache_->next_victim();  // terminates: try_prepare() pins fewer remote pages than the cache holds
    evict(victim, Cause::kEviction);
    slot = cache_->take_free();
  }
  // Far: a copy of it costs a network round trip, not a copy from this
  // node's memory (remote-aware replacement keeps those longer).
  const int home = (*pages_)[page].home.load(std::memory_order_relaxed);
  fsm_.attach_slot(page, slot, home < 0 || source_for(home) != &node_source_);
  return slot;
}

uint32_t Coherence::run_length(uint64_t page, int home) const {
  // prepare() pins its ranges and must fit them in the cache: no runs then.
  if (max_run_ <= 1 || fsm_.pinning() || page == 0) return 1;
  // Only a reader that has just read the previous page gets a run.
  const PageState before = (*pages_)[page - 1].state;
  if (before != PageState::kReadOnly && before != PageState::kReadWrite && before != PageState::kPrefetched) return 1;
  // At most half the cache, so that a run never evicts its own pages.
  const uint64_t want = std::min<uint64_t>({window_, max_run_, cache_->capacity() / 2});
  uint32_t n = 1;
  while (n < want && page + n < pages_->allocated()) {
    const PageMeta& q = (*pages_)[page + n];
    // A next-touch pending page is fetched only by its own touch, which is
    // what records the touch.
    if (q.state != PageState::kInvalid || q.home.load(std::memory_order_relaxed) != home || q.nt_pending) break;
    ++n;
  }
  return n;
}

void Coherence::run_used(RunSource source, uint32_t pages) {
  switch (source) {
    case RunSource::kAuto:
      // An automatic prefetch's run, used: a longer distance next.
      stats_->auto_prefetch_used += pages;
      streams_.distance().used();
      break;
    case RunSource::kHint:
      // A prefetch hint's run: every page of it, the first included, was
      // fetched for the hint. The fault-driven run length is not the hint's.
      stats_->hint_prefetch_useful += pages;
      break;
    case RunSource::kFault:
      // The run's last page is touched: its pages were used (all but the
      // faulting one were prefetched). Longer runs next.
      stats_->prefetch_used += pages - 1;
      window_ = std::min(window_ * 2, max_run_);
      break;
  }
}

void Coherence::touch_prefetched(uint64_t page, bool write) {
  const PageMeta& m = (*pages_)[page];
  run_used(m.run_source, m.run_pages + 1u);  // (leaving kPrefetched resets both)
  if (write) make_writable(page);
  else fsm_.to(page, PageState::kReadOnly, Cause::kFault);
}

bool Coherence::start_prefetch(uint64_t first, uint32_t count, int home, RunSource run_source) {
  InFlightRun* run = nullptr;
  for (uint32_t i = 0; i < kMaxAsyncFetches && run == nullptr; ++i)
    if (inflight_[i].source == nullptr) run = &inflight_[i];
  if (run == nullptr) {
    // Runs whose answers have arrived free their lanes without a wait.
    for (uint32_t i = 0; i < kMaxAsyncFetches; ++i)
      if (inflight_[i].source->done(&inflight_[i].fetch)) {
        finish_prefetch(i);
        if (run == nullptr) run = &inflight_[i];
      }
    if (run == nullptr) return false;
  }
  PageSource* source = source_for(home);
  if (source == rma_source_.get()) {
    // A one-sided read must wait for the home's acknowledgement of our
    // DIFFs (RmaSource::start): one owed, or one the run's own pending
    // diffs would make, means waiting for the home's CPU. Dropped instead.
    bool pending = transport_->acks().owed(home) > 0;
    for (uint64_t p = first; p < first + count && !pending; ++p) pending = (*pages_)[p].pending_diff;
    if (pending) return false;
  }
  {
    TraceSpan span(stats_->trace, &stats_->t_fetch_wait_ns, TraceKind::kFetch, static_cast<uint32_t>(first),
                   static_cast<uint32_t>(home));
    claim_run(first, count, home);
    PendingFetch& f = run->fetch;
    f.first = first;
    f.count = count;
    f.home = home;
    f.epoch = epoch_;
    f.lane = static_cast<uint32_t>(run - inflight_.data()) + 1;
    f.dst = region_->alias(first);
    source->start(&f);
  }
  run->source = source;
  run->run_source = run_source;
  ++inflight_runs_;
  ++stats_->remote_fetches;
  ++stats_->prefetch_async;
  // No protection changes: invalid and in flight both allow no access.
  fsm_.to_range(first, count, PageState::kInFlight, Cause::kPrefetchHint);
  return true;
}

void Coherence::finish_prefetch(uint32_t i, bool touched) {
  InFlightRun& run = inflight_[i];
  const PendingFetch& f = run.fetch;
  {
    TraceSpan span(stats_->trace, &stats_->t_fetch_wait_ns, TraceKind::kFetch, static_cast<uint32_t>(f.first),
                   static_cast<uint32_t>(f.home));
    count_fetch(run.source, f, run.source->finish(&run.fetch));
  }
  run.source = nullptr;
  --inflight_runs_;
  for (uint64_t p = f.first; p < f.first + f.count; ++p) (*pages_)[p].demanded = false;
  if (touched) {
    // A touch finished it: the run is used, and needs no tripwire.
    fsm_.to_range(f.first, f.count, PageState::kReadOnly, Cause::kFetchFinished);
    run_used(run.run_source, f.count);
  } else {
    // Every page but the last becomes readable; the last (the only one, in
    // a run of one) is the tripwire that tells whether the hint was useful.
    const uint64_t tripwire = f.first + f.count - 1;
    fsm_.to_range(f.first, f.count - 1, PageState::kReadOnly, Cause::kFetchFinished);
    fsm_.to_prefetched(tripwire, f.count - 1, run.run_source, Cause::kFetchFinished);
  }
}

void Coherence::finish_prefetches() {
  for (uint32_t i = 0; i < kMaxAsyncFetches && inflight_runs_ > 0; ++i)
    if (inflight_[i].source != nullptr) finish_prefetch(i);
}

uint32_t Coherence::inflight_index(uint64_t page) const {
  for (uint32_t i = 0; i < kMaxAsyncFetches; ++i) {
    const InFlightRun& run = inflight_[i];
    if (run.source != nullptr && page >= run.fetch.first && page < run.fetch.first + run.fetch.count) return i;
  }
  fatal("internal error: page %" PRIu64 " is in flight, but no prefetch run holds it", page);
}

uint64_t Coherence::touch_in_flight(uint64_t page, bool write) {
  const uint32_t i = inflight_index(page);
  InFlightRun& run = inflight_[i];
  // An automatic run's stream moves ahead as if its last page, the
  // tripwire a finished run would have, had been touched.
  const uint64_t stream_page = run.run_source == RunSource::kAuto ? run.fetch.first + run.fetch.count - 1 : page;
  if (!run.source->done(&run.fetch)) {
    // The touch came before the run's answer: the prefetch was late.
    ++stats_->prefetch_waits;
    if (run.run_source == RunSource::kAuto) {
      ++stats_->auto_prefetch_late;
      streams_.distance().late();
    } else {
      ++stats_->hint_prefetch_late;
    }
  }
  finish_prefetch(i, true);
  if (write) make_writable(page);  // read-only now, as the whole run
  return stream_page;
}

void Coherence::fetch(uint64_t page, bool for_write) {
  PageMeta& m = (*pages_)[page];
  const int home = m.home.load(std::memory_order_relaxed);
  const uint32_t count = run_length(page, home);
  fetch_run(page, count, home, RunSource::kFault);
  stats_->prefetched += count - 1;
  m.demanded = true;
  if (for_write) make_writable(page);  // twin, then read-write: one protection change
  else fsm_.to(page, PageState::kReadOnly, Cause::kFault);
}

void Coherence::claim_run(uint64_t page, uint32_t count, int home) {
  bool pending = false;
  for (uint32_t i = 0; i < count; ++i) {
    obtain_slot(page + i);
    pending = pending || (*pages_)[page + i].pending_diff;
  }
  reserve_disk(page, count, "page fault");
  // Our own diff of these pages may still wait in the pending pool; the
  // home must apply it before it answers, or we would lose our writes.
  // The source orders its read after the DIFF (a message is served in
  // order; a one-sided read waits for the home's acknowledgement). Diffs
  // to a home on this node are never pending: they are merged at once.
  if (pending) send_pending(home);
}

void Coherence::count_fetch(const PageSource* source, const PendingFetch& f, uint32_t unrecorded) {
  // A pinned page's home writes it untrapped for good: every copy is
  // unrecorded, whatever the source.
  for (uint64_t p = f.first; p < f.first + f.count; ++p) {
    PageMeta& m = (*pages_)[p];
    if (!m.home_pinned || m.unrecorded || test_fault(TestFault::kOmpKeepPinned)) continue;
    m.unrecorded = true;
    unrecorded_.push_back(static_cast<uint32_t>(p));
  }
  if (source == &node_source_) stats_->node_fetches += f.count;
  if (source != rma_source_.get()) return;
  stats_->rma_fetches += f.count;
  if (unrecorded == 0) return;
  stats_->rma_unrecorded += unrecorded;
  // Dropped at our next acquire (invalidate, invalidate_all_copies).
  for (uint64_t p = f.first; p < f.first + f.count; ++p)
    if ((*pages_)[p].unrecorded) unrecorded_.push_back(static_cast<uint32_t>(p));
  if (unrecorded_.size() > 2 * cache_->capacity()) {
    // A long interval that evicts and fetches the same pages again: keep
    // each copy still held once.
    std::sort(unrecorded_.begin(), unrecorded_.end());
    unrecorded_.erase(std::unique(unrecorded_.begin(), unrecorded_.end()), unrecorded_.end());
    std::erase_if(unrecorded_, [this](uint32_t p) { return !(*pages_)[p].unrecorded; });
  }
}

void Coherence::fetch_run(uint64_t page, uint32_t count, int home, RunSource run_source) {
  PageSource* source = source_for(home);
  {
    TraceSpan span(stats_->trace, &stats_->t_fetch_wait_ns,
                   source == &node_source_ ? TraceKind::kNodeCopy : TraceKind::kFetch, static_cast<uint32_t>(page),
                   static_cast<uint32_t>(home));
    claim_run(page, count, home);
    const uint32_t unrecorded = source->fetch(page, count, home, epoch_, region_->alias(page));
    count_fetch(source, source->last_fetch(), unrecorded);
    ++stats_->remote_fetches;
  }
  for (uint32_t i = 0; i < count; ++i) (*pages_)[page + i].demanded = false;
  if (count > 1) {
    // The run's pages are readable at once, but for the last: it stays a
    // tripwire (kPrefetched, no access) whose first touch says the run was
    // used (touch_prefetched).
    fsm_.to_range(page + 1, count - 2, PageState::kReadOnly, Cause::kFetch);
    fsm_.to_prefetched(page + count - 1, count - 1, run_source, Cause::kFetch);
  }
}

void Coherence::reserve_disk(uint64_t first, uint64_t count, const char* context) {
  if (Status st = region_->preallocate(first, count); !st.ok())
    fatal("%s: the disk is full (SCOPEDSM_HOME_BACKING): %s. Free space there, point SCOPEDSM_HOME_BACKING at a "
          "larger disk, or use a smaller problem",
          context, st.message().c_str());
}

// ---------------------------------------------------------------------------
// Hints

uint32_t Coherence::room_for_hint(uint32_t want) {
  uint64_t free = cache_->capacity() - cache_->used();
  uint32_t page = 0;
  while (free < want && released_copies_.take(&page)) {
    PageMeta& q = (*pages_)[page];
    if (q.slot == kNoSlot || fsm_.pinned(page)) continue;
    const bool dirty = q.state == PageState::kReadWrite;
    evict(q.slot, Cause::kRelease);
    ++stats_->pages_released;
    if (dirty) ++stats_->release_flushed;
    ++free;
  }
  return static_cast<uint32_t>(std::min<uint64_t>(free, want));
}

void Coherence::prefetch_pages(uint64_t first, uint64_t count, bool automatic) {
  // The program's hints and the engine's own count apart.
  uint64_t& filtered = automatic ? stats_->auto_prefetch_filtered : stats_->hint_prefetch_filtered;
  uint64_t& dropped = automatic ? stats_->auto_prefetch_dropped : stats_->hint_prefetch_dropped;
  uint64_t& requests = automatic ? stats_->auto_prefetch_requests : stats_->hint_prefetch_requests;
  uint64_t& fetched = automatic ? stats_->auto_prefetches : stats_->hint_prefetch_fetched;
  if (!automatic) stats_->hint_prefetch_pages += count;
  const uint64_t dropped_before = dropped;
  const uint64_t end = first + count;
  bool any_home = false;
  uint64_t p = first;
  while (p < end) {
    PageMeta& m = (*pages_)[p];
    const int home = m.home.load(std::memory_order_relaxed);
    if (m.state != PageState::kInvalid || home == kHomeUnknown || m.nt_pending) {
      // Valid already, homed here, unallocated, or of no known home (first
      // touch decides it), or next-touch pending (only a touch fetches it,
      // which records the touch): nothing to fetch. A copy a fault brought since
      // the last hint for it means this hint came too late.
      if (!automatic &&
          (m.state == PageState::kReadOnly || m.state == PageState::kReadWrite || m.state == PageState::kPrefetched)) {
        if (m.demanded) ++stats_->hint_prefetch_late;
        m.demanded = false;
      }
      any_home = any_home || is_home_state(m.state);
      if (!is_home_state(m.state) || !region_->file_backed()) ++filtered;
      ++p;
      continue;
    }
    // A run of invalid pages of one home: one request.
    uint32_t n = 1;
    while (p + n < end && n < kMaxFetchPages && (*pages_)[p + n].state == PageState::kInvalid &&
           (*pages_)[p + n].home.load(std::memory_order_relaxed) == home && !(*pages_)[p + n].nt_pending)
      ++n;
    // The program's hints take free slots and released ones only; the
    // engine's own take slots as a fault's run does (free, released, else
    // the first-in first-out victim: they stand in for the fault runs), at
    // most half the cache per step (StreamTable's max_steps).
    uint32_t got = automatic ? n : room_for_hint(n);
    // A hint that cannot have its disk (file backing, disk full) is dropped:
    // only a fault may end the job for that.
    if (got > 0 && !region_->preallocate(p, got).ok()) got = 0;
    const RunSource source = automatic ? RunSource::kAuto : RunSource::kHint;
    if (got > 0) {
      if (sync_prefetch_ || source_for(home) == &node_source_) {
        // A copy from this node's memory waits for nobody: at once. Every
        // page but the last becomes readable; the last (the only one, in a
        // run of one) is the tripwire that tells whether the hint was useful.
        // One operation: the relief waits until the first page is readable.
        const PageFsm::Operation op = fsm_.operation();
        fetch_run(p, got, home, source);
        if (got > 1) fsm_.to(p, PageState::kReadOnly, Cause::kFetch);
        else fsm_.to_prefetched(p, 0, source, Cause::kFetch);
      } else if (!start_prefetch(p, got, home, source)) {
        got = 0;  // every reply lane busy, or the run would wait for the home: dropped
      }
    }
    dropped += n - got;
    if (got > 0) {
      ++requests;
      fetched += got;
    }
    p += n;
  }
  // The program's hint takes precedence over the engine's own in its range
  // only where it took effect: a range of which pages were dropped (no room)
  // is left to the engine, or its faults would fetch one page each.
  if (!automatic && auto_hints_ && dropped == dropped_before) named_.add(first, count, epoch_);
  if (!any_home || !region_->file_backed()) return;
  // Out-of-core home pages: one residency check for the range, one
  // read-ahead per run of home pages not in memory.
  const uint64_t missing =
      region_->read_ahead(first, count, [this](uint64_t q) { return is_home_state((*pages_)[q].state); });
  stats_->hint_prefetch_read_ahead += missing;
  homes_resident_ += missing;
  uint64_t homes = 0;
  for (uint64_t q = first; q < end; ++q) homes += is_home_state((*pages_)[q].state);
  filtered += homes - missing;
}

void Coherence::release_pages(uint64_t first, uint64_t count, uint32_t priority, uint64_t tag, bool automatic) {
  (automatic ? stats_->auto_releases : stats_->hint_release_pages) += count;
  // Lag by one per call site: what this site named last time goes now.
  // The engine's releases lag by stream slot, apart from the program's call
  // sites (whose tags are any number the program chose).
  ReleaseLag& lag = automatic ? auto_release_lag_ : release_lag_;
  const std::optional<PageRange> held = lag.pass(tag, PageRange{first, count, priority});
  if (!held) return;
  std::vector<uint32_t> copies, homes;
  for (uint64_t p = held->first; p < held->first + held->count; ++p) {
    const PageState st = (*pages_)[p].state;
    if (st == PageState::kReadOnly || st == PageState::kReadWrite || st == PageState::kPrefetched ||
        st == PageState::kInFlight)
      copies.push_back(static_cast<uint32_t>(p));
    else if (is_home_state(st) && region_->file_backed())
      homes.push_back(static_cast<uint32_t>(p));
    else if (!automatic)
      ++stats_->hint_release_filtered;  // not in memory, or home memory we cannot give back
  }
  if (!release_buffered_) {
    release_copies(copies);
    release_homes(homes);
    return;
  }
  for (uint32_t p : copies) released_copies_.add(p, held->priority);
  for (uint32_t p : homes) released_homes_.add(p, held->priority);
  trim_homes();
}

void Coherence::auto_hint(uint64_t page, bool demand) {
  // prepare() pins its ranges and must fit them in the cache: no hints then.
  if (!auto_hints_ || fsm_.pinning()) return;
  // The program is using the page: a release named earlier no longer holds
  // (and the prefetches below must not take its slot).
  released_copies_.remove(static_cast<uint32_t>(page));
  // The program's own hints take precedence: a fault in a range they named
  // this interval is theirs to follow (the engine's streams would cut their
  // runs into pieces and fetch what they fetch).
  if (!auto_over_hints_ && named_.contains(page, epoch_)) {
    ++stats_->auto_deferred;
    return;
  }
  const StreamAdvice a = streams_.on_fault(page, demand, pages_->allocated());
  if (!a.on_stream) return;
  stats_->auto_streams += a.confirmed;
  stats_->auto_prefetch_late += a.late;
  // `steps` pages from `first`, `a.stride` apart, to `hint`: a sequential
  // stream's as one range (runs of one home, one request each), a strided
  // stream's one page each.
  auto each_step = [&a](uint64_t first, uint64_t steps, auto&& hint) {
    if (steps == 0) return;
    if (a.stride == 1) return hint(first, steps);
    for (uint64_t i = 0; i < steps; ++i) hint(first + i * a.stride, 1);
  };
  each_step(a.prefetch_first, a.prefetch_steps, [this](uint64_t f, uint64_t n) { prefetch_pages(f, n, true); });
  // Releases behind the stream take the explicit ones' path, lag included,
  // tagged by the stream's slot, at the lowest priority (given back first).
  const uint64_t behind =
      a.release_end > a.release_first ? (a.release_end - a.release_first + a.stride - 1) / a.stride : 0;
  each_step(a.release_first, behind,
            [this, tag = uint64_t{a.stream}](uint64_t f, uint64_t n) { release_pages(f, n, 0, tag, true); });
}

void Coherence::release_copies(std::vector<uint32_t>& sorted) {
  if (sorted.empty()) return;
  // A dirty copy's diff goes home first, as at an eviction: the writes are
  // the home's earlier than the next release would have sent them, which
  // scope consistency allows (nobody may rely on seeing them before it).
  std::vector<bool> homes(static_cast<size_t>(size_), false);
  for (uint32_t p : sorted) {
    PageMeta& m = (*pages_)[p];
    if (m.state != PageState::kReadWrite || test_fault(TestFault::kReleaseSkipDiff)) continue;
    make_diff(p);
    homes[static_cast<size_t>(m.home.load(std::memory_order_relaxed))] = true;
    ++stats_->release_flushed;
  }
  for (int h = 0; h < size_; ++h)
    if (homes[static_cast<size_t>(h)]) send_pending(h);
  stats_->pages_released += sorted.size();
  drop_copies(sorted, Cause::kRelease);
}

void Coherence::release_homes(std::vector<uint32_t>& sorted) {
  for_each_run(sorted, [this](uint64_t first, uint64_t count) { region_->give_back(first, count); });
  stats_->pages_released += sorted.size();
  homes_resident_ -= std::min<uint64_t>(homes_resident_, sorted.size());
}

void Coherence::trim_homes() {
  if (home_memory_pages_ == 0) return;
  std::vector<uint32_t> out;
  uint64_t resident = homes_resident_;
  uint32_t p = 0;
  while (resident > home_memory_pages_ && released_homes_.take(&p)) {
    if (!is_home_state((*pages_)[p].state)) continue;
    out.push_back(p);
    --resident;
  }
  std::sort(out.begin(), out.end());
  release_homes(out);
}

void Coherence::make_writable(uint64_t page) {
  const PageMeta& m = (*pages_)[page];
  fsm_.require(page, PageState::kReadWrite, Cause::kFault);  // the twin needs the slot
  std::memcpy(cache_->twin(m.slot), region_->alias(page), twin_bytes());
  ++stats_->twins;
  fsm_.to(page, PageState::kReadWrite, Cause::kFault);
  stack_->note(static_cast<uint32_t>(page));
  mark_dirty(page);
}

void Coherence::home_write(uint64_t page) {
  fsm_.to(page, PageState::kHomeDirty, Cause::kFault);
  stack_->note(static_cast<uint32_t>(page));
  mark_dirty(page);
}

void Coherence::claim_home(uint64_t page, Access access) {
  // First touch: the page's directory entry lives at rank page % size; the
  // first claim it receives wins.
  PageMeta& m = (*pages_)[page];
  const int dir = static_cast<int>(page % static_cast<uint64_t>(size_));
  Transport& t = *transport_;
  t.send(dir, kTagRequest, encode(HomeClaimMsg{static_cast<uint32_t>(page)}, t.next_seq()));
  Incoming in = t.await_reply(MsgType::kHomeIs, dir, "a first-touch home (HOMEIS)");
  HomeIsMsg answer;
  Status st = decode_message(in.bytes, Limits{pages_->allocated(), size_}, &answer);
  if (!st.ok() || answer.page != page)
    fatal("protocol error: bad HOMEIS reply from rank %d for page %" PRIu64 ": %s", dir, page,
          st.ok() ? "wrong page or no home" : st.message().c_str());
  const int home = answer.home;
  ++stats_->home_claims;
  m.home.store(home, std::memory_order_release);
  if (home != rank_) {
    fetch(page, access == Access::kWrite);
    return;
  }
  reserve_disk(page, 1, "page fault");
  ++homes_resident_;
  // We are the home. Nobody can hold a copy unless someone fetched the page
  // between the claim and now (its zeros); then writes must stay trapped.
  // (Under CO-WD too: a page someone copied meanwhile stays trapped, and
  // its writes are noted as under the other modes.)
  if (!write_detect_all_ && region_->share().try_untrap_fresh(static_cast<uint32_t>(page))) {
    fsm_.to(page, PageState::kHomeUntrapped, Cause::kFirstTouch);
    return;
  }
  fsm_.to(page, PageState::kHomeClean, Cause::kFirstTouch);
  if (access == Access::kWrite) home_write(page);
}

void Coherence::evict(uint32_t slot, Cause cause) {
  // One operation: finishing a run in flight must not let the relief of
  // map pressure drop the page before it is evicted.
  const PageFsm::Operation op = fsm_.operation();
  uint64_t page = cache_->page_in(slot);
  PageMeta& m = (*pages_)[page];
  // The slot's memory is MPI's until the fetch into it finishes.
  if (m.state == PageState::kInFlight) finish_prefetch(inflight_index(page));
  ++stats_->evictions;
  if (cache_->far(slot)) ++stats_->evictions_far;
  if (m.state == PageState::kReadWrite) {
    // A dirty page's writes go home before its copy goes: nothing is lost,
    // and a later fetch of the page sees them.
    make_diff(page);
    // On its way home now; a later fetch of the page is ordered after it,
    // and the next release waits for its acknowledgement.
    send_pending(m.home.load(std::memory_order_relaxed));
    ++stats_->dirty_evictions;
  }
  std::vector<uint32_t> one{static_cast<uint32_t>(page)};
  drop_copies(one, cause);
}

void Coherence::drop_copies(std::vector<uint32_t>& sorted_pages, Cause cause) {
  if (sorted_pages.empty()) return;
  // One operation: the relief of map pressure waits until every page of
  // the list is dropped (it would drop them too, and free their slots twice).
  const PageFsm::Operation op = fsm_.operation();
  if (inflight_runs_ > 0)
    for (uint32_t p : sorted_pages)
      if ((*pages_)[p].state == PageState::kInFlight) finish_prefetch(inflight_index(p));
  for (uint32_t p : sorted_pages) {
    const PageMeta& m = (*pages_)[p];
    released_copies_.remove(p);
    if (m.state != PageState::kPrefetched) continue;
    switch (m.run_source) {
      case RunSource::kAuto:
        stats_->auto_prefetch_wasted += m.run_pages + 1u;  // an automatic prefetch, never touched
        streams_.distance().wasted();
        break;
      case RunSource::kHint:
        stats_->hint_prefetch_wasted += m.run_pages + 1u;  // a hint's run, never touched
        break;
      case RunSource::kFault:
        // A run whose last page was never touched: shorter runs next.
        stats_->prefetch_wasted += m.run_pages;
        window_ = std::max<uint32_t>(std::min<uint32_t>(2, max_run_), window_ / 2);
        break;
    }
  }
  // The slots are freed, and the copies' flags reset, with the state.
  fsm_.to_pages(sorted_pages, PageState::kInvalid, cause);
  for (uint32_t p : sorted_pages) list_stale(p);
  if (stale_.size() > cache_->capacity()) discard_stale();
}

void Coherence::list_stale(uint32_t page) {
  // The memory stays for now: a later fetch of the page (an iterative
  // program fetches the same pages again after every invalidation) then
  // finds it allocated and mapped, which saves a tmpfs page allocation and
  // a page-table fault per fetch. Discarded in batches (discard_stale).
  PageMeta& m = (*pages_)[page];
  if (m.stale_listed) return;
  m.stale_listed = true;
  stale_.push_back(page);
}

void Coherence::discard_stale() {
  // Memory held by copies is at most the cache's capacity of valid pages
  // plus as many stale ones.
  std::vector<uint32_t> gone;
  gone.reserve(stale_.size());
  for (uint32_t p : stale_) {
    PageMeta& m = (*pages_)[p];
    m.stale_listed = false;
    // Not fetched again meanwhile, nor being fetched (a slot taken for it).
    if (m.state == PageState::kInvalid && m.slot == kNoSlot) {
      gone.push_back(p);
      m.wvec_version = 0;  // its memory becomes zeros: no blocks to keep
    }
  }
  stale_.clear();
  std::sort(gone.begin(), gone.end());
  for_each_run(gone, [this](uint64_t first, uint64_t count) { region_->discard(first, count); });
  stats_->stale_discards += gone.size();
}

void Coherence::mark_dirty(uint64_t page) {
  PageMeta& m = (*pages_)[page];
  if (m.in_dirty_list) return;
  m.in_dirty_list = true;
  dirty_.push_back(static_cast<uint32_t>(page));
}

// ---------------------------------------------------------------------------
// Intervals and diffs

void Coherence::make_diff(uint64_t page) {
  PageMeta& m = (*pages_)[page];
  if (test_fault(TestFault::kSkipDiff)) return;  // negative control: writes are lost
  const int home = m.home.load(std::memory_order_relaxed);
  size_t changed = 0;
  {
    TraceSpan span(stats_->trace, &stats_->t_diff_make_ns, TraceKind::kDiffMake, static_cast<uint32_t>(page));
    if (source_for(home) == &node_source_) {
      // The home is on this node: the changed bytes go straight into its
      // memory, now. Nothing is pending and nothing needs acknowledging.
      std::byte* at_home = region_->peer_page(node_->local_index(home), page);
      if (test_fault(TestFault::kWholeWordMerge))
        changed = merge_whole_words(at_home, region_->alias(page), cache_->twin(m.slot), twin_bytes());
      else
        changed = merge_diff(at_home, region_->alias(page), cache_->twin(m.slot), twin_bytes());
      if (changed != 0) ++stats_->node_diffs;
    } else {
      auto& w = pending_[static_cast<size_t>(home)];
      if (!w) w = std::make_unique<Writer>(MsgType::kDiff);
      changed = encode_diff(static_cast<uint32_t>(page), region_->alias(page), cache_->twin(m.slot), twin_bytes(),
                            w.get());
      if (changed != 0 && !m.pending_diff) {
        m.pending_diff = true;
        pending_pages_[static_cast<size_t>(home)].push_back(static_cast<uint32_t>(page));
      }
    }
    span.set_arg2(static_cast<uint32_t>(changed));
  }
  if (changed == 0) return;
  ++stats_->diffs_made;
  stats_->diff_bytes_made += changed;
}

void Coherence::close_interval() {
  // A synchronization point: no fetch stays in flight across it (notices
  // applied next must find every copy settled, and a barrier must not pass
  // before the homes have recorded our copies).
  finish_prefetches();
  drain_retraps();
  if (dirty_.empty()) return;
  std::sort(dirty_.begin(), dirty_.end());
  std::vector<uint32_t> downgrade;
  downgrade.reserve(dirty_.size());
  std::vector<uint32_t> home_downgrade;
  for (uint32_t p : dirty_) {
    PageMeta& m = (*pages_)[p];
    m.in_dirty_list = false;
    if (m.state == PageState::kReadWrite) {
      make_diff(p);
      downgrade.push_back(p);
    } else if (m.state == PageState::kHomeDirty) {
      home_downgrade.push_back(p);
      wvec_->forget(p);  // our own writes: not observed block by block
    }
  }
  dirty_.clear();
  fsm_.to_pages(downgrade, PageState::kReadOnly, Cause::kEndOfInterval);
  fsm_.to_pages(home_downgrade, PageState::kHomeClean, Cause::kEndOfInterval);
}

void Coherence::send_pending(int home) {
  auto& pages = pending_pages_[static_cast<size_t>(home)];
  auto& w = pending_[static_cast<size_t>(home)];
  if (pages.empty()) {
    w.reset();
    return;
  }
  Transport& t = *transport_;
  t.send(home, kTagRequest, w->finish(t.next_seq()));
  t.acks().expect(home);  // DIFFGRANT
  w.reset();
  for (uint32_t p : pages) (*pages_)[p].pending_diff = false;
  pages.clear();
}

void Coherence::flush_diffs(int ordered_with) {
  for (int h = 0; h < size_; ++h) send_pending(h);
  transport_->acks().wait_except(ordered_with);
}

void Coherence::invalidate(const std::vector<WriteNotice>& notices) {
  if (test_fault(TestFault::kSkipInvalidate)) return;  // negative control: stale reads
  // CO-WD: the home writes nobody is told of may be in any cached page.
  // (Negative control cowd-keep-cache: only the pages notices name.)
  if (cache_only_ && !test_fault(TestFault::kCowdKeepCache)) {
    invalidate_all_copies();
    return;
  }
  std::vector<uint32_t> drop;
  for (const WriteNotice& n : notices) {
    if (n.touch_only) continue;  // a next-touch offer: nobody wrote the page
    PageMeta& m = (*pages_)[n.page];
    if (n.writer == rank_) {
      // Only we wrote it: our copy is current (single-writer retention).
      // Without retention it is dropped like any other, except a copy a
      // barrier is about to make the page's home (its offer, §6a).
      if (config_->writer_retention || n.offers_home) {
        if (m.state == PageState::kReadOnly || m.state == PageState::kPrefetched) ++stats_->retained;
        continue;
      }
    }
    if (m.state == PageState::kReadOnly || m.state == PageState::kReadWrite || m.state == PageState::kPrefetched) {
      if (m.state == PageState::kReadWrite)
        fatal("internal error: write notice for page %u while it is still being written", n.page);
      drop.push_back(n.page);
    }
  }
  take_unrecorded(&drop);
  std::sort(drop.begin(), drop.end());
  drop.erase(std::unique(drop.begin(), drop.end()), drop.end());
  stats_->invalidations += drop.size();
  drop_copies(drop, Cause::kInvalidation);
}

void Coherence::take_unrecorded(std::vector<uint32_t>* drop) {
  // Copies read one-sided while their home did not trap them: the home may
  // have written them since without a notice (docs/PROTOCOL.md §2.3).
  if (test_fault(TestFault::kKeepUnrecorded)) return;  // negative control: stale reads
  for (uint32_t p : unrecorded_) {
    PageMeta& m = (*pages_)[p];
    if (!m.unrecorded) continue;  // dropped since (the flag goes with the copy)
    if (m.state == PageState::kReadWrite)
      fatal("internal error: page %u is still being written at an acquire", p);
    if (m.state == PageState::kReadOnly || m.state == PageState::kPrefetched) drop->push_back(p);
    else m.unrecorded = false;
  }
  unrecorded_.clear();
}

// ---------------------------------------------------------------------------
// Atomics at the home

uint64_t Coherence::atomic(uint64_t page, uint32_t offset, AtomicOp op, AtomicType type, uint64_t operand,
                           uint64_t expected, const char* call) {
  PageMeta& m = (*pages_)[page];
  if (m.home.load(std::memory_order_relaxed) == kHomeUnknown) prepare(page, 1, Access::kRead, call);
  // A copy on its way must arrive before the atomic's new value is written into it.
  if (m.state == PageState::kInFlight) finish_prefetch(inflight_index(page));
  const int home = m.home.load(std::memory_order_relaxed);
  const bool torn = test_fault(TestFault::kAtomicTorn);
  uint64_t old = 0;
  if (home == rank_) {
    old = apply_atomic(region_->alias(page) + offset, op, type, operand, expected, torn);
    wvec_->note_blocks(static_cast<uint32_t>(page), wvec_->mask_for(offset, atomic_type_size(type)));
  } else if (source_for(home) == &node_source_) {
    old = apply_atomic(region_->peer_page(node_->local_index(home), page) + offset, op, type, operand, expected, torn);
  } else {
    Transport& t = *transport_;
    t.send(home, kTagRequest,
           encode(AtomicMsg{static_cast<uint32_t>(page), offset, static_cast<uint32_t>(op),
                            static_cast<uint32_t>(type), operand, expected},
                  t.next_seq()));
    old = decode_or_fatal<AtomicResultMsg>(t.await_reply(MsgType::kAtomicResult, home, "an atomic at the home (ATOMICRES)").bytes,
                                           home, Limits{pages_->allocated(), size_})
              .old;
  }
  ++stats_->atomics;
  const uint64_t now = atomic_result(op, type, old, operand, expected);
  if (now == old) return old;  // nothing written
  // Our copy sees our own atomic; the twin too, so the diff leaves the word
  // to the home (a plain write of the same word in this interval is a race).
  if (m.state == PageState::kReadOnly || m.state == PageState::kReadWrite || m.state == PageState::kPrefetched) {
    const size_t n = atomic_type_size(type);
    std::memcpy(region_->alias(page) + offset, &now, n);  // little-endian: the low bytes
    if (m.state == PageState::kReadWrite) std::memcpy(cache_->twin(m.slot) + offset, &now, n);
  }
  stack_->note(static_cast<uint32_t>(page));
  return old;
}

void Coherence::invalidate_all_copies() {
  if (test_fault(TestFault::kSkipInvalidate)) return;  // negative control: stale reads
  std::vector<uint32_t> drop;
  cache_->for_each_page([&](uint64_t p) {
    const PageState st = (*pages_)[p].state;
    if (st == PageState::kReadWrite) fatal("internal error: page %" PRIu64 " is still being written at an acquire", p);
    if (st == PageState::kReadOnly || st == PageState::kPrefetched) drop.push_back(static_cast<uint32_t>(p));
  });
  take_unrecorded(&drop);
  std::sort(drop.begin(), drop.end());
  drop.erase(std::unique(drop.begin(), drop.end()), drop.end());
  stats_->invalidations += drop.size();
  drop_copies(drop, Cause::kInvalidation);
}

// ---------------------------------------------------------------------------
// Adaptive write detection

void Coherence::drain_retraps(bool quiet) {
  region_->share().drain(&retraps_);
  // CO-WD: copies change nothing at the home; every cache is dropped at
  // every acquire anyway. (The drain clears the pages' queue bits.)
  if (cache_only_) return;
  for (uint32_t p : retraps_) {
    // A page whose home has just moved away (migrate_homes): the copy was
    // taken since our barrier began, we have not written the page since,
    // and the barrier's notice invalidates that copy. Nothing to note.
    if (!is_home_state((*pages_)[p].state)) continue;
    if ((*pages_)[p].home_pinned) continue;  // never trapped: its copies are unrecorded instead
    if (quiet && (*pages_)[p].nt_pending && (*pages_)[p].state == PageState::kHomeClean) continue;
    // The copy taken may be older than writes we made since, in any open
    // critical section: every open level gets the notice.
    stack_->note_everywhere(p);
    ++stats_->retraps;
    if ((*pages_)[p].state == PageState::kHomeUntrapped) {
      fsm_.to(p, PageState::kHomeDirty, Cause::kRetrap);
      mark_dirty(p);
    }
  }
}

void Coherence::migrate_homes(const std::vector<WriteNotice>& notices) {
  std::vector<uint32_t> gained, lost;
  uint64_t rehomed = 0;
  for (const WriteNotice& n : notices) {
    PageMeta& m = (*pages_)[n.page];
    // A next-touch pending page named by the barrier is settled, moved or
    // not: touched (its toucher moves it), written by one writer that
    // still has its copy (moves too), or written by its home, by several,
    // or by a writer that lost its copy (stays).
    const bool was_pending = m.nt_pending;
    m.nt_pending = false;
    m.nt_touched = false;
    if (!n.offers_home) continue;  // a merge keeps an offer only for a page with one writer, or one toucher
    if (n.writer == rank_ && was_pending) ++rehomed;
    if (n.writer == rank_) {
      // We offered because we hold the copy, and nothing since the offer
      // (we were in the barrier) can have dropped it.
      if (m.state != PageState::kReadOnly && !test_fault(TestFault::kStaleHomeOffer))
        fatal("internal error: offered to become the home of page %u, which is %s here", n.page,
              page_state_name(m.state));
      gained.push_back(n.page);
    } else if (is_home_state(m.state)) {
      lost.push_back(n.page);
    }
    m.home.store(n.writer, std::memory_order_release);
    // Our `seen` mark (one-sided reads, §2.3) is at the old home: the new
    // one must get its own before we read the page from it one-sided, or it
    // could untrap the page under our copy.
    m.seen_marked = false;
    m.seen_trapped = false;
    // A write vector's version is the old home's; the new one's differ.
    m.wvec_version = 0;
    wvec_->forget(n.page);
  }
  if (gained.empty() && lost.empty()) return;
  // Our cached copy, in our memory at the page's place, is the page now
  // (its cache slot is freed with the transition). Trapped until
  // untrap_after_barrier finds nobody else holds a copy. The protection
  // (read) does not change.
  fsm_.to_pages(gained, PageState::kHomeClean, Cause::kHomeMigration);
  if (!lost.empty() && !test_fault(TestFault::kKeepLostHome)) {
    // Our memory of the page is a copy now, and stale as soon as the new
    // home writes: invalid, its memory discarded with the other copies'.
    fsm_.to_pages(lost, PageState::kInvalid, Cause::kHomeMigration);
    for (uint32_t p : lost) list_stale(p);
    // The retrap queue may still hold a lost page (a copy taken since our
    // barrier began): drained first (drain_retraps passes over pages that
    // are not ours), so that resetting the share word cannot let a later
    // return of the page queue it twice.
    drain_retraps();
    for (uint32_t p : lost) region_->share().reset(p, false);
  }
  stats_->homes_gained += gained.size();
  stats_->homes_lost += lost.size();
  stats_->next_touch_pages_rehomed += rehomed;
  homes_resident_ += gained.size();
  homes_resident_ -= std::min<uint64_t>(homes_resident_, lost.size());
}

void Coherence::set_write_detect_all(bool all) {
  write_detect_all_ = all;
  if (!all) return;
  // Writes made untrapped in this interval are noted now, as a retrap would.
  for (uint64_t p = 0; p < pages_->allocated(); ++p) {
    if ((*pages_)[p].state != PageState::kHomeUntrapped || (*pages_)[p].home_pinned) continue;
    stack_->note_everywhere(static_cast<uint32_t>(p));
    fsm_.to(p, PageState::kHomeDirty, Cause::kWriteDetectAll);
    mark_dirty(p);
  }
}

void Coherence::untrap_after_barrier(const std::vector<WriteNotice>& notices, uint32_t completed_epoch) {
  if (write_detect_all_ || cache_only_) return;  // CO-WD: home pages are untrapped from the start
  std::vector<uint32_t> untrap;
  bool slept = false;
  for (const WriteNotice& n : notices) {
    // Only a notice that makes every other process drop its copy will do:
    // written by us alone or by several (a page written only by another
    // process stays cached there). With home migration on, not a page
    // several wrote: another writer will copy it again, and the copy would
    // make us note it as written at our next synchronization (a retrap),
    // so it would never have a single writer to move to.
    if (n.writer != rank_ && (n.writer != kMultipleWriters || home_migration_)) continue;
    // A next-touch move to a reader: other readers may keep their copies.
    if (n.touch_only) continue;
    if ((*pages_)[n.page].state != PageState::kHomeClean) continue;
    // Test only: a late home, so that readers can copy the page first.
    if (test_fault(TestFault::kSlowUntrap) && !slept) sleep_ns(50'000'000);
    slept = true;
    // Not a page copied in the interval this barrier ends, although the
    // notice dropped that copy: its readers most often read it again (a
    // matrix row every iteration), and a copy taken untrapped costs a
    // conservative notice (drain_retraps), so untrapping it would end every
    // interval in one more notice and refetch (docs/PROTOCOL.md §2.3).
    const uint32_t since = test_fault(TestFault::kUntrapCopied) ? completed_epoch + 1 : completed_epoch;
    if (region_->share().try_untrap(n.page, since)) {
      untrap.push_back(n.page);
      wvec_->forget(n.page);  // its writes go unobserved from now on
    }
  }
  std::sort(untrap.begin(), untrap.end());
  fsm_.to_pages(untrap, PageState::kHomeUntrapped, Cause::kUntrap);
  stats_->untraps += untrap.size();
}

// ---------------------------------------------------------------------------
// Allocation and protection

void Coherence::note_guard(uint64_t page, const char* what) { guards_.emplace_back(page, what); }

void Coherence::place_pages(uint64_t first, uint64_t count, const std::function<int32_t(uint64_t)>& home_of,
                            const char* call, bool home_pinned) {
  const bool adaptive = !write_detect_all_ || home_pinned;
  std::vector<uint32_t> homes;
  for (uint64_t p = first; p < first + count; ++p) {
    const int32_t h = home_of(p);
    fsm_.allocate(p, h);  // every field afresh
    (*pages_)[p].home_pinned = home_pinned;
    wvec_->forget(static_cast<uint32_t>(p));
    if (h == rank_) {
      region_->share().reset(static_cast<uint32_t>(p), adaptive);
      homes.push_back(static_cast<uint32_t>(p));
    } else {
      fsm_.to(p, PageState::kInvalid, Cause::kAllocation, call);  // no access, as unallocated pages: no mprotect
    }
  }
  for_each_run(homes, [&](uint64_t run_first, uint64_t run_count) { reserve_disk(run_first, run_count, call); });
  homes_resident_ += homes.size();
  fsm_.to_pages(homes, adaptive ? PageState::kHomeUntrapped : PageState::kHomeClean, Cause::kAllocation, call);
  if (const uint32_t n = config_->next_touch_barriers; n != 0) auto_next_touch_.push_back({first, count, n});
}

void Coherence::relieve_map_pressure() {
  // Clean cached copies can always be dropped; dropping whole runs of them
  // never adds a boundary. Not the pages scopedsm_prepare is making valid.
  std::vector<uint32_t> clean;
  for (uint64_t slot = 0; slot < cache_->capacity(); ++slot) {
    uint64_t page = cache_->page_in(static_cast<uint32_t>(slot));
    if (page >= pages_->num_pages() || !fsm_.relievable(page)) continue;
    const PageState st = (*pages_)[page].state;
    // Pages prepare() has made valid stay so (the kernel is about to use them).
    if (st == PageState::kReadOnly || st == PageState::kPrefetched)
      clean.push_back(static_cast<uint32_t>(page));
  }
  std::sort(clean.begin(), clean.end());
  SCOPEDSM_LOG(LogLevel::kInfo, "protection boundaries near the vm.max_map_count budget: dropping %zu clean cached pages",
               clean.size());
  ++stats_->map_reliefs;
  drop_copies(clean, Cause::kRelief);
}

}  // namespace scopedsm
