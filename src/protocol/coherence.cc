#include "protocol/coherence.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "common/log.h"
#include "protocol/diff.h"
#include "protocol/messages.h"
#include "protocol/page_runs.h"
#include "protocol/page_source.h"

namespace scopedsm {

namespace {

// Negative control only (SCOPEDSM_TEST_FAULT=whole-word-merge): merges every
// changed 8-byte word whole, overwriting bytes other writers own.
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
      transport_(p.transport),
      region_(p.region),
      pages_(p.pages),
      cache_(p.cache),
      stack_(p.stack),
      stats_(p.stats),
      wvec_(p.wvec),
      surface_(p.surface),
      serve_mutex_(p.serve_mutex),
      fsm_(p.pages, p.cache, p.region, p.test_faults, p.surface->larger_blocks),
      ctx_{.rank = p.rank,
           .size = p.size,
           .config = p.config,
           .test_faults = p.test_faults,
           .pages = p.pages,
           .cache = p.cache,
           .region = p.region,
           .share = &p.region->share(),
           .fsm = &fsm_,
           .stack = p.stack,
           .stats = p.stats,
           .wvec = p.wvec},
      message_source_(p.transport, p.region->page_size(), p.pages, p.wvec, p.stats),
      node_source_(p.region, p.node, (p.test_faults & static_cast<uint64_t>(TestFault::kSkipNodeRecord)) != 0,
                   (p.test_faults & static_cast<uint64_t>(TestFault::kSlowRetrapQueue)) != 0 ? 100'000'000 : 0),
      detect_(ctx_, this),
      release_(ctx_, this),
      auto_hints_(ctx_, this, &prefetcher_, &release_),
      prefetcher_(ctx_, this, &release_, &auto_hints_),
      next_touch_(ctx_, this, &detect_),
      migration_(ctx_, this, &detect_, &release_),
      atomics_(ctx_, this, &prefetcher_) {
  fsm_.set_relief([this] { relieve_map_pressure(); });
  message_source_.set_write_vector(p.write_vector);
  pending_.resize(static_cast<size_t>(size_));
  pending_pages_.resize(static_cast<size_t>(size_));
  if (p.rma != nullptr)
    rma_source_ = std::make_unique<RmaSource>(p.rma, p.region, p.pages, p.transport, !p.config->write_detect_cache_only,
                                               p.test_faults);
  PageSource* remote = rma_source_ ? static_cast<PageSource*>(rma_source_.get()) : &message_source_;
  sources_.resize(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    const bool near = p.node_shared && r != rank_ && p.node->same_node(r);
    sources_[static_cast<size_t>(r)] = near ? static_cast<PageSource*>(&node_source_) : remote;
  }
}

// ---------------------------------------------------------------------------
// Barrier steps

std::vector<WriteNotice> Coherence::barrier_notices(const std::vector<uint32_t>& pages) {
  std::vector<WriteNotice> out;
  out.reserve(pages.size());
  for (uint32_t p : pages)
    out.push_back({p, rank_, migration_.offers((*pages_)[p]) || test_fault(TestFault::kStaleHomeOffer)});
  next_touch_.add_touch_offers(pages, &out);
  return out;
}

void Coherence::move_homes(const std::vector<WriteNotice>& notices) {
  // The next epoch starts first: what the migration notes (a retrap) belongs
  // to it, and the lock stack keeps one entry per page and epoch.
  ++epoch_;
  stack_->set_epoch(epoch_);
  migration_.migrate(notices);
}

void Coherence::finish_barrier(const std::vector<WriteNotice>& notices) {
  // Written by someone since the last barrier: if homed here, the home's
  // memory has the writes now (visit_home_pages).
  for (const WriteNotice& n : notices)
    if (!n.touch_only) (*pages_)[n.page].ckpt_changed = true;
  invalidate(notices);
  detect_.untrap_after_barrier(notices, epoch_ - 1, migration_.enabled());
  next_touch_.on_barrier();
}

// ---------------------------------------------------------------------------
// Checkpoints

void Coherence::visit_home_pages(const std::function<void(uint64_t page, bool changed)>& visit) const {
  for (uint64_t p = 0; p < pages_->allocated(); ++p) {
    const PageMeta& m = (*pages_)[p];
    if (!is_home_state(m.state)) continue;
    // An untrapped or pinned page may be written at any time unobserved.
    visit(p, m.ckpt_changed || m.state == PageState::kHomeUntrapped || m.home_pinned);
  }
}

void Coherence::checkpoint_saved() {
  for (uint64_t p = 0; p < pages_->allocated(); ++p) (*pages_)[p].ckpt_changed = false;
}

void Coherence::restored(uint64_t first, uint64_t count) {
  for (uint64_t p = first; p < first + count; ++p) (*pages_)[p].ckpt_changed = false;
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
        next_touch_.on_fetch_fault(page);
        auto_hints_.on_fault(page, true);
      }
      return;
    case PageState::kReadOnly:
      ++stats_->write_faults;
      make_writable(page);
      auto_hints_.on_fault(page, false);
      return;
    case PageState::kPrefetched:
      if (write) ++stats_->write_faults;
      else ++stats_->read_faults;
      prefetcher_.touch_prefetched(page, write);
      auto_hints_.on_fault(page, false);
      return;
    case PageState::kInFlight:
      if (write) ++stats_->write_faults;
      else ++stats_->read_faults;
      auto_hints_.on_fault(prefetcher_.touch_in_flight(page, write), false);
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
  if (slot == kNoSlot && release_.room_for(1) == 1) slot = cache_->take_free();  // a released page's slot first
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
  fsm_.attach_slot(page, slot, home < 0 || !source_for(home)->is_local());
  return slot;
}

void Coherence::fetch(uint64_t page, bool for_write) {
  PageMeta& m = (*pages_)[page];
  const int home = m.home.load(std::memory_order_relaxed);
  const uint32_t count = prefetcher_.run_length(page, home);
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
  release_.reserve_disk(page, count, "page fault");
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
  if (source->is_local()) stats_->node_fetches += f.count;
  if (!source->reads_one_sided()) return;
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
                   source->is_local() ? TraceKind::kNodeCopy : TraceKind::kFetch, static_cast<uint32_t>(page),
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

uint64_t Coherence::atomic_at_home(int home, const AtomicMsg& msg) {
  Transport& t = *transport_;
  t.send(home, kTagRequest, encode(msg, t.next_seq()));
  return decode_or_fatal<AtomicResultMsg>(
             t.await_reply(MsgType::kAtomicResult, home, "an atomic at the home (ATOMICRES)").bytes, home,
             Limits{pages_->allocated(), size_})
      .old;
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
  release_.reserve_disk(page, 1, "page fault");
  release_.homes_in(1);
  // We are the home. Nobody can hold a copy unless someone fetched the page
  // between the claim and now (its zeros); then writes must stay trapped.
  // (Under CO-WD too: a page someone copied meanwhile stays trapped, and
  // its writes are noted as under the other modes.)
  if (detect_.untrap_fresh(static_cast<uint32_t>(page))) {
    fsm_.to(page, PageState::kHomeUntrapped, Cause::kFirstTouch);
    return;
  }
  fsm_.to(page, PageState::kHomeClean, Cause::kFirstTouch);
  if (access == Access::kWrite) home_write(page);
}

// ---------------------------------------------------------------------------
// Dropping copies

void Coherence::evict(uint32_t slot, Cause cause) {
  // One operation: finishing a run in flight must not let the relief of
  // map pressure drop the page before it is evicted.
  const PageFsm::Operation op = fsm_.operation();
  uint64_t page = cache_->page_in(slot);
  PageMeta& m = (*pages_)[page];
  // The slot's memory is MPI's until the fetch into it finishes.
  prefetcher_.settle(page);
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
  prefetcher_.settle_pages(sorted_pages);
  for (uint32_t p : sorted_pages) {
    release_.forget(p);
    prefetcher_.dropped((*pages_)[p]);  // a run's tripwire never touched
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

// ---------------------------------------------------------------------------
// Intervals and diffs

void Coherence::mark_dirty(uint64_t page) {
  PageMeta& m = (*pages_)[page];
  if (m.in_dirty_list) return;
  m.in_dirty_list = true;
  dirty_.push_back(static_cast<uint32_t>(page));
}

void Coherence::make_diff(uint64_t page) {
  PageMeta& m = (*pages_)[page];
  if (test_fault(TestFault::kSkipDiff)) return;  // negative control: writes are lost
  const int home = m.home.load(std::memory_order_relaxed);
  size_t changed = 0;
  {
    TraceSpan span(stats_->trace, &stats_->t_diff_make_ns, TraceKind::kDiffMake, static_cast<uint32_t>(page));
    if (PageSource* source = source_for(home); source->merges_diffs()) {
      // The home's memory is mapped here: the changed bytes go straight
      // into it, now. Nothing is pending and nothing needs acknowledging.
      std::byte* at_home = source->home_memory(home, page);
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
  prefetcher_.finish_all();
  detect_.drain_retraps();
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

// ---------------------------------------------------------------------------
// Invalidation

void Coherence::invalidate(const std::vector<WriteNotice>& notices) {
  if (test_fault(TestFault::kSkipInvalidate)) return;  // negative control: stale reads
  // CO-WD: the home writes nobody is told of may be in any cached page.
  // (Negative control cowd-keep-cache: only the pages notices name.)
  if (detect_.cache_only() && !test_fault(TestFault::kCowdKeepCache)) {
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
  invalidate_copies(drop);
}

void Coherence::invalidate_all_copies() {
  if (test_fault(TestFault::kSkipInvalidate)) return;  // negative control: stale reads
  std::vector<uint32_t> drop;
  cache_->for_each_page([&](uint64_t p) {
    const PageState st = (*pages_)[p].state;
    if (st == PageState::kReadWrite) fatal("internal error: page %" PRIu64 " is still being written at an acquire", p);
    if (st == PageState::kReadOnly || st == PageState::kPrefetched) drop.push_back(static_cast<uint32_t>(p));
  });
  invalidate_copies(drop);
}

void Coherence::invalidate_copies(std::vector<uint32_t>& drop) {
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
// Allocation

void Coherence::note_guard(uint64_t page, const char* what) { guards_.emplace_back(page, what); }

void Coherence::place_pages(uint64_t first, uint64_t count, const std::function<int32_t(uint64_t)>& home_of,
                            const char* call, bool home_pinned) {
  const bool adaptive = detect_.untrapped_at_allocation(home_pinned);
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
  for_each_run(homes, [&](uint64_t run_first, uint64_t run_count) { release_.reserve_disk(run_first, run_count, call); });
  release_.homes_in(homes.size());
  fsm_.to_pages(homes, adaptive ? PageState::kHomeUntrapped : PageState::kHomeClean, Cause::kAllocation, call);
  next_touch_.on_allocation(first, count);
}

}  // namespace scopedsm
