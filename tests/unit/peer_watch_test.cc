// PeerWatch (transport/peer_watch.h) without MPI: a watched process that
// exits is reported once it has been dead for the grace time, not before;
// one that sent its SHUTDOWN is not; a pid whose start time does not match
// what its owner published (another pid namespace, or a reused pid) is
// never watched.
#include "transport/peer_watch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

namespace scopedsm {
namespace {

// A child that sleeps until killed.
pid_t sleeper() {
  const pid_t pid = fork();
  if (pid == 0) {
    for (;;) pause();
  }
  return pid;
}

// Waits until /proc shows the child's start time (it is set at fork).
uint64_t start_of(pid_t pid) {
  uint64_t t = 0;
  for (int i = 0; i < 1000 && t == 0; ++i) {
    t = PeerWatch::start_ticks_of(pid);
    if (t == 0) usleep(1000);
  }
  return t;
}

void end(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

TEST(PeerWatch, ReportsAnExitedPeerOnlyAfterTheGraceTime) {
  const pid_t a = sleeper(), b = sleeper();
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  PeerWatch w;
  w.watch({{1, a, start_of(a)}, {2, b, start_of(b)}}, 3);
  ASSERT_EQ(w.watched(), 2u);
  EXPECT_EQ(w.dead_peer(1'000, 500), -1);  // both alive
  end(b);
  EXPECT_EQ(w.dead_peer(2'000, 500), -1);  // first seen dead now
  EXPECT_EQ(w.dead_peer(2'400, 500), -1);  // dead for less than the grace
  EXPECT_EQ(w.dead_peer(2'500, 500), 2);
  EXPECT_EQ(w.pid_of(2), b);
  end(a);
}

TEST(PeerWatch, APeerThatSentItsShutdownMayEnd) {
  const pid_t a = sleeper();
  PeerWatch w;
  w.watch({{1, a, start_of(a)}}, 2);
  w.finished(1);
  end(a);
  EXPECT_EQ(w.dead_peer(1'000, 0), -1);
  EXPECT_EQ(w.dead_peer(2'000, 0), -1);
}

TEST(PeerWatch, APidWhoseStartTimeDiffersIsNotWatched) {
  const pid_t a = sleeper();
  PeerWatch w;
  w.watch({{1, a, start_of(a) + 1}, {0, getpid(), 0}}, 2);  // a wrong start time; an unknown one
  EXPECT_EQ(w.watched(), 0u);
  end(a);
  EXPECT_EQ(w.dead_peer(1'000, 0), -1);
}

TEST(PeerWatch, ReadsItsOwnStartTime) {
  EXPECT_GT(PeerWatch::own_start_ticks(), 0u);
  EXPECT_EQ(PeerWatch::own_start_ticks(), PeerWatch::start_ticks_of(getpid()));
}

}  // namespace
}  // namespace scopedsm
