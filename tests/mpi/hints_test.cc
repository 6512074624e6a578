// Prefetch and release hints (docs/PROTOCOL.md §2.6): non-binding, never a
// fault or a changed value; the filtering layer answers redundant hints
// from the page table alone, a block prefetch costs one request per run of
// one home, and releases pass the lag-by-one filter, then go at once
// (SCOPEDSM_RELEASE_POLICY=aggressive) or wait in a priority-ordered buffer
// until a slot is needed (buffered).
//
// Values are checked in every configuration; counters where the cache has
// room for what the test fetches (the tiny-cache runs drop hints instead).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include "jia.h"
#include "scopedsm.hpp"
#include "api/test_hooks.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

uint64_t cache_pages() {
  const char* v = std::getenv("SCOPEDSM_CACHE_PAGES");
  return v == nullptr ? 65536 : std::strtoull(v, nullptr, 10);
}
bool auto_hints() {
  const char* v = std::getenv("SCOPEDSM_AUTO_HINTS");
  return v != nullptr && std::strcmp(v, "on") == 0;
}
bool aggressive() {
  const char* v = std::getenv("SCOPEDSM_RELEASE_POLICY");
  return v != nullptr && std::strcmp(v, "aggressive") == 0;
}

constexpr size_t kPages = 48;

// kPages pages homed at rank 0, page p holding pattern(salt, p) in its first word.
uint64_t* homed_at_zero(uint64_t salt, size_t pages = kPages) {
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), 0));
  if (rank() == 0)
    for (size_t p = 0; p < pages; ++p) a[p * page() / 8] = pattern(salt, p);
  scopedsm_barrier();
  return a;
}

uint64_t at(const uint64_t* a, size_t p) { return a[p * page() / 8]; }

TEST(Hints, ABlockPrefetchIsOneRequestAndARepeatIsFilteredWithoutOne) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(21);
  if (rank() == 1) {
    const bool room = cache_pages() >= 2 * kPages;
    const uint64_t req0 = counter("hint_prefetch_requests"), got0 = counter("hint_prefetch_fetched");
    scopedsm_prefetch(a, kPages * page());
    if (room) {
      EXPECT_EQ(counter("hint_prefetch_requests") - req0, 1u);  // 48 pages of one home: one run
      EXPECT_EQ(counter("hint_prefetch_fetched") - got0, kPages);
    }
    // Every page valid now: the same hint again is filtered, no request.
    const uint64_t req1 = counter("hint_prefetch_requests"), filt1 = counter("hint_prefetch_filtered"),
                   msgs1 = counter("remote_fetches");
    scopedsm_prefetch(a, kPages * page());
    EXPECT_EQ(counter("hint_prefetch_requests"), req1);
    if (room) {
      EXPECT_EQ(counter("hint_prefetch_filtered") - filt1, kPages);
      EXPECT_EQ(counter("remote_fetches"), msgs1);
    }
    // The data are there: one fault (the run's tripwire) for all 48 pages.
    const uint64_t faults0 = counter("read_faults"), useful0 = counter("hint_prefetch_useful");
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(at(a, p), pattern(21, p)) << "page " << p;
    if (room) {
      EXPECT_EQ(counter("read_faults") - faults0, 1u);
      EXPECT_EQ(counter("hint_prefetch_useful") - useful0, kPages);
    }
  }
  if (rank() == 0) {
    // Own home pages (memory backing): filtered, no system call, no request.
    const uint64_t req0 = counter("hint_prefetch_requests");
    scopedsm_prefetch(a, kPages * page());
    EXPECT_EQ(counter("hint_prefetch_requests"), req0);
  }
  scopedsm_barrier();
}

