// cache_replacement: remote fetches caused by the page cache's replacement
// policy (first-in first-out), against the policy it replaced, on access
// patterns that need more remote pages than the cache holds.
//
// Rank 0 reads pages homed at rank 1 through a cache of --cache pages (the
// program sets SCOPEDSM_CACHE_PAGES). One iteration is:
//   cyclic  a pass over W = cache + cache/2 pages in order, with no
//           synchronization in between. No policy that evicts without
//           knowing the future keeps a page until its next use, so every
//           read misses: a control, where the two policies must tie.
//   reuse   rank 1 rewrites H = cache/4 hot pages under lock 0; then rank 0
//           takes lock 0 (its copies of the hot pages are invalidated),
//           reads the hot pages, reads S = cache/2 pages it never read
//           before, reads the hot pages again and unlocks. jia_wait orders
//           the ranks. H + S fit in the cache, so the second read of the hot
//           pages need not miss, unless the policy evicts what it has just
//           fetched into the slots the invalidation freed.
// Every value read is checked.
//
// Measured: rank 0's remote fetches per iteration in each round, from the
// runtime's counters (the record SCOPEDSM_STATS_FILE holds).
// Baseline, same run: rank 0's access trace of this run (its reads, and the
// invalidations its lock acquisitions make) replayed through the replaced
// policy (bench/proto/round_robin_cache.h) the way the coherence engine
// drives its cache: a free slot if there is one, else evict next_victim().
// The same replay through the runtime's own scopedsm::PageCache must give
// exactly the runtime's counts (extra.model_matches_runtime): that is what
// makes the baseline's counts those the replaced policy would have had.
// extra also has Belady's MIN (evict the page whose next use is furthest
// away) on the same trace, the time per iteration (rank 0: one pass, or lock
// to unlock) and the mean wait per fetch.
//
//   cache_replacement [--pattern=reuse|cyclic] [--cache=64] [--reps=20]
//                     [--rounds=5] [--warmup=10]
// (--reps: iterations per round)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/config.h"
#include "common/options.h"
#include "common/report.h"
#include "memory/page_cache.h"
#include "proto/round_robin_cache.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "cache_replacement";
constexpr uint32_t kNone = UINT32_MAX;
static_assert(scopedsm::kNoSlot == kNone && bench::proto::RoundRobinCache::kNoSlot == kNone);

// One step of rank 0's trace: a read of a page, or the invalidation of its
// copy (if it has one) by a write notice.
struct Event {
  uint64_t page;
  bool invalidate;
};

struct Counts {
  uint64_t fetches = 0;
  uint64_t evictions = 0;
  uint64_t invalidations = 0;
};

bench::Json counts_json(const Counts& c) {
  bench::Json j;
  j["remote_fetches"] = static_cast<long long>(c.fetches);
  j["evictions"] = static_cast<long long>(c.evictions);
  j["invalidations"] = static_cast<long long>(c.invalidations);
  return j;
}

// The trace, cut into segments: ends[k] is where segment k ends (segment 0
// is the warm-up, then one per round).
struct Trace {
  std::vector<Event> events;
  std::vector<size_t> ends;
  void read(uint64_t page) { events.push_back({page, false}); }
  void invalidate(uint64_t page) { events.push_back({page, true}); }
  void end_segment() { ends.push_back(events.size()); }
};

// Replays the trace as Coherence::obtain_slot / drop_copies use the cache.
// Returns the counts of each segment.
template <typename Cache>
std::vector<Counts> replay(Cache* cache, uint64_t capacity, const Trace& t) {
  std::unordered_map<uint64_t, uint32_t> slot_of;
  std::vector<uint64_t> page_in(capacity);
  std::vector<Counts> out(t.ends.size());
  size_t seg = 0;
  for (size_t i = 0; i < t.events.size(); ++i) {
    while (i >= t.ends[seg]) ++seg;
    const Event& e = t.events[i];
    auto it = slot_of.find(e.page);
    if (e.invalidate) {
      if (it == slot_of.end()) continue;
      cache->free(it->second);
      slot_of.erase(it);
      ++out[seg].invalidations;
      continue;
    }
    if (it != slot_of.end()) continue;  // a hit
    ++out[seg].fetches;
    uint32_t slot = cache->take_free();
    if (slot == kNone) {
      const uint32_t victim = cache->next_victim();
      slot_of.erase(page_in[victim]);
      cache->free(victim);
      ++out[seg].evictions;
      slot = cache->take_free();
    }
    cache->occupy(slot, e.page);
    page_in[slot] = e.page;
    slot_of.emplace(e.page, slot);
  }
  return out;
}

