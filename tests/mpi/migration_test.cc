// Home migration at barriers (SCOPEDSM_HOME_MIGRATION, jia_config(HMIG),
// docs/PROTOCOL.md §6a): a page written between two barriers by one process
// only, which still holds its copy, has that process as its home after the
// second barrier, on every process; its later writes there need no twin and
// no diff. Pages with several writers, pages the home itself wrote and pages
// whose writer lost its copy keep their home.
//
// Every test switches migration on itself (jia_config), so the file runs in
// every configuration of the suite; tests/CMakeLists.txt also runs it with
// the setting on from the start, a four-page cache and injected delays.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

constexpr size_t kPages = 16;

uint64_t cache_pages() {
  const char* v = std::getenv("SCOPEDSM_CACHE_PAGES");
  return v == nullptr ? 65536 : std::strtoull(v, nullptr, 10);
}

// kPages pages, every one homed at rank `home`, zero-filled.
uint64_t* pages_homed_at(int home) {
  return static_cast<uint64_t*>(scopedsm_alloc_cyclic(kPages * page(), kPages * page(), home));
}

uint64_t& word(uint64_t* a, size_t p, size_t w = 0) { return a[p * page() / 8 + w]; }

void expect_pattern(uint64_t* a, uint64_t salt, size_t words_per_page) {
  for (size_t p = 0; p < kPages; ++p)
    for (size_t w = 0; w < words_per_page; ++w)
      ASSERT_EQ(word(a, p, w), pattern(salt, p * 64 + w)) << "rank " << rank() << " page " << p << " word " << w;
}

// Migration on for each test, and the configured settings back after it, as
// the other tests expect them.
class HomeMigration : public ::testing::Test {
 protected:
  void SetUp() override { jia_config(HMIG, ON); }
  void TearDown() override {
    jia_config(HMIG, env_is("SCOPEDSM_HOME_MIGRATION", "on") ? ON : OFF);
    jia_config(ADWD, env_is("SCOPEDSM_WRITE_DETECT", "all") ? OFF : ON);
    scopedsm_barrier();
  }
  // Every home write trapped, so noted: which pages move is then decided by
  // the program's writes alone. (With adaptive write detection, a copy taken
  // of an untrapped home page makes the home note the page as written at
  // its next synchronization, since it may have written it untrapped after
  // the copy; whether that note comes in the same barrier as the writer's
  // notice depends on timing. WithAdaptiveDetectionPagesMoveInTwoRounds
  // covers that case.)
  static void trap_home_writes() { jia_config(ADWD, OFF); }
};

TEST_F(HomeMigration, TheSingleWriterBecomesTheHomeEverywhere) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another writer";
  const int writer = nprocs() - 1;
  trap_home_writes();
  uint64_t* a = pages_homed_at(0);
  const uint64_t gained0 = counter("homes_gained"), lost0 = counter("homes_lost");
  if (rank() == writer)
    for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(1, p * 64);
  scopedsm_barrier();  // the pages move to `writer` here
  expect_pattern(a, 1, 1);
  const bool cached = cache_pages() >= kPages + 4;  // the writer still held every copy
  if (rank() == writer && cached) {
    EXPECT_EQ(counter("homes_gained") - gained0, kPages);
  }
  if (rank() == 0 && cached) {
    EXPECT_EQ(counter("homes_lost") - lost0, kPages);
  }
  if (rank() != writer) {
    EXPECT_EQ(counter("homes_gained") - gained0, 0u);
  }
  scopedsm_barrier();

  // Now homed at the writer: its writes make no twin and no diff.
  const uint64_t twins0 = counter("twins"), diffs0 = counter("diffs_made");
  if (rank() == writer)
    for (size_t p = 0; p < kPages; ++p)
      for (size_t w = 0; w < 4; ++w) word(a, p, w) = pattern(2, p * 64 + w);
  scopedsm_barrier();
  if (rank() == writer && cached) {
    EXPECT_EQ(counter("twins") - twins0, 0u);
    EXPECT_EQ(counter("diffs_made") - diffs0, 0u);
  }
  expect_pattern(a, 2, 4);
}

TEST_F(HomeMigration, PagesMoveOnAndBackAndEveryoneKeepsUp) {
  if (nprocs() < 2) GTEST_SKIP() << "needs two writers";
  uint64_t* a = pages_homed_at(0);
  // Each round, one writer rewrites every page; the next round reads them
  // all first (fetching from the page's newest home), then the next writer.
  for (int round = 0; round < 3 * nprocs(); ++round) {
    const int writer = (round + 1) % nprocs();
    if (rank() == writer)
      for (size_t p = 0; p < kPages; ++p)
        for (size_t w = 0; w < 3; ++w) word(a, p, w) = pattern(100 + static_cast<uint64_t>(round), p * 64 + w);
    scopedsm_barrier();
    expect_pattern(a, 100 + static_cast<uint64_t>(round), 3);
    scopedsm_barrier();
  }
}

