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
  // Each round, every other process w waits on its own condition variable
  // (homed at w), which rank 0 sets and, between rounds, resets. Before
  // waiting, w reads `data` (so it holds a copy of the round before's value)
  // and tells rank 0 by message; rank 0 writes the round's value only after
  // every such message, then sets. A waiter must therefore return with the
  // set's notice for `data` and read the new value. Had the reset left the
  // flag set, w's own home would answer jia_waitcv at once (in practice
  // before the set, which needs w's message first) with no notices (the
  // barrier after the reset drops the old ones), and w would read its old
  // copy. Messages carry no coherence; they only order.
  constexpr int kTagReady = 4242;
  auto* data = static_cast<long*>(scopedsm_alloc_cyclic(page(), page(), 0));
  auto cv_of = [](int w) {
    int c = 20;
    while (c % nprocs() != w) ++c;
    return c;
  };
  auto value = [](int round) { return 7000L + round; };
  if (rank() == 0) *data = value(0);
  jia_barrier();
  for (int round = 1; round <= 4; ++round) {
    if (rank() == 0) {
      for (int w = 1; w < nprocs(); ++w) {
        int ready = 0;
        scopedsm_recv(&ready, sizeof ready, w, kTagReady);
        EXPECT_EQ(ready, round);
      }
      *data = value(round);
      for (int w = 1; w < nprocs(); ++w) jia_setcv(cv_of(w));
    } else {
      EXPECT_EQ(*data, value(round - 1));
      scopedsm_send(&round, sizeof round, 0, kTagReady);
      jia_waitcv(cv_of(rank()));
      EXPECT_EQ(*data, value(round)) << "round " << round << ": jia_waitcv returned before the set";
    }
    jia_barrier();
    if (rank() == 0)
      for (int w = 1; w < nprocs(); ++w) jia_resetcv(cv_of(w));
    jia_barrier();
  }
}

}  // namespace
