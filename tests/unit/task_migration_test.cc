// Task migration's decision (runtime/task_migration.h): sigma/E of the
// compute times against beta, and new parts in proportion to power that
// tile the range.
#include "runtime/task_migration.h"

#include <gtest/gtest.h>

#include <vector>

namespace scopedsm {
namespace {

std::vector<int64_t> sizes(const TaskPlan& plan, int64_t begin, int64_t end) {
  std::vector<int64_t> out;
  int64_t at = begin;
  for (const TaskRange& r : plan.ranges) {
    EXPECT_EQ(r.begin, at);
    EXPECT_LE(r.begin, r.end);
    out.push_back(r.size());
    at = r.end;
  }
  EXPECT_EQ(at, end);
  return out;
}

TEST(TaskMigration, UnevenTimesMoveTasksInProportionToPower) {
  // Equal parts of 100, times 1 2 1 4: powers 25, 12.5, 25, 6.25.
  const TaskPlan plan = plan_task_migration({{0, 25}, {25, 50}, {50, 75}, {75, 100}}, {1, 2, 1, 4}, 0.2);
  EXPECT_TRUE(plan.migrate);
  EXPECT_NEAR(plan.ratio, 0.6124, 1e-3);  // E = 2, E(t^2) = 5.5: sigma = sqrt(1.5)
  EXPECT_EQ(sizes(plan, 0, 100), (std::vector<int64_t>{36, 18, 36, 10}));
}

TEST(TaskMigration, BetaDampsSmallDifferences) {
  // sigma/E = 0.1 / 1.0: under 0.2, no move; over 0.05, a move.
  const std::vector<TaskRange> parts{{10, 25}, {25, 40}};
  EXPECT_FALSE(plan_task_migration(parts, {0.9, 1.1}, 0.2).migrate);
  const TaskPlan moved = plan_task_migration(parts, {0.9, 1.1}, 0.05);
  EXPECT_TRUE(moved.migrate);
  EXPECT_EQ(sizes(moved, 10, 40), (std::vector<int64_t>{16, 14}));  // powers 1.1 : 0.9
  // Equal times: sigma is 0 whatever beta.
  EXPECT_FALSE(plan_task_migration(parts, {2, 2}, 0).migrate);
}

TEST(TaskMigration, AnEmptyPartComesBackWithTheMeanPower) {
  // Rank 1 had nothing (and took no time): it gets the others' mean power.
  const TaskPlan plan = plan_task_migration({{0, 30}, {30, 30}, {30, 60}}, {1, 0, 1}, 0.2);
  EXPECT_TRUE(plan.migrate);
  EXPECT_EQ(sizes(plan, 0, 60), (std::vector<int64_t>{20, 20, 20}));
}

TEST(TaskMigration, NothingToMoveInAnEmptyRange) {
  EXPECT_FALSE(plan_task_migration({{5, 5}, {5, 5}}, {0, 3}, 0.2).migrate);
}

}  // namespace
}  // namespace scopedsm
