// The automatic hints' stream detector and prefetch distance
// (protocol/auto_hints.h): pure logic, fed page faults by hand.
#include "protocol/auto_hints.h"

#include <gtest/gtest.h>

namespace scopedsm {
namespace {

constexpr uint64_t kLimit = 1u << 20;

TEST(AutoStreams, ASequentialStreamIsConfirmedByItsThirdFaultAndPrefetchesTheDistance) {
  StreamTable t;
  EXPECT_FALSE(t.on_fault(100, true, kLimit).on_stream);
  EXPECT_FALSE(t.on_fault(101, true, kLimit).on_stream);  // one stride seen: training
  const StreamAdvice a = t.on_fault(102, true, kLimit);
  ASSERT_TRUE(a.on_stream);
  EXPECT_TRUE(a.confirmed);
  EXPECT_FALSE(a.late);
  EXPECT_EQ(a.stride, 1u);
  EXPECT_EQ(a.prefetch_first, 103u);
  EXPECT_EQ(a.prefetch_steps, PrefetchDistance::kStart);
  // The run's tripwire (its last page) touched: the stream goes on, the
  // next steps are prefetched, nothing is late.
  const StreamAdvice b = t.on_fault(102 + PrefetchDistance::kStart, false, kLimit);
  ASSERT_TRUE(b.on_stream);
  EXPECT_FALSE(b.confirmed);
  EXPECT_FALSE(b.late);
  EXPECT_EQ(b.prefetch_first, 103u + PrefetchDistance::kStart);
}

TEST(AutoStreams, AStridedStreamPrefetchesAlongItsStride) {
  StreamTable t;
  t.on_fault(10, true, kLimit);
  t.on_fault(17, true, kLimit);
  const StreamAdvice a = t.on_fault(24, true, kLimit);
  ASSERT_TRUE(a.confirmed);
  EXPECT_EQ(a.stride, 7u);
  EXPECT_EQ(a.prefetch_first, 31u);
  // Its next step's tripwire: continues the stream, which refills when
  // fewer than half the distance's steps are left ahead.
  const StreamAdvice b = t.on_fault(31, false, kLimit);
  EXPECT_TRUE(b.on_stream);
  EXPECT_EQ(b.stride, 7u);
  // Off the stride: not this stream.
  EXPECT_FALSE(t.on_fault(33, true, kLimit).on_stream);
}

TEST(AutoStreams, ChangingStridesAndFarJumpsConfirmNothing) {
  StreamTable t;
  for (uint64_t p : {5u, 6u, 8u, 11u, 15u, 20u, 5000u, 9000u, 13000u})
    EXPECT_FALSE(t.on_fault(p, true, kLimit).on_stream) << p;
}

TEST(AutoStreams, TwoInterleavedStreamsAreTrackedApart) {
  StreamTable t;
  int confirmed = 0;
  for (uint64_t i = 0; i < 4; ++i) {
    confirmed += t.on_fault(1000 + i, true, kLimit).confirmed;
    confirmed += t.on_fault(50000 + 2 * i, true, kLimit).confirmed;
  }
  EXPECT_EQ(confirmed, 2);
}

TEST(AutoStreams, PrefetchesStopAtTheLimit) {
  StreamTable t;
  t.on_fault(95, true, 100);
  t.on_fault(96, true, 100);
  const StreamAdvice a = t.on_fault(97, true, 100);
  EXPECT_EQ(a.prefetch_first, 98u);
  EXPECT_EQ(a.prefetch_steps, 2u);  // pages 98 and 99 exist, no more
}

TEST(AutoStreams, AStreamIsPrefetchedAtMostMaxStepsAhead) {
  StreamTable t(0, /*max_steps=*/3);
  for (int i = 0; i < 10; ++i) t.distance().late();
  t.on_fault(10, true, kLimit);
  t.on_fault(11, true, kLimit);
  EXPECT_EQ(t.on_fault(12, true, kLimit).prefetch_steps, 3u);
}

TEST(AutoStreams, ADemandFaultAheadOfThePrefetchesIsLateAndDoublesTheDistance) {
  StreamTable t;
  t.on_fault(0 + 1, true, kLimit);
  t.on_fault(2, true, kLimit);
  const StreamAdvice a = t.on_fault(3, true, kLimit);  // prefetches 4..7
  ASSERT_EQ(a.prefetch_steps, 4u);
  // Say the prefetch was dropped and 4..7 went by without faults (they were
  // valid anyway); the program fetches 8 itself: one step past the prefetches.
  const StreamAdvice b = t.on_fault(8, true, kLimit);
  ASSERT_TRUE(b.on_stream);
  EXPECT_TRUE(b.late);
  EXPECT_EQ(t.distance().value(), 8u);
  EXPECT_EQ(b.prefetch_first, 9u);
  EXPECT_EQ(b.prefetch_steps, 8u);
  // A demand fault on a step already prefetched (its copy lost since) is
  // not late, but what lies past it is prefetched again.
  const StreamAdvice c = t.on_fault(10, true, kLimit);
  ASSERT_TRUE(c.on_stream);
  EXPECT_FALSE(c.late);
  EXPECT_EQ(c.prefetch_first, 11u);
}

TEST(PrefetchDistanceTest, LateDoublesUsedAddsOneWastedHalvesWithinBounds) {
  PrefetchDistance d;
  EXPECT_EQ(d.value(), PrefetchDistance::kStart);
  d.late();
  EXPECT_EQ(d.value(), 2 * PrefetchDistance::kStart);
  d.used();
  EXPECT_EQ(d.value(), 2 * PrefetchDistance::kStart + 1);
  d.wasted();
  EXPECT_EQ(d.value(), PrefetchDistance::kStart);
  for (int i = 0; i < 20; ++i) d.late();
  EXPECT_EQ(d.value(), PrefetchDistance::kMax);
  d.used();
  EXPECT_EQ(d.value(), PrefetchDistance::kMax);
  for (int i = 0; i < 20; ++i) d.wasted();
  EXPECT_EQ(d.value(), PrefetchDistance::kMin);
}

TEST(AutoStreams, AStreamLongerThanTheThresholdReleasesBehindItKeepingItsStart) {
  StreamTable t(/*release_after=*/8);
  uint64_t released = 0, first_released = 0;
  for (uint64_t p = 100; p < 140; ++p) {
    const StreamAdvice a = t.on_fault(p, false, kLimit);
    if (a.release_end > a.release_first) {
      if (released == 0) first_released = a.release_first;
      released += a.release_end - a.release_first;
      EXPECT_LT(a.release_end, p + 1);  // never the faulting page
    }
  }
  EXPECT_GT(released, 20u);
  EXPECT_GE(first_released, 100u + 8);  // the first steps stay
  // Without a threshold nothing is released.
  StreamTable none;
  for (uint64_t p = 100; p < 140; ++p) EXPECT_EQ(none.on_fault(p, false, kLimit).release_end, 0u);
}

TEST(AutoStreams, TheBrokenControlFindsNoStream) {
  StreamTable t(0, PrefetchDistance::kMax, /*broken=*/true);
  for (uint64_t p = 0; p < 50; ++p) EXPECT_FALSE(t.on_fault(p, true, kLimit).on_stream);
}

}  // namespace
}  // namespace scopedsm
