// The arithmetic of OpenMP's loop schedules (omp/schedule.h): iteration
// counts of signed and unsigned loops in both directions, static chunks
// (every iteration exactly once, in each thread's own order), guided
// chunk sizes, the program's bounds, and OMP_SCHEDULE's spellings.
#include "omp/schedule.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace scopedsm::omp {
namespace {

LoopSpec loop(int64_t start, int64_t end, int64_t incr) {
  LoopSpec s;
  s.start = start;
  s.end = end;
  s.incr = incr;
  return s;
}

LoopSpec ull_loop(bool up, uint64_t start, uint64_t end, uint64_t incr) {
  LoopSpec s;
  s.ull = true;
  s.up = up;
  s.start = static_cast<int64_t>(start);
  s.end = static_cast<int64_t>(end);
  s.incr = static_cast<int64_t>(incr);
  return s;
}

TEST(OmpSchedule, IterationCounts) {
  EXPECT_EQ(iteration_count(loop(0, 10, 1)), 10u);
  EXPECT_EQ(iteration_count(loop(0, 10, 3)), 4u);  // 0 3 6 9
  EXPECT_EQ(iteration_count(loop(10, 0, -3)), 4u);  // 10 7 4 1
  EXPECT_EQ(iteration_count(loop(5, 5, 1)), 0u);
  EXPECT_EQ(iteration_count(loop(5, 0, 1)), 0u);
  EXPECT_EQ(iteration_count(loop(0, 5, 0)), 0u);
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(iteration_count(loop(lo, hi, 1)), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(iteration_count(ull_loop(true, 3, 100, 3)), 33u);  // 3 .. 99
  EXPECT_EQ(iteration_count(ull_loop(false, 100, 3, static_cast<uint64_t>(-3))), 33u);
  EXPECT_EQ(iteration_count(ull_loop(true, 0, UINT64_MAX, 1)), UINT64_MAX);
}

// Every iteration exactly once, whatever the chunk and team size.
TEST(OmpSchedule, StaticChunksCoverEachIterationOnce) {
  for (uint64_t n : {0u, 1u, 7u, 100u, 1001u})
    for (uint64_t chunk : {0u, 1u, 3u, 16u, 2000u})
      for (int threads : {1, 2, 3, 4, 7}) {
        std::vector<int> hits(n, 0);
        for (int t = 0; t < threads; ++t) {
          uint64_t lo = 0, hi = 0, last_hi = 0;
          for (uint64_t k = 0; static_chunk(n, chunk, t, threads, k, &lo, &hi); ++k) {
            ASSERT_LT(lo, hi);
            ASSERT_LE(hi, n);
            ASSERT_GE(lo, last_hi) << "a thread's chunks go forward";
            last_hi = hi;
            for (uint64_t i = lo; i < hi; ++i) ++hits[i];
          }
        }
        for (uint64_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[i], 1) << "n=" << n << " chunk=" << chunk << " threads=" << threads << " i=" << i;
      }
}

TEST(OmpSchedule, StaticWithoutChunkIsOneBlockPerThreadTheFirstOnesLonger) {
  uint64_t lo = 0, hi = 0;
  ASSERT_TRUE(static_chunk(10, 0, 0, 4, 0, &lo, &hi));
  EXPECT_EQ(lo, 0u);
  EXPECT_EQ(hi, 3u);
  ASSERT_TRUE(static_chunk(10, 0, 3, 4, 0, &lo, &hi));
  EXPECT_EQ(lo, 8u);
  EXPECT_EQ(hi, 10u);
  EXPECT_FALSE(static_chunk(10, 0, 0, 4, 1, &lo, &hi));
  EXPECT_FALSE(static_chunk(2, 0, 3, 4, 0, &lo, &hi)) << "more threads than iterations";
}

TEST(OmpSchedule, StaticChunkIsRoundRobin) {
  uint64_t lo = 0, hi = 0;
  ASSERT_TRUE(static_chunk(100, 5, 1, 3, 2, &lo, &hi));  // chunk number 2*3+1 = 7
  EXPECT_EQ(lo, 35u);
  EXPECT_EQ(hi, 40u);
}

TEST(OmpSchedule, GuidedChunks) {
  EXPECT_EQ(guided_chunk(100, 4, 1), 25u);
  EXPECT_EQ(guided_chunk(101, 4, 1), 26u);
  EXPECT_EQ(guided_chunk(3, 4, 1), 1u);
  EXPECT_EQ(guided_chunk(3, 4, 5), 3u) << "never more than is left";
  EXPECT_EQ(guided_chunk(40, 4, 16), 16u) << "at least the chunk";
  EXPECT_EQ(guided_chunk(0, 4, 1), 0u);
  // A guided loop hands out everything, in shrinking chunks.
  uint64_t left = 1000, last = UINT64_MAX;
  while (left > 0) {
    const uint64_t c = guided_chunk(left, 3, 2);
    ASSERT_GT(c, 0u);
    ASSERT_LE(c, last);
    last = c;
    left -= c;
  }
}

TEST(OmpSchedule, ProgramBounds) {
  int64_t first = 0, last = 0;
  program_bounds(loop(5, 50, 5), 9, 2, 4, &first, &last);
  EXPECT_EQ(first, 15);
  EXPECT_EQ(last, 25);
  program_bounds(loop(5, 50, 5), 9, 7, 9, &first, &last);
  EXPECT_EQ(last, 50) << "the last chunk ends at the loop's end";
  program_bounds(loop(10, 0, -3), 4, 1, 3, &first, &last);
  EXPECT_EQ(first, 7);
  EXPECT_EQ(last, 1);
  program_bounds(ull_loop(true, UINT64_MAX - 10, UINT64_MAX, 2), 5, 1, 2, &first, &last);
  EXPECT_EQ(static_cast<uint64_t>(first), UINT64_MAX - 8);
  EXPECT_EQ(static_cast<uint64_t>(last), UINT64_MAX - 6);
}

TEST(OmpSchedule, OmpScheduleSpellings) {
  int kind = 0, chunk = -1;
  bool mono = true;
  std::string why;
  ASSERT_TRUE(parse_schedule("dynamic,4", &kind, &chunk, &mono, &why));
  EXPECT_EQ(kind, 2);
  EXPECT_EQ(chunk, 4);
  EXPECT_FALSE(mono);
  ASSERT_TRUE(parse_schedule(" Monotonic : Guided , 7 ", &kind, &chunk, &mono, &why)) << why;
  EXPECT_EQ(kind, 3);
  EXPECT_EQ(chunk, 7);
  EXPECT_TRUE(mono);
  ASSERT_TRUE(parse_schedule("static", &kind, &chunk, &mono, &why));
  EXPECT_EQ(kind, 1);
  EXPECT_EQ(chunk, 0);
  ASSERT_TRUE(parse_schedule("auto", &kind, &chunk, &mono, &why));
  EXPECT_EQ(kind, 4);
  EXPECT_FALSE(parse_schedule("fastest", &kind, &chunk, &mono, &why));
  EXPECT_NE(why.find("fastest"), std::string::npos);
  EXPECT_FALSE(parse_schedule("dynamic,0", &kind, &chunk, &mono, &why));
  EXPECT_FALSE(parse_schedule("dynamic,x", &kind, &chunk, &mono, &why));
  EXPECT_FALSE(parse_schedule("auto,3", &kind, &chunk, &mono, &why));
  EXPECT_FALSE(parse_schedule("sometimes:dynamic", &kind, &chunk, &mono, &why));
}

}  // namespace
}  // namespace scopedsm::omp
