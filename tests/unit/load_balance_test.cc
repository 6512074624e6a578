// jia_divtask's arithmetic (runtime/load_balance.h): parts cover the range
// exactly in rank order, in proportion to the shares, at the ends of int.
#include "runtime/load_balance.h"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

namespace scopedsm {
namespace {

// Every part of [begin, end] under `shares`, checked to tile the range.
std::vector<long long> sizes(int begin, int end, const std::vector<uint64_t>& shares) {
  std::vector<long long> out;
  long long next = begin;
  for (int r = 0; r < static_cast<int>(shares.size()); ++r) {
    int first = 0, last = 0;
    divide_range(begin, end, shares, r, &first, &last);
    EXPECT_EQ(first, next) << "rank " << r << " of [" << begin << ", " << end << "]";
    EXPECT_GE(static_cast<long long>(last), static_cast<long long>(first) - 1);
    out.push_back(static_cast<long long>(last) - first + 1);
    next = static_cast<long long>(last) + 1;
  }
  EXPECT_EQ(next, static_cast<long long>(end) + 1);
  return out;
}

TEST(LoadBalance, EqualSharesSplitEvenly) {
  EXPECT_EQ(sizes(0, 9, {7, 7, 7}), (std::vector<long long>{3, 3, 4}));
  EXPECT_EQ(sizes(5, 5, {1, 1}), (std::vector<long long>{0, 1}));
}

TEST(LoadBalance, PartsFollowTheShares) {
  EXPECT_EQ(sizes(1, 1000, {3, 1}), (std::vector<long long>{750, 250}));
  EXPECT_EQ(sizes(-500, 499, {1, 2, 1, 1}), (std::vector<long long>{200, 400, 200, 200}));
}

TEST(LoadBalance, TheWholeIntRangeAndEmptyRanges) {
  const auto s = sizes(INT_MIN, INT_MAX, {kShareUnits / 3, kShareUnits / 3, kShareUnits / 3 + 1});
  long long total = 0;
  for (long long x : s) total += x;
  EXPECT_EQ(total, 1LL << 32);
  int first = 4, last = 3;
  divide_range(4, 3, {1, 1}, 1, &first, &last);
  EXPECT_EQ(first, 4);
  EXPECT_EQ(last, 3);
}

TEST(LoadBalance, SpeedIsShareOverSeconds) {
  const uint64_t half = kShareUnits / 2;
  // Equal parts, the second three times slower: a quarter for it.
  EXPECT_EQ(rebalance({half, half}, {1.0, 3.0}), (std::vector<uint64_t>{3 * kShareUnits / 4, kShareUnits / 4}));
  // Seconds in proportion to the parts: equal speeds, equal parts.
  EXPECT_EQ(rebalance({3 * kShareUnits / 4, kShareUnits / 4}, {3.0, 1.0}), (std::vector<uint64_t>{half, half}));
  // No process drops to nothing, and no time counts as a microsecond.
  const auto r = rebalance({half, half}, {0.0, 1e9});
  EXPECT_EQ(r[1], 1u);
}

}  // namespace
}  // namespace scopedsm
