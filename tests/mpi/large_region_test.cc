// A shared region of more pages than vm.max_map_count (65530) allows VMAs,
// touched everywhere: protection changes must stay within the kernel's limit.
#include <gtest/gtest.h>

#include <fstream>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(LargeRegion, MorePagesThanMapCountWithBlockHomes) {
  const size_t pages = 80000;  // > 65530
  const size_t bytes = pages * page();
  const size_t block = (pages + static_cast<size_t>(nprocs()) - 1) / static_cast<size_t>(nprocs()) * page();
  auto* a = static_cast<uint32_t*>(scopedsm_alloc_cyclic(bytes, block, 0));
  const size_t words = page() / sizeof(uint32_t);
  // Every rank writes one word of every page it is home to, and of every
  // third page elsewhere (cached copies, alternating protections).
  for (size_t p = 0; p < pages; ++p) {
    int home = scopedsm_home_of(a + p * words);
    if (home == rank() || p % 3 == static_cast<size_t>(rank()) % 3) a[p * words + static_cast<size_t>(rank())] = static_cast<uint32_t>(p);
  }
  scopedsm_barrier();
  for (size_t p = 0; p < pages; p += 7) {
    for (int r = 0; r < nprocs(); ++r) {
      int home = scopedsm_home_of(a + p * words);
      uint32_t want = (home == r || p % 3 == static_cast<size_t>(r) % 3) ? static_cast<uint32_t>(p) : 0;
      ASSERT_EQ(a[p * words + static_cast<size_t>(r)], want) << "page " << p << " rank " << r;
    }
  }
  scopedsm_barrier();
}

}  // namespace
