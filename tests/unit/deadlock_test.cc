// The deadlock detector's logic (sync/deadlock.h): which reported waits can
// never end, the probe rounds that confirm the reports, and the line that
// names who waits for whom; and the blobs its messages carry
// (sync/deadlock_watch.h). No MPI.
#include "sync/deadlock.h"

#include <gtest/gtest.h>

#include "sync/deadlock_watch.h"

namespace scopedsm {
namespace {

WaitReport lock_wait(uint64_t seq, uint32_t lock, std::vector<uint32_t> held, uint32_t calls = 3) {
  WaitReport w;
  w.seq = seq;
  w.kind = WaitKind::kLock;
  w.id = lock;
  w.calls = calls;
  w.held = std::move(held);
  w.call = "jia_lock(" + std::to_string(lock) + ")";
  return w;
}

// Collective call number `number` (the process has entered number + 1).
WaitReport collective(uint64_t seq, uint32_t number, const char* call = "jia_barrier",
                      std::vector<uint32_t> held = {}) {
  WaitReport w;
  w.seq = seq;
  w.kind = WaitKind::kCollective;
  w.id = number;
  w.calls = number + 1;
  w.held = std::move(held);
  w.call = call;
  return w;
}

WaitReport cv_wait(uint64_t seq, uint32_t cv, uint32_t calls = 3, bool owes = false) {
  WaitReport w;
  w.seq = seq;
  w.kind = WaitKind::kCondvar;
  w.id = cv;
  w.calls = calls;
  w.owes = owes;
  w.call = "jia_waitcv(" + std::to_string(cv) + ")";
  return w;
}

std::vector<int> deadlocked(const std::vector<WaitReport>& r) { return DeadlockDetector::deadlocked(r, nullptr); }

TEST(Deadlock, TwoProcessesEachWaitingForTheOthersLock) {
  // Rank 0 holds 10 and wants 11; rank 1 holds 11 and wants 10.
  const std::vector<WaitReport> r = {lock_wait(1, 11, {10}), lock_wait(4, 10, {11})};
  EXPECT_EQ(deadlocked(r), (std::vector<int>{0, 1}));
  EXPECT_EQ(DeadlockDetector::describe(r, {0, 1}),
            "deadlock: rank 0 waits in jia_lock(11) held by rank 1, which waits in jia_lock(10) held by rank 0; none "
            "of them can proceed");
}

TEST(Deadlock, ACollectiveCallAgainstALockHeldInIt) {
  // Rank 1 holds lock 3 in jia_wait, its collective call 3, which rank 0
  // has not entered: it waits for lock 3.
  const std::vector<WaitReport> r = {lock_wait(2, 3, {}, 3), collective(7, 3, "jia_wait", {3})};
  EXPECT_EQ(deadlocked(r), (std::vector<int>{0, 1}));
  EXPECT_EQ(DeadlockDetector::describe(r, {0, 1}),
            "deadlock: rank 0 waits in jia_lock(3) held by rank 1, which waits in jia_wait for rank 0; none of them "
            "can proceed");
  // Through a third process: rank 1 waits at the barrier for rank 0, which
  // waits for lock 3, held by rank 2 in jia_wait (its call 3 too).
  const std::vector<WaitReport> three = {lock_wait(2, 3, {}, 3), collective(1, 3), collective(5, 3, "jia_wait", {3})};
  EXPECT_EQ(deadlocked(three), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(DeadlockDetector::describe(three, {0, 1, 2}),
            "deadlock: rank 0 waits in jia_lock(3) held by rank 2, which waits in jia_wait for rank 0; rank 1 waits in "
            "jia_barrier for rank 0; none of them can proceed");
}

TEST(Deadlock, AProcessThatComputesIsNeverPartOfOne) {
  // Ranks 1 and 2 wait at a barrier for rank 0, which reports nothing: it
  // computes (or waits for a page, which is never reported).
  EXPECT_TRUE(deadlocked({WaitReport{}, collective(1, 5), collective(1, 5)}).empty());
  // Rank 1 waits for a lock rank 0 holds while it computes; rank 2 waits at
  // the barrier for rank 1: everything hinges on rank 0, which may go on.
  EXPECT_TRUE(deadlocked({WaitReport{}, lock_wait(1, 4, {}, 5), collective(1, 5)}).empty());
}

TEST(Deadlock, AWaitForAFreeLockOrAHolderInAnotherWaitIsNone) {
  // Nobody reports holding lock 4: it is free, or its grant is on its way.
  EXPECT_TRUE(deadlocked({lock_wait(1, 4, {}), collective(1, 3)}).empty());
  // A collective call whose every other process has entered it completes.
  EXPECT_TRUE(deadlocked({collective(1, 3), collective(2, 3), collective(3, 3)}).empty());
  // A process already past call 3 (in call 4) does not hold call 3 back.
  EXPECT_TRUE(deadlocked({collective(1, 3), collective(2, 4, "jia_wait")}).empty());
}

TEST(Deadlock, ProcessesOnlyWaitingForTheDeadlockedAreNamedAfterTheCycle) {
  // Ranks 1 and 2 deadlock on locks 10 and 11; rank 0 waits at the barrier
  // for both, rank 3 for lock 10 as well.
  const std::vector<WaitReport> r = {collective(1, 3), lock_wait(1, 11, {10}, 3), lock_wait(1, 10, {11}, 3),
                                     lock_wait(1, 10, {}, 3)};
  const std::vector<int> d = deadlocked(r);
  EXPECT_EQ(d, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(DeadlockDetector::describe(r, d),
            "deadlock: rank 1 waits in jia_lock(11) held by rank 2, which waits in jia_lock(10) held by rank 1; rank 0 "
            "waits in jia_barrier for ranks 1, 2, 3; rank 3 waits in jia_lock(10) held by rank 1; none of them can "
            "proceed");
}

TEST(Deadlock, AConditionVariableNobodyCanSetWhileEveryOtherProcessWaits) {
  const std::vector<WaitReport> r = {collective(1, 3), collective(1, 3), cv_wait(1, 1, 3)};
  EXPECT_EQ(deadlocked(r), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(DeadlockDetector::describe(r, {0, 1, 2}),
            "deadlock: rank 0 waits in jia_barrier for rank 2, which waits in jia_waitcv(1) for another process to "
            "set it; rank 1 waits in jia_barrier for rank 2; none of them can proceed");
  // One process not waiting could set it.
  EXPECT_TRUE(deadlocked({WaitReport{}, collective(1, 3), cv_wait(1, 1, 3)}).empty());
  // One that still owes acknowledgements may have a SETCV on its way.
  std::vector<WaitReport> owing = r;
  owing[1].owes = true;
  EXPECT_TRUE(deadlocked(owing).empty());
  // The waiter's own debts do not matter: its SETCVs to the variable's home
  // arrive before its WAITCV.
  std::vector<WaitReport> waiter_owes = r;
  waiter_owes[2].owes = true;
  EXPECT_EQ(deadlocked(waiter_owes), (std::vector<int>{0, 1, 2}));
}

TEST(Deadlock, AConditionVariableWaitNeedsItsHomesWord) {
  const std::vector<WaitReport> r = {collective(1, 3), cv_wait(1, 1, 3)};
  const std::vector<CvQueued> queued = {{1, 1}};
  EXPECT_EQ(DeadlockDetector::deadlocked(r, &queued), (std::vector<int>{0, 1}));
  // Not queued (set meanwhile: its grant has left), or queued on another one.
  const std::vector<CvQueued> none, other = {{2, 1}}, other_rank = {{1, 0}};
  EXPECT_TRUE(DeadlockDetector::deadlocked(r, &none).empty());
  EXPECT_TRUE(DeadlockDetector::deadlocked(r, &other).empty());
  EXPECT_TRUE(DeadlockDetector::deadlocked(r, &other_rank).empty());
}

TEST(Deadlock, ASingleProcessWaitingOnAConditionVariable) {
  const std::vector<WaitReport> r = {cv_wait(1, 2)};
  EXPECT_EQ(deadlocked(r), std::vector<int>{0});
  EXPECT_EQ(DeadlockDetector::describe(r, {0}),
            "deadlock: rank 0 waits in jia_waitcv(2), which only another process could set, and there is none; it can "
            "never proceed");
}

// The probe rounds (deadlock.h): a deadlock is declared only on answers that
// confirm every report it rests on.
TEST(DeadlockRounds, ConfirmedReportsEndInTheLine) {
  DeadlockDetector d(2);
  d.report(0, lock_wait(5, 11, {10}));
  EXPECT_FALSE(d.candidate()) << "one wait alone";
  d.report(1, lock_wait(9, 10, {11}));
  ASSERT_TRUE(d.candidate());
  const uint64_t round = d.start_round();
  EXPECT_TRUE(d.probing());
  EXPECT_FALSE(d.answer(1, round, 9, {}));
  EXPECT_FALSE(d.answer(1, round, 9, {})) << "a second answer is ignored";
  EXPECT_FALSE(d.answer(0, round + 1, 5, {})) << "an answer to another round is ignored";
  EXPECT_TRUE(d.answer(0, round, 5, {}));
  const auto line = d.finish_round();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line,
            "deadlock: rank 0 waits in jia_lock(11) held by rank 1, which waits in jia_lock(10) held by rank 0; none "
            "of them can proceed");
  EXPECT_FALSE(d.probing());
}

TEST(DeadlockRounds, AWaitThatHasEndedIsNoDeadlockAndItsReportGoes) {
  // Rank 1's grant was on its way: by its answer it is in another wait (or
  // none). Its report goes, and with it the candidate.
  for (uint64_t now : {uint64_t{0}, uint64_t{10}}) {
    DeadlockDetector d(2);
    d.report(0, lock_wait(5, 11, {10}));
    d.report(1, lock_wait(9, 10, {11}));
    const uint64_t round = d.start_round();
    d.answer(0, round, 5, {});
    ASSERT_TRUE(d.answer(1, round, now, {}));
    EXPECT_FALSE(d.finish_round().has_value());
    EXPECT_FALSE(d.candidate());
  }
}

TEST(DeadlockRounds, AConditionVariableWhoseHomeNoLongerQueuesTheWaiter) {
  DeadlockDetector d(2);
  d.report(0, collective(3, 3));
  d.report(1, cv_wait(4, 1, 3));
  ASSERT_TRUE(d.candidate());
  uint64_t round = d.start_round();
  d.answer(0, round, 3, {});
  ASSERT_TRUE(d.answer(1, round, 4, {}));  // rank 1, cv 1's home, queues nobody: the grant has left
  EXPECT_FALSE(d.finish_round().has_value());
  EXPECT_FALSE(d.candidate()) << "the condition-variable wait's report went";
  // Reported again and queued at its home this time: a deadlock.
  d.report(1, cv_wait(4, 1, 3));
  round = d.start_round();
  d.answer(0, round, 3, {});
  ASSERT_TRUE(d.answer(1, round, 4, {CvQueued{1, 1}}));
  EXPECT_TRUE(d.finish_round().has_value());
}

TEST(DeadlockRounds, AReportDuringARoundVoidsIt) {
  DeadlockDetector d(2);
  d.report(0, lock_wait(5, 11, {10}));
  d.report(1, lock_wait(9, 10, {11}));
  const uint64_t round = d.start_round();
  d.answer(0, round, 5, {});
  d.report(0, lock_wait(6, 11, {10}));  // its answer may predate this wait
  ASSERT_TRUE(d.answer(1, round, 9, {}));
  EXPECT_FALSE(d.finish_round().has_value()) << "a voided round proves nothing";
  EXPECT_TRUE(d.candidate()) << "and drops nothing: a new round is due";
}

TEST(DeadlockRounds, TheEndOfAReportedWaitTakesItsReport) {
  DeadlockDetector d(2);
  d.report(0, lock_wait(5, 11, {10}));
  d.report(1, lock_wait(9, 10, {11}));
  d.done(1, 8);  // an older wait's end
  EXPECT_TRUE(d.candidate());
  d.done(1, 9);
  EXPECT_FALSE(d.candidate());
}

TEST(DeadlockWatch, PacksAndChecksTheLockAndWaiterLists) {
  const Limits limits{0, 3, 100, 8};
  std::vector<uint32_t> locks;
  EXPECT_TRUE(DeadlockWatch::unpack_locks(DeadlockWatch::pack_locks({7, 0, 99}), limits, &locks));
  EXPECT_EQ(locks, (std::vector<uint32_t>{7, 0, 99}));
  EXPECT_FALSE(DeadlockWatch::unpack_locks(DeadlockWatch::pack_locks({100}), limits, &locks)) << "past the locks";
  std::vector<std::byte> odd = DeadlockWatch::pack_locks({1});
  odd.pop_back();
  EXPECT_FALSE(DeadlockWatch::unpack_locks(odd, limits, &locks)) << "not whole ids";

  std::vector<CvQueued> queued;
  EXPECT_TRUE(DeadlockWatch::unpack_queued(DeadlockWatch::pack_queued({{7, 2}, {0, 0}}), limits, &queued));
  EXPECT_EQ(queued, (std::vector<CvQueued>{{7, 2}, {0, 0}}));
  EXPECT_FALSE(DeadlockWatch::unpack_queued(DeadlockWatch::pack_queued({{8, 0}}), limits, &queued)) << "cv 8";
  EXPECT_FALSE(DeadlockWatch::unpack_queued(DeadlockWatch::pack_queued({{1, 3}}), limits, &queued)) << "rank 3";
  EXPECT_FALSE(DeadlockWatch::unpack_queued(DeadlockWatch::pack_queued({{1, -1}}), limits, &queued)) << "rank -1";
  std::vector<std::byte> short_pair = DeadlockWatch::pack_queued({{1, 1}});
  short_pair.pop_back();
  EXPECT_FALSE(DeadlockWatch::unpack_queued(short_pair, limits, &queued));
}

}  // namespace
}  // namespace scopedsm
