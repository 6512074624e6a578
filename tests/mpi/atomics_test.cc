// Atomics at the home and AMO synchronization (docs/MEMORY_MODEL.md,
// "Atomics at the home"; docs/PROTOCOL.md §4b), at 1, 2 and 4 processes,
// with node sharing on (atomics in the home's memory) and off (ATOMIC
// requests to the home's server).
#include <gtest/gtest.h>

#include <mpi.h>

#include "jia.h"
#include "scopedsm.h"
#include "scopedsm.hpp"
#include "support/test_util.h"

namespace {

using namespace scopedsm_test;

// A3: after a barrier, a process that held a copy of the page before the
// atomics reads the home's value with a plain read.
TEST(Atomics, PlainReadAfterBarrierSeesTheAtomics) {
  auto* w = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{nprocs() - 1});
  EXPECT_EQ(*w, 0);  // every process takes a copy (or is the home)
  scopedsm_barrier();
  for (int k = 0; k < 10; ++k) scopedsm::fetch_add<int64_t>(w, rank() + 1, scopedsm::MemoryOrder::relaxed);
  // Our own atomics are in our copy at once.
  if (nprocs() == 1) {
    EXPECT_EQ(*w, 10);
  }
  scopedsm_barrier();
  EXPECT_EQ(*w, 10 * nprocs() * (nprocs() + 1) / 2);
  scopedsm_barrier();
}

// A3 through a lock: an atomic made inside a critical section is noticed at
// its release like a write, so the next holder's plain read sees it.
TEST(Atomics, AtomicInACriticalSectionIsSeenByTheNextHolder) {
  auto* w = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{0});
  EXPECT_EQ(*w, 0);
  scopedsm_barrier();
  for (int k = 0; k < 20; ++k) {
    scopedsm_lock(3);
    const int64_t plain = *w;  // the previous holder's atomic is visible
    const int64_t old = scopedsm::fetch_add<int64_t>(w, 1, scopedsm::MemoryOrder::relaxed);
    EXPECT_EQ(plain, old) << "round " << k;
    scopedsm_unlock(3);
  }
  scopedsm_barrier();
  EXPECT_EQ(*w, 20 * nprocs());
  scopedsm_barrier();
}

// A4: processes write their own words of a page with plain stores (twins
// and diffs) and add to another word of the same page with atomics; rank 0,
// the home, adds after everyone else has, and before they release (at the
// barrier). No diff undoes an atomic: a diff carrying the word would
// put back the value before rank 0's additions.
TEST(Atomics, DiffsOfThePageDoNotUndoAtomics) {
  auto* page_words = static_cast<int64_t*>(scopedsm_alloc_on(page(), 0));
  auto* ready = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{nprocs() - 1});
  int64_t* sum = &page_words[0];
  const int n = nprocs();
  for (int round = 1; round <= 20; ++round) {
    if (rank() != 0) {
      page_words[8 + rank()] = round;  // a plain write: the copy gets a twin
      for (int k = 0; k < 5; ++k) scopedsm_atomic_fetch_add_i64(sum, 1, SCOPEDSM_RELAXED);
      page_words[8 + n + rank()] = -round;
      scopedsm_atomic_fetch_add_i64(ready, 1, SCOPEDSM_RELAXED);
      // Our diff goes home at the barrier, after rank 0's additions.
      while (scopedsm_atomic_load_i64(ready, SCOPEDSM_RELAXED) < static_cast<int64_t>(round) * n) {
      }
    } else {
      while (scopedsm_atomic_load_i64(ready, SCOPEDSM_RELAXED) < static_cast<int64_t>(round) * (n - 1)) {
      }
      for (int k = 0; k < 5; ++k) scopedsm_atomic_fetch_add_i64(sum, 1, SCOPEDSM_RELAXED);
      page_words[8] = round;
      page_words[8 + n] = -round;
      scopedsm_atomic_fetch_add_i64(ready, 1, SCOPEDSM_RELAXED);
    }
    scopedsm_barrier();
    EXPECT_EQ(*sum, 5 * round * n) << "round " << round;
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(page_words[8 + r], round);
      EXPECT_EQ(page_words[8 + n + r], -round);
    }
    scopedsm_barrier();
  }
}

