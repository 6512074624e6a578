#include "runtime/task_migration.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

namespace {

constexpr int64_t kAlphaWithoutSetup = 10;  // a tenth of the dissertation's 100 iterations
constexpr int kHomeBarriers = 2;            // barriers under HMIG after a reassignment

// One process's report at a measuring call.
struct Report {
  int64_t begin;
  int64_t end;
  double seconds;
};

// A range as the caller's surface writes it: [b, e) or JIAJIA's [b, e - 1].
std::string range_text(TaskRange r, bool inclusive) {
  char buf[96];
  if (inclusive) std::snprintf(buf, sizeof buf, "[%" PRId64 ", %" PRId64 "]", r.begin, r.end - 1);
  else std::snprintf(buf, sizeof buf, "[%" PRId64 ", %" PRId64 ")", r.begin, r.end);
  return buf;
}

}  // namespace

TaskPlan plan_task_migration(const std::vector<TaskRange>& ranges, const std::vector<double>& seconds, double beta) {
  TaskPlan plan;
  plan.ranges = ranges;
  const size_t p = ranges.size();
  if (p == 0) return plan;
  double sum = 0, sum_sq = 0;
  for (double t : seconds) {
    sum += t;
    sum_sq += t * t;
  }
  const double mean = sum / static_cast<double>(p);
  const double var = std::max(0.0, sum_sq / static_cast<double>(p) - mean * mean);
  plan.ratio = mean > 0 ? std::sqrt(var) / mean : 0;
  const int64_t first = ranges.front().begin, n = ranges.back().end - first;
  if (!(plan.ratio > beta) || n <= 0) return plan;
  // Power: tasks per second. A process with no tasks showed none; it gets
  // the mean power of the others, so that it is not left out for good.
  std::vector<double> power(p, 0.0);
  double measured = 0;
  size_t with_tasks = 0;
  for (size_t i = 0; i < p; ++i) {
    if (ranges[i].size() == 0) continue;
    power[i] = static_cast<double>(ranges[i].size()) / std::max(seconds[i], 1e-6);
    measured += power[i];
    ++with_tasks;
  }
  for (size_t i = 0; i < p; ++i)
    if (ranges[i].size() == 0) power[i] = measured / static_cast<double>(with_tasks);
  long double total = 0;
  for (double w : power) total += w;
  // Process j's range runs from n * (power before j) / total to n * (power
  // up to j) / total, rounded down; the last ends at the end exactly.
  long double before = 0;
  int64_t bound = first;
  for (size_t i = 0; i < p; ++i) {
    before += power[i];
    const int64_t next = i + 1 == p ? first + n
                                    : std::min(first + n, first + static_cast<int64_t>(std::floor(
                                                                      static_cast<long double>(n) * before / total)));
    plan.ranges[i] = {bound, std::max(bound, next)};
    bound = plan.ranges[i].end;
  }
  plan.migrate = true;
  return plan;
}

TaskMigrator::TaskMigrator(int rank, TaskMigrationMode mode, int64_t alpha, double beta, bool never_reassign)
    : rank_(rank),
      mode_(mode),
      setting_alpha_(alpha),
      setting_beta_(beta),
      never_reassign_(never_reassign),
      alpha_(alpha > 0 ? alpha : kAlphaWithoutSetup),
      beta_(beta) {}

void TaskMigrator::start_interval(const AppCounters& stats) {
  interval_start_ns_ = now_ns();
  interval_syn_ns_ = stats.t_syn_ns;
}

double TaskMigrator::interval_seconds(const AppCounters& stats, int64_t tasks) const {
  if (test_task_cost_ >= 0) return test_task_cost_ * static_cast<double>(tasks);
  const uint64_t elapsed = now_ns() - interval_start_ns_;
  const uint64_t waited = stats.t_syn_ns - interval_syn_ns_;
  return elapsed > waited ? static_cast<double>(elapsed - waited) / 1e9 : 0.0;
}

