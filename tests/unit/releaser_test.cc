// Release hints (protocol/releaser.h) without MPI: a call site's range is
// given back one call late; aggressive release drops the copies at once, a
// dirty one's diff sent home first (one DIFF per home); pages not in memory
// are counted as filtered; the engine's automatic releases lag apart from
// the program's; buffered release frees slots only when room is needed,
// lowest priority and oldest first, never a pinned page nor one used again.
#include "protocol/releaser.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "support/policy_fixture.h"

namespace scopedsm {
namespace {

struct ReleaseFixture : PolicyFixture {
  explicit ReleaseFixture(bool buffered, uint64_t test_faults = 0)
      : PolicyFixture(0, 3, test_faults), release(ctx, this) {
    config.release_policy = buffered ? ReleasePolicy::kBuffered : ReleasePolicy::kAggressive;
  }
  // The engine's operations the releaser uses, recorded; evict does what
  // the engine does to the page.
  void evict(uint32_t slot, Cause cause) override {
    const uint64_t page = cache.page_in(slot);
    evicted.push_back(static_cast<uint32_t>(page));
    std::vector<uint32_t> one{static_cast<uint32_t>(page)};
    fsm.to_pages(one, PageState::kInvalid, cause);
  }
  void make_diff(uint64_t page) override { diffed.push_back(page); }
  void send_pending(int home) override { sent.push_back(home); }
  // Pages [first, first + count) cached read-only, homed at rank 1.
  void cache_pages(uint32_t first, uint32_t count) {
    for (uint32_t p = first; p < first + count; ++p) place(p, PageState::kReadOnly, 1);
  }

