// The dissemination barrier's schedule and its notice merge, without MPI:
// simulated at 1 to 33 processes, the rounds bring every process every
// other process's notices, merged exactly as the reference merge
// (NoticeMerge) would, whatever the order and overlap of the rounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "protocol/notices.h"
#include "sync/barrier.h"
#include "transport/wire.h"

using namespace scopedsm;

namespace {

bool same(const std::vector<WriteNotice>& a, const std::vector<WriteNotice>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].page != b[i].page || a[i].writer != b[i].writer || a[i].offers_home != b[i].offers_home ||
        a[i].touch_only != b[i].touch_only)
      return false;
  return true;
}

TEST(NoticeMergeSorted, KeepsOneWriterAndMarksTwoAsMultiple) {
  std::vector<WriteNotice> a{{1, 0}, {4, 2}, {7, 1}, {9, kMultipleWriters}};
  merge_sorted(&a, {{0, 3}, {4, 2}, {7, 3}, {9, 1}, {12, 1}});
  EXPECT_TRUE(same(a, {{0, 3}, {1, 0}, {4, 2}, {7, kMultipleWriters}, {9, kMultipleWriters}, {12, 1}}));
  merge_sorted(&a, {});
  EXPECT_EQ(a.size(), 6u);
  std::vector<WriteNotice> empty;
  merge_sorted(&empty, {{5, 1}});
  EXPECT_TRUE(same(empty, {{5, 1}}));
}

TEST(NoticeMergeSorted, IsIdempotentCommutativeAndAssociative) {
  std::mt19937 rng(7);
  auto random_list = [&] {
    NoticeMerge m;
    for (int i = 0; i < 40; ++i) m.add({static_cast<uint32_t>(rng() % 60), static_cast<int32_t>(rng() % 3)});
    std::vector<WriteNotice> out = m.sorted();
    // A writer's offer for a page is the same in every list that has it.
    for (WriteNotice& n : out) n.offers_home = n.writer >= 0 && (n.page + static_cast<uint32_t>(n.writer)) % 2 == 0;
    return out;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const auto a = random_list(), b = random_list(), c = random_list();
    auto aa = a;
    merge_sorted(&aa, a);
    EXPECT_TRUE(same(aa, a));
    auto ab = a, ba = b;
    merge_sorted(&ab, b);
    merge_sorted(&ba, a);
    EXPECT_TRUE(same(ab, ba));
    auto ab_c = ab, bc = b;
    merge_sorted(&ab_c, c);
    merge_sorted(&bc, c);
    auto a_bc = a;
    merge_sorted(&a_bc, bc);
    EXPECT_TRUE(same(ab_c, a_bc));
    EXPECT_TRUE(sorted_by_page(ab_c));
  }
  EXPECT_FALSE(sorted_by_page({{2, 0}, {1, 0}}));
  EXPECT_FALSE(sorted_by_page({{2, 0}, {2, 1}}));
}

// Home migration's offers (docs/PROTOCOL.md §6a): kept only while the page
// has the one writer that made them.
TEST(NoticeMergeSorted, KeepsAnOfferOnlyForTheSameSingleWriter) {
  std::vector<WriteNotice> a{{1, 0, true}, {4, 2, true}, {7, 1, true}, {9, 3, false}};
  merge_sorted(&a, {{1, 0, true}, {4, 3, false}, {7, 1, true}, {9, 3, false}, {11, 2, true}});
  EXPECT_TRUE(same(a, {{1, 0, true}, {4, kMultipleWriters, false}, {7, 1, true}, {9, 3, false}, {11, 2, true}}));
}

// Next-touch offers (docs/PROTOCOL.md §6c): a touch gives way to any write
// notice for the page (the toucher's copy is stale then), and of two touches
// the lower rank stays; in any order of merging.
TEST(NoticeMergeSorted, TouchesGiveWayToWritesAndTheLowestToucherStays) {
  const WriteNotice t1{5, 1, true, true}, t2{5, 2, true, true}, w3{5, 3, true}, w0{5, 0, false};
  const std::vector<std::vector<WriteNotice>> lists{{t2}, {t1}, {w3}, {w0}};
  std::vector<WriteNotice> touches{t2};
  merge_sorted(&touches, {t1});
  EXPECT_TRUE(same(touches, {t1}));
  std::vector<WriteNotice> over_write{t1};
  merge_sorted(&over_write, {w3});
  EXPECT_TRUE(same(over_write, {w3}));  // the lone writer's offer stands
  // Every order of the four lists gives the same: two writers, no offer.
  std::vector<size_t> order{0, 1, 2, 3};
  do {
    std::vector<WriteNotice> m;
    for (size_t i : order) merge_sorted(&m, lists[i]);
    EXPECT_TRUE(same(m, {{5, kMultipleWriters, false}}));
  } while (std::next_permutation(order.begin(), order.end()));
  // The negative control's merge keeps the touch.
  std::vector<WriteNotice> broken{w3};
  merge_sorted(&broken, {t2}, true);
  EXPECT_TRUE(same(broken, {t2}));
}

