// jia_lbarrier: dynamic task migration (the JIAJIA dissertation's chapter 6;
// digest seed-003 §5.8, docs/SCHEDULING.md "Task migration").
//
// An iterative program gives each process a contiguous range of tasks and
// ends every iteration with jia_lbarrier(&begin, &end) instead of a barrier.
// Every alpha-th call measures: each process reports the seconds it computed
// since the previous measurement (wall time less synchronization, as
// jia_loadcheck measures them) and its range, in one checked collective
// exchange (COLL, to all); every process then decides alike. When the
// coefficient of variation of the seconds, sigma/E, exceeds beta, the ranges
// are reassigned, contiguous and in rank order, in proportion to each
// process's power (tasks over seconds). The two calls after a reassignment
// (data mode) end with their barriers under home migration (HMIG,
// docs/PROTOCOL.md §6a), so the pages the new owners wrote alone in those
// iterations become theirs.
#pragma once

#include <cstdint>
#include <vector>

#include "common/surface.h"
#include "common/config.h"
#include "stats/stats.h"
#include "sync/sync_client.h"

namespace scopedsm {

enum class TaskMigrationMode { kOff, kCompute, kData };

// A half-open range of task indices, [begin, end).
struct TaskRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
};

struct TaskPlan {
  double ratio = 0;  // sigma/E of the seconds (0 when every process reported none)
  bool migrate = false;
  std::vector<TaskRange> ranges;  // the new ranges (the old ones when !migrate)
};

// The decision of a measuring call, from every process's range (tiling one
// range in rank order) and seconds: sigma/E over the seconds against beta,
// and the ranges proportional to power (size / seconds; seconds below a
// microsecond count as one). A process whose range is empty has no power
// measured and keeps an equal share's weight of the mean power, so that it
// can come back.
TaskPlan plan_task_migration(const std::vector<TaskRange>& ranges, const std::vector<double>& seconds, double beta);

// One process's task migration state. Thread owner: the application thread.
class TaskMigrator {
 public:
  // `alpha`, `beta`: the settings (alpha 0: a tenth of the iterations
  // setup names, or 10 without a setup). `never_reassign`: the test fault
  // no-task-migration (decisions are counted but never applied).
  TaskMigrator(int rank, TaskMigrationMode mode, int64_t alpha, double beta, bool never_reassign);

  // Collective (checked): the number of iterations the program will run
  // (alpha defaults to a tenth of it), and alpha and beta themselves (alpha
  // <= 0, beta < 0: the settings). Starts counting calls and the first
  // measured interval.
  void setup(SyncClient& sync, AppCounters& stats, ApiCall call, int64_t iterations, int64_t alpha, double beta);
  // jia_lbarrier: a barrier; on a measuring call, first the exchange and
  // the decision. [*begin, *end) is this process's range, replaced by its
  // new one. `inclusive`: the caller's surface writes ranges as JIAJIA's
  // [begin, end] (for messages). True when the range changed.
  // `config`: the runtime's settings, whose home migration switch
  // (Config::home_migration) it turns on for the barriers after a
  // reassignment.
  bool lbarrier(SyncClient& sync, Config& config, AppCounters& stats, ApiCall call, int64_t* begin, int64_t* end,
                bool inclusive);

  TaskMigrationMode mode() const { return mode_; }
  // Tests: from now on a measuring call reports `seconds` per task of this
  // process's range instead of the measured seconds (negative: measure).
  void set_test_task_cost(double seconds) { test_task_cost_ = seconds; }

 private:
  void start_interval(const AppCounters& stats);
  double interval_seconds(const AppCounters& stats, int64_t tasks) const;

  const int rank_;
  const TaskMigrationMode mode_;
  const int64_t setting_alpha_;  // SCOPEDSM_TASK_MIGRATION_ALPHA (0: a tenth of the iterations, or 10)
  const double setting_beta_;
  const bool never_reassign_;
  int64_t alpha_;
  double beta_;
  bool started_ = false;      // setup or the first call started counting
  int64_t calls_ = 0;         // calls since the start
  int home_barriers_ = 0;     // the next calls whose barriers move homes (data mode)
  uint64_t interval_start_ns_ = 0;
  uint64_t interval_syn_ns_ = 0;
  double test_task_cost_ = -1;
};

}  // namespace scopedsm
