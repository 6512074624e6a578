// The engine's own hints (protocol/auto_hinter.h) without MPI, on a real
// Prefetcher (synchronous runs) and Releaser (aggressive, or buffered):
// a sequential stream's steps become one prefetch range, a strided one's one
// page each; nothing while off, while prepare() pins its ranges, or under
// the negative control auto-no-stream; faults in a range the program's own
// prefetch hints named this interval are left to the program (not under
// auto-over-hints); releases behind a stream lag by its slot; a fault makes
// a release named earlier no longer hold; a late step doubles the distance.
#include "protocol/auto_hinter.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <tuple>
#include <utility>
#include <vector>

#include "memory/region.h"
#include "protocol/prefetcher.h"
#include "protocol/releaser.h"
#include "support/policy_fixture.h"

namespace scopedsm {
namespace {

using FetchCall = std::tuple<uint64_t, uint32_t, int, RunSource>;  // a fetch_run call

// Every page invalid, homed at rank 1. The streams' table holds half the
// cache's pages of distance (4) and releases after half the cache's steps (4).
struct AutoFixture : PolicyFixture {
  explicit AutoFixture(bool on = true, uint64_t test_faults = 0, bool buffered = false)
      : PolicyFixture(0, 2, test_faults),
        release(configured(on, buffered), this),
        prefetcher(ctx, this, &release, &hinter),
        hinter(ctx, this, &prefetcher, &release) {
    for (uint64_t p = 0; p < kPages; ++p) place(p, PageState::kInvalid, 1);
  }
  // SCOPEDSM_AUTO_HINTS `on`, hints' runs fetched at once
  // (SCOPEDSM_PREFETCH=sync), release hints `buffered` or not. The
  // prefetcher's runs' buffers are the region's: an empty one (not
  // file-backed: no disk to reserve).
  const EngineContext& configured(bool on, bool buffered) {
    config.auto_hints = on;
    config.prefetch_sync = true;
    config.release_policy = buffered ? ReleasePolicy::kBuffered : ReleasePolicy::kAggressive;
    ctx.region = &region;
    return ctx;
  }
  // The engine's fetch of a run, without contents: slots taken, every page
  // but the first read-only, the last the run's tripwire.
  void fetch_run(uint64_t first, uint32_t count, int home, RunSource source) override {
    runs.emplace_back(first, count, home, source);
    attach_slots(first, count);
    if (count > 1) {
      fsm.to_range(first + 1, count - 2, PageState::kReadOnly, Cause::kFetch);
      fsm.to_prefetched(first + count - 1, count - 1, source, Cause::kFetch);
    }
  }
  void evict(uint32_t slot, Cause cause) override {
    const uint64_t page = cache.page_in(slot);
    evicted.push_back(static_cast<uint32_t>(page));
    std::vector<uint32_t> one{static_cast<uint32_t>(page)};
    fsm.to_pages(one, PageState::kInvalid, cause);
  }
  void faults(std::initializer_list<uint64_t> pages, bool demand = true) {
    for (uint64_t p : pages) hinter.on_fault(p, demand);
  }