TEST_F(HomeMigration, ReadersRightAfterTheBarrierSeeTheNewHomesPages) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another writer";
  // Readers fault at once after the barrier, while the new home may still be
  // finishing it: their requests wait there until the page is its own.
  // (SCOPEDSM_TEST_FAULT=slow-barrier-finish makes sure the new home is
  // late, and with pages read by message some request must have waited.)
  trap_home_writes();
  const int writer = 1;
  const uint64_t deferred0 = counter("requests_deferred");
  for (int round = 0; round < 10; ++round) {
    uint64_t* a = pages_homed_at(0);
    if (rank() == writer)
      for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(200 + static_cast<uint64_t>(round), p * 64);
    scopedsm_barrier();
    expect_pattern(a, 200 + static_cast<uint64_t>(round), 1);
    // And a writer of one word of every page, right after, in a critical
    // section: its diffs go to the new home at the unlock.
    if (rank() == 0) {
      scopedsm_lock(0);
      for (size_t p = 0; p < kPages; ++p) word(a, p, 1) = pattern(300 + static_cast<uint64_t>(round), p * 64 + 1);
      scopedsm_unlock(0);
    }
    scopedsm_barrier();
    for (size_t p = 0; p < kPages; ++p)
      ASSERT_EQ(word(a, p, 1), pattern(300 + static_cast<uint64_t>(round), p * 64 + 1)) << "page " << p;
    scopedsm_barrier();
  }
  const char* fault = std::getenv("SCOPEDSM_TEST_FAULT");
  const bool late_home = fault != nullptr && std::string(fault).find("slow-barrier-finish") != std::string::npos;
  if (late_home && env_is("SCOPEDSM_FETCH", "message") && rank() == writer) {
    EXPECT_GT(counter("requests_deferred") - deferred0, 0u);
  }
}

TEST_F(HomeMigration, PagesWithTwoWritersOrWrittenAtTheirHomeStay) {
  if (nprocs() < 3) GTEST_SKIP() << "needs a home and two other writers";
  trap_home_writes();
  uint64_t* a = pages_homed_at(0);
  const uint64_t gained0 = counter("homes_gained"), lost0 = counter("homes_lost");
  // Pages 0..7: ranks 1 and 2 write one word each. Pages 8..15: the home
  // and rank 1 write one word each.
  for (size_t p = 0; p < kPages; ++p) {
    const bool two_others = p < kPages / 2;
    if (rank() == 1) word(a, p, 1) = pattern(1, p * 64 + 1);
    if (rank() == (two_others ? 2 : 0)) word(a, p, 2) = pattern(1, p * 64 + 2);
  }
  scopedsm_barrier();
  for (size_t p = 0; p < kPages; ++p) {
    ASSERT_EQ(word(a, p, 1), pattern(1, p * 64 + 1));
    ASSERT_EQ(word(a, p, 2), pattern(1, p * 64 + 2));
  }
  EXPECT_EQ(counter("homes_gained") - gained0, 0u);
  EXPECT_EQ(counter("homes_lost") - lost0, 0u);
}

TEST_F(HomeMigration, WithAdaptiveDetectionPagesMoveInTwoRounds) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another writer";
  if (cache_pages() < kPages + 4) GTEST_SKIP() << "the writer must keep its copies";
  jia_config(ADWD, ON);
  const int writer = nprocs() - 1;
  uint64_t* a = pages_homed_at(0);  // untrapped at the home
  const uint64_t gained0 = counter("homes_gained");
  // Round 1: the writer's copies may be noted by the home as possibly
  // written (a retrap) in this barrier, making the pages multiple-writer;
  // such pages stay trapped at the home (with migration on, pages several
  // wrote are not untrapped), so round 2 has the writer alone.
  for (int round = 0; round < 2; ++round) {
    if (rank() == writer)
      for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(600 + static_cast<uint64_t>(round), p * 64);
    scopedsm_barrier();
    expect_pattern(a, 600 + static_cast<uint64_t>(round), 1);
    scopedsm_barrier();
  }
  if (rank() == writer) {
    EXPECT_EQ(counter("homes_gained") - gained0, kPages);
  }
}

