// Prefetching (docs/PROTOCOL.md §2.5, §2.6): the runs a sequential reader's
// faults fetch, and prefetch hints, the program's and the automatic ones.
//
// Decides: how many pages a fault on an invalid page fetches (1, or a run
// of the invalid pages of its home after it, up to a window that doubles
// when a run's last page is touched and halves when it is dropped
// untouched: FetchWindow); which pages a prefetch hint fetches, in runs of
// one home, and whether each run is copied at once (a local source, or
// SCOPEDSM_PREFETCH=sync) or left in flight on a reply lane of its own
// (kMaxAsyncFetches lanes; with none free, or a one-sided read that would
// wait for the home, the run is dropped); when a run in flight is waited
// for, and whether a prefetched run was used, late or wasted.
//
// Events: a fault on a prefetched page (touch_prefetched) or an in-flight
// one (touch_in_flight), a copy dropped (dropped; its run in flight is
// settled first: settle_pages), a synchronization point (finish_all), a
// hint (prefetch).
//
// Thread owner: the application thread. A run in flight's memory is MPI's
// (or the source's) until it is finished.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "common/limits.h"
#include "protocol/engine_ops.h"

namespace scopedsm {

class AutoHinter;
class Releaser;

// The fault runs' window: how long a sequential reader's next run may be.
// Pure arithmetic.
class FetchWindow {
 public:
  // `fetch_pages`: SCOPEDSM_FETCH_PAGES, the longest run (at most
  // kMaxFetchPages); `auto_hints`: SCOPEDSM_AUTO_HINTS, which turns fault
  // runs off (the streams prefetch instead).
  FetchWindow(uint32_t fetch_pages, bool auto_hints)
      : max_run_(auto_hints ? 1 : std::max<uint32_t>(1, std::min(fetch_pages, kMaxFetchPages))),
        window_(std::min<uint32_t>(4, max_run_)) {}
  uint32_t max_run() const { return max_run_; }
  uint32_t window() const { return window_; }
  // The longest run a fault may fetch now: the window, and at most half a
  // cache of `cache_capacity` pages, so that a run never evicts its own pages.
  uint64_t want(uint64_t cache_capacity) const {
    return std::min<uint64_t>({window_, max_run_, cache_capacity / 2});
  }
  // A run's last page was touched: longer runs next.
  void used() { window_ = std::min(window_ * 2, max_run_); }
  // A run's last page was dropped untouched: shorter runs next.
  void wasted() { window_ = std::max<uint32_t>(std::min<uint32_t>(2, max_run_), window_ / 2); }

 private:
  uint32_t max_run_;
  uint32_t window_;
};

// Pages a fault on invalid `page` (homed at `home`) fetches, for runs of at
// most `want` pages: 1, or for a reader that has just read the page before
// it, the run of invalid pages of that home from it (none next-touch
// pending: only its own touch fetches such a page, which records the touch).
uint32_t sequential_run(const PageTable& pages, uint64_t page, int home, uint64_t want);

class Prefetcher {
 public:
  // Reads in place (EngineContext::config) SCOPEDSM_PREFETCH=sync (hints
  // wait for their runs) and SCOPEDSM_AUTO_HINTS (the program's hints stand
  // aside for nothing, and the automatic ones for the program's); the
  // window starts from SCOPEDSM_FETCH_PAGES and SCOPEDSM_AUTO_HINTS.
  Prefetcher(const EngineContext& c, EngineOps* ops, Releaser* release, AutoHinter* auto_hints)
      : c_(c), ops_(ops), release_(release), auto_(auto_hints),
        window_(c.config->fetch_pages, c.config->auto_hints) {}

  // Pages to fetch for a fault on invalid `page`, homed at `home`
  // (sequential_run; 1 while prepare() pins its ranges, which must fit the cache).
  uint32_t run_length(uint64_t page, int home) const;
  // A prefetch hint for pages [first, first + count); `automatic` for the
  // engine's own (SCOPEDSM_AUTO_HINTS), which count apart from the program's.
  void prefetch(uint64_t first, uint64_t count, bool automatic);
  // Waits for every run in flight and settles it.
  void finish_all();
  // If `page` is in flight: waits for its run and settles it.
  void settle(uint64_t page);
  // The same for each of `sorted` (before they are dropped).
  void settle_pages(const std::vector<uint32_t>& sorted);
  // The first touch of a run's last page (kPrefetched): the run was used.
  void touch_prefetched(uint64_t page, bool write);
  // A fault on a kInFlight page: waits for its run, then as the page's new
  // state. Returns the page the automatic hints' streams are to see: the
  // run's last page for an automatic run (as its tripwire's touch would
  // have been), else `page`.
  uint64_t touch_in_flight(uint64_t page, bool write);
  // The copy `m` is about to be dropped: a tripwire never touched means its
  // run was wasted.
  void dropped(const PageMeta& m);

  const FetchWindow& window() const { return window_; }

 private:
  // Counts `pages` of a run from `source` used (the faulting page included).
  void run_used(RunSource source, uint32_t pages);
  // Leaves run [first, first + count) of `home` in flight on a free reply
  // lane and returns true, or returns false with nothing done if no lane is
  // free or if starting it would wait for the home (a one-sided read behind
  // our unacknowledged DIFFs).
  bool start(uint64_t first, uint32_t count, int home, RunSource source);
  // Waits for the run in lane i and settles it: read-only and counted used
  // if `touched`, else readable but for its last page, the tripwire.
  void finish(uint32_t i, bool touched = false);
  // The index in inflight_ of the run `page` (kInFlight) belongs to.
  uint32_t inflight_index(uint64_t page) const;

  EngineContext c_;
  EngineOps* ops_;
  Releaser* release_;
  AutoHinter* auto_;
  FetchWindow window_;
  // Prefetch runs in flight: inflight_[i] answers on reply lane i + 1.
  struct InFlightRun {
    PendingFetch fetch;
    PageSource* source = nullptr;  // null: the lane is free
    RunSource run_source = RunSource::kHint;
  };
  std::array<InFlightRun, kMaxAsyncFetches> inflight_;
  uint32_t inflight_runs_ = 0;  // lanes in use
};

}  // namespace scopedsm