// On the wire the offer is bit 30 of the writer; decoding gives it back and
// still checks the writer is a rank.
TEST(NoticeWire, OffersRoundTripAndWritersAreStillChecked) {
  const std::vector<WriteNotice> in{{3, 0, true}, {5, 2, false}, {6, kMultipleWriters, false}, {8, 1, true},
                                    {9, 2, true, true}};
  Writer w(MsgType::kBarrier);
  put_notices(&w, in);
  const std::vector<std::byte> bytes = w.finish(1);
  Reader r(bytes.data(), bytes.size());
  MsgType type;
  ASSERT_TRUE(r.open(&type).ok());
  std::vector<WriteNotice> out;
  ASSERT_TRUE(get_notices(&r, 100, 3, &out).ok());
  EXPECT_TRUE(same(out, in));

  // Writer 3 with the offer bit, at 3 ranks: not a rank.
  Writer bad(MsgType::kBarrier);
  put_notices(&bad, {{3, 3, true}});
  const std::vector<std::byte> bad_bytes = bad.finish(1);
  Reader rb(bad_bytes.data(), bad_bytes.size());
  ASSERT_TRUE(rb.open(&type).ok());
  EXPECT_FALSE(get_notices(&rb, 100, 3, &out).ok());
}

TEST(BarrierSchedule, RoundsAreCeilLog2) {
  EXPECT_EQ(Barrier::rounds(1), 0);
  EXPECT_EQ(Barrier::rounds(2), 1);
  EXPECT_EQ(Barrier::rounds(3), 2);
  EXPECT_EQ(Barrier::rounds(4), 2);
  EXPECT_EQ(Barrier::rounds(5), 3);
  EXPECT_EQ(Barrier::rounds(8), 3);
  EXPECT_EQ(Barrier::rounds(9), 4);
}

TEST(BarrierSchedule, EveryProcessEndsWithEveryProcessesNotices) {
  std::mt19937 rng(11);
  for (int n = 1; n <= 33; ++n) {
    // Each rank's own notices; the reference is their merge by NoticeMerge.
    std::vector<std::vector<WriteNotice>> known(static_cast<size_t>(n));
    NoticeMerge reference;
    for (int r = 0; r < n; ++r) {
      NoticeMerge own;
      for (int i = 0; i < 5; ++i) own.add({static_cast<uint32_t>(rng() % 40), r});
      known[static_cast<size_t>(r)] = own.sorted();
      reference.add_all(known[static_cast<size_t>(r)]);
    }
    const int rounds = Barrier::rounds(n);
    for (int k = 0; k < rounds; ++k) {
      std::set<int> sources;
      for (int r = 0; r < n; ++r) {
        // The process r hears from sends to r in the same round, and no two
        // processes hear from the same one.
        const int from = Barrier::source(r, n, k);
        ASSERT_EQ(Barrier::target(from, n, k), r) << "n=" << n << " k=" << k;
        ASSERT_NE(from, r) << "n=" << n << " k=" << k << ": a process would send itself a round";
        sources.insert(from);
      }
      ASSERT_EQ(sources.size(), static_cast<size_t>(n));
      // Everybody sends what it knows before the round, then merges.
      const auto before = known;
      for (int r = 0; r < n; ++r) merge_sorted(&known[static_cast<size_t>(r)], before[static_cast<size_t>(Barrier::source(r, n, k))]);
    }
    for (int r = 0; r < n; ++r)
      EXPECT_TRUE(same(known[static_cast<size_t>(r)], reference.sorted())) << "n=" << n << " rank " << r;
    // A process's sources over all rounds are distinct: one BARR from each per barrier.
    for (int r = 0; r < n; ++r) {
      std::set<int> from;
      for (int k = 0; k < rounds; ++k) from.insert(Barrier::source(r, n, k));
      EXPECT_EQ(from.size(), static_cast<size_t>(rounds)) << "n=" << n << " rank " << r;
    }
  }
}

}  // namespace
