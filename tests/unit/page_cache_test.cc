// PageCache replacement: FIFO by fetch order, and the remote-aware policy
// (near copies go before far ones; far ones wait in a victim part of at most
// half the cache).
#include "memory/page_cache.h"

#include <gtest/gtest.h>

#include <vector>

namespace scopedsm {
namespace {

// Fills every slot of `c` with pages 0, 1, ... in order; far[i] says whether
// page i is homed on another node.
void fill(PageCache& c, const std::vector<bool>& far) {
  for (size_t i = 0; i < far.size(); ++i) {
    uint32_t s = c.take_free();
    ASSERT_NE(s, kNoSlot);
    c.occupy(s, i, far[i]);
  }
  ASSERT_EQ(c.take_free(), kNoSlot);
}

// Evicts `n` pages (each victim freed at once) and fetches a new far or near
// page into each freed slot; returns the evicted pages in order.
std::vector<uint64_t> churn(PageCache& c, int n, bool new_far, uint64_t first_new) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) {
    uint32_t v = c.next_victim();
    out.push_back(c.page_in(v));
    c.free(v);
    c.occupy(c.take_free(), first_new + static_cast<uint64_t>(i), new_far);
  }
  return out;
}

TEST(PageCache, FifoEvictsInFetchOrderWhateverTheHome) {
  PageCache c;
  ASSERT_TRUE(c.init(8, 4096).ok());
  fill(c, {false, true, false, true, true, false, true, false});
  EXPECT_EQ(churn(c, 8, true, 100), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(churn(c, 2, true, 200), (std::vector<uint64_t>{100, 101}));
}

TEST(PageCache, RemoteVictimEvictsNearCopiesFirst) {
  PageCache c;
  ASSERT_TRUE(c.init(8, 4096, CachePolicy::kRemoteVictim).ok());
  // Pages 0..7: near, far, near, far, far, near, far, near.
  fill(c, {false, true, false, true, true, false, true, false});
  // The far pages 1, 3 and 4 move aside (the victim part holds 4); the near
  // pages go in fetch order. New pages are near.
  EXPECT_EQ(churn(c, 3, false, 100), (std::vector<uint64_t>{0, 2, 5}));
  // Page 6 (far) fills the victim part; then the near ones, old to new.
  EXPECT_EQ(churn(c, 4, false, 200), (std::vector<uint64_t>{7, 100, 101, 102}));
  // Only near pages in the main part, and all of them newer: the far pages
  // still stay.
  EXPECT_EQ(churn(c, 4, false, 300), (std::vector<uint64_t>{200, 201, 202, 203}));
}

TEST(PageCache, RemoteVictimEvictsTheOldestFarCopyWhenItsPartIsFull) {
  PageCache c;
  ASSERT_TRUE(c.init(8, 4096, CachePolicy::kRemoteVictim).ok());
  fill(c, {true, true, true, true, true, true, true, true});
  // All far: one FIFO, the victim part being the older half of it.
  EXPECT_EQ(churn(c, 8, true, 100), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Far pages 100..103 sit in the victim part, 104..107 in the main part.
  // Each far page reaching the head of the main part takes the place of the
  // oldest far one, which goes.
  EXPECT_EQ(churn(c, 1, false, 200), (std::vector<uint64_t>{100}));
  EXPECT_EQ(churn(c, 3, true, 300), (std::vector<uint64_t>{101, 102, 103}));
  // The near page 200 is now the main part's oldest: it goes, though far
  // pages older than it stay; the next far page at the head takes the
  // oldest far one's place again.
  EXPECT_EQ(churn(c, 1, true, 400), (std::vector<uint64_t>{200}));
  EXPECT_EQ(churn(c, 1, true, 500), (std::vector<uint64_t>{104}));
}

TEST(PageCache, RemoteVictimWithOnlyNearCopiesIsFifo) {
  PageCache c;
  ASSERT_TRUE(c.init(6, 4096, CachePolicy::kRemoteVictim).ok());
  fill(c, {false, false, false, false, false, false});
  EXPECT_EQ(churn(c, 6, false, 100), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5}));
}