TEST(Hints, AHintAfterTheFaultIsLate) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(22, 4);
  if (rank() == 1) {
    const uint64_t late0 = counter("hint_prefetch_late");
    ASSERT_EQ(at(a, 2), pattern(22, 2));  // a demand fault first
    scopedsm_prefetch(a + 2 * page() / 8, 8);
    EXPECT_EQ(counter("hint_prefetch_late") - late0, 1u);
    scopedsm_prefetch(a + 2 * page() / 8, 8);  // counted once
    EXPECT_EQ(counter("hint_prefetch_late") - late0, 1u);
  }
  scopedsm_barrier();
}

TEST(Hints, HintsNeverFaultOnAnyAddress) {
  const size_t bytes = 4 * page();
  auto* a = static_cast<char*>(scopedsm_alloc(bytes));
  auto value = [](size_t i) { return static_cast<char>(i * 7 + 1); };
  if (rank() == 0)
    for (size_t i = 0; i < bytes; ++i) a[i] = value(i);
  scopedsm_barrier();
  char local[64];
  for (size_t i = 0; i < sizeof local; ++i) local[i] = static_cast<char>(i);
  const uint64_t faults0 = counter("read_faults") + counter("write_faults");
  scopedsm_prefetch(nullptr, 100);
  scopedsm_prefetch(local, sizeof local);
  scopedsm_prefetch(a, SIZE_MAX);                 // runs past every allocation
  scopedsm_prefetch(a + 4 * page(), 16 * page());  // not allocated
  scopedsm_release(nullptr, SIZE_MAX, 0);
  scopedsm_release(local, sizeof local, 7);
  scopedsm_release(a + 1, page(), 0);  // no whole page inside
  scopedsm_release(a + 1, page(), 0);
  scopedsm_release(a, SIZE_MAX, -5);
  scopedsm_release(a, SIZE_MAX, -5);
  EXPECT_EQ(counter("read_faults") + counter("write_faults"), faults0) << "a hint faulted";
  for (size_t i = 0; i < sizeof local; ++i) ASSERT_EQ(local[i], static_cast<char>(i)) << "a hint wrote private memory";
  scopedsm_barrier();
  // Read back by the writer only: a copy cached here would change the next
  // tests' release counts.
  if (rank() == 0) {
    for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(a[i], value(i)) << "byte " << i << " changed by a hint";
  }
  scopedsm_barrier();
}

TEST(Hints, ReleasesLagOneCallPerSiteThenGiveBackLowestPriorityFirst) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(23);
  // A page homed elsewhere between a and b, so that no fault's run reaches from a into b.
  scopedsm_alloc_cyclic(page(), page(), 1);
  uint64_t* b = homed_at_zero(24, 32);
  if (rank() == 1) {
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(at(a, p), pattern(23, p));  // 48 pages cached
    const uint64_t rel0 = counter("pages_released");
    const size_t half = kPages / 2;
    scopedsm_release_tagged(a, half * page(), 1, 101);
    scopedsm_release_tagged(a + half * page() / 8, half * page(), 0, 102);
    EXPECT_EQ(counter("pages_released"), rel0);  // both held by the lag
    // Each site releases again (b is not cached: filtered): the held ranges go on.
    scopedsm_release_tagged(b, page(), 0, 101);
    scopedsm_release_tagged(b, page(), 0, 102);
    if (aggressive()) {
      EXPECT_EQ(counter("pages_released") - rel0, kPages);
    } else if (cache_pages() == 64) {
      EXPECT_EQ(counter("pages_released"), rel0);  // buffered: room is not needed yet
      // 32 pages of b need 16 slots beyond the 16 free: the 16 oldest of
      // priority 0 (a's second half) go, a's first half (priority 1) stays.
      scopedsm_prefetch(b, 32 * page());
      EXPECT_EQ(counter("pages_released") - rel0, 16u);
      const uint64_t faults0 = counter("read_faults");
      for (size_t p = 0; p < half; ++p) ASSERT_EQ(at(a, p), pattern(23, p));
      EXPECT_EQ(counter("read_faults"), faults0) << "priority 1 pages were given back";
      EXPECT_EQ(at(a, half), pattern(23, half));
      EXPECT_EQ(counter("read_faults") - faults0, 1u) << "the oldest priority 0 page stayed";
    }
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(at(a, p), pattern(23, p)) << "page " << p;
    for (size_t p = 0; p < 32; ++p) ASSERT_EQ(at(b, p), pattern(24, p)) << "page " << p;
  }
  scopedsm_barrier();
}

