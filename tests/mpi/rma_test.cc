// One-sided reads of pages homed on other nodes (SCOPEDSM_FETCH,
// protocol/page_source.h RmaSource). A one-sided copy is not recorded at
// the home the way a message or a node copy is, so two rules keep adaptive
// write detection right (memory/home_share.h):
//   - a reader uses a one-sided copy only if the home traps the page;
//     otherwise it fetches the page by message, which records the copy;
//   - a reader marks the page `seen` at the home before it reads, and a
//     home never untraps a page marked seen.
// Each test checks values, so each runs unchanged whichever path pages take
// (node sharing on, MPI libraries without independent progress). Where the
// one-sided path is in use they also check that it was taken, and tests/
// CMakeLists.txt runs them with each rule broken (they must fail then).
// SCOPEDSM_TEST_FAULT=slow-untrap makes the home untrap 50 ms late after a
// barrier, so a reader can copy the page in between.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

// Collective: every process asks the same.
bool same_node(int a, int b) {
  const int mine = static_cast<int>(counter("node"));
  std::vector<int> node(static_cast<size_t>(nprocs()));
  MPI_Allgather(&mine, 1, MPI_INT, node.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return node[static_cast<size_t>(a)] == node[static_cast<size_t>(b)];
}
// Collective. Pages homed at `home` are read one-sided by `reader` (windows
// exist, and the two are on different nodes: not so with
// SCOPEDSM_NODE_PROCS=2, where ranks 0 and 1 share one).
bool one_sided_between(int home, int reader) { return !same_node(home, reader) && counter("rma") != 0; }
// SCOPEDSM_WRITE_DETECT=all: homes trap every page from the start.
bool trap_all() {
  const char* v = std::getenv("SCOPEDSM_WRITE_DETECT");
  return v != nullptr && std::strcmp(v, "all") == 0;
}

TEST(OneSided, HomeNeverUntrapsAPageReadOneSided) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const int home = 0, reader = 1;
  const bool one_sided = one_sided_between(home, reader);
  if (!one_sided) std::printf("one-sided path not in use; the values are checked all the same\n");
  const int rounds = 4;
  auto* a = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(rounds * page(), rounds * page(), home));
  const uint64_t rma0 = counter("rma_fetches");
  for (int k = 0; k < rounds; ++k) {
    volatile uint64_t* v = a + k * page() / sizeof(uint64_t);
    if (rank() == home) *v = 1;  // untrapped: nobody holds a copy
    scopedsm_barrier();
    // The reader's copy makes the home trap the page again and notice it at
    // the next barrier it enters after the copy (the first or the second
    // below, depending on who gets there first), which drops the copy.
    // After that barrier the home would untrap the page (its copies are
    // gone), 50 ms late under slow-untrap; the reader reads again right
    // after each barrier, so it copies the page while the home still traps
    // it. That copy is one-sided and unrecorded: only the seen mark stops
    // the untrap.
    for (int b = 0; b < 3; ++b) {
      if (rank() == reader) {
        EXPECT_EQ(*v, 1u) << "round " << k;
      }
      scopedsm_barrier();
    }
    if (rank() == reader) {
      // Races with the home's write below: either value.
      const uint64_t now = *v;
      EXPECT_TRUE(now == 1 || now == 2) << "round " << k << ": " << now;
    }
    if (rank() == home) *v = 2;  // must be trapped, so noticed at the barrier
    scopedsm_barrier();
    if (rank() == reader) {
      EXPECT_EQ(*v, 2u) << "round " << k << ": a stale copy survived the home's write";
    }
    scopedsm_barrier();
  }
  if (rank() == reader && one_sided) {
    EXPECT_GE(counter("rma_fetches") - rma0, 1u);
  }
  scopedsm_barrier();
}

TEST(OneSided, UntrappedPagesAreFetchedTheRecordedWay) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const int home = 0, reader = 1;
  const bool one_sided = one_sided_between(home, reader);
  if (!one_sided) std::printf("one-sided path not in use; the values are checked all the same\n");
  const int pages = 4;
  auto* a = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), home));
  const uint64_t fallbacks0 = counter("rma_fallbacks");
  if (rank() == home)
    for (int k = 0; k < pages; ++k) a[k * page() / sizeof(uint64_t)] = 10 + static_cast<uint64_t>(k);
  scopedsm_barrier();
  // The home writes these pages untrapped: the reader's copies must be
  // recorded at the home, or its next writes would go unnoticed.
  if (rank() == reader) {
    for (int k = 0; k < pages; ++k) EXPECT_EQ(a[k * page() / sizeof(uint64_t)], 10u + static_cast<uint64_t>(k));
  }
  scopedsm_barrier();
  if (rank() == home)
    for (int k = 0; k < pages; ++k) a[k * page() / sizeof(uint64_t)] = 20 + static_cast<uint64_t>(k);
  scopedsm_barrier();
  if (rank() == reader) {
    for (int k = 0; k < pages; ++k)
      EXPECT_EQ(a[k * page() / sizeof(uint64_t)], 20u + static_cast<uint64_t>(k)) << "page " << k << " is stale";
  }
  if (rank() == reader && one_sided) {
    if (trap_all()) {
      EXPECT_EQ(counter("rma_fallbacks") - fallbacks0, 0u) << "every page is trapped: no fetch needs the message path";
    } else {
      EXPECT_GE(counter("rma_fallbacks") - fallbacks0, 1u);
    }
  }
  scopedsm_barrier();
}

}  // namespace