// Belady's MIN on the same trace: on a miss with a full cache, evict the
// page whose next read is furthest away. A copy whose next event is its
// invalidation (or that is never read again) is dead, so it goes first.
std::vector<Counts> belady_min(uint64_t capacity, const Trace& t) {
  constexpr size_t kNever = SIZE_MAX;
  const size_t n = t.events.size();
  std::vector<size_t> next_use(n, kNever);
  std::unordered_map<uint64_t, size_t> later;  // page -> index of its next event
  for (size_t i = n; i-- > 0;) {
    auto it = later.find(t.events[i].page);
    if (it != later.end() && !t.events[it->second].invalidate) next_use[i] = it->second;
    later[t.events[i].page] = i;
  }
  std::set<std::pair<size_t, uint64_t>> by_next_use;  // (next use, page) of resident pages
  std::unordered_map<uint64_t, size_t> key_of;
  std::vector<Counts> out(t.ends.size());
  size_t seg = 0;
  for (size_t i = 0; i < n; ++i) {
    while (i >= t.ends[seg]) ++seg;
    const Event& e = t.events[i];
    auto it = key_of.find(e.page);
    if (it != key_of.end()) by_next_use.erase({it->second, e.page});
    if (e.invalidate) {
      if (it != key_of.end()) {
        key_of.erase(it);
        ++out[seg].invalidations;
      }
      continue;
    }
    if (it == key_of.end()) {
      ++out[seg].fetches;
      if (key_of.size() == capacity) {
        auto victim = std::prev(by_next_use.end());
        key_of.erase(victim->second);
        by_next_use.erase(victim);
        ++out[seg].evictions;
      }
    }
    key_of[e.page] = next_use[i];
    by_next_use.insert({next_use[i], e.page});
  }
  return out;
}

Counts total_of_rounds(const std::vector<Counts>& segments) {
  Counts c;
  for (size_t k = 1; k < segments.size(); ++k) {
    c.fetches += segments[k].fetches;
    c.evictions += segments[k].evictions;
    c.invalidations += segments[k].invalidations;
  }
  return c;
}

std::vector<double> fetches_per_iteration(const std::vector<Counts>& segments, size_t reps) {
  std::vector<double> out;
  for (size_t k = 1; k < segments.size(); ++k)
    out.push_back(static_cast<double>(segments[k].fetches) / static_cast<double>(reps));
  return out;
}

// This process's counters since scopedsm_stats_start.
Counts runtime_counts() {
  return {bench::runtime_counter(kName, "remote_fetches"), bench::runtime_counter(kName, "evictions"),
          bench::runtime_counter(kName, "invalidations")};
}

}  // namespace