TEST(Hints, AReleasedWrittenCopySendsItsWritesHome) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a writer";
  uint64_t* a = homed_at_zero(25, 8);
  if (rank() == 1) {
    const uint64_t flushed0 = counter("release_flushed");
    for (size_t p = 0; p < 8; ++p) a[p * page() / 8] = pattern(26, p);
    scopedsm_release_tagged(a, 8 * page(), 0, 201);
    scopedsm_release_tagged(a, 8 * page(), 0, 201);  // the first passes the lag
    if (aggressive()) {
      EXPECT_EQ(counter("release_flushed") - flushed0, 8u);
    }
    for (size_t p = 0; p < 8; ++p) ASSERT_EQ(at(a, p), pattern(26, p)) << "own writes lost, page " << p;
  }
  scopedsm_barrier();
  for (size_t p = 0; p < 8; ++p) ASSERT_EQ(at(a, p), pattern(26, p)) << "page " << p;
  scopedsm_barrier();
}

TEST(Hints, CxxAndJiajiaNamesAreTheSameHintsWithCallSitesAsTags) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(28, 16);
  if (rank() == 1) {
    const size_t four = 4 * page();
    const uint64_t req0 = counter("hint_prefetch_requests"), filt0 = counter("hint_prefetch_filtered");
    scopedsm::prefetch(a, 8 * page());
    jia_prefetch(a, static_cast<int>(8 * page()));  // all valid now
    if (cache_pages() >= 64) {
      EXPECT_EQ(counter("hint_prefetch_requests") - req0, 1u);
      EXPECT_EQ(counter("hint_prefetch_filtered") - filt0, 8u);
    }
    for (size_t p = 0; p < 16; ++p) ASSERT_EQ(at(a, p), pattern(28, p));
    const uint64_t rel0 = counter("pages_released");
    // Two call sites: each holds its range.
    scopedsm::release(a, four, 0);
    scopedsm::release(a + four / 8, four, 0);
    EXPECT_EQ(counter("pages_released"), rel0);
    // One site twice: the second call passes the first call's four pages on.
    for (size_t i = 0; i < 2; ++i) scopedsm::release(a + (2 + i) * four / 8, four, 0);
    if (aggressive()) {
      EXPECT_EQ(counter("pages_released") - rel0, 4u);
    }
    for (size_t i = 0; i < 2; ++i) jia_release(a + i * four / 8, static_cast<int>(four), 0);
    if (aggressive()) {
      EXPECT_EQ(counter("pages_released") - rel0, 8u);
    }
    for (size_t p = 0; p < 16; ++p) ASSERT_EQ(at(a, p), pattern(28, p)) << "page " << p;
  }
  scopedsm_barrier();
}

