// DOALL loops (runtime/loop.h): every schedule hands out every iteration
// exactly once under a random load, through the C, C++ and JIAJIA calls;
// the affinity schemes start each process on the iterations homed at it and
// steal from the others when it runs dry (a negative control disables the
// steals: tests/CMakeLists.txt, mpi.broken.no-steal).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "jia.h"
#include "scopedsm.h"
#include "scopedsm.hpp"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

const char* const kSchedules[] = {"static", "ss",  "bss",  "bss,5",     "gss",       "fs",  "tss",
                                  "afs",    "sss", "aafs", "abs,gss",   "abs,bss,3", "tss,9,2", "sss,0.5"};

// One page of data per iteration, homes in blocks of ceil(n/p) pages from
// rank 1 (so the homes do not simply follow rank order).
struct Data {
  std::byte* pages;
  size_t n;
  uint64_t& stamp(size_t i) const { return *reinterpret_cast<uint64_t*>(pages + i * page()); }
};

Data alloc_data(size_t n) {
  const size_t block = (n + static_cast<size_t>(nprocs()) - 1) / static_cast<size_t>(nprocs()) * page();
  return {static_cast<std::byte*>(scopedsm_alloc_cyclic(n * page(), block, nprocs() > 1 ? 1 : 0)), n};
}

// A random load: a few microseconds of sleep now and then.
void random_work(std::mt19937& rng) {
  if (rng() % 4 == 0) usleep(static_cast<useconds_t>(rng() % 40));
}

TEST(Loops, EveryScheduleRunsEveryIterationOnceUnderARandomLoad) {
  const long long first = 7, n = 150;
  auto* counts = static_cast<uint64_t*>(scopedsm_alloc(sizeof(uint64_t) * 64 * 64));
  std::mt19937 rng(static_cast<unsigned>(1000 + rank()));
  int s = 0;
  for (const char* schedule : kSchedules) {
    SCOPED_TRACE(schedule);
    // Fresh pages each time: with home migration on, the last loop's
    // writers became the homes of the pages they stamped.
    const Data data = alloc_data(static_cast<size_t>(n));
    scopedsm_loop_init(first, first + n, schedule, data.pages, page());
    long long b = 0, e = 0;
    uint64_t mine = 0;
    bool first_chunk = true;
    const uint64_t steals0 = counter("loop_steals");
    while (scopedsm_loop_next(&b, &e)) {
      ASSERT_GE(b, first);
      ASSERT_LT(b, e);
      ASSERT_LE(e, first + n);
      // The affinity schemes start on iterations homed here (unless others
      // had already taken all of them, and this first chunk was stolen).
      const std::string name = schedule;
      if (first_chunk && (name == "afs" || name == "aafs" || name.rfind("abs", 0) == 0) &&
          counter("loop_steals") == steals0) {
        EXPECT_EQ(scopedsm_home_of(&data.stamp(static_cast<size_t>(b - first))), rank()) << "chunk " << b;
      }
      first_chunk = false;
      for (long long i = b; i < e; ++i) {
        random_work(rng);
        data.stamp(static_cast<size_t>(i - first)) = static_cast<uint64_t>(s + 1);
        ++mine;
      }
    }
    EXPECT_EQ(b, first + n);
    EXPECT_EQ(e, first + n);
    counts[s * 64 + rank()] = mine;
    scopedsm_barrier();
    uint64_t total = 0;
    for (int r = 0; r < nprocs(); ++r) total += counts[s * 64 + r];
    EXPECT_EQ(total, static_cast<uint64_t>(n));  // none twice, with the stamps: each once
    for (size_t i = 0; i < data.n; ++i) ASSERT_EQ(data.stamp(i), static_cast<uint64_t>(s + 1)) << "iteration " << i;
    ++s;
  }
  EXPECT_GT(counter("loop_grabs"), 0u);
}

TEST(Loops, CxxAndJiajiaCallsCoverTheRange) {
  const int n = 97;
  auto* hits = static_cast<int32_t*>(scopedsm_alloc(sizeof(int32_t) * n));
  scopedsm::parallel_for(0, n, [&](long long i) { hits[i] += 1; }, "gss");
  scopedsm_barrier();
  for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << i;
  scopedsm_barrier();
  // JIAJIA: inclusive bounds, as in the dissertation's Fig 5.1.
  jia_settask(0, n - 1, "abs,bss,4", hits, sizeof(int32_t));
  int begin = 0, end = 0;
  while (jia_gettask(&begin, &end)) {
    ASSERT_LE(begin, end);
    for (int i = begin; i <= end; ++i) hits[i] += 1;
  }
  EXPECT_EQ(end, begin - 1);
  jia_barrier();
  for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i], 2) << i;
  // An empty loop hands out nothing.
  jia_settask(5, 4, "ss", nullptr, 0);
  EXPECT_EQ(jia_gettask(&begin, &end), 0);
  jia_barrier();
}

