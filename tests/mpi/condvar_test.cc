// Condition variables: set is a release, wait returns once set and is an acquire.
#include <gtest/gtest.h>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(Condvar, WaitSeesWritesMadeBeforeSet) {
  auto* data = static_cast<long*>(scopedsm_alloc(4 * page()));
  const int cv = 3;
  if (rank() == 0) {
    for (int i = 0; i < 4; ++i) data[i * page() / sizeof(long)] = 77 + i;
    jia_setcv(cv);
  } else {
    jia_waitcv(cv);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(data[i * page() / sizeof(long)], 77 + i);
  }
  jia_barrier();
  if (rank() == 0) jia_resetcv(cv);
  jia_barrier();
}

TEST(Condvar, ChainOfProducers) {
  // Rank r waits on cv r, adds to a value, and sets cv r+1.
  auto* value = static_cast<long*>(scopedsm_alloc(sizeof(long)));
  if (rank() > 0) jia_waitcv(10 + rank());
  *value += rank() + 1;
  jia_setcv(10 + rank() + 1);
  if (rank() == 0) {
    jia_waitcv(10 + nprocs());
    EXPECT_EQ(*value, static_cast<long>(nprocs()) * (nprocs() + 1) / 2);
  }
  jia_barrier();
  if (rank() == 0)
    for (int c = 11; c <= 10 + nprocs(); ++c) jia_resetcv(c);
  jia_barrier();
}

TEST(Condvar, ResetMakesWaitersBlockAgain) {
  auto* step = static_cast<int*>(scopedsm_alloc(sizeof(int)));
  const int cv = 20;
  for (int round = 1; round <= 3; ++round) {
    if (rank() == 0) {
      *step = round;
      jia_setcv(cv);
    } else {
      jia_waitcv(cv);
      EXPECT_EQ(*step, round);
    }
    jia_barrier();
    if (rank() == 0) jia_resetcv(cv);
    jia_barrier();
  }
}

}  // namespace