TEST(Hints, OutOfCoreHomePagesAreGivenBackByPolicyAndLimit) {
  // Every process the home of 64 pages, written in full.
  const size_t n = 64;
  auto* space = static_cast<uint64_t*>(scopedsm_alloc_cyclic(n * page() * nprocs(), n * page(), 0));
  uint64_t* mine = space + rank() * n * page() / 8;
  for (size_t p = 0; p < n; ++p) mine[p * page() / 8] = pattern(27 + rank(), p);
  const char* backing = std::getenv("SCOPEDSM_HOME_BACKING");
  const char* limit = std::getenv("SCOPEDSM_HOME_MEMORY");
  const bool file = backing != nullptr && std::strncmp(backing, "file:", 5) == 0;
  const bool limited = limit != nullptr && std::strcmp(limit, "0") != 0;  // set far below what the test holds
  const uint64_t rel0 = counter("pages_released"), filt0 = counter("hint_release_filtered");
  scopedsm_release_tagged(mine, n * page(), 0, 301);
  scopedsm_release_tagged(mine, page(), 0, 301);  // the first range passes the lag
  if (!file) {
    EXPECT_EQ(counter("hint_release_filtered") - filt0, n);  // home memory in a memfd: nothing to give back
  } else if (aggressive() || limited) {
    EXPECT_EQ(counter("pages_released") - rel0, n);
  } else {
    EXPECT_EQ(counter("pages_released"), rel0);  // buffered, and no limit to keep under
  }
  // Given back or not, the contents are the file's: read them again, ahead.
  const uint64_t pre0 = counter("hint_prefetch_filtered") + counter("hint_prefetch_read_ahead");
  scopedsm_prefetch(mine, n * page());
  EXPECT_EQ(counter("hint_prefetch_filtered") + counter("hint_prefetch_read_ahead") - pre0, n);
  for (size_t p = 0; p < n; ++p) ASSERT_EQ(mine[p * page() / 8], pattern(27 + rank(), p)) << "page " << p;
  scopedsm_barrier();
  const int next = (rank() + 1) % nprocs();
  const uint64_t* theirs = space + next * n * page() / 8;
  for (size_t p = 0; p < n; ++p) ASSERT_EQ(theirs[p * page() / 8], pattern(27 + next, p)) << "page " << p;
  scopedsm_barrier();
}

// Automatic hints (SCOPEDSM_AUTO_HINTS=on): a sequential sweep over pages
// homed elsewhere, four times the cache, twice over. The values are checked
// in every configuration; with automatic hints on, the counters show a
// stream found, pages prefetched ahead of the sweep and used, and pages
// released behind it (mpi.auto_hints.np2 runs it with a 16-page cache).
TEST(AutoHints, ASequentialSweepLargerThanTheCacheIsPrefetchedAheadAndReleasedBehind) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const size_t n = 64;
  uint64_t* a = homed_at_zero(31, n);
  if (rank() == 1) {
    const uint64_t streams0 = counter("auto_streams"), fetched0 = counter("auto_prefetches"),
                   used0 = counter("auto_prefetch_used"), released0 = counter("auto_releases"),
                   faults0 = counter("read_faults");
    for (int sweep = 0; sweep < 2; ++sweep)
      for (size_t p = 0; p < n; ++p) ASSERT_EQ(at(a, p), pattern(31, p)) << "sweep " << sweep << " page " << p;
    if (auto_hints()) {
      EXPECT_GE(counter("auto_streams") - streams0, 1u);
      EXPECT_GT(counter("auto_prefetches") - fetched0, n / 2);
      EXPECT_GT(counter("auto_prefetch_used") - used0, n / 2);
      EXPECT_GT(counter("auto_releases") - released0, 0u);
      // Prefetched pages are read without a fault, but for each run's last.
      EXPECT_LT(counter("read_faults") - faults0, n);
    } else {
      EXPECT_EQ(counter("auto_prefetches"), fetched0);
    }
  }
  scopedsm_barrier();
}

