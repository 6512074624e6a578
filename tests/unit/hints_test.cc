// The release layer of the hints (protocol/hints.h): the lag-by-one filter
// per call site and the priority-ordered buffer; and the ranges the
// program's prefetch hints named, where automatic hints stand aside.
#include "protocol/hints.h"

#include <gtest/gtest.h>

namespace scopedsm {
namespace {

TEST(ReleaseLag, ASiteRangeIsPassedOnOnlyWhenTheSiteReleasesAgain) {
  ReleaseLag lag;
  EXPECT_FALSE(lag.pass(1, {10, 4, 0}).has_value());  // held
  EXPECT_FALSE(lag.pass(2, {50, 2, 3}).has_value());  // another site: held apart
  auto out = lag.pass(1, {14, 4, 1});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->first, 10u);
  EXPECT_EQ(out->count, 4u);
  EXPECT_EQ(out->priority, 0u);
  out = lag.pass(2, {52, 2, 3});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->first, 50u);
  out = lag.pass(1, {18, 4, 1});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->first, 14u);  // always the one before, never the current
  EXPECT_EQ(lag.held(), 2u);
}

TEST(ReleaseBuffer, GivesLowestPriorityFirstThenOldest) {
  ReleaseBuffer b;
  b.add(7, 2);
  b.add(3, 0);
  b.add(9, 1);
  b.add(4, 0);
  uint32_t p = 0;
  ASSERT_TRUE(b.take(&p));
  EXPECT_EQ(p, 3u);
  ASSERT_TRUE(b.take(&p));
  EXPECT_EQ(p, 4u);
  ASSERT_TRUE(b.take(&p));
  EXPECT_EQ(p, 9u);
  ASSERT_TRUE(b.take(&p));
  EXPECT_EQ(p, 7u);
  EXPECT_FALSE(b.take(&p));
}

TEST(ReleaseBuffer, APageIsInItOnceAtItsLatestPriority) {
  ReleaseBuffer b;
  b.add(5, 0);
  b.add(6, 1);
  b.add(5, 3);  // released again with a higher priority: now last
  EXPECT_EQ(b.size(), 2u);
  uint32_t p = 0;
  ASSERT_TRUE(b.take(&p));
  EXPECT_EQ(p, 6u);
  ASSERT_TRUE(b.take(&p));
  EXPECT_EQ(p, 5u);
  b.add(8, 0);
  b.remove(8);  // dropped meanwhile (invalidated): no longer offered
  EXPECT_FALSE(b.contains(8));
  EXPECT_FALSE(b.take(&p));
}

TEST(NamedRanges, HoldsTheRangesOfTheCurrentIntervalOnly) {
  NamedRanges named;
  EXPECT_FALSE(named.contains(0, 0));  // nothing named: not even page 0 of interval 0
  named.add(10, 4, 3);
  EXPECT_TRUE(named.contains(10, 3));
  EXPECT_TRUE(named.contains(13, 3));
  EXPECT_FALSE(named.contains(14, 3));  // past the end
  EXPECT_FALSE(named.contains(9, 3));
  EXPECT_FALSE(named.contains(10, 4));  // a later interval: the hint no longer holds
  named.add(20, 0, 3);                  // an empty range names nothing
  EXPECT_FALSE(named.contains(20, 3));
}

TEST(NamedRanges, AFullRingForgetsTheOldestRange) {
  NamedRanges named;
  for (uint64_t i = 0; i < NamedRanges::kSize; ++i) named.add(100 * i, 1, 0);
  EXPECT_TRUE(named.contains(0, 0));
  named.add(5000, 1, 0);  // the ring is full: range 0 goes
  EXPECT_FALSE(named.contains(0, 0));
  EXPECT_TRUE(named.contains(100, 0));
  EXPECT_TRUE(named.contains(5000, 0));
}

}  // namespace
}  // namespace scopedsm
