// When a waiting thread may keep polling (transport/spin_policy.h).
#include "transport/spin_policy.h"

#include <gtest/gtest.h>

namespace scopedsm {
namespace {

constexpr uint64_t kUs = 1000;

TEST(SpinPolicy, ShortGapsDoNotStopPolling) {
  // Interrupts and the hypervisor leave gaps of tens of microseconds
  // between polls; they are not a sign that the core is shared.
  SpinPolicy p;
  uint64_t last = 0, now = 1000000 * kUs;
  for (int i = 0; i < 100; ++i) {
    now += 90 * kUs;
    EXPECT_TRUE(p.may_spin(&last, now)) << "poll " << i;
  }
}

TEST(SpinPolicy, ALongGapStopsEveryThreadForABackoff) {
  SpinPolicy p;
  uint64_t a = 0, now = 1000000 * kUs;
  EXPECT_TRUE(p.may_spin(&a, now));
  now += SpinPolicy::kPreemptedGapNs + 1;  // thread a was descheduled
  EXPECT_FALSE(p.may_spin(&a, now));
  // Thread b polls without gaps of its own, and still must not poll.
  uint64_t b = 0;
  for (uint64_t t = now + 1; t < now + SpinPolicy::kBackoffNs; t += 10 * kUs)
    EXPECT_FALSE(p.may_spin(&b, t)) << "the backoff holds for the whole process, at +" << (t - now) << " ns";
  EXPECT_TRUE(p.may_spin(&b, now + SpinPolicy::kBackoffNs)) << "the backoff ends";
}

TEST(SpinPolicy, AFirstPollAfterSleepingIsNoGap) {
  // last_poll == 0: the previous step was a sleep, not a poll.
  SpinPolicy p;
  uint64_t last = 0;
  EXPECT_TRUE(p.may_spin(&last, 5000000 * kUs));
}

}  // namespace
}  // namespace scopedsm
