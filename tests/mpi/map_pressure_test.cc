// Relief of map pressure (docs/PROTOCOL.md §7) at the worst moments: while
// a fault makes a cached copy writable, while scopedsm_prepare makes a
// range valid, and while a barrier drops copies. Each test gives rank 1 a
// protection-boundary budget (scopedsm_test_set_map_budget) that the next
// change exceeds by one or two boundaries, so that the relief must run, and
// leaves it something else to drop, so that the relief can make room.
//
// The relief drops every clean cached copy. It must run only between
// transitions (docs/PROTOCOL.md §2.0): a copy that a write fault is making
// read-write, or a copy that an invalidation is dropping, is in the middle
// of a transition, and a relief inside it frees the copy's cache slot under
// it (the page becomes read-write with no twin, or its slot is freed twice).
// And it must leave alone the pages scopedsm_prepare is making valid, or the
// kernel's access to the range fails with EFAULT. The control
// relief-in-transition runs the relief inside the transition that meets the
// budget, over every clean copy, pinned or not; these tests then crash or
// fail (tests/CMakeLists.txt, mpi.broken.relief-in-transition.*).
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/test_hooks.h"
#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

constexpr size_t kPages = 8;

size_t words() { return page() / sizeof(uint64_t); }

// kPages pages homed at rank 0, each page's first word pattern(0, page),
// seen by every process after the barrier. Rank 1 holds no copy of them.
uint64_t* pages_at_rank0() {
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic(kPages * page(), kPages * page(), 0));
  for (size_t p = 0; p < kPages; ++p) EXPECT_EQ(scopedsm_home_of(a + p * words()), 0) << "page " << p;
  if (rank() == 0)
    for (size_t p = 0; p < kPages; ++p) a[p * words()] = pattern(0, p);
  scopedsm_barrier();
  return a;
}

// Every process sees each page's pattern, and `value` at word 1 of `page`.
void expect_everywhere(const uint64_t* a, size_t written_page, uint64_t value) {
  for (size_t p = 0; p < kPages; ++p) EXPECT_EQ(a[p * words()], pattern(0, p)) << "page " << p << " on rank " << rank();
  EXPECT_EQ(a[written_page * words() + 1], value) << "on rank " << rank();
}

// The budget the test replaced comes back however the test ends.
struct BudgetGuard {
  uint64_t before;
  explicit BudgetGuard(uint64_t budget) : before(scopedsm_test_set_map_budget(budget)) {}
  ~BudgetGuard() { scopedsm_test_set_map_budget(before); }
};

// A read-only copy next to another read-only copy: making it read-write
// adds a boundary, one over the budget. The relief drops the neighbour and
// must keep the page being made writable, whose twin the interval's diff
// reads at the barrier.
TEST(MapPressure, AWriteFaultOnAReadOnlyCopyKeepsItsTwin) {
  if (nprocs() < 2) GTEST_SKIP() << "needs pages homed elsewhere";
  uint64_t* a = pages_at_rank0();
  if (rank() == 1) {
    ASSERT_EQ(a[2 * words()], pattern(0, 2));
    ASSERT_EQ(a[3 * words()], pattern(0, 3));  // (a fetch run may bring more pages: all read-only but the last)
    const uint64_t reliefs = counter("map_reliefs");
    {
      BudgetGuard tight(scopedsm_test_map_boundaries());
      a[2 * words() + 1] = 77;
    }
    EXPECT_EQ(counter("map_reliefs"), reliefs + 1);
    EXPECT_EQ(a[2 * words() + 1], 77u);
  }
  scopedsm_barrier();
  expect_everywhere(a, 2, 77);
  scopedsm_barrier();
}

// A prefetch hint's run of two pages: the first read-only, the second its
// tripwire (prefetched), or both in flight from a home on another node.
// The write to the second makes it read-write next to the first (one
// boundary over the budget): the relief drops the first and must keep the
// second. Covers the write to a tripwire (node copies) and the write to a
// page in flight (other nodes).
TEST(MapPressure, AWriteToAPrefetchedPageKeepsItsTwin) {
  if (nprocs() < 2) GTEST_SKIP() << "needs pages homed elsewhere";
  uint64_t* a = pages_at_rank0();
  if (rank() == 1) {
    const uint64_t reliefs = counter("map_reliefs"), fetched = counter("hint_prefetch_fetched");
    {
      BudgetGuard tight(scopedsm_test_map_boundaries() + 2);  // room for the run's two pages being readable
      scopedsm_prefetch(a + 2 * words(), 2 * page());
      a[3 * words() + 1] = 88;
    }
    // (A cache with no free slot drops the hint: then nothing is prefetched, and the write fetches one page.)
    if (counter("hint_prefetch_fetched") == fetched + 2) {
      EXPECT_EQ(counter("map_reliefs"), reliefs + 1);
    }
    EXPECT_EQ(a[3 * words() + 1], 88u);
  }
  scopedsm_barrier();
  expect_everywhere(a, 3, 88);
  scopedsm_barrier();
}

