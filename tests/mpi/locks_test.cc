// Nested critical sections and the lock stack.
#include <gtest/gtest.h>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(Locks, NestedSectionsAttributeWritesToTheRightLocks) {
  // x0 is written under lock 0 around an inner section of lock 1 that
  // writes x1 (and x0 again: Fig 3.7 cases a and b). A later acquirer of
  // lock 1 alone must see x1; one of lock 0 must see both.
  auto* x0 = static_cast<long*>(scopedsm_alloc_cyclic(page(), page(), 0));
  auto* x1 = static_cast<long*>(scopedsm_alloc_cyclic(page(), page(), nprocs() - 1));
  for (int round = 0; round < 10; ++round) {
    jia_lock(0);
    x0[0] += 1;
    jia_lock(1);
    x1[0] += 10;
    x0[1] += 1;
    jia_unlock(1);
    x0[2] += 1;
    jia_unlock(0);
  }
  jia_lock(1);
  long seen1 = x1[0];
  jia_unlock(1);
  EXPECT_EQ(seen1 % 10, 0);
  jia_barrier();
  EXPECT_EQ(x0[0], 10L * nprocs());
  EXPECT_EQ(x0[1], 10L * nprocs());
  EXPECT_EQ(x0[2], 10L * nprocs());
  EXPECT_EQ(x1[0], 100L * nprocs());
  jia_barrier();
}

TEST(Locks, InnerLockPassesItsDataWithoutTheOuter) {
  // Rank 0 writes v under lock 3 inside lock 4; the others acquire lock 3
  // alone afterwards and must see v.
  auto* v = static_cast<int*>(scopedsm_alloc(sizeof(int)));
  auto* done = static_cast<int*>(scopedsm_alloc(sizeof(int)));
  if (rank() == 0) {
    jia_lock(4);
    jia_lock(3);
    *v = 1234;
    *done = 1;
    jia_unlock(3);
    jia_unlock(4);
  } else {
    int ok = 0;
    while (!ok) {
      jia_lock(3);
      ok = *done;
      if (ok) {
        EXPECT_EQ(*v, 1234);
      }
      jia_unlock(3);
    }
  }
  jia_barrier();
}

TEST(Locks, WaitMayBeCalledInsideACriticalSection) {
  jia_lock(100 + rank());
  jia_wait();
  jia_unlock(100 + rank());
  jia_barrier();
}

TEST(Locks, ManyLocksHomedEverywhere) {
  auto* counters = static_cast<int*>(scopedsm_alloc(64 * sizeof(int)));
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 64; ++l) {
      jia_lock(l);
      counters[l] += 1;
      jia_unlock(l);
    }
  jia_barrier();
  for (int l = 0; l < 64; ++l) EXPECT_EQ(counters[l], 3 * nprocs());
  jia_barrier();
}

}  // namespace
