// The barrier (docs/PROTOCOL.md §4): the processes of a node meet in shared
// memory, and their leaders exchange ceil(log2 M) rounds of messages, each
// carrying the merge of the write notices its sender knows
// (SCOPEDSM_BARRIER=dissemination: every process, ceil(log2 N) rounds). These tests run at 1, 2 and 4 processes with
// the rest of the suite, and at 3 and 5 (mpi.barrier.np3, .np5), where the
// last round overlaps ranks already heard from.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "api/test_hooks.h"
#include "jia.h"
#include "support/barrier_layout.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(Barrier, EachProcessSendsCeilLog2NRoundsAndNothingMeetsAtRankZero) {
  // A round is counted as received when it arrives, which may be while its
  // receiver still finishes something else. The jia_wait fences the count:
  // nobody sends a round of the first barrier before we have arrived at it,
  // and no round of a later barrier exists before the jia_wait at the end.
  const uint64_t sent0 = counter("msgs_sent_BARR"), recv0 = counter("msgs_recv_BARR");
  jia_wait();
  const uint64_t self0 = counter("self_msgs_sent"), stall0 = counter("msgs_sent_BARRSTALL");
  const uint64_t barriers = 7;
  for (uint64_t i = 0; i < barriers; ++i) jia_barrier();
  const uint64_t expected = barriers * barrier_messages();
  EXPECT_EQ(counter("msgs_recv_BARR") - recv0, expected);
  EXPECT_EQ(counter("msgs_sent_BARR") - sent0, expected);
  // Rank 0 sends itself nothing: there is no arrival at a manager.
  EXPECT_EQ(counter("self_msgs_sent") - self0, 0u);
  EXPECT_EQ(counter("msgs_sent_BARRSTALL") - stall0, 0u);
  jia_wait();
}

// Every rank writes its own pages, one page written by everybody, and a
// page of a neighbour; after the barrier everyone sees everything. A merge
// that lost one process's notices, or kept a page written by two processes
// as written by one (whose copy would then be kept), leaves a stale value.
TEST(Barrier, NoticesOfEveryProcessReachEveryProcess) {
  const int n = nprocs();
  const size_t words = page() / sizeof(uint64_t);
  // Page p is homed at rank p % n; n own pages, then one shared page.
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic((static_cast<size_t>(n) + 1) * page(), page(), 0));
  uint64_t* shared = a + static_cast<size_t>(n) * words;
  for (uint64_t round = 1; round <= 12; ++round) {
    // Everybody reads everything first, so every copy is cached and must
    // be invalidated by the notices of this round's writers.
    uint64_t sum = 0;
    for (size_t p = 0; p <= static_cast<size_t>(n); ++p) sum += a[p * words];
    EXPECT_NE(sum, 1u);
    scopedsm_barrier();
    // The page of rank (rank + round) % n is written by this rank this round.
    const size_t mine = static_cast<size_t>((rank() + static_cast<int>(round)) % n);
    for (size_t w = 0; w < words; w += 64) a[mine * words + w] = round * 1000 + mine;
    shared[static_cast<size_t>(rank())] = round * 100 + static_cast<uint64_t>(rank());
    scopedsm_barrier();
    for (size_t p = 0; p < static_cast<size_t>(n); ++p)
      for (size_t w = 0; w < words; w += 64)
        ASSERT_EQ(a[p * words + w], round * 1000 + p) << "page " << p << " word " << w << " round " << round;
    for (int r = 0; r < n; ++r)
      ASSERT_EQ(shared[static_cast<size_t>(r)], round * 100 + static_cast<uint64_t>(r))
          << "rank " << r << "'s word of the shared page, round " << round;
  }
  scopedsm_barrier();
}

// Rank 0's broadcast (what an OpenMP region's start carries) reaches every
// process with the barrier, whatever the number of processes and rounds, in
// the dissemination and the central form, and a later barrier brings the
// later bytes, not the earlier ones.
TEST(Barrier, RankZerosBroadcastReachesEveryProcess) {
  for (const int central : {0, 1}) {
    jia_config(BROADCAST, central ? OFF : ON);
    for (const size_t len : {size_t{1}, size_t{144}, size_t{5000}}) {
      for (uint32_t round = 1; round <= 3; ++round) {
        std::vector<uint8_t> buf(len, 0);
        if (rank() == 0)
          for (size_t i = 0; i < len; ++i) buf[i] = static_cast<uint8_t>(i * 7 + round + len);
        // EXPECT, not ASSERT: every process makes every barrier, failed or not.
        EXPECT_EQ(scopedsm_test_barrier_broadcast(buf.data(), len), len) << "central " << central << " round " << round;
        size_t wrong = 0;
        for (size_t i = 0; i < len; ++i) wrong += buf[i] != static_cast<uint8_t>(i * 7 + round + len);
        EXPECT_EQ(wrong, 0u) << "bytes wrong of " << len << ", central " << central << ", round " << round;
      }
    }
  }
  jia_config(BROADCAST, env_is("SCOPEDSM_BARRIER", "central") ? OFF : ON);
  jia_barrier();
}

}  // namespace