  Region region;
  Releaser release;
  Prefetcher prefetcher;
  AutoHinter hinter;
  std::vector<FetchCall> runs;
  std::vector<uint32_t> evicted;
};

TEST(AutoHinter, ASequentialStreamPrefetchesItsStepsAsOneRange) {
  AutoFixture f;
  f.faults({0, 1});
  EXPECT_TRUE(f.runs.empty());
  f.faults({2});  // the third fault at one stride: a stream
  EXPECT_EQ(f.runs, (std::vector<FetchCall>{{3, 4, 1, RunSource::kAuto}}));
  EXPECT_EQ(f.stats.auto_streams, 1u);
  EXPECT_EQ(f.stats.auto_prefetches, 4u);
  EXPECT_EQ(f.stats.auto_prefetch_requests, 1u);
  EXPECT_EQ(f.stats.hint_prefetch_pages, 0u);  // not the program's
  EXPECT_EQ(f.pages[6].state, PageState::kPrefetched);
  EXPECT_EQ(f.pages[6].run_source, RunSource::kAuto);
}

TEST(AutoHinter, AStridedStreamPrefetchesOnePagePerStep) {
  AutoFixture f;
  f.faults({0, 2, 4});
  EXPECT_EQ(f.runs, (std::vector<FetchCall>{{6, 1, 1, RunSource::kAuto},
                                      {8, 1, 1, RunSource::kAuto},
                                      {10, 1, 1, RunSource::kAuto},
                                      {12, 1, 1, RunSource::kAuto}}));
  EXPECT_EQ(f.pages[7].state, PageState::kInvalid);
  EXPECT_EQ(f.stats.auto_prefetch_requests, 4u);
}

// Off, nothing is hinted; under the control auto-no-stream, no stream is
// confirmed.
TEST(AutoHinter, OffOrUnderTheControlAutoNoStreamNothingIsHinted) {
  for (const auto& [on, faults] : {std::pair<bool, uint64_t>{false, 0},
                                   std::pair<bool, uint64_t>{true, static_cast<uint64_t>(TestFault::kAutoNoStream)}}) {
    AutoFixture f(on, faults);
    f.faults({0, 1, 2, 3, 4, 5});
    EXPECT_TRUE(f.runs.empty()) << on;
    EXPECT_EQ(f.stats.auto_streams, 0u) << on;
  }
}

TEST(AutoHinter, TheStreamsSeeNoFaultWhilePrepareHoldsItsPins) {
  AutoFixture f;
  f.fsm.pin(0, 1);
  f.faults({0, 1, 2});
  EXPECT_TRUE(f.runs.empty());
  f.fsm.unpin();
  f.faults({3, 4});  // a stream needs three faults of its own
  EXPECT_TRUE(f.runs.empty());
  f.faults({5});
  EXPECT_EQ(f.runs, (std::vector<FetchCall>{{6, 4, 1, RunSource::kAuto}}));
}

TEST(AutoHinter, TheProgramsHintsTakePrecedenceInTheirRangesThisIntervalOnly) {
  AutoFixture f;
  f.hinter.program_hint(0, 6);
  f.faults({0, 1, 2});
  EXPECT_TRUE(f.runs.empty());
  EXPECT_EQ(f.stats.auto_deferred, 3u);
  // The next interval: the program's range no longer holds.
  f.epoch_now = 1;
  f.faults({3, 4, 5});
  EXPECT_EQ(f.runs, (std::vector<FetchCall>{{6, 4, 1, RunSource::kAuto}}));
  EXPECT_EQ(f.stats.auto_deferred, 3u);
}

TEST(AutoHinter, AProgramsPrefetchHintThatTookEffectNamesItsRange) {
  AutoFixture f;
  f.prefetcher.prefetch(0, 2, /*automatic=*/false);  // fetched whole
  ASSERT_EQ(f.runs, (std::vector<FetchCall>{{0, 2, 1, RunSource::kHint}}));
  f.faults({0, 1});
  EXPECT_EQ(f.stats.auto_deferred, 2u);
}

TEST(AutoHinter, UnderTheControlAutoOverHintsTheStreamsFollowTheProgramsRanges) {
  AutoFixture f(true, static_cast<uint64_t>(TestFault::kAutoOverHints));
  f.hinter.program_hint(0, 6);
  f.faults({0, 1, 2});
  EXPECT_EQ(f.runs, (std::vector<FetchCall>{{3, 4, 1, RunSource::kAuto}}));
  EXPECT_EQ(f.stats.auto_deferred, 0u);
}

TEST(AutoHinter, ReleasesBehindAStreamLagOneStepAndDropTheCopy) {
  AutoFixture f;
  f.faults({0, 1, 2});     // prefetches 3-6
  f.faults({3, 4}, false);  // touches of prefetched pages
  f.faults({5}, false);     // past half the cache's steps: the sweep's start stays, prefetches 7-9
  EXPECT_EQ(f.runs.back(), (FetchCall{7, 3, 1, RunSource::kAuto}));
  EXPECT_EQ(f.stats.auto_releases, 0u);
  f.faults({6}, false);  // names page 5, held one step by the stream's slot
  EXPECT_EQ(f.stats.auto_releases, 1u);
  EXPECT_TRUE(f.drops.empty());
  f.faults({7}, false);  // names page 6, passes page 5 on
  EXPECT_EQ(f.stats.auto_releases, 2u);
  ASSERT_EQ(f.drops.size(), 1u);
  EXPECT_EQ(f.drops[0].first, std::vector<uint32_t>{5});
  EXPECT_EQ(f.drops[0].second, Cause::kRelease);
  EXPECT_EQ(f.pages[5].state, PageState::kInvalid);
  EXPECT_EQ(f.stats.hint_release_pages, 0u);  // not the program's
}

TEST(AutoHinter, AFaultOnAPageMakesItsBufferedReleaseNoLongerHold) {
  AutoFixture f(true, 0, /*buffered=*/true);
  f.place(8, PageState::kReadOnly, 1);
  f.place(9, PageState::kReadOnly, 1);
  f.release.release(8, 2, 0, /*tag=*/1, false);
  f.release.release(12, 1, 0, 1, false);  // passes pages 8-9 on, buffered
  f.faults({8}, false);                   // the program uses page 8 again
  for (uint64_t p = 0; p < 6; ++p) f.place(p, PageState::kReadOnly, 1);  // the cache is full
  EXPECT_EQ(f.release.room_for(1), 1u);
  EXPECT_EQ(f.evicted, std::vector<uint32_t>{9});
  EXPECT_EQ(f.pages[8].state, PageState::kReadOnly);
}

TEST(AutoHinter, ALateStepDoublesTheDistanceTheStreamsShare) {
  AutoFixture f;
  EXPECT_EQ(f.hinter.distance().value(), PrefetchDistance::kStart);
  f.faults({0, 1, 2});  // prefetches 3-6
  f.faults({7});        // fetched by the program: no prefetch had reached it
  EXPECT_EQ(f.stats.auto_prefetch_late, 1u);
  EXPECT_EQ(f.hinter.distance().value(), 2 * PrefetchDistance::kStart);
}

}  // namespace
}  // namespace scopedsm
