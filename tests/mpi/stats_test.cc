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
  // Rank 0 manages barriers: its own arrival (BARR) and its own grant
  // (BARRGRANT) go through the local mailbox, never through MPI. The other
  // ranks' barrier messages all go to rank 0.
  jia_barrier();
  const uint64_t self0 = counter("self_msgs_sent"), barr0 = counter("msgs_sent_BARR");
  const int rounds = 5;
  for (int i = 0; i < rounds; ++i) jia_barrier();
  const uint64_t self = counter("self_msgs_sent") - self0, barr = counter("msgs_sent_BARR") - barr0;
  EXPECT_EQ(barr, static_cast<uint64_t>(rounds));
  if (rank() == 0)
    EXPECT_EQ(self, 2u * rounds);
  else
    EXPECT_EQ(self, 0u);
  jia_barrier();
}

}  // namespace
