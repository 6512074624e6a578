// Checked arithmetic (common/checked.h): exact results or nullopt, never a
// wrapped value.
#include "common/checked.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace scopedsm {
namespace {

constexpr uint64_t kMax = UINT64_MAX;

// Usable in constant expressions, so a header can check a size at compile time.
static_assert(checked_add<uint64_t>(1, 2) == 3u);
static_assert(!checked_add<uint64_t>(kMax, 1));
static_assert(round_up_pages(4097, 4096) == 2u);
static_assert(!round_up_pages(kMax - 100, 4096));

TEST(Checked, AddReportsWrapInEitherDirection) {
  EXPECT_EQ(checked_add<uint64_t>(kMax - 1, 1), kMax);
  EXPECT_FALSE(checked_add<uint64_t>(kMax, 1));
  EXPECT_FALSE(checked_add<uint64_t>(kMax, kMax));
  EXPECT_EQ(checked_add<int>(INT_MAX - 1, 1), INT_MAX);
  EXPECT_FALSE(checked_add<int>(INT_MAX, 1));
  EXPECT_FALSE(checked_add<int>(INT_MIN, -1));
  EXPECT_EQ(checked_add<int>(INT_MIN, INT_MAX), -1);
}

TEST(Checked, SubReportsBorrowBelowZero) {
  EXPECT_EQ(checked_sub<uint64_t>(5, 5), 0u);
  EXPECT_FALSE(checked_sub<uint64_t>(0, 1));
  EXPECT_FALSE(checked_sub<int>(INT_MIN, 1));
  EXPECT_EQ(checked_sub<int>(-1, INT_MAX), INT_MIN);
}

TEST(Checked, MulReportsProductsPast64Bits) {
  EXPECT_EQ(checked_mul<uint64_t>(0, kMax), 0u);
  EXPECT_EQ(checked_mul<uint64_t>(1ull << 32, (1ull << 32) - 1), kMax - ((1ull << 32) - 1));
  EXPECT_FALSE(checked_mul<uint64_t>(1ull << 32, 1ull << 32));
  // alloc_array<double>(2^61 + 1): the product wraps to 8.
  EXPECT_FALSE(checked_mul<uint64_t>((1ull << 61) + 1, 8));
  EXPECT_FALSE(checked_mul<int>(1 << 16, 1 << 15));
  EXPECT_EQ(checked_mul<int>(-(1 << 16), 1 << 15), INT_MIN);
}

TEST(Checked, CastKeepsOnlyRepresentableValues) {
  EXPECT_EQ(checked_cast<int>(size_t{INT_MAX}), INT_MAX);
  EXPECT_FALSE(checked_cast<int>(size_t{INT_MAX} + 1));  // an MPI count
  EXPECT_FALSE(checked_cast<uint32_t>(uint64_t{1} << 32));  // a page number on the wire
  EXPECT_EQ(checked_cast<uint32_t>((uint64_t{1} << 32) - 1), UINT32_MAX);
  EXPECT_FALSE(checked_cast<uint64_t>(-1));
  EXPECT_FALSE(checked_cast<int32_t>(INT64_MIN));
  EXPECT_EQ(checked_cast<int64_t>(-1), -1);
}

TEST(Checked, RoundUpPagesIsExact) {
  EXPECT_EQ(round_up_pages(0, 4096), 0u);
  EXPECT_EQ(round_up_pages(1, 4096), 1u);
  EXPECT_EQ(round_up_pages(4096, 4096), 1u);
  EXPECT_EQ(round_up_pages(4097, 4096), 2u);
  EXPECT_EQ(round_up_pages(3 * 4096 + 5, 4096), 4u);
  EXPECT_EQ(round_up_pages(kMax, 1), kMax);
  // The largest size that rounds up: 2^64 - 4096 is a whole number of pages.
  EXPECT_EQ(round_up_pages(kMax - 4095, 4096), (1ull << 52) - 1);
  EXPECT_EQ(round_up_pages(kMax - 8191, 4096), (1ull << 52) - 2);  // 2^64 - 8192: whole pages
  EXPECT_EQ(round_up_pages(kMax - 8190, 4096), (1ull << 52) - 1);
  EXPECT_FALSE(round_up_pages(5, 0));
}

// Issue 13: every size in (2^64 - 4096, 2^64) used to round up to zero
// pages with (bytes + page_size - 1) / page_size. None may now.
TEST(Checked, SizesJustBelow2To64DoNotRoundToZeroPages) {
  const uint64_t ps = 4096;
  for (uint64_t bytes : std::vector<uint64_t>{kMax - 4094, kMax - 4000, kMax - 100, kMax - 7, kMax}) {
    EXPECT_EQ((bytes + ps - 1) / ps, 0u) << bytes << ": the formula the runtime used";
    EXPECT_FALSE(round_up_pages(bytes, ps)) << bytes;
  }
  // alloc_array<double>(-1) asks for exactly 2^64 - 8 bytes.
  EXPECT_FALSE(round_up_pages(static_cast<uint64_t>(-1) * sizeof(double), ps));
}

TEST(Checked, RoundUpPagesCoversTheBytesForEveryPageSize) {
  for (uint64_t ps : std::vector<uint64_t>{1, 8, 4096, 16384, 65536, 1ull << 40, kMax}) {
    for (uint64_t bytes : std::vector<uint64_t>{1, ps - 1, ps, ps + 1, kMax / 2, kMax - ps, kMax - 1, kMax}) {
      std::optional<uint64_t> pages = round_up_pages(bytes, ps);
      if (!pages) continue;
      std::optional<uint64_t> covered = checked_mul(*pages, ps);
      ASSERT_TRUE(covered) << bytes << " / " << ps;
      EXPECT_GE(*covered, bytes) << bytes << " / " << ps;
      EXPECT_LT(*covered - bytes, ps) << bytes << " / " << ps;
      if (bytes > 0) {
        EXPECT_GT(*pages, 0u);
      }
    }
  }
}

}  // namespace
}  // namespace scopedsm