// Explicit and automatic hints at once: the program's hints take precedence
// in the ranges they name. A sweep over pages homed elsewhere, four times
// the cache, prefetches each 4-page chunk one chunk ahead and releases the
// one behind; the faults it still takes (each run's last page, its
// tripwire, every fourth page) are in named ranges, so the engine finds no
// stream in them and fetches nothing of its own (mpi.auto_hints.np2; the
// control mpi.broken.auto-over-hints lets it, and must fail).
TEST(AutoHints, TheProgramsHintsTakePrecedenceInTheRangesTheyName) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const size_t n = 64, chunk = 4;
  uint64_t* a = homed_at_zero(37, n);
  if (rank() == 1) {
    const uint64_t fetched0 = counter("auto_prefetches"), deferred0 = counter("auto_deferred"),
                   hinted0 = counter("hint_prefetch_fetched");
    scopedsm_prefetch(a, chunk * page());
    for (size_t p = 0; p < n; ++p) {
      if (p % chunk == 0) {
        if (p + chunk < n) scopedsm_prefetch(reinterpret_cast<char*>(a) + (p + chunk) * page(), chunk * page());
        if (p >= chunk) scopedsm_release(reinterpret_cast<char*>(a) + (p - chunk) * page(), chunk * page(), 0);
      }
      ASSERT_EQ(at(a, p), pattern(37, p)) << "page " << p;
    }
    if (auto_hints()) {
      EXPECT_GT(counter("hint_prefetch_fetched") - hinted0, n / 2);
      EXPECT_GT(counter("auto_deferred") - deferred0, 0u);
      EXPECT_EQ(counter("auto_prefetches") - fetched0, 0u) << "automatic hints fetched inside the program's ranges";
    }
  }
  scopedsm_barrier();
}

// ... but only where they took effect: a hint whose pages were dropped for
// want of room names nothing, so the faults in its range stay the engine's
// (deferring to it would leave each of them a one-page fetch). The cache
// is filled with hinted pages first (hints never evict unreleased pages),
// so the next hint is dropped whole.
TEST(AutoHints, AHintDroppedForWantOfRoomLeavesItsRangeToTheEngine) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const size_t cache = cache_pages();
  const bool small = auto_hints() && cache <= 64;
  const size_t fill = small ? 2 * cache : 8, n = 8;
  uint64_t* b = homed_at_zero(43, fill);
  uint64_t* a = homed_at_zero(47, n);
  if (rank() == 1) {
    scopedsm_prefetch(b, fill * page());  // takes every free and released slot
    const uint64_t dropped0 = counter("hint_prefetch_dropped"), deferred0 = counter("auto_deferred");
    scopedsm_prefetch(a, n * page());
    for (size_t p = 0; p < n; ++p) ASSERT_EQ(at(a, p), pattern(47, p)) << "page " << p;
    if (small) {
      EXPECT_EQ(counter("hint_prefetch_dropped") - dropped0, n);
      EXPECT_EQ(counter("auto_deferred") - deferred0, 0u) << "faults deferred to a hint that was dropped";
    }
    for (size_t p = 0; p < fill; ++p) ASSERT_EQ(at(b, p), pattern(43, p)) << "page " << p;
  }
  scopedsm_barrier();
}

