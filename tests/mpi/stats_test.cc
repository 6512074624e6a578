// The statistics a process reports about its own traffic.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "jia.h"
#include "scopedsm.h"
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

}  // namespace
