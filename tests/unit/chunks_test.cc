// interpose/chunks.h: cutting a transfer into chunks whose shared part fits
// the cache.
#include "interpose/chunks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace scopedsm::interpose {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uintptr_t kBase = 0x100000000;  // the shared span: 64 pages from here
const SharedSpan kSpan{kBase, kBase + 64 * kPage, kPage};

struct iovec at(uintptr_t addr, size_t len) { return {reinterpret_cast<void*>(addr), len}; }

// Every chunk of the list, as (address, length) pieces.
std::vector<std::vector<struct iovec>> chunks(const std::vector<struct iovec>& list, uint64_t budget) {
  std::vector<std::vector<struct iovec>> out;
  ChunkCursor c(list.data(), list.size(), kSpan, budget);
  std::vector<struct iovec> piece;
  while (!c.done()) {
    size_t bytes = c.next(&piece);
    size_t sum = 0;
    for (const struct iovec& v : piece) sum += v.iov_len;
    EXPECT_EQ(bytes, sum);
    EXPECT_GT(bytes, 0u);
    out.push_back(piece);
  }
  return out;
}

// The chunks, joined, are the list (empty entries left out), and each
// touches at most `budget` shared units.
void expect_cover(const std::vector<struct iovec>& list, uint64_t budget) {
  std::vector<std::pair<uintptr_t, size_t>> joined;
  for (const auto& chunk : chunks(list, budget)) {
    EXPECT_LE(units_touched(kSpan, chunk.data(), chunk.size()), budget);
    for (const struct iovec& v : chunk) {
      const auto a = reinterpret_cast<uintptr_t>(v.iov_base);
      if (!joined.empty() && joined.back().first + joined.back().second == a) joined.back().second += v.iov_len;
      else joined.emplace_back(a, v.iov_len);
    }
  }
  std::vector<std::pair<uintptr_t, size_t>> want;
  for (const struct iovec& v : list) {
    if (v.iov_len == 0) continue;
    const auto a = reinterpret_cast<uintptr_t>(v.iov_base);
    if (!want.empty() && want.back().first + want.back().second == a) want.back().second += v.iov_len;
    else want.emplace_back(a, v.iov_len);
  }
  EXPECT_EQ(joined, want);
}

TEST(Chunks, UnitsTouchedCountsPartialUnitsAndIgnoresPrivateMemory) {
  EXPECT_EQ(units_touched(kSpan, kBase, 1), 1u);
  EXPECT_EQ(units_touched(kSpan, kBase + kPage - 1, 2), 2u);
  EXPECT_EQ(units_touched(kSpan, kBase, 3 * kPage), 3u);
  EXPECT_EQ(units_touched(kSpan, kBase - 100, 100), 0u);  // just before
  EXPECT_EQ(units_touched(kSpan, kBase - 100, 101), 1u);
  EXPECT_EQ(units_touched(kSpan, kBase + 63 * kPage, 10 * kPage), 1u);  // runs past the end
  EXPECT_EQ(units_touched(kSpan, kBase + 64 * kPage, kPage), 0u);
  EXPECT_EQ(units_touched(kSpan, kBase, 0), 0u);
  EXPECT_EQ(units_touched(kSpan, uintptr_t{0}, SIZE_MAX), 64u);  // wraps nothing
}

TEST(Chunks, AFittingBufferIsOneChunk) {
  const std::vector<struct iovec> list = {at(kBase + 10, 3 * kPage)};  // touches 4 units
  auto c = chunks(list, 4);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0][0].iov_len, 3 * kPage);
}

TEST(Chunks, ALargeBufferIsCutAtUnitBoundaries) {
  const std::vector<struct iovec> list = {at(kBase + 10, 10 * kPage)};  // touches 11 units
  auto c = chunks(list, 4);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c[0][0].iov_base), kBase + 10);
  EXPECT_EQ(c[0][0].iov_len, 4 * kPage - 10);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c[1][0].iov_base), kBase + 4 * kPage);
  EXPECT_EQ(c[1][0].iov_len, 4 * kPage);
  EXPECT_EQ(c[2][0].iov_len, 2 * kPage + 10);
  expect_cover(list, 4);
}

TEST(Chunks, PrivateMemoryCostsNothing) {
  // A private buffer before the span, a shared one of 3 units, a private one after.
  const std::vector<struct iovec> list = {at(0x1000, 1 << 20), at(kBase, 3 * kPage), at(0x7000000, 1 << 20)};
  auto c = chunks(list, 3);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].size(), 3u);
  // With room for 2 units the shared buffer is cut; the private one after
  // it goes with the rest.
  c = chunks(list, 2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].size(), 2u);
  EXPECT_EQ(c[0][1].iov_len, 2 * kPage);
  EXPECT_EQ(c[1].size(), 2u);
  EXPECT_EQ(c[1][0].iov_len, kPage);
  expect_cover(list, 2);
}

TEST(Chunks, ABufferStraddlingTheSpansStartKeepsItsPrivatePrefixWithTheFirstUnits) {
  const std::vector<struct iovec> list = {at(kBase - 3000, 3000 + 5 * kPage)};
  auto c = chunks(list, 2);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0][0].iov_len, 3000 + 2 * kPage);
  expect_cover(list, 2);
}

TEST(Chunks, EmptyEntriesAreSkippedAndEveryChunkProgresses) {
  const std::vector<struct iovec> list = {at(kBase, 0), at(kBase + kPage, kPage), at(0x1000, 0),
                                          at(kBase + 5 * kPage, 1), at(kBase, 0)};
  auto c = chunks(list, 1);
  ASSERT_EQ(c.size(), 2u);
  expect_cover(list, 1);
  EXPECT_TRUE(chunks({at(kBase, 0)}, 1).empty());
  EXPECT_TRUE(chunks({}, 1).empty());
}

TEST(Chunks, ManySmallEntriesSharingUnitsCountEachTime) {
  // 16 entries of 100 bytes in one unit: counted once per entry, so a
  // budget of 4 takes 4 entries at a time (the count bounds, never less).
  std::vector<struct iovec> list;
  for (int i = 0; i < 16; ++i) list.push_back(at(kBase + 200 * i, 100));
  auto c = chunks(list, 4);
  EXPECT_EQ(c.size(), 4u);
  expect_cover(list, 4);
}

TEST(Chunks, ABudgetOfZeroIsTakenAsOne) {
  const std::vector<struct iovec> list = {at(kBase, 3 * kPage)};
  EXPECT_EQ(chunks(list, 0).size(), 3u);
}

}  // namespace
}  // namespace scopedsm::interpose