// A prefetch never waits for the home (docs/PROTOCOL.md §2.6). Rank 0
// serves nothing while rank 1 hints 48 of its pages, and lets go only once
// the hint has returned: a hint that waited for its answer would wait for
// ever (the negative control, SCOPEDSM_PREFETCH=sync, does, until SCOPEDSM_TIMEOUT
// ends the job). From another node each hint's run is left in flight and
// its first touch finishes it: one fault per run, whether the touch came
// before the answer (the first run, touched at once) or after it (the
// second, touched a while later). From a node peer's memory the copy waits
// for nobody anyway.
TEST(Hints, APrefetchNeverWaitsForTheHome) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(24);
  constexpr int kTag = 4711;
  int token = 0;
  if (rank() == 0) {
    scopedsm_test_hold_requests(1);
    MPI_Send(&token, 1, MPI_INT, 1, kTag, MPI_COMM_WORLD);  // held
    MPI_Recv(&token, 1, MPI_INT, 1, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    scopedsm_test_hold_requests(0);
  } else if (rank() == 1) {
    MPI_Recv(&token, 1, MPI_INT, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const uint64_t async0 = counter("prefetch_async"), node0 = counter("node_fetches"),
                   faults0 = counter("read_faults"), useful0 = counter("hint_prefetch_useful");
    const size_t half = kPages / 2;
    scopedsm_prefetch(a, half * page());
    scopedsm_prefetch(a + half * page() / 8, half * page());
    const uint64_t async = counter("prefetch_async") - async0;
    const bool node_copy = counter("node_fetches") > node0;
    MPI_Send(&token, 1, MPI_INT, 0, kTag, MPI_COMM_WORLD);  // the hints returned
    for (size_t p = 0; p < half; ++p) ASSERT_EQ(at(a, p), pattern(24, p)) << "page " << p;
    usleep(20000);  // the second run's answer has most likely come by now
    for (size_t p = half; p < kPages; ++p) ASSERT_EQ(at(a, p), pattern(24, p)) << "page " << p;
    if (cache_pages() >= 2 * kPages) {
      EXPECT_EQ(async, node_copy ? 0u : 2u);  // two runs of 24 pages, left in flight
      EXPECT_EQ(counter("read_faults") - faults0, 2u);
      EXPECT_EQ(counter("hint_prefetch_useful") - useful0, kPages);
    }
  }
  scopedsm_barrier();
}

// A run still in flight at a synchronization point is finished there, and
// is then an ordinary prefetched run, which write notices invalidate (a run
// left in flight would end the job with an internal error there).
TEST(Hints, ARunInFlightIsFinishedAtTheNextSynchronization) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(25, 8);
  if (rank() == 1) scopedsm_prefetch(a, 8 * page());
  const uint64_t waits0 = counter("prefetch_waits");
  scopedsm_barrier();
  if (rank() == 0) a[3 * page() / 8] = 77;
  scopedsm_barrier();
  if (rank() == 1) {
    for (size_t p = 0; p < 8; ++p) ASSERT_EQ(at(a, p), p == 3 ? 77u : pattern(25, p)) << "page " << p;
    EXPECT_EQ(counter("prefetch_waits"), waits0);  // the barrier finished the run: no touch waited
  }
  scopedsm_barrier();
}

// Nor does a one-sided hint wait for the home's acknowledgement of our
// DIFFs, which a one-sided read must (it is not ordered after our messages
// as a GETP is): with a written copy released at once (aggressive policy)
// and the home serving nothing, the run is dropped rather than waited for.
// By message or from the node's memory nothing waits anyway.
TEST(Hints, AOneSidedRunBehindUnacknowledgedDiffsIsDropped) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a writer";
  if (!aggressive()) GTEST_SKIP() << "needs releases given back at once";
  uint64_t* a = homed_at_zero(27, 16);
  constexpr int kTag = 4712;
  int token = 0;
  if (rank() == 0) {
    MPI_Recv(&token, 1, MPI_INT, 1, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // written
    scopedsm_test_hold_requests(1);
    MPI_Send(&token, 1, MPI_INT, 1, kTag, MPI_COMM_WORLD);  // held
    MPI_Recv(&token, 1, MPI_INT, 1, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    scopedsm_test_hold_requests(0);
  } else if (rank() == 1) {
    a[0] = 5;  // a written copy of page 0
    MPI_Send(&token, 1, MPI_INT, 0, kTag, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    scopedsm_release_tagged(a, page(), 0, 301);
    scopedsm_release_tagged(a, page(), 0, 301);  // passes the lag: its DIFF goes home, unacknowledged
    const uint64_t dropped0 = counter("hint_prefetch_dropped"), rma0 = counter("rma_fetches");
    scopedsm_prefetch(a + 8 * page() / 8, 8 * page());
    const uint64_t dropped = counter("hint_prefetch_dropped") - dropped0;
    MPI_Send(&token, 1, MPI_INT, 0, kTag, MPI_COMM_WORLD);  // the hint returned
    for (size_t p = 8; p < 16; ++p) ASSERT_EQ(at(a, p), pattern(27, p)) << "page " << p;
    if (counter("rma_fetches") > rma0) {
      EXPECT_EQ(dropped, 8u);  // pages of that home travel one-sided here
    }
    EXPECT_EQ(a[0], 5u);
  }
  scopedsm_barrier();
  ASSERT_EQ(a[0], 5u);
  scopedsm_barrier();
}

}  // namespace
