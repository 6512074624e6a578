// The prefetcher's fault runs (protocol/prefetcher.h) without MPI: the
// window's arithmetic (starts at four, doubles when a run is used, halves
// when one is wasted, never below two nor above the longest run), which
// pages a fault's run takes (only after a read of the page before it, only
// invalid pages of one home, never a next-touch pending one), and the
// Prefetcher moving the window on a tripwire's touch or drop.
#include "protocol/prefetcher.h"

#include <gtest/gtest.h>

#include "support/policy_fixture.h"

namespace scopedsm {
namespace {

TEST(FetchWindow, StartsAtFourWithinTheLongestRun) {
  EXPECT_EQ(FetchWindow(16, false).window(), 4u);
  EXPECT_EQ(FetchWindow(16, false).max_run(), 16u);
  EXPECT_EQ(FetchWindow(2, false).window(), 2u);
  EXPECT_EQ(FetchWindow(0, false).max_run(), 1u);  // SCOPEDSM_FETCH_PAGES=0 is 1
  EXPECT_EQ(FetchWindow(0, false).window(), 1u);
  EXPECT_EQ(FetchWindow(1000, false).max_run(), kMaxFetchPages);
  // Automatic hints turn the fault runs off.
  EXPECT_EQ(FetchWindow(16, true).max_run(), 1u);
  EXPECT_EQ(FetchWindow(16, true).window(), 1u);
}

TEST(FetchWindow, DoublesWhenUsedAndHalvesWhenWastedNeverBelowTwo) {
  FetchWindow w(16, false);
  w.used();
  EXPECT_EQ(w.window(), 8u);
  w.used();
  EXPECT_EQ(w.window(), 16u);
  w.used();
  EXPECT_EQ(w.window(), 16u);  // the longest run
  w.wasted();
  EXPECT_EQ(w.window(), 8u);
  w.wasted();
  w.wasted();
  EXPECT_EQ(w.window(), 2u);
  w.wasted();
  EXPECT_EQ(w.window(), 2u);  // never below two
  // Runs of one stay runs of one.
  FetchWindow one(1, false);
  one.used();
  EXPECT_EQ(one.window(), 1u);
  one.wasted();
  EXPECT_EQ(one.window(), 1u);
}

TEST(FetchWindow, WantsAtMostHalfTheCache) {
  FetchWindow w(16, false);
  w.used();  // 8
  EXPECT_EQ(w.want(64), 8u);
  EXPECT_EQ(w.want(8), 4u);
  EXPECT_EQ(w.want(1), 0u);
}

// Pages 4.. homed at rank 1, invalid, after a page 3 in `before`.
struct RunFixture : PolicyFixture {
  explicit RunFixture(PageState before) {
    place(3, before, 1);
    for (uint64_t p = 4; p < kPages; ++p) place(p, PageState::kInvalid, 1);
  }
};

TEST(SequentialRun, OnlyAReaderOfThePreviousPageGetsARun) {
  for (PageState before : {PageState::kReadOnly, PageState::kReadWrite, PageState::kPrefetched}) {
    RunFixture f(before);
    EXPECT_EQ(sequential_run(f.pages, 4, 1, 6), 6u) << page_state_name(before);
  }
  for (PageState before : {PageState::kInvalid, PageState::kHomeClean, PageState::kInFlight}) {
    RunFixture f(before);
    EXPECT_EQ(sequential_run(f.pages, 4, 1, 6), 1u) << page_state_name(before);
  }
  RunFixture f(PageState::kReadOnly);
  EXPECT_EQ(sequential_run(f.pages, 0, 1, 6), 1u);  // no page before the first
  EXPECT_EQ(sequential_run(f.pages, 4, 1, 0), 1u);  // the faulting page, always
}

TEST(SequentialRun, StopsAtAnotherHomeAValidPageAPendingPageOrTheEnd) {
  RunFixture f(PageState::kReadOnly);
  f.pages[7].home.store(0, std::memory_order_relaxed);
  EXPECT_EQ(sequential_run(f.pages, 4, 1, 8), 3u);
  f.pages[7].home.store(1, std::memory_order_relaxed);
  f.place(6, PageState::kReadOnly, 1);
  EXPECT_EQ(sequential_run(f.pages, 4, 1, 8), 2u);
  f.place(6, PageState::kInvalid, 1);
  f.pages[5].nt_pending = true;  // only its own touch fetches it
  EXPECT_EQ(sequential_run(f.pages, 4, 1, 8), 1u);
  f.pages[5].nt_pending = false;
  f.pages.set_allocated(10);
  EXPECT_EQ(sequential_run(f.pages, 4, 1, 64), 6u);
}

struct PrefetcherFixture : RunFixture {
  PrefetcherFixture() : RunFixture(PageState::kReadOnly) {}
  // Makes `page` the tripwire of a run from `source` of `run_pages` more pages.
  void tripwire(uint64_t page, RunSource source, uint32_t run_pages) {
    place(page, PageState::kPrefetched, 1);
    pages[page].run_source = source;
    pages[page].run_pages = run_pages;
  }
  Prefetcher prefetcher{ctx, this, nullptr, nullptr};  // SCOPEDSM_FETCH_PAGES=16, no automatic hints
};

TEST(Prefetcher, RunLengthFollowsTheWindowAndHalfTheCache) {
  PrefetcherFixture f;
  EXPECT_EQ(f.prefetcher.run_length(4, 1), 4u);  // the window starts at four
  // While prepare() pins its ranges: no runs.
  f.fsm.pin(0, 1);
  EXPECT_EQ(f.prefetcher.run_length(4, 1), 1u);
  f.fsm.unpin();
  f.config.fetch_pages = 64;
  Prefetcher longest{f.ctx, &f, nullptr, nullptr};
  for (int i = 0; i < 4; ++i) {
    f.tripwire(15, RunSource::kFault, 1);
    longest.touch_prefetched(15, false);
  }
  EXPECT_EQ(longest.window().window(), 64u);
  EXPECT_EQ(longest.run_length(4, 1), PolicyFixture::kCachePages / 2);  // half the cache
}

TEST(Prefetcher, ATouchedTripwireDoublesTheWindowAndADroppedOneHalvesIt) {
  PrefetcherFixture f;
  f.tripwire(8, RunSource::kFault, 3);
  f.prefetcher.touch_prefetched(8, false);
  EXPECT_EQ(f.pages[8].state, PageState::kReadOnly);
  EXPECT_EQ(f.prefetcher.window().window(), 8u);
  EXPECT_EQ(f.stats.prefetch_used, 3u);  // the run's pages, the faulting one not
  f.tripwire(9, RunSource::kFault, 5);
  f.prefetcher.dropped(f.pages[9]);
  EXPECT_EQ(f.prefetcher.window().window(), 4u);
  EXPECT_EQ(f.stats.prefetch_wasted, 5u);
  // A hint's run moves no window; a copy that is no tripwire counts nothing.
  f.tripwire(10, RunSource::kHint, 2);
  f.prefetcher.dropped(f.pages[10]);
  EXPECT_EQ(f.prefetcher.window().window(), 4u);
  EXPECT_EQ(f.stats.hint_prefetch_wasted, 3u);
  f.prefetcher.dropped(f.pages[3]);
  EXPECT_EQ(f.prefetcher.window().window(), 4u);
  EXPECT_EQ(f.stats.prefetch_wasted, 5u);
}

}  // namespace
}  // namespace scopedsm