// scopedsm_prepare of pages 2-5 for reading while this process writes page
// 3 and holds page 6 read-only: the fault on page 4 exceeds the budget by
// one; the relief may drop page 6 and must leave pages 2 and 4 valid, so
// that the kernel can read the whole range (write(2) to a pipe).
TEST(MapPressure, ReliefLeavesARangeBeingPreparedValid) {
  if (nprocs() < 2) GTEST_SKIP() << "needs pages homed elsewhere";
  uint64_t* a = pages_at_rank0();
  if (rank() == 1) {
    ASSERT_EQ(a[6 * words()], pattern(0, 6));  // a clean copy the relief may drop
    a[3 * words() + 1] = 99;                   // a written copy inside the range
    const uint64_t reliefs = counter("map_reliefs"), evictions = counter("evictions");
    {
      BudgetGuard tight(scopedsm_test_map_boundaries() + 1);
      scopedsm_prepare(a + 2 * words(), 4 * page(), 0);
    }
    // (In a full cache the fetches evict other copies first, which may make room.)
    if (counter("evictions") == evictions) {
      EXPECT_EQ(counter("map_reliefs"), reliefs + 1);
    }
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    // The system call itself, not libc's write: ScopeDSM interposes write()
    // and would make the range accessible on its own; prepare's promise is
    // that the kernel can use the range without that help.
    const ssize_t wrote = syscall(SYS_write, fds[1], a + 2 * words(), 4 * page());
    const int error = errno;
    EXPECT_EQ(wrote, static_cast<ssize_t>(4 * page())) << "write(2) from the prepared range: " << std::strerror(error);
    if (wrote == static_cast<ssize_t>(4 * page())) {
      std::vector<uint64_t> back(4 * words());
      ASSERT_EQ(read(fds[0], back.data(), 4 * page()), static_cast<ssize_t>(4 * page()));
      for (size_t p = 0; p < 4; ++p) EXPECT_EQ(back[p * words()], pattern(0, 2 + p)) << "page " << 2 + p;
      EXPECT_EQ(back[1 * words() + 1], 99u);
    }
    close(fds[0]);
    close(fds[1]);
  }
  scopedsm_barrier();
  expect_everywhere(a, 3, 99);
  scopedsm_barrier();
}

// jia_config(ADWD)'s setting for the configured write detection.
int adwd() {
  const char* v = std::getenv("SCOPEDSM_WRITE_DETECT");
  return v == nullptr || std::string(v) == "adaptive" ? ON : OFF;
}

// Rank 1 holds pages 2-4 read-only; the home writes page 3 (trapped: ADWD
// off, so its notice names that page alone). The barrier's invalidation of
// page 3 splits the read-only run in two, two boundaries over the budget:
// the relief drops pages 2 and 4, and must not drop page 3 while the
// invalidation is dropping it.
TEST(MapPressure, AnInvalidationThatExceedsTheBudgetDropsEachCopyOnce) {
  if (nprocs() < 2) GTEST_SKIP() << "needs pages homed elsewhere";
  if (env_is("SCOPEDSM_WRITE_DETECT", "cache-only")) GTEST_SKIP() << "cache-only detection drops every copy at a barrier";
  jia_config(ADWD, OFF);
  uint64_t* a = pages_at_rank0();
  if (rank() == 1) {
    for (size_t p = 2; p <= 4; ++p) ASSERT_EQ(a[p * words()], pattern(0, p));
  }
  scopedsm_barrier();
  const uint64_t reliefs = counter("map_reliefs");
  {
    BudgetGuard tight(rank() == 1 ? scopedsm_test_map_boundaries() : 0);
    if (rank() == 0) a[3 * words() + 1] = 55;
    scopedsm_barrier();
  }
  if (rank() == 1) {
    EXPECT_EQ(counter("map_reliefs"), reliefs + 1);
  }
  expect_everywhere(a, 3, 55);
  scopedsm_barrier();
  jia_config(ADWD, adwd());
}

}  // namespace
