// Scope consistency: what each synchronization makes visible.
#include <gtest/gtest.h>

#include <vector>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(Visibility, WritesBeforeABarrierAreSeenByAllAfterIt) {
  const size_t n = 4 * page() / sizeof(uint64_t) * static_cast<size_t>(nprocs());
  auto* a = static_cast<uint64_t*>(scopedsm_alloc(n * sizeof(uint64_t)));
  for (int round = 0; round < 5; ++round) {
    // Each rank writes a different interleaved slice every round.
    int writer_shift = round % nprocs();
    for (size_t i = static_cast<size_t>((rank() + writer_shift) % nprocs()); i < n; i += static_cast<size_t>(nprocs()))
      a[i] = pattern(static_cast<uint64_t>(round), i);
    scopedsm_barrier();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], pattern(static_cast<uint64_t>(round), i)) << "round " << round << " i " << i;
    scopedsm_barrier();
  }
}

TEST(Visibility, UnlockThenLockPassesWritesAlong) {
  // A token passes from rank to rank under one lock; each holder reads what
  // the previous holder wrote and appends its own value.
  auto* log = static_cast<int*>(scopedsm_alloc(1024 * sizeof(int)));
  auto* turn = static_cast<int*>(scopedsm_alloc(sizeof(int)));
  const int lock = 5;
  const int rounds = 20;
  int mine = 0;
  while (mine < rounds) {
    scopedsm_lock(lock);
    int t = *turn;
    if (t % nprocs() == rank() && t < rounds * nprocs()) {
      for (int k = 0; k < t; ++k) ASSERT_EQ(log[k], k * 3 + 1) << "entry " << k << " seen by rank " << rank();
      log[t] = t * 3 + 1;
      *turn = t + 1;
      ++mine;
    }
    scopedsm_unlock(lock);
  }
  scopedsm_barrier();
  EXPECT_EQ(*turn, rounds * nprocs());
  scopedsm_barrier();
}

TEST(Visibility, LockProtectedCounterIsExact) {
  auto* counter = static_cast<long*>(scopedsm_alloc(sizeof(long)));
  const int per_rank = 200;
  for (int i = 0; i < per_rank; ++i) {
    jia_lock(2);
    *counter += 1;
    jia_unlock(2);
  }
  scopedsm_barrier();
  EXPECT_EQ(*counter, static_cast<long>(per_rank) * nprocs());
  scopedsm_barrier();
}

TEST(Visibility, HomeAndRemoteWritersMixOnOnePage) {
  // One page homed at rank 0; every rank (the home included) writes its own
  // words of it between barriers, for several rounds.
  auto* a = static_cast<uint32_t*>(scopedsm_alloc_cyclic(page(), page(), 0));
  const size_t words = page() / sizeof(uint32_t);
  for (uint32_t round = 1; round <= 4; ++round) {
    for (size_t i = static_cast<size_t>(rank()); i < words; i += static_cast<size_t>(nprocs())) a[i] = round * 1000 + static_cast<uint32_t>(i);
    scopedsm_barrier();
    for (size_t i = 0; i < words; ++i) ASSERT_EQ(a[i], round * 1000 + i);
    scopedsm_barrier();
  }
}

TEST(Visibility, OwnWritesStayVisibleAcrossAcquires) {
  // A page written outside a lock, then an acquire whose grant invalidates
  // the page because another rank wrote it under that lock: our unflushed
  // writes must survive the invalidation and refetch.
  auto* a = static_cast<int*>(scopedsm_alloc_cyclic(page(), page(), 0));
  const int slots = static_cast<int>(page() / sizeof(int));
  a[slots - 1 - rank()] = 100 + rank();  // each rank its own word, no lock
  for (int i = 0; i < 10; ++i) {
    scopedsm_lock(9);
    a[0] += 1;  // everyone writes word 0 under lock 9
    scopedsm_unlock(9);
    ASSERT_EQ(a[slots - 1 - rank()], 100 + rank());
  }
  scopedsm_barrier();
  EXPECT_EQ(a[0], 10 * nprocs());
  for (int r = 0; r < nprocs(); ++r) EXPECT_EQ(a[slots - 1 - r], 100 + r);
  scopedsm_barrier();
}

}  // namespace
