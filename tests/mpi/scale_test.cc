// Synchronization traffic per process as the process count grows
// (docs/PROTOCOL.md §4, "Scale"): a barrier costs each process ceil(log2 N)
// messages (dissemination rounds), and an uncontended lock operation a
// constant number (ACQ and REL to the lock's home, ACQGRANT back), whatever
// N is. Counts, not times, so they do not depend on the cores. Rank 0
// prints one line per run; the scale.traffic tests run it at 2, 4, 8 and
// 16 processes:
//   scale: N=8 messages per process: 3.00 per barrier, 3.00 per lock/unlock
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "jia.h"
#include "support/barrier_layout.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

uint64_t sent(std::initializer_list<const char*> types) {
  uint64_t n = 0;
  for (const char* t : types) n += counter(std::string("msgs_sent_") + t);
  return n;
}

TEST(Scale, BarrierMessagesPerProcessGrowAsLogNAndLockMessagesStayConstant) {
  const int n = nprocs();
  const auto barrier_types = {"BARR", "BARRSTALL"};
  const auto lock_types = {"ACQ", "ACQGRANT", "REL", "HANDOFF", "ACK", "DIFF", "DIFFGRANT", "GETP"};
  jia_wait();
  const uint64_t b0 = sent(barrier_types);
  const uint64_t barriers = 8;
  for (uint64_t i = 0; i < barriers; ++i) jia_barrier();
  const uint64_t per_barrier_x100 = 100 * (sent(barrier_types) - b0) / barriers;
  // Each process takes the lock homed at the next rank, which nobody else
  // takes: every operation is uncontended. The jia_waits fence the count:
  // nobody asks for a lock before every process has taken its first count,
  // and the grants this process's home sends its predecessor are all sent
  // before the predecessor reaches the last one.
  const uint64_t l0 = sent(lock_types);
  jia_wait();
  const uint64_t ops = 16;
  const int lock = (rank() + 1) % n;
  for (uint64_t i = 0; i < ops; ++i) {
    jia_lock(lock);
    jia_unlock(lock);
  }
  jia_wait();
  const uint64_t per_op_x100 = 100 * (sent(lock_types) - l0) / ops;
  EXPECT_EQ(per_barrier_x100, 100 * barrier_messages());
  EXPECT_EQ(per_op_x100, n > 1 ? 300u : 0u);  // ACQ, REL and (as a home) ACQGRANT; none for a lock homed here
  if (rank() == 0)
    std::printf("scale: N=%d messages per process: %.2f per barrier, %.2f per lock/unlock\n", n,
                static_cast<double>(per_barrier_x100) / 100, static_cast<double>(per_op_x100) / 100);
  jia_barrier();
}

}  // namespace