// Every operation on every type, checked after a barrier.
TEST(Atomics, EveryOperationOnEveryType) {
  struct W {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    int32_t pad;
    double f64;
    int64_t ex;
  };
  auto* w = scopedsm::alloc_one<W>(scopedsm::OnRank{nprocs() - 1});
  const int me = rank(), n = nprocs();
  // Rank r's bit of a 32-bit word and its pair of a 64-bit word (shared by
  // ranks 32 apart in the 32-process scale runs).
  auto bit = [](int r) { return 1u << (r % 32); };
  auto pair = [](int r) { return 3ull << (2 * (r % 32)); };
  uint32_t all_bits = 0;
  for (int r = 0; r < n; ++r) all_bits |= bit(r);
  scopedsm::fetch_add<int32_t>(&w->i32, -(me + 1));
  scopedsm::fetch_or<uint32_t>(&w->u32, bit(me));
  scopedsm::fetch_max<int64_t>(&w->i64, 100 + me);
  scopedsm::fetch_xor<uint64_t>(&w->u64, pair(me));
  scopedsm::fetch_add<float>(&w->f32, 0.25f);
  scopedsm::fetch_add<double>(&w->f64, 1.5);
  scopedsm_barrier();
  EXPECT_EQ(w->i32, -n * (n + 1) / 2);
  EXPECT_EQ(w->u32, all_bits);
  EXPECT_EQ(w->i64, 100 + n - 1);
  uint64_t x = 0;
  for (int r = 0; r < n; ++r) x ^= pair(r);
  EXPECT_EQ(w->u64, x);
  EXPECT_EQ(w->f32, 0.25f * static_cast<float>(n));
  EXPECT_EQ(w->f64, 1.5 * n);
  scopedsm_barrier();
  scopedsm::fetch_and<uint32_t>(&w->u32, ~bit(me));
  scopedsm::fetch_min<int64_t>(&w->i64, -me);
  scopedsm::fetch_min<double>(&w->f64, -static_cast<double>(me));
  // exchange: everyone swaps its rank in; the values taken out and the one
  // left are every rank and the initial 0, once each.
  const int64_t out = scopedsm::exchange<int64_t>(&w->ex, me + 1);
  int64_t taken = 0;
  MPI_Allreduce(&out, &taken, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  scopedsm_barrier();
  EXPECT_EQ(w->u32, 0u);
  EXPECT_EQ(w->i64, -(n - 1));
  EXPECT_EQ(w->f64, -static_cast<double>(n - 1));
  EXPECT_EQ(taken + w->ex, n * (n + 1) / 2);
  // compare_exchange: only one process wins each value; a loser learns
  // the current value.
  scopedsm::store<uint64_t>(&w->u64, 0);
  scopedsm_barrier();
  int wins = 0, all_wins = 0;
  for (int v = 0; v < 10; ++v) {
    uint64_t expected = static_cast<uint64_t>(v);
    if (scopedsm::compare_exchange<uint64_t>(&w->u64, expected, v + 1)) {
      ++wins;
    } else {
      EXPECT_EQ(expected, static_cast<uint64_t>(v + 1));
    }
    scopedsm_barrier();
  }
  MPI_Allreduce(&wins, &all_wins, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all_wins, 10);
  EXPECT_EQ(scopedsm::load<uint64_t>(&w->u64), 10u);
  EXPECT_EQ(jia_fetchadd(&w->pad, 2) % 2, 0);
  scopedsm_barrier();
  EXPECT_EQ(w->pad, 2 * n);
  scopedsm_barrier();
}

// The AMO barrier with acq_rel separates episodes of plain writes and reads.
TEST(Amo, BarrierMakesWritesBeforeItVisibleAfterIt) {
  auto* counter = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{0});
  auto* data = static_cast<int64_t*>(scopedsm_alloc_cyclic(page() * static_cast<size_t>(nprocs()), page(), 1 % nprocs()));
  const size_t stride = page() / sizeof(int64_t);
  for (int e = 1; e <= 30; ++e) {
    data[static_cast<size_t>(rank()) * stride] = e;
    scopedsm::amo_barrier(counter);
    for (int r = 0; r < nprocs(); ++r) ASSERT_EQ(data[static_cast<size_t>(r) * stride], e) << "episode " << e;
    scopedsm::amo_barrier(counter);
  }
  EXPECT_EQ(scopedsm::load<int64_t>(counter), 60 * nprocs());
  scopedsm_barrier();
}

// The AMO reduction; and the last arriver notifies each process once per
// episode (AMONOTIFY), nobody else sends one.
TEST(Amo, ReduceSumsAndNotifiesOncePerEpisode) {
  auto* r = scopedsm::alloc_one<scopedsm_amo_reduction>(scopedsm::OnRank{nprocs() - 1});
  scopedsm_barrier();
  const uint64_t before = counter("msgs_sent_AMONOTIFY");
  const int n = nprocs(), episodes = 25;
  for (int e = 1; e <= episodes; ++e) {
    const double sum = scopedsm::amo_reduce_sum(r, rank() + e, scopedsm::MemoryOrder::relaxed);
    ASSERT_EQ(sum, n * e + n * (n - 1) / 2.0) << "episode " << e;
  }
  uint64_t mine = counter("msgs_sent_AMONOTIFY") - before, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all, static_cast<uint64_t>(episodes) * static_cast<uint64_t>(n - 1));
  scopedsm_barrier();
}

// The paper's AMO barrier code written with amo_inc and amo_wait.
TEST(Amo, IncWithATestValue) {
  auto* bv = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{0});
  auto* arrived = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{nprocs() - 1});
  const int64_t n = nprocs();
  for (int64_t e = 1; e <= 20; ++e) {
    scopedsm::fetch_add<int64_t>(arrived, 1, scopedsm::MemoryOrder::relaxed);
    scopedsm_amo_inc(bv, e * n, SCOPEDSM_RELAXED);
    scopedsm_amo_wait(bv, e * n, SCOPEDSM_RELAXED);
    // Nobody leaves before everyone arrived.
    EXPECT_GE(scopedsm::load<int64_t>(arrived, scopedsm::MemoryOrder::relaxed), e * n) << "episode " << e;
  }
  scopedsm_barrier();
}

}  // namespace
