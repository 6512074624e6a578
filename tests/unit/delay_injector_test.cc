// Test-only random delays (transport/delay_injector.h).
#include "transport/delay_injector.h"

#include <gtest/gtest.h>

#include <set>

namespace scopedsm {
namespace {

TEST(DelayInjector, OffByDefault) {
  DelayInjector d;
  EXPECT_FALSE(d.enabled());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(d.next_delay_ns(), 0u);
  d.configure(0);
  EXPECT_FALSE(d.enabled());
}

TEST(DelayInjector, DelaysStayBelowTheBoundAndVary) {
  DelayInjector d;
  d.configure(20);  // SCOPEDSM_TEST_DELAY_US=20, as the model and difftest suites use
  EXPECT_TRUE(d.enabled());
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t ns = d.next_delay_ns();
    EXPECT_LT(ns, 20000u);
    seen.insert(ns);
  }
  // Reordering needs different delays; 1000 draws from 20000 values that
  // all agree would mean no randomness at all.
  EXPECT_GT(seen.size(), 100u);
}

}  // namespace
}  // namespace scopedsm