// A reader that read the pages one-sided from the old home (and marked them
// `seen` there) must mark them again at the new home before reading from it:
// otherwise the new home, seeing no mark, stops trapping its writes while
// the reader holds a copy, and the reader never hears of them.
TEST_F(HomeMigration, OneSidedReadersMarkTheNewHomeToo) {
  if (nprocs() < 3) GTEST_SKIP() << "needs a home, a writer and a reader";
  uint64_t* a = pages_homed_at(0);
  // The reader's first copies come from the old home, and are marked there.
  if (rank() == 2) {
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(word(a, p), 0u);
  }
  scopedsm_barrier();
  for (int round = 0; round < 6; ++round) {
    if (rank() == 1)
      for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(700 + static_cast<uint64_t>(round), p * 64);
    scopedsm_barrier();
    if (rank() == 2) expect_pattern(a, 700 + static_cast<uint64_t>(round), 1);
    scopedsm_barrier();
  }
}

// A process that finished the barrier first writes a page that barrier
// moved to a home still finishing it, inside a critical section of a lock
// homed there, and the next holder of the lock reads the page. The DIFF
// reaches the new home before the REL: had it waited there for the barrier
// to end while the REL was served, the next holder could fetch the page
// without the write. (Run with slow-barrier-finish by `late_home`.)
TEST_F(HomeMigration, DiffsToANewHomeStayAheadOfTheRelease) {
  if (nprocs() < 3) GTEST_SKIP() << "needs an old home, a new home and a writer";
  trap_home_writes();
  const int lock = 1 + nprocs();  // homed at rank 1, the new home
  auto* flag = static_cast<uint64_t*>(scopedsm_alloc_cyclic(page(), page(), 0));
  for (int round = 0; round < 4; ++round) {
    uint64_t* a = pages_homed_at(0);
    if (rank() == 1)
      for (size_t p = 0; p < kPages; ++p) word(a, p) = 1;  // they move to rank 1
    scopedsm_barrier();
    const uint64_t value = pattern(800 + static_cast<uint64_t>(round), 0);
    if (rank() == 2) {
      scopedsm_lock(lock);
      for (size_t p = 0; p < kPages; ++p) word(a, p, 1) = value;
      *flag = static_cast<uint64_t>(round) + 1;
      scopedsm_unlock(lock);
    } else if (rank() == 0) {
      for (;;) {
        scopedsm_lock(lock);
        const bool written = *flag == static_cast<uint64_t>(round) + 1;
        if (written) {
          for (size_t p = 0; p < kPages; ++p) EXPECT_EQ(word(a, p, 1), value) << "round " << round << " page " << p;
        }
        scopedsm_unlock(lock);
        if (written) break;
      }
    }
    scopedsm_barrier();
  }
}

TEST_F(HomeMigration, SwitchedOffNothingMoves) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another writer";
  jia_config(HMIG, OFF);
  uint64_t* a = pages_homed_at(0);
  const uint64_t gained0 = counter("homes_gained"), diffs0 = counter("diffs_made");
  for (int round = 0; round < 2; ++round) {
    if (rank() == 1)
      for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(400 + static_cast<uint64_t>(round), p * 64);
    scopedsm_barrier();
    expect_pattern(a, 400 + static_cast<uint64_t>(round), 1);
    scopedsm_barrier();
  }
  EXPECT_EQ(counter("homes_gained") - gained0, 0u);
  if (rank() == 1) {
    EXPECT_EQ(counter("diffs_made") - diffs0, 2 * kPages);  // both rounds' writes went home as diffs
  }
}

// jia_config(ADWD, OFF) at run time: every home write is trapped from then
// on, so the home's writes fault (and are noted) even with no copy anywhere.
TEST(WriteDetection, JiaConfigAdwdOffTrapsHomeWrites) {
  jia_config(ADWD, OFF);
  uint64_t* mine = static_cast<uint64_t*>(scopedsm_alloc_cyclic(nprocs() * kPages * page(), kPages * page(), 0)) +
                   static_cast<size_t>(rank()) * kPages * page() / 8;
  scopedsm_barrier();
  const uint64_t faults0 = counter("write_faults"), untraps0 = counter("untraps");
  for (int round = 0; round < 2; ++round) {
    for (size_t p = 0; p < kPages; ++p) word(mine, p) = pattern(500 + static_cast<uint64_t>(round), p);
    scopedsm_barrier();
  }
  EXPECT_EQ(counter("untraps") - untraps0, 0u);
  // Each rank homes its own block (blocks of kPages dealt from rank 0), and
  // both rounds' first writes of each of its pages were trapped.
  EXPECT_EQ(counter("write_faults") - faults0, 2 * kPages);
  jia_config(ADWD, ON);
  scopedsm_barrier();
}

}  // namespace
