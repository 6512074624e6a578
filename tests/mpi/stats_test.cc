// The statistics a process reports about its own traffic.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "jia.h"
#include "scopedsm.h"
#include "scopedsm.hpp"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(Stats, MessagesToOneselfAreCountedApart) {
  // Rank 0 manages jia_wait: its own arrival (WAIT) and its own grant
  // (WAITGRANT) go through the local mailbox, never through MPI. The other
  // ranks' arrivals all go to rank 0.
  jia_wait();
  const uint64_t self0 = counter("self_msgs_sent"), wait0 = counter("msgs_sent_WAIT");
  const int rounds = 5;
  for (int i = 0; i < rounds; ++i) jia_wait();
  const uint64_t self = counter("self_msgs_sent") - self0, wait = counter("msgs_sent_WAIT") - wait0;
  EXPECT_EQ(wait, static_cast<uint64_t>(rounds));
  if (rank() == 0)
    EXPECT_EQ(self, 2u * rounds);
  else
    EXPECT_EQ(self, 0u);
  jia_wait();
}

// Atomics at the home and AMO calls are timed as atomic time (t_atomic_ns),
// round trips included: neither busy (the rest of the total) nor syn.
TEST(Stats, AtomicsAreTimedInTheirOwnCategory) {
  auto* word = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{nprocs() - 1});
  auto* counter_word = scopedsm::alloc_one<int64_t>(scopedsm::OnRank{0});
  jia_barrier();
  const uint64_t atomic0 = counter("t_atomic_ns"), syn0 = counter("t_syn_ns");
  for (int i = 0; i < 50; ++i) scopedsm::fetch_add<int64_t>(word, 1);
  const uint64_t atomic1 = counter("t_atomic_ns");
  EXPECT_GT(atomic1, atomic0);
  scopedsm::amo_barrier(counter_word);
  EXPECT_GT(counter("t_atomic_ns"), atomic1);
  EXPECT_EQ(counter("t_syn_ns"), syn0);  // no lock, barrier or wait since
  jia_barrier();
  EXPECT_EQ(scopedsm::load<int64_t>(word), 50 * nprocs());
  jia_barrier();
}

}  // namespace
