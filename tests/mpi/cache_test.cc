// The remote-page cache under pressure. This suite also runs with
// SCOPEDSM_CACHE_PAGES=4, where almost every access evicts something,
// dirty pages included.
#include <gtest/gtest.h>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(Cache, WritesSurviveEvictionOfDirtyPages) {
  // Far more remote pages than the cache holds; every rank writes its own
  // word in every page, which dirties, evicts and re-fetches pages mid-interval.
  const size_t pages = 64;
  auto* a = static_cast<uint32_t*>(scopedsm_alloc(pages * page()));
  const size_t words = page() / sizeof(uint32_t);
  for (int pass = 0; pass < 2; ++pass)
    for (size_t p = 0; p < pages; ++p) a[p * words + static_cast<size_t>(rank())] += static_cast<uint32_t>(p + 1);
  // Re-read our own words before any synchronization: our own writes must
  // survive eviction and refetch.
  for (size_t p = 0; p < pages; ++p) ASSERT_EQ(a[p * words + static_cast<size_t>(rank())], 2 * (p + 1));
  scopedsm_barrier();
  for (size_t p = 0; p < pages; ++p)
    for (int r = 0; r < nprocs(); ++r) ASSERT_EQ(a[p * words + static_cast<size_t>(r)], 2 * (p + 1)) << "page " << p << " rank " << r;
  scopedsm_barrier();
}

TEST(Cache, WritesUnderLocksSurviveEviction) {
  const size_t pages = 32;
  auto* a = static_cast<int*>(scopedsm_alloc(pages * page()));
  const size_t ints = page() / sizeof(int);
  for (int k = 0; k < 3; ++k) {
    jia_lock(7);
    for (size_t p = 0; p < pages; ++p) a[p * ints] += 1;
    jia_unlock(7);
  }
  scopedsm_barrier();
  for (size_t p = 0; p < pages; ++p) ASSERT_EQ(a[p * ints], 3 * nprocs()) << p;
  scopedsm_barrier();
}

TEST(Cache, ReadOnlySweepsLargerThanTheCache) {
  const size_t pages = 96;
  auto* a = static_cast<uint64_t*>(scopedsm_alloc(pages * page()));
  const size_t n = pages * page() / sizeof(uint64_t);
  for (size_t i = static_cast<size_t>(rank()); i < n; i += static_cast<size_t>(nprocs())) a[i] = pattern(9, i);
  scopedsm_barrier();
  for (int sweep = 0; sweep < 2; ++sweep)
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], pattern(9, i)) << i;
  scopedsm_barrier();
}

}  // namespace
