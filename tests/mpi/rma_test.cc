// One-sided reads of pages homed on other nodes (SCOPEDSM_FETCH,
// protocol/page_source.h RmaSource). A one-sided copy is not recorded at
// the home the way a message or a node copy is, so two rules keep adaptive
// write detection right (memory/home_share.h):
//   - a copy of a page the home did not trap is unrecorded: the reader
//     drops it at its next acquire (lock, barrier, condition variable,
//     acquiring atomic), and asks the home to trap the page again (RECORD,
//     never waited for);
//   - a reader marks the page `seen` at the home before it reads, and a
//     home never untraps a page marked seen.
// So no one-sided read waits for the home's CPU, cold or not.
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

#include "api/test_hooks.h"
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

TEST(OneSided, UntrappedCopiesAreDroppedAtTheNextBarrier) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const int home = 0, reader = 1;
  const bool one_sided = one_sided_between(home, reader);
  if (!one_sided) std::printf("one-sided path not in use; the values are checked all the same\n");
  const int pages = 4;
  auto* a = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), home));
  const uint64_t unrecorded0 = counter("rma_unrecorded"), getp0 = counter("msgs_sent_GETP");
  if (rank() == home)
    for (int k = 0; k < pages; ++k) a[k * page() / sizeof(uint64_t)] = 10 + static_cast<uint64_t>(k);
  scopedsm_barrier();
  // The home writes these pages untrapped, and nobody records the reader's
  // one-sided copies at once: the reader must drop them at the barrier.
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
    EXPECT_EQ(counter("msgs_sent_GETP"), getp0) << "every read is one-sided, untrapped pages too";
    if (trap_all()) {
      EXPECT_EQ(counter("rma_unrecorded") - unrecorded0, 0u) << "every page is trapped: every copy is recorded";
    } else {
      EXPECT_GE(counter("rma_unrecorded") - unrecorded0, 1u);
    }
  }
  scopedsm_barrier();
}

// The first read of a page nobody has copied (its home writes it untrapped)
// needs nothing of the home's CPU: the home serves nothing while the reader
// reads. The read used to fall back to GETP, which waited for the home here.
TEST(OneSided, AColdReadNeedsNoHomeCPU) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const int home = 0, reader = 1;
  const bool one_sided = one_sided_between(home, reader);
  if (!one_sided) std::printf("one-sided path not in use; the values are checked all the same\n");
  const int pages = 8;
  auto* a = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), home));
  if (rank() == home)
    for (int k = 0; k < pages; ++k) a[k * page() / sizeof(uint64_t)] = 30 + static_cast<uint64_t>(k);
  scopedsm_barrier();
  constexpr int kTag = 4721;
  int token = 0;
  const uint64_t unrecorded0 = counter("rma_unrecorded");
  if (rank() == home && one_sided) {
    scopedsm_test_hold_requests(1);
    MPI_Send(&token, 1, MPI_INT, reader, kTag, MPI_COMM_WORLD);  // held
    MPI_Recv(&token, 1, MPI_INT, reader, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    scopedsm_test_hold_requests(0);
  } else if (rank() == reader) {
    if (one_sided) MPI_Recv(&token, 1, MPI_INT, home, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < pages; ++k) EXPECT_EQ(a[k * page() / sizeof(uint64_t)], 30u + static_cast<uint64_t>(k));
    if (one_sided) {
      MPI_Send(&token, 1, MPI_INT, home, kTag, MPI_COMM_WORLD);  // read, all of them
      if (!trap_all()) {
        EXPECT_EQ(counter("rma_unrecorded") - unrecorded0, static_cast<uint64_t>(pages));
      }
    }
  }
  scopedsm_barrier();
}

// A lock acquire drops an unrecorded copy too: the home writes the page
// untrapped inside a lock section (no notice), and the reader, acquiring
// the lock after it, must see the write. The home serves nothing until its
// section is over, so the reader's RECORD cannot make it trap the page
// first: only the reader's own drop at the acquire helps (control
// keep-unrecorded).
TEST(OneSided, AnUnrecordedCopyIsDroppedAtALockAcquire) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and a reader";
  const int home = 0, reader = 1;
  const int lock = 1;  // homed at the reader (lock % processes), not at the held home
  const bool one_sided = one_sided_between(home, reader);
  if (!one_sided) std::printf("one-sided path not in use; the values are checked all the same\n");
  auto* a = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(2 * page(), 2 * page(), home));
  volatile uint64_t* v = a;
  volatile uint64_t* flag = a + page() / sizeof(uint64_t);
  if (rank() == home) *v = 1;
  scopedsm_barrier();
  constexpr int kTag = 4722;
  int token = 0;
  if (rank() == home) {
    if (one_sided) scopedsm_test_hold_requests(1);
    MPI_Send(&token, 1, MPI_INT, reader, kTag, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, reader, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // the reader has its copy
    scopedsm_lock(lock);
    *v = 2;
    *flag = 1;
    scopedsm_unlock(lock);
    if (one_sided) scopedsm_test_hold_requests(0);
    MPI_Send(&token, 1, MPI_INT, reader, kTag, MPI_COMM_WORLD);
  } else if (rank() == reader) {
    MPI_Recv(&token, 1, MPI_INT, home, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_EQ(*v, 1u);
    MPI_Send(&token, 1, MPI_INT, home, kTag, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, home, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // its section is over
    scopedsm_lock(lock);
    EXPECT_EQ(*flag, 1u);
    EXPECT_EQ(*v, 2u) << "a copy read while the home did not trap the page survived the lock acquire";
    scopedsm_unlock(lock);
  }
  scopedsm_barrier();
}

}  // namespace