void TaskMigrator::setup(SyncClient& sync, AppCounters& stats, ApiCall call, int64_t iterations, int64_t alpha,
                         double beta) {
  if (iterations < 1) fatal("%s(iterations=%" PRId64 "): the iterations must be 1 or more", call.name, iterations);
  if (!(beta == beta) || std::isinf(beta))
    fatal("%s(beta=%g): beta must be a number (negative: the setting)", call.name, beta);
  alpha_ = alpha > 0 ? alpha : setting_alpha_ > 0 ? setting_alpha_ : std::max<int64_t>(1, iterations / 10);
  beta_ = beta >= 0 ? beta : setting_beta_;
  char text[160];
  std::snprintf(text, sizeof text, "%s(iterations=%" PRId64 ", alpha=%" PRId64 ", beta=%g)", call.name, iterations,
                alpha_, beta_);
  sync.collective(text, {});
  started_ = true;
  calls_ = 0;
  home_barriers_ = 0;
  start_interval(stats);
}

bool TaskMigrator::lbarrier(SyncClient& sync, Config& config, AppCounters& stats, ApiCall call, int64_t* begin,
                            int64_t* end, bool inclusive) {
  if (begin == nullptr || end == nullptr) fatal("%s: begin and end must not be null", call.name);
  const TaskRange mine{*begin, *end};
  if (mine.end < mine.begin)
    fatal("%s: this process's range %s is reversed (an empty range is %s)", call.name,
          range_text(mine, inclusive).c_str(), inclusive ? "end = begin - 1" : "end = begin");
  if (mode_ == TaskMigrationMode::kOff) {
    sync.barrier(call);
    return false;
  }
  if (!started_) {
    // Without a setup the first call starts counting and measuring.
    started_ = true;
    calls_ = 0;
    sync.barrier(call);
    start_interval(stats);
    return false;
  }
  ++calls_;
  const bool measuring = calls_ % alpha_ == 0;
  bool changed = false, decided = false;
  if (measuring) {
    const Report r{mine.begin, mine.end, interval_seconds(stats, mine.size())};
    std::vector<std::byte> blob(sizeof r);
    std::memcpy(blob.data(), &r, sizeof r);
    char text[160];
    std::snprintf(text, sizeof text, "%s (task migration: call %" PRId64 ", alpha=%" PRId64 ", beta=%g)", call.name,
                  calls_, alpha_, beta_);
    const uint64_t t0 = now_ns();
    const auto all = sync.collective(text, blob, true);
    stats.t_syn_ns += now_ns() - t0;
    std::vector<TaskRange> ranges(all.size());
    std::vector<double> seconds(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      Report got{};
      if (all[i].size() != sizeof got || all.size() <= static_cast<size_t>(rank_)) fatal("protocol error: %s: malformed report from rank %zu", call.name, i);
      std::memcpy(&got, all[i].data(), sizeof got);
      ranges[i] = {got.begin, got.end};
      seconds[i] = got.seconds;
      if (i > 0 && ranges[i].begin != ranges[i - 1].end)
        fatal("%s: the processes' ranges do not follow each other in rank order: rank %zu's %s, then rank %zu's %s; "
              "pass every process's own part of one range, as the previous %s returned it",
              call.name, i - 1, range_text(ranges[i - 1], inclusive).c_str(), i,
              range_text(ranges[i], inclusive).c_str(), call.name);
    }
    const TaskPlan plan = plan_task_migration(ranges, seconds, beta_);
    if (plan.migrate) {
      ++stats.taskmig_decisions;
      decided = true;
      if (!never_reassign_) {
        const TaskRange next = plan.ranges[static_cast<size_t>(rank_)];
        const int64_t kept = std::max<int64_t>(0, std::min(next.end, mine.end) - std::max(next.begin, mine.begin));
        stats.taskmig_moved += static_cast<uint64_t>(next.size() - kept);
        changed = next.begin != mine.begin || next.end != mine.end;
        *begin = next.begin;
        *end = next.end;
      }
    }
  }
  if (home_barriers_ > 0) {
    // An iteration after a reassignment is over: the pages each process
    // wrote alone in it move to it at this barrier (HMIG for this barrier).
    // Two barriers do it: a page its old home wrote untrapped (adaptive
    // write detection) while the new owner took its copy counts the old
    // home as a writer at the first (PROTOCOL.md §6a), not at the second.
    const bool was = config.home_migration;
    const uint64_t gained = stats.homes_gained;
    config.home_migration = true;
    sync.barrier(call);
    config.home_migration = was;
    stats.taskmig_rehomed += stats.homes_gained - gained;
    --home_barriers_;
  } else {
    sync.barrier(call);
  }
  if (decided && mode_ == TaskMigrationMode::kData) home_barriers_ = kHomeBarriers;
  if (measuring) start_interval(stats);
  return changed;
}

}  // namespace scopedsm
