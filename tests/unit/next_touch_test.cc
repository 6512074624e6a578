// Re-homing on next touch (protocol/next_touch.h) without MPI: which pages
// a next-touch point marks pending, which of our copies it drops (touch
// mode only) and which of our home pages it traps again; the automatic
// points of SCOPEDSM_NEXT_TOUCH=barrier:N; and the touch-only offers a
// barrier carries for pending pages we fetched by a fault and only read.
#include "protocol/next_touch.h"

#include <gtest/gtest.h>

#include "protocol/write_detection.h"
#include "support/policy_fixture.h"

namespace scopedsm {
namespace {

// This process is rank 0 of 2. Page 0 unallocated; 1 allocated with no home
// yet (first touch); 2 read-only and 3 prefetched copies of rank 1's pages;
// 4 invalid, homed at rank 1; 5 read-only, pinned at rank 1; 6 home-clean
// and 7 home-untrapped here.
struct MarkFixture : PolicyFixture {
  MarkFixture() {
    place(1, PageState::kInvalid, kHomeUnknown);
    place(2, PageState::kReadOnly, 1);
    place(3, PageState::kPrefetched, 1);
    place(4, PageState::kInvalid, 1);
    place(5, PageState::kReadOnly, 1);
    pages[5].home_pinned = true;
    place(6, PageState::kHomeClean, 0);
    place(7, PageState::kHomeUntrapped, 0);
    share.reset(7, true);
  }
  std::vector<uint32_t> pending() {
    std::vector<uint32_t> out;
    for (uint32_t p = 0; p < kPages; ++p)
      if (pages[p].nt_pending) out.push_back(p);
    return out;
  }
  WriteDetection detect{ctx, this};
  NextTouch next_touch{ctx, this, &detect};
};

TEST(NextTouch, APointMarksHomedPagesAndDropsOurCopiesInTouchMode) {
  MarkFixture f;
  f.next_touch.mark(0, 8);
  EXPECT_EQ(f.pending(), (std::vector<uint32_t>{2, 3, 4, 6, 7}));
  ASSERT_EQ(f.drops.size(), 1u);
  EXPECT_EQ(f.drops[0].first, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(f.drops[0].second, Cause::kNextTouch);
  EXPECT_EQ(f.pages[2].state, PageState::kInvalid);
  EXPECT_EQ(f.pages[5].state, PageState::kReadOnly);  // pinned: left alone
  // Our untrapped home page is trapped again, so that copies of it are
  // noted only for real writes.
  EXPECT_EQ(f.pages[7].state, PageState::kHomeClean);
  EXPECT_EQ(f.prot.prot(7), Prot::kRead);
  EXPECT_EQ(f.stats.next_touch_pages_marked, 5u);
  EXPECT_EQ(f.stats.invalidations, 2u);
}

TEST(NextTouch, InWriteModeOurCopiesStay) {
  MarkFixture f;
  f.config.next_touch_write = true;
  f.next_touch.mark(0, 8);
  EXPECT_EQ(f.pending(), (std::vector<uint32_t>{2, 3, 4, 6, 7}));
  ASSERT_EQ(f.drops.size(), 1u);
  EXPECT_TRUE(f.drops[0].first.empty());
  EXPECT_EQ(f.pages[2].state, PageState::kReadOnly);
}

TEST(NextTouch, AutomaticPointsMarkTheAllocationAtItsFirstNBarriers) {
  MarkFixture f;
  f.config.next_touch_barriers = 2;
  f.next_touch.on_allocation(4, 3);
  f.config.next_touch_barriers = 0;
  f.next_touch.on_allocation(1, 1);  // no automatic points for this one
  EXPECT_EQ(f.next_touch.automatic_ranges(), 1u);
  for (int barrier = 0; barrier < 3; ++barrier) {
    for (uint32_t p = 0; p < PolicyFixture::kPages; ++p) f.pages[p].nt_pending = false;
    f.next_touch.on_barrier();
    if (barrier < 2) EXPECT_EQ(f.pending(), (std::vector<uint32_t>{4, 6})) << "barrier " << barrier;
    else EXPECT_TRUE(f.pending().empty());
  }
  EXPECT_EQ(f.next_touch.automatic_ranges(), 0u);
}

TEST(NextTouch, APendingPageFetchedAndOnlyReadIsOfferedAsATouch) {
  MarkFixture f;
  f.next_touch.mark(0, 8);
  // Faults fetched 2, 3 and 4 again; 3 was dropped since, 4 written.
  f.place(2, PageState::kReadOnly, 1);
  f.place(4, PageState::kReadOnly, 1);
  for (uint64_t p : {4, 2, 3, 2}) f.next_touch.on_fetch_fault(p);
  f.place(3, PageState::kInvalid, 1);
  f.next_touch.on_fetch_fault(5);  // not pending
  // Written pages are offered with their write notices, not as touches
  // (here the caller's list names page 4 written but holds no notice for it).
  std::vector<WriteNotice> notices = {{1, 0}, {6, 0}};
  f.next_touch.add_touch_offers({1, 4, 6}, &notices);
  ASSERT_EQ(notices.size(), 3u);
  EXPECT_EQ(notices[0].page, 1u);
  EXPECT_EQ(notices[1].page, 2u);
  EXPECT_EQ(notices[1].writer, 0);
  EXPECT_TRUE(notices[1].offers_home);
  EXPECT_TRUE(notices[1].touch_only);
  EXPECT_EQ(notices[2].page, 6u);
  EXPECT_FALSE(notices[2].touch_only);
  EXPECT_FALSE(f.pages[2].nt_touched);
  // Offered once: the next barrier's notices carry no touch.
  std::vector<WriteNotice> next;
  f.next_touch.add_touch_offers({}, &next);
  EXPECT_TRUE(next.empty());
}

TEST(NextTouch, InWriteModeATouchIsNoOffer) {
  MarkFixture f;
  f.config.next_touch_write = true;
  f.next_touch.mark(0, 8);
  f.next_touch.on_fetch_fault(2);
  std::vector<WriteNotice> notices;
  f.next_touch.add_touch_offers({}, &notices);
  EXPECT_TRUE(notices.empty());
}

}  // namespace
}  // namespace scopedsm