// The three pages fetched just before a fourth are never its victim (one
// instruction may need four pages at once), under either policy, at every
// capacity from the smallest.
TEST(PageCache, NeverEvictsOneOfTheThreeNewestPages) {
  for (CachePolicy policy : {CachePolicy::kFifo, CachePolicy::kRemoteVictim}) {
    for (uint64_t cap = 4; cap <= 12; ++cap) {
      PageCache c;
      ASSERT_TRUE(c.init(cap, 4096, policy).ok());
      std::vector<uint64_t> recent;
      uint64_t next = 0;
      for (int i = 0; i < 200; ++i) {
        uint32_t s = c.take_free();
        if (s == kNoSlot) {
          uint32_t v = c.next_victim();
          for (size_t k = recent.size() >= 3 ? recent.size() - 3 : 0; k < recent.size(); ++k)
            ASSERT_NE(c.page_in(v), recent[k]) << "capacity " << cap << ", step " << i;
          c.free(v);
          s = c.take_free();
        }
        // A near page every third fetch: the mix that moves far pages aside.
        c.occupy(s, next, next % 3 != 0);
        recent.push_back(next++);
      }
    }
  }
}

// A caller that must keep its victim (a page pinned by scopedsm_prepare)
// asks again and gets another page, with every page but one pinned.
TEST(PageCache, AskingAgainPassesOverKeptPages) {
  PageCache c;
  ASSERT_TRUE(c.init(10, 4096, CachePolicy::kRemoteVictim).ok());
  fill(c, {true, false, true, true, false, true, true, true, false, true});
  for (uint64_t unpinned = 0; unpinned < 10; ++unpinned) {
    uint32_t v = c.next_victim();
    int asked = 1;
    while (c.page_in(v) != unpinned) {
      v = c.next_victim();
      ASSERT_LT(++asked, 100) << "page " << unpinned << " never offered";
    }
  }
}

TEST(PageCache, InvalidatedPagesLeaveWhicheverPartTheyAreIn) {
  PageCache c;
  ASSERT_TRUE(c.init(8, 4096, CachePolicy::kRemoteVictim).ok());
  std::vector<uint32_t> slot(8);
  for (uint64_t i = 0; i < 8; ++i) {
    slot[i] = c.take_free();
    c.occupy(slot[i], i, i < 4);  // 0..3 far, 4..7 near
  }
  // Moves far pages 0..3 to the victim part, then evicts near page 4.
  uint32_t v = c.next_victim();
  EXPECT_EQ(c.page_in(v), 4u);
  // Invalidate far page 1 (victim part) and near page 6 (main part).
  c.free(slot[1]);
  c.free(slot[6]);
  EXPECT_EQ(c.used(), 6u);
  std::vector<uint64_t> seen;
  c.for_each_page([&](uint64_t p) { seen.push_back(p); });
  EXPECT_EQ(seen, (std::vector<uint64_t>{0, 2, 3, 5, 7, 4}));
}

// Switching policies keeps every cached page; FIFO then evicts the victim
// part (the older pages) first, in order.
TEST(PageCache, SwitchingPolicyKeepsThePagesInAge) {
  PageCache c;
  ASSERT_TRUE(c.init(8, 4096, CachePolicy::kRemoteVictim).ok());
  fill(c, {true, false, true, false, false, false, false, false});
  EXPECT_EQ(churn(c, 1, false, 100), (std::vector<uint64_t>{1}));  // far page 0 set aside
  c.set_policy(CachePolicy::kFifo);
  EXPECT_EQ(c.used(), 8u);
  EXPECT_EQ(churn(c, 8, false, 200), (std::vector<uint64_t>{0, 2, 3, 4, 5, 6, 7, 100}));
  c.set_policy(CachePolicy::kRemoteVictim);
  EXPECT_EQ(churn(c, 2, false, 300), (std::vector<uint64_t>{200, 201}));
}

}  // namespace
}  // namespace scopedsm