int main(int argc, char** argv) {
  // The cache size is the runtime's configuration: set it before init.
  bench::Options opt(argc, argv, {"pattern", "cache", "reps", "rounds", "warmup"});
  const std::string pattern = opt.text("pattern", "reuse");
  const long cache_opt = opt.integer("cache", 64);
  const size_t reps = static_cast<size_t>(opt.integer("reps", 20));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 5));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 10));
  if (!opt.ok()) bench::die(kName, opt.error());
  if (pattern != "reuse" && pattern != "cyclic") bench::die(kName, "--pattern must be reuse or cyclic");
  if (cache_opt < 8 || cache_opt > 4096) bench::die(kName, "--cache must be 8 to 4096 pages");
  if (reps == 0 || rounds == 0) bench::die(kName, "--reps and --rounds must be positive");
  const std::string cache_text = std::to_string(cache_opt);
  if (const char* env = std::getenv("SCOPEDSM_CACHE_PAGES"); env != nullptr && cache_text != env)
    bench::die(kName, "SCOPEDSM_CACHE_PAGES=" + std::string(env) + " disagrees with --cache=" + cache_text);
  setenv("SCOPEDSM_CACHE_PAGES", cache_text.c_str(), 1);

  scopedsm_init(&argc, &argv);
  const int rank = scopedsm_rank();
  if (scopedsm_size() < 2) bench::die(kName, "needs at least 2 processes");
  scopedsm::Config config;
  if (!scopedsm::parse_config(scopedsm::process_environment(), &config).ok() ||
      config.cache_pages != static_cast<uint64_t>(cache_opt))
    bench::die(kName, "the runtime's cache is not --cache pages");
  const uint64_t cache = config.cache_pages;
  const int reader = 0, home = 1;
  const size_t ps = scopedsm_page_size();
  const size_t iterations = warmup + reps * rounds;

  // cyclic: `pages` pages; reuse: `hot` hot pages and `stream` new pages per iteration.
  const size_t pages = cache + cache / 2, hot = cache / 4, stream = cache / 2;
  const bool cyclic = pattern == "cyclic";
  const size_t total = cyclic ? pages : hot + stream * iterations;
  auto* base = static_cast<char*>(scopedsm_alloc_cyclic(total * ps, total * ps, home));
  char* const stream_base = base + hot * ps;  // reuse: hot pages first
  if (scopedsm_home_of(base) != home || scopedsm_home_of(base + (total - 1) * ps) != home)
    bench::die(kName, "the pages are not homed at rank 1");
  auto word = [&](char* page) { return reinterpret_cast<volatile uint64_t*>(page); };
  if (rank == home)
    for (size_t p = 0; p < total; ++p) *word(base + p * ps) = p + 1;
  scopedsm_barrier();

  Trace trace;
  uint64_t wrong = 0, checked = 0;
  auto read = [&](char* page, uint64_t expected) {
    trace.read(static_cast<uint64_t>(page - base) / ps);
    if (*word(page) != expected) ++wrong;
    ++checked;
  };
  // One iteration; returns rank 0's microseconds for it.
  auto iteration = [&](size_t it) -> double {
    if (cyclic) {
      if (rank != reader) return 0;
      const uint64_t t0 = bench::now_ns();
      for (size_t p = 0; p < pages; ++p) read(base + p * ps, p + 1);
      return bench::ns_to_us(bench::now_ns() - t0);
    }
    const uint64_t value = 1000000 + it;
    if (rank == home) {
      scopedsm_lock(0);
      for (size_t h = 0; h < hot; ++h) *word(base + h * ps) = value;
      scopedsm_unlock(0);
    }
    scopedsm_wait();
    double us = 0;
    if (rank == reader) {
      const uint64_t t0 = bench::now_ns();
      scopedsm_lock(0);
      // The notices of rank 1's release name every hot page.
      for (size_t h = 0; h < hot; ++h) trace.invalidate(h);
      for (size_t h = 0; h < hot; ++h) read(base + h * ps, value);
      for (size_t s = 0; s < stream; ++s) {
        const size_t index = it * stream + s;
        read(stream_base + index * ps, hot + index + 1);
      }
      for (size_t h = 0; h < hot; ++h) read(base + h * ps, value);
      scopedsm_unlock(0);
      us = bench::ns_to_us(bench::now_ns() - t0);
    }
    scopedsm_wait();
    return us;
  };

  size_t it = 0;
  for (; it < warmup; ++it) iteration(it);
  trace.end_segment();
  scopedsm_wait();
  scopedsm_stats_start();
  bench::Rounds times, measured;
  Counts before;
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<double> us;
    for (size_t i = 0; i < reps; ++i, ++it) us.push_back(iteration(it));
    trace.end_segment();
    // Ranks other than rank 0 have nothing to do in a cyclic round: they
    // sleep in the runtime's wait meanwhile (no coherence action).
    scopedsm_wait();
    if (rank == reader) {
      const Counts now = runtime_counts();
      measured.add_round({static_cast<double>(now.fetches - before.fetches) / static_cast<double>(reps)});
      before = now;
      times.add_round(std::move(us));
    }
  }
  scopedsm_stats_stop();
  const Counts runtime = runtime_counts();
  const uint64_t fetch_wait_ns = bench::runtime_counter(kName, "t_fetch_wait_ns");
  const bench::Json stats = bench::gather_runtime_stats();

  if (rank == reader) {
    if (wrong != 0) bench::die(kName, std::to_string(wrong) + " reads saw the wrong value");
    scopedsm::PageCache fifo;
    if (!fifo.init(cache, ps).ok()) bench::die(kName, "cannot make a PageCache for the replay");
    bench::proto::RoundRobinCache round_robin(cache);
    const std::vector<Counts> mine = replay(&fifo, cache, trace);
    const std::vector<Counts> old = replay(&round_robin, cache, trace);
    const std::vector<Counts> best = belady_min(cache, trace);
    const Counts mine_total = total_of_rounds(mine);
    const bool matches = mine_total.fetches == runtime.fetches && mine_total.evictions == runtime.evictions &&
                         mine_total.invalidations == runtime.invalidations;
    if (!matches)
      std::fprintf(stderr, "%s: the replay through PageCache does not reproduce the runtime's counts\n", kName);

    bench::Report report;
    report.bench = std::string(kName) + "_" + pattern;
    report.procs = scopedsm_size();
    report.unit = "fetches/iteration";
    report.reps = static_cast<long>(reps);
    report.rounds = static_cast<long>(rounds);
    report.measured = measured;
    report.has_baseline = true;
    report.baseline_what = "round_robin_lifo (replaced policy) replaying this run's trace";
    report.baseline = bench::summarize(fetches_per_iteration(old, reps));
    report.target_ratio = 1.0;
    report.extra["pattern"] = pattern;
    report.extra["cache_pages"] = static_cast<long long>(cache);
    if (cyclic) {
      report.extra["pages"] = static_cast<long long>(pages);
    } else {
      report.extra["hot_pages"] = static_cast<long long>(hot);
      report.extra["stream_pages_per_iteration"] = static_cast<long long>(stream);
    }
    report.extra["values_checked"] = static_cast<long long>(checked);
    report.extra["runtime"] = counts_json(runtime);
    bench::Json model;
    model["page_cache"] = counts_json(mine_total);
    model["round_robin_lifo"] = counts_json(total_of_rounds(old));
    model["belady_min"] = counts_json(total_of_rounds(best));
    report.extra["replay"] = model;
    report.extra["model_matches_runtime"] = matches;
    report.extra["us_per_iteration"] = bench::summary_json(times.all());
    report.extra["us_per_fetch"] =
        runtime.fetches != 0 ? static_cast<double>(fetch_wait_ns) / 1e3 / static_cast<double>(runtime.fetches) : 0.0;
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
