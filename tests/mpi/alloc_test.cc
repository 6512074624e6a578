// Allocation: identical addresses everywhere, homes where the placement says.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

// Every rank must have received the same pointer.
void expect_same_everywhere(const void* p) {
  unsigned long long mine = reinterpret_cast<uintptr_t>(p), lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
}

TEST(Alloc, SameAddressOnEveryRankAndZeroFilled) {
  auto* a = static_cast<uint64_t*>(scopedsm_alloc(3 * page() + 5));
  expect_same_everywhere(a);
  EXPECT_TRUE(scopedsm_is_shared(a));
  for (size_t i = 0; i < 3 * page() / 8; ++i) ASSERT_EQ(a[i], 0u);
  scopedsm_barrier();
}

TEST(Alloc, CyclicBlocksPlaceHomes) {
  const size_t block = 2 * page();
  auto* a = static_cast<char*>(scopedsm_alloc_cyclic(8 * block, block, 1 % nprocs()));
  expect_same_everywhere(a);
  for (int b = 0; b < 8; ++b) {
    int want = (1 + b) % nprocs();
    EXPECT_EQ(scopedsm_home_of(a + b * block), want) << "block " << b;
    EXPECT_EQ(scopedsm_home_of(a + b * block + block - 1), want) << "block " << b;
  }
  scopedsm_barrier();
}

TEST(Alloc, BlocksRoundUpToPages) {
  auto* a = static_cast<char*>(scopedsm_alloc_cyclic(4 * page(), 100, 0));
  for (int p = 0; p < 4; ++p) EXPECT_EQ(scopedsm_home_of(a + p * page()), p % nprocs());
  scopedsm_barrier();
}

TEST(Alloc, JiajiaPlacementRules) {
  // jia_alloc2p: everything at one process.
  int proc = nprocs() - 1;
  auto* a = reinterpret_cast<char*>(jia_alloc2p(static_cast<int>(4 * page()), proc));
  for (int p = 0; p < 4; ++p) EXPECT_EQ(scopedsm_home_of(a + p * page()), proc);
  // jia_alloc3: cyclic blocks from starthost.
  auto* b = reinterpret_cast<char*>(jia_alloc3(static_cast<int>(6 * page()), static_cast<int>(page()), 0));
  for (int p = 0; p < 6; ++p) EXPECT_EQ(scopedsm_home_of(b + p * page()), p % nprocs());
  // jia_alloc: whole allocations, homes rotating call by call.
  auto* c1 = reinterpret_cast<char*>(jia_alloc(static_cast<int>(2 * page())));
  auto* c2 = reinterpret_cast<char*>(jia_alloc(static_cast<int>(2 * page())));
  int h1 = scopedsm_home_of(c1);
  EXPECT_EQ(scopedsm_home_of(c1 + page()), h1);
  EXPECT_EQ(scopedsm_home_of(c2), (h1 + 1) % nprocs());
  // jia_alloc1: all at process 0.
  auto* d = reinterpret_cast<char*>(jia_alloc1(static_cast<int>(3 * page())));
  for (int p = 0; p < 3; ++p) EXPECT_EQ(scopedsm_home_of(d + p * page()), 0);
  expect_same_everywhere(d);
  scopedsm_barrier();
}

TEST(Alloc, FirstTouchHomesAtTheFirstToucher) {
  const int pages = 4 * nprocs();
  auto* a = static_cast<char*>(scopedsm_alloc_first_touch(pages * page()));
  // Each rank first-touches its own pages, in turn, so there is no race for a page.
  for (int turn = 0; turn < nprocs(); ++turn) {
    if (turn == rank())
      for (int p = rank(); p < pages; p += nprocs()) a[p * page()] = static_cast<char>(rank() + 1);
    scopedsm_barrier();
  }
  for (int p = 0; p < pages; ++p) {
    EXPECT_EQ(a[p * page()], static_cast<char>(p % nprocs() + 1)) << "page " << p;
    EXPECT_EQ(scopedsm_home_of(a + p * page()), p % nprocs()) << "page " << p;
  }
  scopedsm_barrier();
}

TEST(Alloc, TypedCppAllocation) {
  struct Pair {
    int a;
    double b;
  };
  // scopedsm.hpp's alloc_array is a header template over scopedsm_alloc.
  auto* p = static_cast<Pair*>(scopedsm_alloc(100 * sizeof(Pair)));
  if (rank() == 0) p[99] = Pair{7, 2.5};
  scopedsm_barrier();
  EXPECT_EQ(p[99].a, 7);
  EXPECT_EQ(p[99].b, 2.5);
  scopedsm_barrier();
}

}  // namespace
