// cache_policy: remote-aware cache replacement (SCOPEDSM_CACHE_POLICY=remote)
// against FIFO, with pages homed near and far and a cache smaller than the
// working set.
//
// The program splits the job into nodes of 2 processes (SCOPEDSM_NODE_PROCS
// =2, set before init), so rank 1 is rank 0's node peer (near: a page of it
// is a memory copy away) and rank 2 is on another node (far: a page is a
// one-sided read or a message away; across real hosts, or with
// SCOPEDSM_NET, a network round trip). Rank 0 reads F = cache/4 far pages
// then N = cache near pages per pass, every value checked, with no
// synchronization in between: F + N pages through `cache` slots. Under
// FIFO every read misses; remote-aware replacement keeps the far copies
// (they fit its victim part) and fetches only the near ones again.
//
// Measured: rank 0's microseconds per pass under remote-aware replacement.
// Baseline, same run: the same passes under FIFO. The policy is switched
// on rank 0 between rounds (scopedsm_test_set_cache_policy), rounds
// alternating, the pages cached staying. extra has the far and near fetches
// per pass under each. Each round starts from an empty cache (the homes
// rewrite their pages before it) and settles for --warmup passes.
//
//   cache_policy [--cache=64] [--reps=10] [--rounds=6] [--warmup=2]
// (--reps: passes per round; each policy gets --rounds/2 rounds)
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/test_hooks.h"
#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "cache_policy";

struct Fetches {
  uint64_t total = 0, near = 0;
};
Fetches fetches_now() {
  return {bench::runtime_counter(kName, "remote_fetches"), bench::runtime_counter(kName, "node_fetches")};
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options opt(argc, argv, {"cache", "reps", "rounds", "warmup"});
  const long cache = opt.integer("cache", 64);
  const size_t reps = static_cast<size_t>(opt.integer("reps", 10));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 6));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 2));
  if (!opt.ok()) bench::die(kName, opt.error());
  if (cache < 16 || cache > 4096) bench::die(kName, "--cache must be 16 to 4096 pages");
  if (reps == 0 || rounds < 2) bench::die(kName, "--reps must be positive and --rounds at least 2");
  const std::string cache_text = std::to_string(cache);
  if (const char* env = std::getenv("SCOPEDSM_CACHE_PAGES"); env != nullptr && cache_text != env)
    bench::die(kName, "SCOPEDSM_CACHE_PAGES=" + std::string(env) + " disagrees with --cache=" + cache_text);
  setenv("SCOPEDSM_CACHE_PAGES", cache_text.c_str(), 1);
  setenv("SCOPEDSM_NODE_PROCS", "2", 1);
  setenv("SCOPEDSM_FETCH_PAGES", "1", 1);  // one page per fault: the policy alone decides

  scopedsm_init(&argc, &argv);
  const int rank = scopedsm_rank();
  if (scopedsm_size() < 3) bench::die(kName, "needs at least 3 processes (rank 2 on another node)");
  const int reader = 0, near = 1, far = 2;
  const size_t ps = scopedsm_page_size();
  const size_t n_far = static_cast<size_t>(cache) / 4, n_near = static_cast<size_t>(cache);
  auto* f = static_cast<char*>(scopedsm_alloc_on(n_far * ps, far));
  auto* n = static_cast<char*>(scopedsm_alloc_on(n_near * ps, near));
  auto word = [](char* page) { return reinterpret_cast<volatile uint64_t*>(page); };
  if (rank == far)
    for (size_t p = 0; p < n_far; ++p) *word(f + p * ps) = p + 1;
  if (rank == near)
    for (size_t p = 0; p < n_near; ++p) *word(n + p * ps) = p + 1001;
  scopedsm_barrier();

  uint64_t wrong = 0, checked = 0;
  auto pass = [&]() -> double {
    const uint64_t t0 = bench::now_ns();
    for (size_t p = 0; p < n_far; ++p, ++checked) wrong += *word(f + p * ps) != p + 1;
    for (size_t p = 0; p < n_near; ++p, ++checked) wrong += *word(n + p * ps) != p + 1001;
    return bench::ns_to_us(bench::now_ns() - t0);
  };
  bench::Rounds remote_us, fifo_us;
  std::vector<double> far_per_pass[2], near_per_pass[2];  // [0] fifo, [1] remote
  scopedsm_stats_start();
  for (size_t r = 0; r < rounds; ++r) {
    const bool remote = r % 2 == 1;
    // Every round starts from an empty cache: the homes write their pages
    // again, and the barrier's notices invalidate rank 0's copies. (From an
    // arbitrary state FIFO can settle into a cycle with hits; from an empty
    // one, every read of 80 pages cycling through 64 slots misses.)
    if (rank == far)
      for (size_t p = 0; p < n_far; ++p) *word(f + p * ps) = p + 1;
    if (rank == near)
      for (size_t p = 0; p < n_near; ++p) *word(n + p * ps) = p + 1001;
    scopedsm_barrier();
    if (rank == reader) {
      scopedsm_test_set_cache_policy(remote ? "remote" : "fifo");
      for (size_t w = 0; w < warmup; ++w) pass();
      const Fetches before = fetches_now();
      std::vector<double> us;
      for (size_t i = 0; i < reps; ++i) us.push_back(pass());
      const Fetches after = fetches_now();
      const double near_fetched = static_cast<double>(after.near - before.near) / static_cast<double>(reps);
      const double all = static_cast<double>(after.total - before.total) / static_cast<double>(reps);
      far_per_pass[remote].push_back(all - near_fetched);
      near_per_pass[remote].push_back(near_fetched);
      (remote ? remote_us : fifo_us).add_round(std::move(us));
    }
    scopedsm_barrier();
  }
  scopedsm_stats_stop();
  scopedsm_barrier();
  const bench::Json stats = bench::gather_runtime_stats();
  if (rank == reader) {
    if (wrong != 0) bench::die(kName, std::to_string(wrong) + " reads saw the wrong value");
    auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x;
      return v.empty() ? 0.0 : s / static_cast<double>(v.size());
    };
    bench::Report report;
    report.bench = kName;
    report.procs = scopedsm_size();
    report.unit = "us/pass";
    report.reps = static_cast<long>(reps);
    report.rounds = static_cast<long>(rounds / 2);
    report.measured = remote_us;
    report.has_baseline = true;
    report.baseline_what = "the same passes under FIFO replacement, rounds alternating";
    report.baseline = fifo_us.all();
    report.target_ratio = 1.0;
    report.extra["cache_pages"] = static_cast<long long>(cache);
    report.extra["far_pages"] = static_cast<long long>(n_far);
    report.extra["near_pages"] = static_cast<long long>(n_near);
    report.extra["far_fetches_per_pass"] = {{"fifo", mean(far_per_pass[0])}, {"remote", mean(far_per_pass[1])}};
    report.extra["near_fetches_per_pass"] = {{"fifo", mean(near_per_pass[0])}, {"remote", mean(near_per_pass[1])}};
    report.extra["values_checked"] = static_cast<long long>(checked);
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
