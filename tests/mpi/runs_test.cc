// Fetch runs (SCOPEDSM_FETCH_PAGES, docs/PROTOCOL.md §2.5): a sequential
// reader's fault fetches the run of invalid pages after the faulting one
// that share its home, in one transfer; the run's last page is a tripwire
// whose touch says the run was used (longer runs follow) and whose untouched
// loss says it was wasted (shorter runs follow). Other faults fetch one page.
//
// Values are checked whichever path the pages take; the counters are checked
// where runs are possible (SCOPEDSM_FETCH_PAGES above 1 and a cache of more
// than a few pages).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

uint64_t setting(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  return v == nullptr ? dflt : std::strtoull(v, nullptr, 10);
}
// The longest run: SCOPEDSM_FETCH_PAGES, at most half the cache.
uint64_t longest_run() {
  return std::min(setting("SCOPEDSM_FETCH_PAGES", 16), setting("SCOPEDSM_CACHE_PAGES", 65536) / 2);
}
bool runs_possible() { return longest_run() > 1; }

constexpr size_t kPages = 256;

uint64_t* homed_at_zero(uint64_t salt) {
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic(kPages * page(), kPages * page(), 0));
  if (rank() == 0)
    for (size_t p = 0; p < kPages; ++p) a[p * page() / 8] = pattern(salt, p);
  scopedsm_barrier();
  return a;
}

TEST(Runs, SequentialReaderFetchesRunsThatGrowWhileUsed) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(1);
  const uint64_t fetches0 = counter("remote_fetches"), prefetched0 = counter("prefetched"),
                 used0 = counter("prefetch_used");
  if (rank() == 1) {
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(a[p * page() / 8], pattern(1, p)) << "page " << p;
    const uint64_t fetches = counter("remote_fetches") - fetches0, prefetched = counter("prefetched") - prefetched0,
                   used = counter("prefetch_used") - used0;
    if (runs_possible()) {
      EXPECT_EQ(fetches + prefetched, kPages);  // every page once
      // 256 pages in runs of 4, 8, 16, 16, ... (at most longest_run()): a
      // fault per run, a few more while the runs grow.
      EXPECT_LE(fetches, kPages / longest_run() + 8) << "prefetched " << prefetched;
      // Every run's tripwire was touched but perhaps the last one's.
      EXPECT_GE(used + longest_run(), prefetched);
    } else {
      EXPECT_EQ(prefetched, 0u);
    }
  }
  scopedsm_barrier();
}

TEST(Runs, BackwardReaderFetchesSinglePages) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(2);
  const uint64_t fetches0 = counter("remote_fetches"), prefetched0 = counter("prefetched");
  if (rank() == 1) {
    for (size_t p = kPages; p-- > 0;) ASSERT_EQ(a[p * page() / 8], pattern(2, p)) << "page " << p;
    EXPECT_EQ(counter("prefetched") - prefetched0, 0u);
    EXPECT_EQ(counter("remote_fetches") - fetches0, kPages);
  }
  scopedsm_barrier();
}

TEST(Runs, UntouchedRunsCountAsWastedAndPrefetchedPagesStayCoherent) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  uint64_t* a = homed_at_zero(3);
  const uint64_t wasted0 = counter("prefetch_wasted");
  // The reader reads two pages: the second fault fetches a run whose pages
  // it never touches.
  if (rank() == 1) {
    EXPECT_EQ(a[0], pattern(3, 0));
    EXPECT_EQ(a[page() / 8], pattern(3, 1));
  }
  scopedsm_barrier();
  // The home rewrites every page: the notices drop the run, tripwire untouched.
  if (rank() == 0)
    for (size_t p = 0; p < kPages; ++p) a[p * page() / 8] = pattern(4, p);
  scopedsm_barrier();
  if (rank() == 1) {
    if (runs_possible()) {
      EXPECT_GE(counter("prefetch_wasted") - wasted0, 1u);
    }
    // Prefetched pages were invalidated like any copy: no stale value.
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(a[p * page() / 8], pattern(4, p)) << "page " << p;
  }
  scopedsm_barrier();
}

}  // namespace
