// The coherence unit (SCOPEDSM_UNIT_PAGES): the protocol's page is k OS
// pages. These hold at every k; ctest runs them at k = 1, 2, 4 and 8
// (mpi.unit.*), and with only a unit's first OS page twinned and diffed
// (mpi.broken.unit-first-page-only) the merge test must fail.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

size_t os_page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

size_t unit_pages() {
  const char* v = std::getenv("SCOPEDSM_UNIT_PAGES");
  return v == nullptr ? 1 : std::strtoul(v, nullptr, 10);
}

TEST(Unit, PageSizeIsTheUnitAndAllocationsHomesAndFaultsFollowIt) {
  ASSERT_EQ(page(), unit_pages() * os_page());
  // Allocations start on unit boundaries and take whole units.
  auto* a = static_cast<char*>(scopedsm_alloc(1));
  auto* b = static_cast<char*>(scopedsm_alloc_cyclic(2 * page(), os_page(), 0));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % page(), 0u);
  EXPECT_EQ(b, a + page());
  // A block of one OS page rounds up to one unit: a unit has one home.
  for (size_t u = 0; u < 2; ++u)
    for (size_t off = 0; off < page(); off += os_page())
      EXPECT_EQ(scopedsm_home_of(b + u * page() + off), static_cast<int>(u) % nprocs()) << u << " " << off;
  if (nprocs() < 2) return;
  // The home writes every OS page of its unit; another process's one read
  // fault then brings the whole unit.
  if (rank() == 1) std::memset(b + page(), 0x5a, page());
  scopedsm_barrier();
  if (rank() == 0) {
    const uint64_t before = counter("read_faults");
    for (size_t off = 0; off < page(); off += os_page()) ASSERT_EQ(b[page() + off], 0x5a) << off;
    ASSERT_EQ(b[2 * page() - 1], 0x5a);
    EXPECT_EQ(counter("read_faults") - before, 1u);
  }
  scopedsm_barrier();
}

TEST(Unit, ConcurrentWritersOfDifferentOsPagesOfOneUnitAllSurvive) {
  // One unit homed at rank 0, split into nprocs slices: rank r writes slice
  // r. At k = 2 with two processes the home writes the first 4 KiB and rank
  // 1, through its twin and diff, the second 4 KiB, in the same interval.
  const size_t n = page() / sizeof(uint64_t);
  auto* w = static_cast<uint64_t*>(scopedsm_alloc_on(page(), 0));
  const size_t slice = (n + static_cast<size_t>(nprocs()) - 1) / static_cast<size_t>(nprocs());
  const auto owner = [&](size_t i) { return i / slice; };
  for (uint64_t round = 1; round <= 4; ++round) {
    volatile uint64_t sink = w[0];  // every process holds a copy before it writes
    (void)sink;
    scopedsm_barrier();
    for (size_t i = 0; i < n; ++i)
      if (owner(i) == static_cast<size_t>(rank())) w[i] = pattern(owner(i), i * round);
    scopedsm_barrier();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], pattern(owner(i), i * round)) << "word " << i << " round " << round;
    scopedsm_barrier();
  }
}

}  // namespace
