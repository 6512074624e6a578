// Where every allocation call of every surface puts its pages' homes: the
// table of docs/ALLOCATION.md, row by row. Runs under both home policies
// (SCOPEDSM_HOME_POLICY=first-touch in the mpi.first_touch tests, which leave
// out the JIAJIA explicit-placement calls: they are errors there).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "jia.h"
#include "scopedsm.hpp"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

bool first_touch_policy() {
  const char* v = std::getenv("SCOPEDSM_HOME_POLICY");
  return v != nullptr && std::strcmp(v, "first-touch") == 0;
}

// The home of page p of an allocation.
int home(const void* base, size_t p) { return scopedsm_home_of(static_cast<const char*>(base) + p * page()); }

// Page p is homed round-robin, one page per rank, from rank 0.
void expect_page_cyclic_from_0(const void* a, size_t pages, const char* call) {
  for (size_t p = 0; p < pages; ++p) EXPECT_EQ(home(a, p), static_cast<int>(p % nprocs())) << call << " page " << p;
}

// No page has a home until touched; rank r then touches page p if p % nprocs == r.
void expect_first_touch(char* a, size_t pages, const char* call) {
  for (size_t p = 0; p < pages; ++p) EXPECT_EQ(home(a, p), -1) << call << " page " << p << " before any touch";
  scopedsm_barrier();
  for (int turn = 0; turn < nprocs(); ++turn) {
    if (turn == rank())
      for (size_t p = static_cast<size_t>(rank()); p < pages; p += static_cast<size_t>(nprocs())) a[p * page()] = 1;
    scopedsm_barrier();
  }
  // A process learns a first-touch home when it accesses the page.
  for (size_t p = 0; p < pages; ++p) {
    EXPECT_EQ(a[p * page()], 1) << call << " page " << p;
    EXPECT_EQ(home(a, p), static_cast<int>(p % nprocs())) << call << " page " << p;
  }
}

TEST(Placement, DefaultCallsFollowThePolicy) {
  const size_t pages = 3 * static_cast<size_t>(nprocs()) + 1;
  // scopedsm_alloc: page-cyclic from rank 0, each allocation afresh (two
  // one-page allocations both land on rank 0) — or first touch.
  auto* a = static_cast<char*>(scopedsm_alloc(pages * page()));
  auto* one1 = static_cast<char*>(scopedsm_alloc(8));
  auto* one2 = static_cast<char*>(scopedsm_alloc(8));
  // alloc_array<T>(n) and alloc_one<T>() are scopedsm_alloc.
  auto* b = scopedsm::alloc_array<double>(pages * page() / sizeof(double));
  auto* c = scopedsm::alloc_one<long>();
  if (first_touch_policy()) {
    expect_first_touch(a, pages, "scopedsm_alloc");
    expect_first_touch(reinterpret_cast<char*>(b), pages, "alloc_array<double>(n)");
    expect_first_touch(reinterpret_cast<char*>(c), 1, "alloc_one<long>()");
  } else {
    expect_page_cyclic_from_0(a, pages, "scopedsm_alloc");
    EXPECT_EQ(home(one1, 0), 0);
    EXPECT_EQ(home(one2, 0), 0);
    expect_page_cyclic_from_0(b, pages, "alloc_array<double>(n)");
    EXPECT_EQ(home(c, 0), 0) << "alloc_one<long>()";
  }
  scopedsm_barrier();
}

TEST(Placement, JiajiaDefaultCallsFollowThePolicy) {
  const size_t pages = 2 * static_cast<size_t>(nprocs());
  const int bytes = static_cast<int>(pages * page());
  // jia_alloc: the whole allocation on one rank, the next call's on the next
  // rank; jia_alloc1: the whole allocation on rank 0 — or first touch.
  auto* a1 = reinterpret_cast<char*>(jia_alloc(bytes));
  auto* a2 = reinterpret_cast<char*>(jia_alloc(bytes));
  auto* d = reinterpret_cast<char*>(jia_alloc1(bytes));
  if (first_touch_policy()) {
    expect_first_touch(a1, pages, "jia_alloc");
    expect_first_touch(d, pages, "jia_alloc1");
  } else {
    const int h = home(a1, 0);
    for (size_t p = 0; p < pages; ++p) {
      EXPECT_EQ(home(a1, p), h) << "jia_alloc page " << p;
      EXPECT_EQ(home(a2, p), (h + 1) % nprocs()) << "second jia_alloc page " << p;
      EXPECT_EQ(home(d, p), 0) << "jia_alloc1 page " << p;
    }
  }
  scopedsm_barrier();
}

