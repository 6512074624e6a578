// The loop schedules' arithmetic (src/sched/schedule.h): the chunk sequences
// of the JIAJIA dissertation's Tab 5.1 (N = 400, p = 5), and that every
// scheme hands out every iteration exactly once, whatever order the
// processes come in.
#include "sched/schedule.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

namespace scopedsm {
namespace {

Schedule parsed(const std::string& text) {
  Schedule s;
  const Status st = parse_schedule(text, &s);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

// The first `count` chunks of a central queue (their sizes do not depend on
// which process takes them).
std::vector<int64_t> central_sizes(const std::string& text, size_t count) {
  const Schedule s = parsed(text);
  CentralQueue q = central_start(s, 0, 400, 5);
  std::vector<int64_t> sizes;
  Chunk c;
  while (sizes.size() < count && central_grab(s, 5, &q, &c)) sizes.push_back(c.size());
  return sizes;
}

// One process's local grabs from its own segment, nobody stealing.
std::vector<int64_t> local_sizes(const std::string& text, size_t count) {
  const Schedule s = parsed(text);
  std::vector<Segment> segs = affinity_segments(0, 400, 5, {});
  std::vector<int64_t> sizes;
  while (sizes.size() < count && segs[0].remaining() > 0) {
    double mean = 0;
    for (const Segment& g : segs) mean += static_cast<double>(g.taken) / 5;
    const Chunk c = take_front(&segs[0], local_chunk(s, 400, 5, segs[0], mean));
    segs[0].taken += c.size();
    sizes.push_back(c.size());
  }
  return sizes;
}

using Row = std::vector<int64_t>;

// Tab 5.1, transcribed from the dissertation (seed 003, "Table 5.1: Chunk
// Sizes of Different Scheduling Schemes"): the first ten chunks.
TEST(Schedule, Table51) {
  // Static: one block of ceil(N/p) per process.
  for (int r = 0; r < 5; ++r) EXPECT_EQ(static_block(0, 400, 5, r).size(), 80);
  EXPECT_EQ(central_sizes("ss", 10), Row(10, 1));
  EXPECT_EQ(central_sizes("bss,20", 10), Row(10, 20));
  EXPECT_EQ(central_sizes("bss", 10), Row(10, 20));  // the default K = N/4p
  EXPECT_EQ(central_sizes("gss", 10), (Row{80, 64, 51, 41, 33, 26, 21, 17, 13, 11}));
  EXPECT_EQ(central_sizes("fs", 10), (Row{40, 40, 40, 40, 40, 20, 20, 20, 20, 20}));
  EXPECT_EQ(central_sizes("tss", 10), (Row{40, 38, 36, 34, 32, 30, 28, 26, 24, 22}));
  EXPECT_EQ(central_sizes("sss", 10), (Row{72, 72, 72, 72, 72, 7, 7, 7, 7, 7}));
  // AFS: one process's local grabs (its queue holds ceil(N/p) = 80), as long
  // as nobody steals from it.
  EXPECT_EQ(local_sizes("afs", 10), (Row{16, 13, 11, 8, 7, 5, 4, 4, 3, 2}));
  // AAFS: "16, then variable": the first grab, every process at the mean.
  EXPECT_EQ(local_sizes("aafs", 1), (Row{16}));
  // ABS locally: GSS (R_i/P, the dissertation's evaluation) or BSS(K).
  EXPECT_EQ(local_sizes("abs", 10), (Row{16, 13, 11, 8, 7, 5, 4, 4, 3, 2}));
  EXPECT_EQ(local_sizes("abs,bss,20", 4), Row(4, 20));
}

TEST(Schedule, ParsesAndPrintsEveryScheme) {
  for (const char* text : {"static", "ss", "bss", "bss,7", "gss", "gss,3", "fs", "tss", "tss,9", "tss,9,2", "afs", "afs,3",
                           "sss", "sss,0.5", "aafs", "aafs,4", "abs,gss", "abs,gss,3", "abs,bss", "abs,bss,16"}) {
    const Schedule s = parsed(text);
    EXPECT_EQ(schedule_text(s), text);
  }
  EXPECT_EQ(schedule_text(parsed("abs")), "abs,gss");
  EXPECT_EQ(schedule_text(parsed("factoring")), "fs");
  Schedule s;
  for (const char* text : {"", "runtime", "bss,0", "bss,-1", "bss,x", "gss,0", "gss,2,3", "sss,1", "sss,0", "sss,",
                           "tss,2,3", "abs,tss", "abs,bss,4,5", "STATIC", "ss,"}) {
    const Status st = parse_schedule(text, &s);
    EXPECT_FALSE(st.ok()) << text;
  }
}

// OMP_SCHEDULE's spellings name the dissertation's schemes.
TEST(Schedule, OpenMPSpellings) {
  const std::pair<const char*, const char*> same[] = {
      {"static,4", "bss,4"}, {"dynamic,4", "bss,4"}, {"dynamic", "ss"}, {"guided", "gss"}, {"guided,5", "gss,5"},
      {"auto", "static"}, {"static", "static"}, {"monotonic:dynamic,4", "bss,4"}, {"nonmonotonic:guided", "gss"},
      {"monotonic:static", "static"}, {"nonmonotonic:ss", "ss"}};
  for (const auto& [omp, ours] : same) EXPECT_EQ(schedule_text(parsed(omp)), ours) << omp;
  Schedule s;
  for (const char* text : {"dynamic,0", "guided,x", "auto,4", "static,", "sometimes:dynamic", "monotonic:",
                           "monotonic:runtime", "dynamic,4,5"})
    EXPECT_FALSE(parse_schedule(text, &s).ok()) << text;
  // guided,K: GSS (Tab 5.1's 80, 64, 51, ...) until R/p falls below K, then
  // K, and the rest last.
  EXPECT_EQ(central_sizes("guided,20", 100), (Row{80, 64, 51, 41, 33, 26, 21, 20, 20, 20, 20, 4}));
  EXPECT_EQ(central_sizes("guided,1", 10), central_sizes("gss", 10));
}

TEST(Schedule, AffinitySegmentsFollowTheHomes) {
  // Rank 1 homes the first half, rank 0 the second: segments follow.
  std::vector<int> owner(10, 0);
  for (int i = 0; i < 5; ++i) owner[static_cast<size_t>(i)] = 1;
  std::vector<Segment> segs = affinity_segments(100, 110, 3, owner);
  EXPECT_EQ(segs[1].next, 100);
  EXPECT_EQ(segs[1].end, 105);
  EXPECT_EQ(segs[0].next, 105);
  EXPECT_EQ(segs[0].end, 110);
  EXPECT_EQ(segs[2].remaining(), 0);
  // Interleaved homes: the even blocks.
  segs = affinity_segments(0, 10, 2, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1});
  EXPECT_EQ(segs[0].end, 5);
  EXPECT_EQ(segs[1].next, 5);
}

// Hands out [begin, end) to p simulated processes that come in random order,
// each grab as the runtime makes it; returns how often each iteration was
// handed out and counts steals.
std::vector<int> simulate(const Schedule& s, int64_t begin, int64_t end, int p, std::mt19937& rng, int* steals) {
  std::vector<int> hits(static_cast<size_t>(std::max<int64_t>(0, end - begin)), 0);
  const auto mark = [&](const Chunk& c) {
    ASSERT_GE(c.begin, begin);
    ASSERT_LE(c.end, end);
    ASSERT_GT(c.size(), 0);
    for (int64_t i = c.begin; i < c.end; ++i) ++hits[static_cast<size_t>(i - begin)];
  };
  const int64_t n = end - begin;
  std::vector<bool> done(static_cast<size_t>(p), false);
  int active = p;
  CentralQueue q = central_start(s, begin, end, p);
  std::vector<Segment> segs = affinity_segments(begin, end, p, {});
  // Process 0 comes twice as often as the others: it empties its own
  // segment first, and steals.
  while (active > 0) {
    std::vector<int> live;
    for (int r = 0; r < p; ++r)
      if (!done[static_cast<size_t>(r)]) live.push_back(r);
    const int r = (rng() % 2 == 0 && !done[0]) ? 0 : live[rng() % live.size()];
    Chunk c;
    bool got = false;
    if (s.scheme == Scheme::kStatic) {
      c = static_block(begin, end, p, r);
      got = c.size() > 0;
      done[static_cast<size_t>(r)] = true;
      --active;
      if (got) mark(c);
      continue;
    }
    if (!is_affinity_scheme(s.scheme)) {
      got = central_grab(s, p, &q, &c);
    } else {
      Segment& own = segs[static_cast<size_t>(r)];
      double mean = 0;
      for (const Segment& g : segs) mean += static_cast<double>(g.taken) / p;
      if (own.remaining() > 0) {
        c = take_front(&own, local_chunk(s, n, p, own, mean));
        own.taken += c.size();
        got = true;
      } else if (const int v = most_loaded(segs.data(), p); v >= 0) {
        c = take_back(&segs[static_cast<size_t>(v)], steal_chunk(s, n, p, segs[static_cast<size_t>(v)].remaining()));
        ++*steals;
        got = true;
      }
    }
    if (got) {
      mark(c);
    } else {
      done[static_cast<size_t>(r)] = true;
      --active;
    }
  }
  return hits;
}

TEST(Schedule, EverySchemeHandsOutEveryIterationOnce) {
  std::mt19937 rng(12345);
  int steals = 0;
  for (const char* text : {"static", "ss", "bss", "bss,7", "gss", "fs", "tss", "tss,5,2", "afs", "sss", "sss,0.3",
                           "aafs", "abs,gss", "abs,bss", "abs,bss,3"}) {
    const Schedule s = parsed(text);
    for (int p : {1, 2, 3, 4, 5, 7, 8, 16}) {
      for (int64_t n : {0, 1, 2, 5, 17, 100, 399, 400, 1001}) {
        const int64_t begin = static_cast<int64_t>(rng() % 50) - 20;
        const std::vector<int> hits = simulate(s, begin, begin + n, p, rng, &steals);
        for (size_t i = 0; i < hits.size(); ++i)
          ASSERT_EQ(hits[i], 1) << text << " p=" << p << " n=" << n << " iteration " << begin + static_cast<int64_t>(i);
      }
    }
  }
  EXPECT_GT(steals, 0);  // the skewed order made idle processes steal
}

}  // namespace
}  // namespace scopedsm
