// Adaptive write detection (protocol/write_detection.h) without MPI: which
// barrier notices let a home untrap a page (every other copy dropped), that
// only home-clean pages no copy was taken of since are untrapped, and that
// neither trapping every write nor cache-only detection untraps anything;
// that a copy of an untrapped page (the retrap queue) makes the home note
// the page as written, except quietly after a next-touch point; and that
// trapping every write at run time notes the pages untrapped now.
#include "protocol/write_detection.h"

#include <gtest/gtest.h>

#include "support/policy_fixture.h"

namespace scopedsm {
namespace {

TEST(WriteDetection, OnlyANoticeThatDropsEveryOtherCopyAllowsAnUntrap) {
  const int us = 0;
  // Written by us alone: every other copy is dropped.
  EXPECT_TRUE(WriteDetection::drops_every_copy({1, us}, us, false));
  EXPECT_TRUE(WriteDetection::drops_every_copy({1, us}, us, true));
  // By another single writer: its copy stays.
  EXPECT_FALSE(WriteDetection::drops_every_copy({1, 1}, us, false));
  // By several: every copy dropped, but with home migration another writer
  // copies it again at once.
  EXPECT_TRUE(WriteDetection::drops_every_copy({1, kMultipleWriters}, us, false));
  EXPECT_FALSE(WriteDetection::drops_every_copy({1, kMultipleWriters}, us, true));
  // A next-touch move to a reader invalidates nothing.
  EXPECT_FALSE(WriteDetection::drops_every_copy({1, us, true, true}, us, false));
}

// Pages 1..6 homed here (rank 0), home-clean and trapped.
struct HomeFixture : PolicyFixture {
  HomeFixture() {
    for (uint32_t p = 1; p <= 6; ++p) {
      place(p, PageState::kHomeClean, 0);
      share.reset(p, false);
    }
  }
  // Makes home page `page` untrapped; `copied`: someone copied it since.
  void untrapped(uint32_t page, bool copied) {
    place(page, PageState::kHomeUntrapped, 0);
    share.reset(page, true);
    if (copied) share.record_copies(page, 1, 1);
  }
};

TEST(WriteDetection, ABarrierUntrapsTheHomeCleanPagesNobodyElseHolds) {
  HomeFixture f;
  f.place(5, PageState::kHomeDirty, 0);
  f.share.record_copies(6, 1, 3);  // a copy taken in the interval the barrier ends
  WriteDetection detect(f.ctx, &f);
  const std::vector<WriteNotice> notices = {
      {1, 0}, {2, 1}, {3, kMultipleWriters}, {4, 0, true, true}, {5, 0}, {6, 0}};
  detect.untrap_after_barrier(notices, 3, false);
  EXPECT_EQ(f.pages[1].state, PageState::kHomeUntrapped);
  EXPECT_EQ(f.pages[2].state, PageState::kHomeClean);
  EXPECT_EQ(f.pages[3].state, PageState::kHomeUntrapped);
  EXPECT_EQ(f.pages[4].state, PageState::kHomeClean);
  EXPECT_EQ(f.pages[5].state, PageState::kHomeDirty);
  EXPECT_EQ(f.pages[6].state, PageState::kHomeClean);
  EXPECT_EQ(f.stats.untraps, 2u);
  EXPECT_EQ(f.prot.prot(1), Prot::kReadWrite);
  EXPECT_EQ(f.prot.prot(2), Prot::kRead);
}

TEST(WriteDetection, WithHomeMigrationAPageSeveralWroteStaysTrapped) {
  HomeFixture f;
  WriteDetection detect(f.ctx, &f);
  detect.untrap_after_barrier({{1, 0}, {3, kMultipleWriters}}, 3, true);
  EXPECT_EQ(f.pages[1].state, PageState::kHomeUntrapped);
  EXPECT_EQ(f.pages[3].state, PageState::kHomeClean);
}

TEST(WriteDetection, TrappingEveryWriteOrCacheOnlyUntrapsNothingAtBarriers) {
  for (const auto& [all, cache_only] : {std::pair{true, false}, std::pair{false, true}}) {
    HomeFixture f;
    f.config.write_detect_all = all;
    f.config.write_detect_cache_only = cache_only;
    WriteDetection detect(f.ctx, &f);
    detect.untrap_after_barrier({{1, 0}, {3, kMultipleWriters}}, 3, false);
    EXPECT_EQ(f.pages[1].state, PageState::kHomeClean);
    EXPECT_EQ(f.stats.untraps, 0u);
  }
  // Cache-only is never "every write trapped", and home pages start
  // untrapped under it; a pinned home page always does.
  HomeFixture f;
  WriteDetection detect(f.ctx, &f);
  f.config.write_detect_all = true;
  f.config.write_detect_cache_only = true;
  EXPECT_FALSE(detect.all());
  EXPECT_TRUE(detect.untrapped_at_allocation(false));
  f.config.write_detect_cache_only = false;
  EXPECT_FALSE(detect.untrapped_at_allocation(false));
  EXPECT_TRUE(detect.untrapped_at_allocation(true));
  f.config.write_detect_all = false;
  EXPECT_TRUE(detect.untrapped_at_allocation(false));
}

TEST(WriteDetection, ACopyOfAnUntrappedPageNotesItAsWritten) {
  HomeFixture f;
  f.untrapped(2, true);
  f.untrapped(4, false);
  WriteDetection detect(f.ctx, &f);
  detect.drain_retraps();
  EXPECT_EQ(f.pages[2].state, PageState::kHomeDirty);
  EXPECT_EQ(f.pages[4].state, PageState::kHomeUntrapped);  // nobody copied it
  EXPECT_EQ(f.dirtied, std::vector<uint64_t>{2});
  EXPECT_EQ(f.stats.retraps, 1u);
  // Noted in the open interval: the lock stack holds it.
  EXPECT_EQ(f.stack.all_pages(), std::vector<uint32_t>{2});
}

TEST(WriteDetection, AfterANextTouchPointOurPendingPagesAreDrainedQuietly) {
  for (bool quiet : {true, false}) {
    HomeFixture f;
    // A copy taken while page 3 was untrapped, queued; then the next-touch
    // point marked it pending and trapped it again.
    f.untrapped(3, true);
    f.pages[3].nt_pending = true;
    f.share.trap_settled(3);
    f.pages[3].state = PageState::kHomeClean;
    WriteDetection detect(f.ctx, &f);
    detect.drain_retraps(quiet);
    EXPECT_EQ(f.stats.retraps, quiet ? 0u : 1u);
    EXPECT_EQ(f.stack.all_pages().empty(), quiet);
    EXPECT_EQ(f.pages[3].state, PageState::kHomeClean);
  }
}

TEST(WriteDetection, CacheOnlyNotesNoCopies) {
  HomeFixture f;
  f.untrapped(2, true);
  f.config.write_detect_cache_only = true;
  WriteDetection detect(f.ctx, &f);
  detect.drain_retraps();
  EXPECT_EQ(f.pages[2].state, PageState::kHomeUntrapped);
  EXPECT_EQ(f.stats.retraps, 0u);
}

TEST(WriteDetection, TrappingEveryWriteNotesThePagesUntrappedNow) {
  HomeFixture f;
  f.untrapped(2, false);
  f.untrapped(4, false);
  f.pages[4].home_pinned = true;  // never trapped
  WriteDetection detect(f.ctx, &f);
  f.config.write_detect_all = true;  // jia_config(ADWD, OFF) writes the setting, then tells the engine
  detect.switched();
  EXPECT_TRUE(detect.all());
  EXPECT_EQ(f.pages[2].state, PageState::kHomeDirty);
  EXPECT_EQ(f.pages[4].state, PageState::kHomeUntrapped);
  EXPECT_EQ(f.dirtied, std::vector<uint64_t>{2});
}

// jia_config(ADWD) switches the setting the policy reads in place: a
// WriteDetection made before the switch follows it at once.
TEST(WriteDetection, JiaConfigsSwitchTakesEffectWhereTheSettingIsRead) {
  HomeFixture f;
  WriteDetection detect(f.ctx, &f);
  EXPECT_TRUE(detect.untrapped_at_allocation(false));
  f.config.write_detect_all = true;  // jia_config(ADWD, OFF)
  EXPECT_TRUE(detect.all());
  EXPECT_FALSE(detect.untrapped_at_allocation(false));
  detect.untrap_after_barrier({{1, 0}}, 3, false);
  EXPECT_EQ(f.pages[1].state, PageState::kHomeClean);  // nothing untrapped
  f.config.write_detect_all = false;  // jia_config(ADWD, ON)
  EXPECT_FALSE(detect.all());
  detect.untrap_after_barrier({{1, 0}}, 4, false);
  EXPECT_EQ(f.pages[1].state, PageState::kHomeUntrapped);
}

}  // namespace
}  // namespace scopedsm
