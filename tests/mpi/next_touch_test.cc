// Re-homing on next touch (scopedsm_next_touch, SCOPEDSM_NEXT_TOUCH,
// docs/PROTOCOL.md §6c): after a next-touch point, a page another process
// touches (SCOPEDSM_NEXT_TOUCH_ON=touch, the default: its first fault on the
// page; =write: a write only) gets that process as its home at the next
// barrier, on every process: a lone writer first, else the lowest-ranked
// toucher. A page its home or several processes wrote keeps its home. The
// data stay correct throughout, whatever moved.
//
// The file runs in every configuration of the suite (home migration, node
// sharing off, a tiny cache: copies lost to the cache do not move, so the
// homes are checked only when the cache holds every page read);
// tests/CMakeLists.txt also runs it in write mode and in the automatic mode.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "scopedsm.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

constexpr size_t kPages = 16;

bool write_mode() { return env_is("SCOPEDSM_NEXT_TOUCH_ON", "write"); }
bool automatic() {
  const char* v = std::getenv("SCOPEDSM_NEXT_TOUCH");
  return v != nullptr && std::string(v) != "off";
}

// Every copy a reader takes in a test stays in its cache until the barrier.
bool cached() {
  const char* v = std::getenv("SCOPEDSM_CACHE_PAGES");
  return v == nullptr || std::strtoull(v, nullptr, 10) >= kPages + 4;
}

// kPages pages, every one homed at rank 0, zero-filled.
uint64_t* pages_at_rank0() {
  return static_cast<uint64_t*>(scopedsm_alloc_cyclic(kPages * page(), kPages * page(), 0));
}

uint64_t& word(uint64_t* a, size_t p, size_t w = 0) { return a[p * page() / 8 + w]; }
int home(uint64_t* a, size_t p) { return scopedsm_home_of(&word(a, p)); }

// The one process (not the home) that touches page p.
int toucher(size_t p) { return 1 + static_cast<int>(p % static_cast<size_t>(nprocs() - 1)); }

TEST(NextTouch, EachPageMovesToItsReader) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another process";
  uint64_t* a = pages_at_rank0();
  if (rank() == 0)  // laid out serially by rank 0
    for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(1, p);
  scopedsm_barrier();
  const uint64_t marked0 = counter("next_touch_pages_marked"), rehomed0 = counter("next_touch_pages_rehomed");
  scopedsm_next_touch(a, kPages * page());
  EXPECT_EQ(counter("next_touch_pages_marked") - marked0, kPages);
  size_t mine = 0;
  for (size_t p = 0; p < kPages; ++p) {
    if (toucher(p) != rank()) continue;
    ++mine;
    ASSERT_EQ(word(a, p), pattern(1, p)) << "rank " << rank() << " page " << p;
  }
  for (size_t p = 0; p < kPages; ++p) EXPECT_EQ(home(a, p), 0) << "moved before the barrier";
  scopedsm_barrier();  // the touched pages move here
  for (size_t p = 0; p < kPages; ++p) {
    const int h = home(a, p);
    if (cached()) {
      EXPECT_EQ(h, write_mode() ? 0 : toucher(p)) << "rank " << rank() << " page " << p;
    } else {
      EXPECT_TRUE(h == 0 || h == toucher(p)) << "rank " << rank() << " page " << p << " homed at " << h;
    }
  }
  if (cached()) {
    EXPECT_EQ(counter("next_touch_pages_rehomed") - rehomed0, write_mode() ? 0u : mine);
  }
  // The new homes write; everybody sees both generations.
  for (size_t p = 0; p < kPages; ++p)
    if (toucher(p) == rank()) word(a, p, 1) = pattern(2, p);
  scopedsm_barrier();
  for (size_t p = 0; p < kPages; ++p) {
    ASSERT_EQ(word(a, p), pattern(1, p)) << "rank " << rank() << " page " << p;
    ASSERT_EQ(word(a, p, 1), pattern(2, p)) << "rank " << rank() << " page " << p;
  }
  scopedsm_barrier();
}