// With no schedule in code, SCOPEDSM_SCHEDULE decides (tests/CMakeLists.txt
// runs this with it unset and set to ss).
TEST(Loops, TheEnvironmentSelectsTheSchedule) {
  const char* env = std::getenv("SCOPEDSM_SCHEDULE");
  // OpenMP's dynamic is ss: one iteration per grab.
  const std::string want = env == nullptr ? "static" : std::string(env) == "dynamic" ? "ss" : env;
  ASSERT_TRUE(want == "static" || want == "ss") << "this test knows static, ss and dynamic";
  const long long n = 40;
  scopedsm_loop_init(0, n, nullptr, nullptr, 0);
  long long b = 0, e = 0;
  int chunks = 0;
  while (scopedsm_loop_next(&b, &e)) {
    ++chunks;
    const long long each = (n + nprocs() - 1) / nprocs();
    const long long expected = want == "ss" ? 1 : std::min(each, n - rank() * each);
    EXPECT_EQ(e - b, expected);
  }
  EXPECT_LE(chunks, want == "static" ? 1 : n);
  scopedsm_barrier();
  // A schedule in code overrides it.
  scopedsm_loop_init(0, n, "bss,8", nullptr, 0);
  while (scopedsm_loop_next(&b, &e)) EXPECT_EQ(e - b, 8);
  scopedsm_barrier();
}

// The affinity schemes steal when a process runs dry. Every process but 0
// takes one chunk (rank 0 waits for that) and then waits for rank 0, which
// is left to do all the rest: from its own queue, then by stealing from everyone else's. Without
// steals (SCOPEDSM_TEST_FAULT=no-steal) rank 0 stops after its own queue and
// the test fails.
class Steals : public testing::TestWithParam<const char*> {};

TEST_P(Steals, AnIdleProcessTakesTheWorkOfTheOthers) {
  const long long n = 48LL * nprocs();
  const Data data = alloc_data(static_cast<size_t>(n));
  scopedsm_loop_init(0, n, GetParam(), data.pages, page());
  const uint64_t steals0 = counter("loop_steals"), syncs0 = counter("loop_syncs"), grabs0 = counter("loop_grabs");
  long long b = 0, e = 0, mine = 0, calls = 0;
  char token = 0;
  if (rank() != 0) {
    ++calls;
    ASSERT_TRUE(scopedsm_loop_next(&b, &e));
    mine += e - b;
    scopedsm_send("r", 1, 0, 8);     // my first chunk is taken
    scopedsm_recv(&token, 1, 0, 9);  // rank 0 has taken everything else
  } else {
    for (int r = 1; r < nprocs(); ++r) scopedsm_recv(&token, 1, r, 8);
  }
  while (++calls, scopedsm_loop_next(&b, &e)) mine += e - b;
  if (rank() == 0)
    for (int r = 1; r < nprocs(); ++r) scopedsm_send("x", 1, r, 9);
  const uint64_t steals = counter("loop_steals") - steals0;
  if (rank() == 0 && nprocs() > 1) {
    EXPECT_GT(steals, 0u);
    EXPECT_GT(mine, n / nprocs());  // more than its own queue
  }
  if (rank() != 0) {
    EXPECT_EQ(calls, 2);  // the first chunk, then nothing was left
  }
  // Tab 5.2: at most p + 1 synchronizations per grab (AFS, AAFS); ABS: one
  // per grab, local or stolen, and per the last call that finds nothing.
  EXPECT_LE(counter("loop_syncs") - syncs0, static_cast<uint64_t>((nprocs() + 1) * calls));
  if (std::string(GetParam()).rfind("abs", 0) == 0) {
    EXPECT_EQ(counter("loop_syncs") - syncs0, static_cast<uint64_t>(calls));
    EXPECT_EQ(counter("loop_grabs") - grabs0, static_cast<uint64_t>(calls - 1));
  }
  auto* total = static_cast<long long*>(scopedsm_alloc(sizeof(long long) * 64));
  total[rank()] = mine;
  scopedsm_barrier();
  long long sum = 0;
  for (int r = 0; r < nprocs(); ++r) sum += total[r];
  EXPECT_EQ(sum, n);
}

INSTANTIATE_TEST_SUITE_P(Affinity, Steals, testing::Values("abs,gss", "abs,bss,4", "afs", "aafs"),
                         [](const testing::TestParamInfo<const char*>& param) {
                           std::string name;
                           for (const char* c = param.param; *c != '\0'; ++c) name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
                           return name;
                         });

}  // namespace
