// Waiting with spin, sleep and timeout (transport/waiter.h), and when the
// managers report a stall (sync/stall.h), without MPI: a
// Wakeup that was never initialized treats every peer as remote (its sleeps
// are plain bounded sleeps), and an empty Outbox never calls MPI.
#include "transport/waiter.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "sync/stall.h"

namespace scopedsm {
namespace {

struct Fixture {
  explicit Fixture(WaitTuning tuning) { waiter.configure(tuning); }
  Wakeup wakeup;
  Outbox outbox;
  Waiter waiter{&wakeup, &outbox};
};

WaitTuning quick(double timeout_s = 0) {
  WaitTuning t;
  t.spin_ns = 0;          // straight to the polls before sleeping
  t.sleep_ns = 1000000;   // 1 ms naps
  t.timeout_s = timeout_s;
  return t;
}

TEST(Waiter, ReturnsOnceTheConditionHolds) {
  Fixture f(quick());
  int polls = 0;
  f.waiter.wait_until(WakeRole::kApp, [&] { return ++polls == 3; }, "a test event", 1);
  EXPECT_EQ(polls, 3);
  EXPECT_FALSE(f.waiter.app_polling()) << "no longer waiting";
}

TEST(Waiter, PollsAgainAfterSleeping) {
  // More empty polls than kPollsBeforeSleep: the condition turns true only
  // after the waiter has slept at least once.
  Fixture f(quick());
  int polls = 0;
  const int needed = 3 * Waiter::kPollsBeforeSleep;
  f.waiter.wait_until(WakeRole::kApp, [&] { return ++polls == needed; }, "a test event", -1);
  EXPECT_EQ(polls, needed);
}

TEST(Waiter, TheApplicationThreadServesAndShowsItPolls) {
  Fixture f(quick());
  int served = 0;
  f.waiter.set_idle_work([&] { return ++served <= 2; });
  bool polling_seen = false;
  f.waiter.wait_until(
      WakeRole::kApp,
      [&] {
        polling_seen = polling_seen || f.waiter.app_polling();
        return served >= 3;
      },
      "a test event", 0);
  EXPECT_GE(served, 3);
  EXPECT_TRUE(polling_seen) << "the service thread must see that the application thread polls";
  EXPECT_FALSE(f.waiter.app_polling());
}

TEST(Waiter, OtherRolesNeitherServeNorClaimToPoll) {
  Fixture f(quick());
  int served = 0;
  f.waiter.set_idle_work([&] { return ++served > 0; });
  int polls = 0;
  f.waiter.wait_until(
      WakeRole::kService,
      [&] {
        EXPECT_FALSE(f.waiter.app_polling());
        return ++polls == 5;
      },
      "a test event", 0);
  EXPECT_EQ(polls, 5);
  EXPECT_EQ(served, 0);
}

TEST(Waiter, TimeoutReportNamesTheWaitTheRankAndTheContext) {
  Fixture f(quick(2.5));
  EXPECT_EQ(f.waiter.timeout_report("a lock grant (ACQGRANT)", 3),
            "timed out after 2.5 s, the SCOPEDSM_TIMEOUT limit, waiting for a lock grant (ACQGRANT) from rank 3; is "
            "that process alive and is every process making the same synchronization calls?");
  EXPECT_EQ(f.waiter.timeout_report("a lock grant (ACQGRANT)", 3, true),
            "timed out after 3.5 s (the SCOPEDSM_TIMEOUT limit of 2.5 s and 1 s for the report of the wait's "
            "manager, which did not come) waiting for a lock grant (ACQGRANT) from rank 3; is that process alive and "
            "is every process making the same synchronization calls?");
  f.waiter.set_wait_context([] { return std::string("holding locks 4, 7"); });
  EXPECT_EQ(f.waiter.timeout_report("requests to be applied", -1),
            "timed out after 2.5 s, the SCOPEDSM_TIMEOUT limit, waiting for requests to be applied; holding locks 4, "
            "7; is every process alive and making the same synchronization calls?");
}

TEST(Waiter, AWaitThatNeverEndsTimesOut) {
  Fixture f(quick(0.2));
  f.waiter.set_wait_context([] { return std::string("holding lock 7"); });
  EXPECT_EXIT(f.waiter.wait_until(WakeRole::kApp, [] { return false; }, "a test event", 3),
              ::testing::ExitedWithCode(1),
              "timed out after 0\\.2 s, the SCOPEDSM_TIMEOUT limit, waiting for a test event from rank 3; holding "
              "lock 7;");
}

// A wait a manager watches ends Waiter::kWatchedGraceNs after the limit, so
// that the manager's report comes first; an unwatched one at the limit.
// The condition turns true at 1.5 times the limit: past it, but well within
// the grace.
TEST(Waiter, AWatchedWaitGetsTheManagersGrace) {
  Fixture f(quick(0.2));
  const uint64_t start = now_ns();
  auto after_limit = [start] { return now_ns() - start > 300000000; };
  f.waiter.wait_until(WakeRole::kApp, after_limit, "a lock grant", 3, true);
  EXPECT_EXIT(f.waiter.wait_until(WakeRole::kApp, [] { return false; }, "a lock grant", 3, true),
              ::testing::ExitedWithCode(1),
              "timed out after 1\\.2 s \\(the SCOPEDSM_TIMEOUT limit of 0\\.2 s and 1 s for the report of the "
              "wait's manager, which did not come\\) waiting for a lock grant from rank 3");
}

TEST(Waiter, AnUnwatchedWaitEndsAtTheLimit) {
  Fixture f(quick(0.2));
  EXPECT_EXIT(
      {
        const uint64_t start = now_ns();
        f.waiter.wait_until(WakeRole::kApp, [start] { return now_ns() - start > 300000000; }, "a page", 3);
      },
      ::testing::ExitedWithCode(1), "timed out after 0\\.2 s, the SCOPEDSM_TIMEOUT limit, waiting for a page");
}

// When the managers report a stall (sync/stall.h): once as a warning at 80%
// of the limit, then as the fatal report at it; and in which words.
TEST(StallLimit, WarnsOnceAt80PercentThenEndsTheJobAtTheLimit) {
  const StallLimit stall{3};
  bool warned = false;
  EXPECT_EQ(stall.judge(2300000000, &warned), StallLimit::kQuiet);
  EXPECT_FALSE(warned);
  EXPECT_EQ(stall.judge(2400000000, &warned), StallLimit::kWarn);
  EXPECT_TRUE(warned);
  EXPECT_EQ(stall.judge(2900000000, &warned), StallLimit::kQuiet) << "warned once";
  EXPECT_EQ(stall.judge(3000000000, &warned), StallLimit::kFatal);
  bool late = false;
  EXPECT_EQ(stall.judge(5000000000, &late), StallLimit::kFatal) << "past the limit unwarned: the report";
  bool never = false;
  EXPECT_EQ(StallLimit{0}.judge(UINT64_MAX, &never), StallLimit::kQuiet) << "SCOPEDSM_TIMEOUT=0 waits forever";
}

// A stall recorded after the checker read the clock (the application thread,
// serving, recorded an arrival meanwhile) has not begun: it must not wrap
// around to 584 years and end the job (seen: "has waited 18446744073.7 s").
TEST(StallLimit, AStallRecordedAfterTheClockWasReadHasNotBegun) {
  EXPECT_EQ(StallLimit::age(1000, 5000), 0u);
  EXPECT_EQ(StallLimit::age(5000, 1000), 4000u);
  bool warned = false;
  EXPECT_EQ(StallLimit{3}.judge(StallLimit::age(1000, 5000), &warned), StallLimit::kQuiet);
}

TEST(StallLimit, SaysTheLimitAndWhenTheJobEnds) {
  const StallLimit stall{3};
  EXPECT_EQ(stall.waited(2400000000, StallLimit::kWarn), "has waited 2.4 s of the 3 s limit (SCOPEDSM_TIMEOUT)");
  EXPECT_EQ(stall.waited(3050000000, StallLimit::kFatal), "has waited 3.0 s, the SCOPEDSM_TIMEOUT limit,");
  EXPECT_EQ(stall.waited(2400000000, StallLimit::kWarn, true), "have waited 2.4 s of the 3 s limit (SCOPEDSM_TIMEOUT)")
      << "several ranks wait";
  EXPECT_EQ(stall.waited(3050000000, StallLimit::kFatal, true), "have waited 3.0 s, the SCOPEDSM_TIMEOUT limit,");
  EXPECT_EQ(stall.ends(), "the job ends at 3 s");
  EXPECT_EQ(StallLimit{2.5}.ends(), "the job ends at 2.5 s");
}

}  // namespace
}  // namespace scopedsm
