// Home migration at barriers (protocol/home_migration.h) without MPI: which
// written pages offer their home; that a barrier's offer moves the home on
// every process alike (the writer's copy becomes the home page, the old
// home's memory becomes a stale copy), that a notice without an offer moves
// nothing but settles next touch, and what a move resets (the one-sided
// `seen` marks, the write-vector version, the home counts the Releaser keeps).
#include "protocol/home_migration.h"

#include <gtest/gtest.h>

#include "protocol/releaser.h"
#include "protocol/write_detection.h"
#include "support/policy_fixture.h"

namespace scopedsm {
namespace {

struct MigrationFixture : PolicyFixture {
  explicit MigrationFixture(bool on = true, uint64_t test_faults = 0)
      : PolicyFixture(0, 3, test_faults),
        detect(ctx, this),
        release(ctx, this),
        migration(ctx, this, &detect, &release) {
    config.home_migration = on;
    config.release_policy = ReleasePolicy::kAggressive;
  }
  WriteDetection detect;
  Releaser release;
  HomeMigration migration;
};

TEST(HomeMigration, OnlyAReadOnlyRecordedCopyOffersItsHome) {
  MigrationFixture f(/*on=*/true);
  PageMeta m{};
  m.state = PageState::kReadOnly;
  EXPECT_TRUE(f.migration.offers(m));
  m.unrecorded = true;  // read one-sided while its home did not trap it
  EXPECT_FALSE(f.migration.offers(m));
  m.unrecorded = false;
  for (PageState s : {PageState::kInvalid, PageState::kReadWrite, PageState::kPrefetched, PageState::kHomeClean}) {
    m.state = s;
    EXPECT_FALSE(f.migration.offers(m)) << page_state_name(s);
  }
  // Off (jia_config(HMIG, OFF) writes the setting the policy reads), only a
  // next-touch pending page offers.
  f.config.home_migration = false;
  EXPECT_FALSE(f.migration.enabled());
  m.state = PageState::kReadOnly;
  EXPECT_FALSE(f.migration.offers(m));
  m.nt_pending = true;
  EXPECT_TRUE(f.migration.offers(m));
}

TEST(HomeMigration, AnOfferOfOursMakesOurCopyTheHomePage) {
  MigrationFixture f;
  f.place(3, PageState::kReadOnly, 1);
  PageMeta& m = f.pages[3];
  const uint32_t slot = m.slot;
  ASSERT_EQ(f.cache.used(), 1u);
  m.seen_marked = true;
  m.seen_trapped = true;
  m.wvec_version = 7;
  // The old home's write-vector record of the page: nothing written since v.
  f.wvec.set_tracking(true);
  uint64_t v = 0, v2 = 0;
  f.wvec.changed_since(3, 0, &v);
  ASSERT_EQ(f.wvec.changed_since(3, v, &v2), 0u);
  f.migration.migrate({WriteNotice{3, 0, true}});
  // Forgotten: every block counts as written now.
  EXPECT_EQ(f.wvec.changed_since(3, v, &v2), f.wvec.all_blocks());
  EXPECT_EQ(m.state, PageState::kHomeClean);
  EXPECT_EQ(m.home.load(), 0);
  EXPECT_EQ(m.slot, kNoSlot);
  EXPECT_EQ(f.cache.used(), 0u);
  (void)slot;
  EXPECT_EQ(f.prot.prot(3), Prot::kRead);  // trapped until the untrap finds no other copy
  EXPECT_FALSE(m.seen_marked);
  EXPECT_FALSE(m.seen_trapped);
  EXPECT_EQ(m.wvec_version, 0u);
  EXPECT_EQ(f.stats.homes_gained, 1u);
  EXPECT_EQ(f.stats.homes_lost, 0u);
  EXPECT_EQ(f.release.homes_resident(), 1u);
  EXPECT_TRUE(f.stale.empty());
}

TEST(HomeMigration, AnotherWritersOfferTurnsOurHomePageIntoAStaleCopy) {
  MigrationFixture f;
  f.place(4, PageState::kHomeClean, 0);
  f.share.reset(4, false);
  f.share.record_copies(4, 1, 5);  // a copy taken in interval 5
  ASSERT_FALSE(f.share.try_untrap(4, 5));
  f.release.homes_in(1);
  f.migration.migrate({WriteNotice{4, 1, true}});
  PageMeta& m = f.pages[4];
  EXPECT_EQ(m.state, PageState::kInvalid);
  EXPECT_EQ(m.home.load(), 1);
  EXPECT_EQ(f.prot.prot(4), Prot::kNone);
  EXPECT_EQ(f.stale, std::vector<uint32_t>{4});
  // The share word is reset: a later return of the page as our home starts
  // from no copy.
  EXPECT_TRUE(f.share.try_untrap(4, 5));
  EXPECT_EQ(f.stats.homes_lost, 1u);
  EXPECT_EQ(f.release.homes_resident(), 0u);
}

TEST(HomeMigration, AThirdProcessOnlyLearnsTheNewHome) {
  // Page 6, homed at rank 2, moves to its writer, rank 1; we (rank 0) hold
  // no copy, and page 5, which we hold, moves to rank 1 as well.
  MigrationFixture f;
  f.place(6, PageState::kInvalid, 2);
  f.place(5, PageState::kReadOnly, 2);
  f.migration.migrate({WriteNotice{5, 1, true}, WriteNotice{6, 1, true}});
  EXPECT_EQ(f.pages[6].home.load(), 1);
  EXPECT_EQ(f.pages[6].state, PageState::kInvalid);
  EXPECT_EQ(f.pages[5].home.load(), 1);
  EXPECT_EQ(f.pages[5].state, PageState::kReadOnly);  // its barrier drops it (a write notice), not the move
  EXPECT_EQ(f.stats.homes_gained + f.stats.homes_lost, 0u);
  EXPECT_TRUE(f.stale.empty());
}

TEST(HomeMigration, ANoticeWithoutAnOfferMovesNothingButSettlesNextTouch) {
  MigrationFixture f(/*on=*/false);
  f.place(2, PageState::kReadOnly, 1);
  PageMeta& m = f.pages[2];
  m.nt_pending = true;
  m.nt_touched = true;
  m.wvec_version = 9;
  f.migration.migrate({WriteNotice{2, kMultipleWriters, false}});
  EXPECT_FALSE(m.nt_pending);
  EXPECT_FALSE(m.nt_touched);
  EXPECT_EQ(m.home.load(), 1);
  EXPECT_EQ(m.state, PageState::kReadOnly);
  EXPECT_EQ(m.wvec_version, 9u);  // the home did not move: its version holds
  EXPECT_EQ(f.stats.homes_gained, 0u);
}

TEST(HomeMigration, ANextTouchPendingPageWeOfferCountsAsRehomed) {
  MigrationFixture f(/*on=*/false);
  f.place(7, PageState::kReadOnly, 1);
  f.pages[7].nt_pending = true;
  f.migration.migrate({WriteNotice{7, 0, true, true}});
  EXPECT_EQ(f.pages[7].state, PageState::kHomeClean);
  EXPECT_EQ(f.stats.next_touch_pages_rehomed, 1u);
  EXPECT_FALSE(f.pages[7].nt_pending);
}

TEST(HomeMigrationDeathTest, AnOfferOfACopyWeNoLongerHoldIsAnInternalError) {
  MigrationFixture f;
  f.place(3, PageState::kInvalid, 1);
  EXPECT_DEATH(f.migration.migrate({WriteNotice{3, 0, true}}), "offered to become the home of page 3, which is");
}

TEST(HomeMigration, UnderTheControlKeepLostHomeTheOldHomeKeepsItsPage) {
  // The negative control keep-lost-home (a second home after a move) must
  // show here as what it breaks.
  MigrationFixture f(true, static_cast<uint64_t>(TestFault::kKeepLostHome));
  f.place(4, PageState::kHomeClean, 0);
  f.migration.migrate({WriteNotice{4, 1, true}});
  EXPECT_EQ(f.pages[4].state, PageState::kHomeClean);
  EXPECT_EQ(f.pages[4].home.load(), 1);
}

}  // namespace
}  // namespace scopedsm
