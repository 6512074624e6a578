#include "protocol/prefetcher.h"

#include <cinttypes>

#include "common/log.h"
#include "protocol/auto_hinter.h"
#include "protocol/releaser.h"

namespace scopedsm {

uint32_t sequential_run(const PageTable& pages, uint64_t page, int home, uint64_t want) {
  if (page == 0) return 1;
  // Only a reader that has just read the previous page gets a run.
  const PageState before = pages[page - 1].state;
  if (before != PageState::kReadOnly && before != PageState::kReadWrite && before != PageState::kPrefetched) return 1;
  uint32_t n = 1;
  while (n < want && page + n < pages.allocated()) {
    const PageMeta& q = pages[page + n];
    // A next-touch pending page is fetched only by its own touch, which is
    // what records the touch.
    if (q.state != PageState::kInvalid || q.home.load(std::memory_order_relaxed) != home || q.nt_pending) break;
    ++n;
  }
  return n;
}

uint32_t Prefetcher::run_length(uint64_t page, int home) const {
  // prepare() pins its ranges and must fit them in the cache: no runs then.
  if (window_.max_run() <= 1 || c_.fsm->pinning()) return 1;
  return sequential_run(*c_.pages, page, home, window_.want(c_.cache->capacity()));
}

void Prefetcher::run_used(RunSource source, uint32_t pages) {
  switch (source) {
    case RunSource::kAuto:
      // An automatic prefetch's run, used: a longer distance next.
      c_.stats->auto_prefetch_used += pages;
      auto_->distance().used();
      break;
    case RunSource::kHint:
      // A prefetch hint's run: every page of it, the first included, was
      // fetched for the hint. The fault-driven run length is not the hint's.
      c_.stats->hint_prefetch_useful += pages;
      break;
    case RunSource::kFault:
      // The run's last page is touched: its pages were used (all but the
      // faulting one were prefetched). Longer runs next.
      c_.stats->prefetch_used += pages - 1;
      window_.used();
      break;
  }
}

void Prefetcher::dropped(const PageMeta& m) {
  if (m.state != PageState::kPrefetched) return;
  switch (m.run_source) {
    case RunSource::kAuto:
      c_.stats->auto_prefetch_wasted += m.run_pages + 1u;  // an automatic prefetch, never touched
      auto_->distance().wasted();
      break;
    case RunSource::kHint:
      c_.stats->hint_prefetch_wasted += m.run_pages + 1u;  // a hint's run, never touched
      break;
    case RunSource::kFault:
      // A run whose last page was never touched: shorter runs next.
      c_.stats->prefetch_wasted += m.run_pages;
      window_.wasted();
      break;
  }
}

void Prefetcher::touch_prefetched(uint64_t page, bool write) {
  const PageMeta& m = (*c_.pages)[page];
  run_used(m.run_source, m.run_pages + 1u);  // (leaving kPrefetched resets both)
  if (write) ops_->make_writable(page);
  else c_.fsm->to(page, PageState::kReadOnly, Cause::kFault);
}

bool Prefetcher::start(uint64_t first, uint32_t count, int home, RunSource run_source) {
  InFlightRun* run = nullptr;
  for (uint32_t i = 0; i < kMaxAsyncFetches && run == nullptr; ++i)
    if (inflight_[i].source == nullptr) run = &inflight_[i];
  if (run == nullptr) {
    // Runs whose answers have arrived free their lanes without a wait.
    for (uint32_t i = 0; i < kMaxAsyncFetches; ++i)
      if (inflight_[i].source->done(&inflight_[i].fetch)) {
        finish(i);
        if (run == nullptr) run = &inflight_[i];
      }
    if (run == nullptr) return false;
  }
  PageSource* source = ops_->source_for(home);
  if (source->reads_one_sided()) {
    // A one-sided read must wait for the home's acknowledgement of our
    // DIFFs (RmaSource::start): one owed, or one the run's own pending
    // diffs would make, means waiting for the home's CPU. Dropped instead.
    bool pending = ops_->owes_ack(home);
    for (uint64_t p = first; p < first + count && !pending; ++p) pending = (*c_.pages)[p].pending_diff;
    if (pending) return false;
  }
  {
    TraceSpan span(c_.stats->trace, &c_.stats->t_fetch_wait_ns, TraceKind::kFetch, static_cast<uint32_t>(first),
                   static_cast<uint32_t>(home));
    ops_->claim_run(first, count, home);
    PendingFetch& f = run->fetch;
    f.first = first;
    f.count = count;
    f.home = home;
    f.epoch = ops_->epoch();
    f.lane = static_cast<uint32_t>(run - inflight_.data()) + 1;
    f.dst = c_.region->alias(first);
    source->start(&f);
  }
  run->source = source;
  run->run_source = run_source;
  ++inflight_runs_;
  ++c_.stats->remote_fetches;
  ++c_.stats->prefetch_async;
  // No protection changes: invalid and in flight both allow no access.
  c_.fsm->to_range(first, count, PageState::kInFlight, Cause::kPrefetchHint);
  return true;
}

void Prefetcher::finish(uint32_t i, bool touched) {
  InFlightRun& run = inflight_[i];
  const PendingFetch& f = run.fetch;
  {
    TraceSpan span(c_.stats->trace, &c_.stats->t_fetch_wait_ns, TraceKind::kFetch, static_cast<uint32_t>(f.first),
                   static_cast<uint32_t>(f.home));
    ops_->count_fetch(run.source, f, run.source->finish(&run.fetch));
  }
  run.source = nullptr;
  --inflight_runs_;
  for (uint64_t p = f.first; p < f.first + f.count; ++p) (*c_.pages)[p].demanded = false;
  if (touched) {
    // A touch finished it: the run is used, and needs no tripwire.
    c_.fsm->to_range(f.first, f.count, PageState::kReadOnly, Cause::kFetchFinished);
    run_used(run.run_source, f.count);
  } else {
    // Every page but the last becomes readable; the last (the only one, in
    // a run of one) is the tripwire that tells whether the hint was useful.
    const uint64_t tripwire = f.first + f.count - 1;
    c_.fsm->to_range(f.first, f.count - 1, PageState::kReadOnly, Cause::kFetchFinished);
    c_.fsm->to_prefetched(tripwire, f.count - 1, run.run_source, Cause::kFetchFinished);
  }
}

void Prefetcher::finish_all() {
  for (uint32_t i = 0; i < kMaxAsyncFetches && inflight_runs_ > 0; ++i)
    if (inflight_[i].source != nullptr) finish(i);
}

void Prefetcher::settle(uint64_t page) {
  if ((*c_.pages)[page].state == PageState::kInFlight) finish(inflight_index(page));
}

void Prefetcher::settle_pages(const std::vector<uint32_t>& sorted) {
  if (inflight_runs_ == 0) return;
  for (uint32_t p : sorted) settle(p);
}

uint32_t Prefetcher::inflight_index(uint64_t page) const {
  for (uint32_t i = 0; i < kMaxAsyncFetches; ++i) {
    const InFlightRun& run = inflight_[i];
    if (run.source != nullptr && page >= run.fetch.first && page < run.fetch.first + run.fetch.count) return i;
  }
  fatal("internal error: page %" PRIu64 " is in flight, but no prefetch run holds it", page);
}

uint64_t Prefetcher::touch_in_flight(uint64_t page, bool write) {
  const uint32_t i = inflight_index(page);
  InFlightRun& run = inflight_[i];
  // An automatic run's stream moves ahead as if its last page, the
  // tripwire a finished run would have, had been touched.
  const uint64_t stream_page = run.run_source == RunSource::kAuto ? run.fetch.first + run.fetch.count - 1 : page;
  if (!run.source->done(&run.fetch)) {
    // The touch came before the run's answer: the prefetch was late.
    ++c_.stats->prefetch_waits;
    if (run.run_source == RunSource::kAuto) {
      ++c_.stats->auto_prefetch_late;
      auto_->distance().late();
    } else {
      ++c_.stats->hint_prefetch_late;
    }
  }
  finish(i, true);
  if (write) ops_->make_writable(page);  // read-only now, as the whole run
  return stream_page;
}

void Prefetcher::prefetch(uint64_t first, uint64_t count, bool automatic) {
  AppCounters& stats = *c_.stats;
  // The program's hints and the engine's own count apart.
  uint64_t& filtered = automatic ? stats.auto_prefetch_filtered : stats.hint_prefetch_filtered;
  uint64_t& dropped = automatic ? stats.auto_prefetch_dropped : stats.hint_prefetch_dropped;
  uint64_t& requests = automatic ? stats.auto_prefetch_requests : stats.hint_prefetch_requests;
  uint64_t& fetched = automatic ? stats.auto_prefetches : stats.hint_prefetch_fetched;
  if (!automatic) stats.hint_prefetch_pages += count;
  const uint64_t dropped_before = dropped;
  const uint64_t end = first + count;
  PageTable& pages = *c_.pages;
  Region& region = *c_.region;
  bool any_home = false;
  uint64_t p = first;
  while (p < end) {
    PageMeta& m = pages[p];
    const int home = m.home.load(std::memory_order_relaxed);
    if (m.state != PageState::kInvalid || home == kHomeUnknown || m.nt_pending) {
      // Valid already, homed here, unallocated, or of no known home (first
      // touch decides it), or next-touch pending (only a touch fetches it,
      // which records the touch): nothing to fetch. A copy a fault brought since
      // the last hint for it means this hint came too late.
      if (!automatic &&
          (m.state == PageState::kReadOnly || m.state == PageState::kReadWrite || m.state == PageState::kPrefetched)) {
        if (m.demanded) ++stats.hint_prefetch_late;
        m.demanded = false;
      }
      any_home = any_home || is_home_state(m.state);
      if (!is_home_state(m.state) || !region.file_backed()) ++filtered;
      ++p;
      continue;
    }
    // A run of invalid pages of one home: one request.
    uint32_t n = 1;
    while (p + n < end && n < kMaxFetchPages && pages[p + n].state == PageState::kInvalid &&
           pages[p + n].home.load(std::memory_order_relaxed) == home && !pages[p + n].nt_pending)
      ++n;
    // The program's hints take free slots and released ones only; the
    // engine's own take slots as a fault's run does (free, released, else
    // the first-in first-out victim: they stand in for the fault runs), at
    // most half the cache per step (StreamTable's max_steps).
    uint32_t got = automatic ? n : release_->room_for(n);
    // A hint that cannot have its disk (file backing, disk full) is dropped:
    // only a fault may end the job for that.
    if (got > 0 && !region.preallocate(p, got).ok()) got = 0;
    const RunSource source = automatic ? RunSource::kAuto : RunSource::kHint;
    if (got > 0) {
      if (c_.config->prefetch_sync || ops_->source_for(home)->is_local()) {
        // A copy from this node's memory waits for nobody: at once. Every
        // page but the last becomes readable; the last (the only one, in a
        // run of one) is the tripwire that tells whether the hint was useful.
        // One operation: the relief waits until the first page is readable.
        const PageFsm::Operation op = c_.fsm->operation();
        ops_->fetch_run(p, got, home, source);
        if (got > 1) c_.fsm->to(p, PageState::kReadOnly, Cause::kFetch);
        else c_.fsm->to_prefetched(p, 0, source, Cause::kFetch);
      } else if (!start(p, got, home, source)) {
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
  if (!automatic && c_.config->auto_hints && dropped == dropped_before) auto_->program_hint(first, count);
  if (!any_home || !region.file_backed()) return;
  // Out-of-core home pages: one residency check for the range, one
  // read-ahead per run of home pages not in memory.
  const uint64_t missing =
      region.read_ahead(first, count, [&pages](uint64_t q) { return is_home_state(pages[q].state); });
  stats.hint_prefetch_read_ahead += missing;
  release_->homes_in(missing);
  uint64_t homes = 0;
  for (uint64_t q = first; q < end; ++q) homes += is_home_state(pages[q].state);
  filtered += homes - missing;
}

}  // namespace scopedsm