  Releaser release;
  std::vector<uint32_t> evicted;
  std::vector<uint64_t> diffed;
  std::vector<int> sent;
};

std::vector<uint32_t> dropped_pages(const ReleaseFixture& f) {
  std::vector<uint32_t> all;
  for (const auto& [pages, cause] : f.drops) {
    EXPECT_EQ(cause, Cause::kRelease);
    all.insert(all.end(), pages.begin(), pages.end());
  }
  return all;
}

TEST(Releaser, ACallSitesRangeGoesOneCallLate) {
  ReleaseFixture f(/*buffered=*/false);
  f.cache_pages(1, 4);
  f.release.release(1, 2, 0, /*tag=*/7, false);
  EXPECT_TRUE(f.drops.empty());  // the next iteration may still use pages 1-2
  EXPECT_EQ(f.stats.hint_release_pages, 2u);
  f.release.release(3, 2, 0, 7, false);
  EXPECT_EQ(dropped_pages(f), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(f.pages[1].state, PageState::kInvalid);
  EXPECT_EQ(f.pages[3].state, PageState::kReadOnly);
  EXPECT_EQ(f.stats.pages_released, 2u);
  // Another call site's release does not pass tag 7's range on.
  f.release.release(5, 1, 0, 8, false);
  EXPECT_EQ(f.stats.pages_released, 2u);
}

TEST(Releaser, ADirtyCopysDiffGoesHomeFirstOneMessagePerHome) {
  ReleaseFixture f(false);
  f.place(1, PageState::kReadWrite, 1);
  f.place(2, PageState::kReadWrite, 1);
  f.place(3, PageState::kReadWrite, 2);
  f.place(4, PageState::kReadOnly, 2);
  f.release.release(1, 4, 0, 1, false);
  f.release.release(9, 1, 0, 1, false);
  EXPECT_EQ(f.diffed, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(f.sent, (std::vector<int>{1, 2}));
  EXPECT_EQ(f.stats.release_flushed, 3u);
  EXPECT_EQ(dropped_pages(f), (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST(Releaser, UnderTheControlReleaseSkipDiffTheWritesAreNotSent) {
  ReleaseFixture f(false, static_cast<uint64_t>(TestFault::kReleaseSkipDiff));
  f.place(1, PageState::kReadWrite, 1);
  f.release.release(1, 1, 0, 1, false);
  f.release.release(2, 1, 0, 1, false);
  EXPECT_TRUE(f.diffed.empty());
  EXPECT_EQ(dropped_pages(f), std::vector<uint32_t>{1});
}

TEST(Releaser, PagesNotInMemoryAreFilteredOnlyForTheProgramsHints) {
  ReleaseFixture f(false);
  f.place(1, PageState::kInvalid, 1);
  f.cache_pages(2, 1);
  f.release.release(1, 2, 0, 1, false);
  f.release.release(5, 1, 0, 1, false);
  EXPECT_EQ(f.stats.hint_release_filtered, 1u);
  EXPECT_EQ(dropped_pages(f), std::vector<uint32_t>{2});
  // The engine's own hints count apart and are never "filtered".
  f.release.release(1, 2, 0, 1, true);
  f.release.release(5, 1, 0, 1, true);
  EXPECT_EQ(f.stats.hint_release_filtered, 1u);
  EXPECT_EQ(f.stats.auto_releases, 3u);
}

TEST(Releaser, AutomaticReleasesLagApartFromTheProgramsCallSites) {
  ReleaseFixture f(false);
  f.cache_pages(1, 4);
  f.release.release(1, 1, 0, 3, false);  // the program's site 3
  f.release.release(2, 1, 0, 3, true);   // the engine's stream slot 3
  EXPECT_TRUE(f.drops.empty());
  f.release.release(3, 1, 0, 3, true);
  EXPECT_EQ(dropped_pages(f), std::vector<uint32_t>{2});
}

TEST(Releaser, BufferedReleasesFreeSlotsOnlyWhenRoomIsNeeded) {
  ReleaseFixture f(/*buffered=*/true);
  f.cache_pages(0, PolicyFixture::kCachePages);  // the cache is full
  f.release.release(1, 2, /*priority=*/5, 1, false);
  f.release.release(3, 1, /*priority=*/1, 2, false);
  f.release.release(8, 1, 0, 1, false);  // passes pages 1-2 on, priority 5
  f.release.release(8, 1, 0, 2, false);  // passes page 3 on, priority 1
  EXPECT_TRUE(f.drops.empty());
  EXPECT_TRUE(f.evicted.empty());
  EXPECT_EQ(f.stats.pages_released, 0u);
  // Lowest priority first, then the oldest.
  EXPECT_EQ(f.release.room_for(2), 2u);
  EXPECT_EQ(f.evicted, (std::vector<uint32_t>{3, 1}));
  EXPECT_EQ(f.stats.pages_released, 2u);
  // Enough room already: nothing more is evicted.
  EXPECT_EQ(f.release.room_for(1), 1u);
  EXPECT_EQ(f.evicted.size(), 2u);
}

TEST(Releaser, BufferedReleasesSkipPinnedPagesAndPagesUsedAgain) {
  ReleaseFixture f(true);
  f.cache_pages(0, PolicyFixture::kCachePages);
  f.release.release(1, 3, 0, 1, false);
  f.release.release(8, 1, 0, 1, false);
  f.release.forget(1);      // used again
  f.fsm.pin(2, 3);          // scopedsm_prepare holds page 2
  EXPECT_EQ(f.release.room_for(3), 1u);
  EXPECT_EQ(f.evicted, std::vector<uint32_t>{3});
  f.fsm.unpin();
}

TEST(Releaser, ABufferedDirtyCopyIsFlushedAsItIsEvicted) {
  ReleaseFixture f(true);
  f.cache_pages(0, PolicyFixture::kCachePages - 1);
  f.place(7, PageState::kReadWrite, 1);
  f.release.release(7, 1, 0, 1, false);
  f.release.release(8, 1, 0, 1, false);
  EXPECT_EQ(f.release.room_for(1), 1u);
  EXPECT_EQ(f.evicted, std::vector<uint32_t>{7});
  EXPECT_EQ(f.stats.release_flushed, 1u);  // its diff goes with the eviction (EngineOps::evict)
}

TEST(Releaser, CountsHomePagesInMemory) {
  ReleaseFixture f(false);
  f.release.homes_in(5);
  f.release.homes_out(2);
  EXPECT_EQ(f.release.homes_resident(), 3u);
  f.release.homes_out(10);  // never below zero
  EXPECT_EQ(f.release.homes_resident(), 0u);
}

}  // namespace
}  // namespace scopedsm