TEST(Placement, ExplicitCCallsIgnoreThePolicy) {
  const size_t pages = 2 * static_cast<size_t>(nprocs()) + 1;
  const int last = nprocs() - 1;
  // scopedsm_alloc_cyclic and alloc_array(n, Cyclic{...}): blocks dealt from start_rank.
  auto* a = static_cast<char*>(scopedsm_alloc_cyclic(pages * page(), 2 * page(), last));
  for (size_t p = 0; p < pages; ++p)
    EXPECT_EQ(home(a, p), static_cast<int>((p / 2 + static_cast<size_t>(last)) % nprocs())) << "page " << p;
  auto* b = scopedsm::alloc_array<char>(pages * page(), scopedsm::Cyclic{page(), last});
  for (size_t p = 0; p < pages; ++p)
    EXPECT_EQ(home(b, p), static_cast<int>((p + static_cast<size_t>(last)) % nprocs())) << "page " << p;
  // A block at least the size: everything on start_rank.
  auto* c = static_cast<char*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), last));
  for (size_t p = 0; p < pages; ++p) EXPECT_EQ(home(c, p), last) << "page " << p;
  // scopedsm_alloc_first_touch and alloc_array(n, FirstTouch{}).
  auto* d = static_cast<char*>(scopedsm_alloc_first_touch(pages * page()));
  expect_first_touch(d, pages, "scopedsm_alloc_first_touch");
  auto* e = scopedsm::alloc_array<char>(pages * page(), scopedsm::FirstTouch{});
  expect_first_touch(e, pages, "alloc_array(n, FirstTouch{})");
  // scopedsm_alloc_on, alloc_array(n, OnRank{r}), alloc_one<T>(OnRank{r}):
  // every page on one rank.
  auto* f = static_cast<char*>(scopedsm_alloc_on(pages * page(), last));
  auto* g = scopedsm::alloc_array<char>(pages * page(), scopedsm::OnRank{last});
  auto* h = scopedsm::alloc_one<long>(scopedsm::OnRank{last});
  for (size_t p = 0; p < pages; ++p) {
    EXPECT_EQ(home(f, p), last) << "scopedsm_alloc_on page " << p;
    EXPECT_EQ(home(g, p), last) << "alloc_array(n, OnRank{}) page " << p;
  }
  EXPECT_EQ(home(h, 0), last) << "alloc_one<long>(OnRank{})";
  // BlockCyclic names Cyclic.
  auto* k = scopedsm::alloc_array<char>(pages * page(), scopedsm::BlockCyclic{2 * page(), 0});
  for (size_t p = 0; p < pages; ++p)
    EXPECT_EQ(home(k, p), static_cast<int>((p / 2) % static_cast<size_t>(nprocs()))) << "BlockCyclic page " << p;
  scopedsm_barrier();
}

// Explicit placement through jia.h: kept under either policy.
TEST(Placement, JiajiaExplicitCalls) {
  const size_t pages = 2 * static_cast<size_t>(nprocs()) + 1;
  const int bytes = static_cast<int>(pages * page());
  const int last = nprocs() - 1;
  auto* a = reinterpret_cast<char*>(jia_alloc3(bytes, static_cast<int>(2 * page()), last));
  auto* b = reinterpret_cast<char*>(jia_alloc2(bytes, static_cast<int>(page())));
  auto* c = reinterpret_cast<char*>(jia_alloc2p(bytes, last));
  for (size_t p = 0; p < pages; ++p) {
    EXPECT_EQ(home(a, p), static_cast<int>((p / 2 + static_cast<size_t>(last)) % nprocs())) << "jia_alloc3 page " << p;
    EXPECT_EQ(home(b, p), static_cast<int>(p % nprocs())) << "jia_alloc2 page " << p;
    EXPECT_EQ(home(c, p), last) << "jia_alloc2p page " << p;
  }
  scopedsm_barrier();
}

}  // namespace