TEST(NextTouch, ALoneWriterWinsAndReadersTieToTheLowestRank) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another process";
  const int writer = nprocs() - 1;
  uint64_t* a = pages_at_rank0();
  if (rank() == 0)
    for (size_t p = 0; p < 2; ++p) word(a, p) = pattern(1, p);
  scopedsm_next_touch(a, 2 * page());
  // Page 0: read by everyone but its home. Page 1: read by them too, and
  // written (another word) by `writer`.
  if (rank() != 0) {
    ASSERT_EQ(word(a, 0), pattern(1, 0));
    ASSERT_EQ(word(a, 1), pattern(1, 1));
  }
  if (rank() == writer) word(a, 1, 2) = pattern(3, 1);
  scopedsm_barrier();
  if (cached()) {
    EXPECT_EQ(home(a, 0), write_mode() ? 0 : 1);
    EXPECT_EQ(home(a, 1), writer);  // whatever the mode: a lone writer with its copy
  } else {
    // A copy the cache gave up before the barrier makes no offer (the file's
    // rule above): the page stays or goes to a process whose copy survived.
    for (size_t p = 0; p < 2; ++p)
      EXPECT_TRUE(home(a, p) >= 0 && home(a, p) < nprocs()) << "page " << p << " homed at " << home(a, p);
  }
  ASSERT_EQ(word(a, 0), pattern(1, 0));
  ASSERT_EQ(word(a, 1), pattern(1, 1));
  ASSERT_EQ(word(a, 1, 2), pattern(3, 1)) << "rank " << rank();
  scopedsm_barrier();
}

// A reader's copy is not the page once somebody else wrote it after the
// copy was taken: the home stays (the negative control next-touch-stale
// lets the reader's stale copy become the home).
TEST(NextTouch, WritesByTheHomeOrBySeveralKeepTheHome) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another process";
  uint64_t* a = pages_at_rank0();
  if (rank() == 0) word(a, 0) = pattern(1, 0);
  scopedsm_next_touch(a, 2 * page());
  // Page 0: rank 1 reads it, then the home writes it.
  if (rank() == 1) {
    ASSERT_EQ(word(a, 0), pattern(1, 0));
    scopedsm_cv_set(0);
  }
  if (rank() == 0) {
    scopedsm_cv_wait(0);
    word(a, 0, 1) = pattern(4, 0);
  }
  // Page 1: two writers, neither the home.
  if (nprocs() >= 3 && (rank() == 1 || rank() == 2)) word(a, 1, static_cast<size_t>(rank())) = pattern(5, 1);
  scopedsm_barrier();
  EXPECT_EQ(home(a, 0), 0) << "rank " << rank();
  EXPECT_EQ(home(a, 1), 0) << "rank " << rank();
  ASSERT_EQ(word(a, 0), pattern(1, 0)) << "rank " << rank();
  ASSERT_EQ(word(a, 0, 1), pattern(4, 0)) << "rank " << rank();
  if (nprocs() >= 3) {
    ASSERT_EQ(word(a, 1, 1), pattern(5, 1)) << "rank " << rank();
    ASSERT_EQ(word(a, 1, 2), pattern(5, 1)) << "rank " << rank();
  }
  // Settled: a later touch moves nothing (unless an automatic point marked
  // the page again).
  if (rank() == nprocs() - 1) {
    ASSERT_EQ(word(a, 0), pattern(1, 0));
  }
  scopedsm_barrier();
  if (!automatic()) {
    EXPECT_EQ(home(a, 0), 0);
  }
  if (rank() == 0) scopedsm_cv_reset(0);
  scopedsm_barrier();
}

// SCOPEDSM_NEXT_TOUCH=barrier:1: the first barrier after an allocation is a
// next-touch point for it, with no call.
TEST(NextTouch, TheFirstBarrierAfterAnAllocationIsANextTouchPoint) {
  if (!env_is("SCOPEDSM_NEXT_TOUCH", "barrier:1")) GTEST_SKIP() << "for SCOPEDSM_NEXT_TOUCH=barrier:1";
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another process";
  uint64_t* arrays[2] = {pages_at_rank0(), pages_at_rank0()};  // both marked at the same barrier
  if (rank() == 0)
    for (uint64_t* a : arrays)
      for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(6, p);
  scopedsm_barrier();  // the automatic point
  for (uint64_t* a : arrays)
    for (size_t p = 0; p < kPages; ++p)
      if (toucher(p) == rank()) {
        ASSERT_EQ(word(a, p), pattern(6, p));
      }
  scopedsm_barrier();  // the move
  for (uint64_t* a : arrays)
    for (size_t p = 0; p < kPages; ++p) {
      ASSERT_EQ(word(a, p), pattern(6, p));
      if (cached()) {
        EXPECT_EQ(home(a, p), write_mode() ? 0 : toucher(p)) << "rank " << rank() << " page " << p;
      }
    }
  // Only the first barrier: another reader now moves nothing.
  uint64_t* a = arrays[0];
  const int before = home(a, 0);
  if (rank() == 0 || (nprocs() > 2 && rank() == 2)) {
    ASSERT_EQ(word(a, 0), pattern(6, 0));
  }
  scopedsm_barrier();
  EXPECT_EQ(home(a, 0), before);
  scopedsm_barrier();
}

}  // namespace
