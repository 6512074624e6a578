// Failure handling: a process of a running job dies (SIGKILL), returns from
// main or calls exit() without jia_exit, stops forever inside a lock, or the
// processes deadlock. Each case runs victim.c on 3 processes under the MPI
// launcher, in a process group of its own, with SCOPEDSM_TIMEOUT unset (no
// limit, the default) unless the case sets it, and checks that
//   - the victim really failed at the chosen point (its VICTIM line);
//   - the launcher ends with a non-zero status;
//   - no other process ended normally (victim.c prints FINISHED right
//     before the only `return 0`), so every other process exited non-zero;
//   - the output names the lost rank (the launcher's "process rank N ...
//     exited on signal 9", or ScopeDSM's own report naming the rank);
//   - within 10 s of the failure the launcher has exited and no process of
//     the job is left (every PID the job printed, and every process whose
//     command line carries this run's tag, scanned in /proc);
//   - ScopeDSM left no file behind in /dev/shm (it shares memory through
//     memfds only, which the kernel frees with their last user; Open MPI's
//     own vader segments of a killed job are MPI's and not checked).
// A long serial phase, on the other hand, must not end the job without a
// limit, and must end it, naming who waits for whom, with one.
#include <gtest/gtest.h>
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Processes still alive (not zombies) among `pids` or whose command line
// contains `tag`.
std::vector<std::string> survivors(const std::vector<long>& pids, const std::string& tag) {
  std::vector<std::string> alive;
  auto state_of = [](long pid) {
    std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
    std::string s;
    std::getline(st, s);
    auto close = s.rfind(')');
    return close == std::string::npos || close + 2 >= s.size() ? '?' : s[close + 2];
  };
  for (long pid : pids) {
    const char st = state_of(pid);
    if (st != '?' && st != 'Z') alive.push_back("pid " + std::to_string(pid) + " (state " + st + ")");
  }
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      const long pid = std::strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
      std::ifstream cl(std::string("/proc/") + e->d_name + "/cmdline");
      std::string cmd((std::istreambuf_iterator<char>(cl)), std::istreambuf_iterator<char>());
      if (cmd.find(tag) == std::string::npos) continue;
      const char st = state_of(pid);
      if (st == '?' || st == 'Z') continue;
      for (char& ch : cmd)
        if (ch == '\0') ch = ' ';
      alive.push_back("pid " + std::to_string(pid) + " (" + cmd + ")");
    }
    closedir(d);
  }
  return alive;
}

// Files of ScopeDSM's in /dev/shm (any name containing "scopedsm").
std::vector<std::string> scopedsm_files_in_dev_shm() {
  std::vector<std::string> found;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).find("scopedsm") != std::string::npos) found.push_back(e->d_name);
    closedir(d);
  }
  return found;
}

struct Outcome {
  int status = 0;
  std::string output;
  bool failed_at_point = false;  // the VICTIM line was seen
  double launcher_exit_after = -1;  // seconds from the VICTIM line to the launcher's exit
  double all_gone_after = -1;       // seconds from the VICTIM line until no process of the job is left
  std::vector<std::string> left_over;
  bool killed_by_us = false;
};

Outcome run_case(const std::string& name, int victim, const std::vector<std::string>& env_extra, double limit_s = 90) {
  static int serial = 0;
  const std::string tag = "scopedsm-failure-" + std::to_string(getpid()) + "-" + std::to_string(++serial);
  std::vector<std::string> args = {SCOPEDSM_MPIEXEC, "-n", "3"};
  static const char* const kFlags[] = {SCOPEDSM_MPIEXEC_FLAGS nullptr};
  for (const char* const* f = kFlags; *f; ++f) args.emplace_back(*f);
  for (const std::string& a : {std::string(FAILURE_VICTIM), name, std::to_string(victim), tag}) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Each variable once (launchers differ in which duplicate wins): the
  // case's own, then the driver's, then the inherited environment's, but
  // for SCOPEDSM_TIMEOUT, which only the case sets: without it the job runs
  // at the default, no limit.
  std::vector<std::string> env;
  auto add = [&env](const std::string& entry) {
    const std::string key = entry.substr(0, entry.find('=') + 1);
    for (const auto& e : env)
      if (e.compare(0, key.size(), key) == 0) return;
    env.push_back(entry);
  };
  for (const std::string& e : env_extra) add(e);
  for (const char* e : {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "SCOPEDSM_SUMMARY=off"}) add(e);
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "SCOPEDSM_TIMEOUT=", 17) != 0) add(*e);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int fd[2];
  EXPECT_EQ(pipe(fd), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const auto start = Clock::now();
  EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data()), 0);
  close(fd[1]);

  Outcome out;
  std::mutex mu;
  std::atomic<bool> victim_seen{false};
  Clock::time_point victim_at{};
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(fd[0], buf, sizeof buf)) > 0) {
      std::lock_guard<std::mutex> lock(mu);
      out.output.append(buf, static_cast<size_t>(n));
      if (!victim_seen && out.output.find("VICTIM rank") != std::string::npos) {
        victim_at = Clock::now();
        victim_seen = true;
      }
    }
  });
  for (;;) {
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      out.status = st;
      break;
    }
    if (since(start) > limit_s && !out.killed_by_us) {
      kill(-pid, SIGKILL);
      out.killed_by_us = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto launcher_done = Clock::now();
  // The job's PIDs, as printed.
  std::vector<long> pids;
  {
    std::lock_guard<std::mutex> lock(mu);
    std::regex re("PID [0-9]+ ([0-9]+)");
    for (std::sregex_iterator it(out.output.begin(), out.output.end(), re), e; it != e; ++it)
      pids.push_back(std::stol((*it)[1]));
  }
  // Wait for the job's processes to go (grace: until 10 s after the failure).
  for (;;) {
    out.left_over = survivors(pids, tag);
    if (out.left_over.empty()) break;
    if (!victim_seen || std::chrono::duration<double>(Clock::now() - victim_at).count() > 10.0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto all_gone = Clock::now();
  // Clean up whatever is left, so that a failing case does not leak: the
  // launcher's group, and the job's processes if any survived.
  kill(-pid, SIGKILL);
  if (!out.left_over.empty())
    for (long p : pids) kill(static_cast<pid_t>(p), SIGKILL);
  reader.join();
  close(fd[0]);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  out.failed_at_point = victim_seen;
  if (victim_seen) {
    out.launcher_exit_after = std::chrono::duration<double>(launcher_done - victim_at).count();
    if (out.left_over.empty()) out.all_gone_after = std::chrono::duration<double>(all_gone - victim_at).count();
  }
  return out;
}

struct Case {
  const char* name;
  int victim;
  const char* names_rank;  // ECMAScript regex the output must contain
  std::vector<std::string> env;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name << "/victim" << c.victim; }

class Failure : public testing::TestWithParam<Case> {};

TEST_P(Failure, EveryOtherProcessEndsNonZeroWithin10sNamingTheLostRank) {
  const Case& c = GetParam();
  Outcome o = run_case(c.name, c.victim, c.env);
  ASSERT_TRUE(o.failed_at_point) << "the victim never reached its failure point; output:\n" << o.output;
  EXPECT_FALSE(o.killed_by_us) << "the job hung; output:\n" << o.output;
  EXPECT_FALSE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << "the launcher exited 0; output:\n" << o.output;
  EXPECT_EQ(o.output.find("FINISHED rank"), std::string::npos) << "a process ended normally; output:\n" << o.output;
  EXPECT_TRUE(std::regex_search(o.output, std::regex(c.names_rank)))
      << "expected /" << c.names_rank << "/ in:\n" << o.output;
  EXPECT_GE(o.launcher_exit_after, 0.0);
  EXPECT_LE(o.launcher_exit_after, 10.0) << "the launcher took " << o.launcher_exit_after << " s after the failure\n"
                                         << o.output;
  std::string left;
  for (auto& s : o.left_over) left += "  " + s + "\n";
  EXPECT_TRUE(o.left_over.empty()) << "processes left 10 s after the failure:\n" << left << o.output;
  EXPECT_TRUE(scopedsm_files_in_dev_shm().empty()) << "ScopeDSM files left in /dev/shm";
  std::printf("[ figures  ] %s victim %d: launcher exited %.2f s and the last process was gone %.2f s after the failure\n",
              c.name, c.victim, o.launcher_exit_after, o.all_gone_after);
}

// Open MPI names a process that died of a signal; ScopeDSM names the rank of
// a process that ends without jia_exit, and what a timed-out wait awaited.
#define KILLED(r) "process rank " #r " with PID [0-9]+ on node [^ ]+ exited on signal 9"
#define NO_EXIT(r) "scopedsm: rank " #r ": the process is exiting \\(returned from main or called exit\\(\\)\\) without calling jia_exit"

INSTANTIATE_TEST_SUITE_P(
    Cases, Failure,
    testing::Values(Case{"kill_compute", 1, KILLED(1), {}},
                    Case{"kill_compute", 0, KILLED(0), {}},
                    Case{"kill_in_lock", 1, KILLED(1), {}},
                    Case{"kill_in_own_lock", 2, KILLED(2), {}},
                    Case{"kill_at_barrier", 2, KILLED(2), {}},
                    Case{"kill_at_barrier", 0, KILLED(0), {}},
                    Case{"return_early", 1, NO_EXIT(1), {}},
                    Case{"exit_early", 2, NO_EXIT(2), {}},
                    // The lock's home warns about the stalled waiter and the
                    // holder at 80% of the limit, and reports them at it,
                    // naming the call, who waits and whom for.
                    Case{"hang_in_lock", 1,
                         "scopedsm: rank 2: warning: jia_lock\\(2\\): rank [02] has waited 2\\.[0-9] s of the 3 s "
                         "limit \\(SCOPEDSM_TIMEOUT\\) for rank 1, which holds lock 2; the job ends at 3 s unless "
                         "rank 1 releases it\n(.*\n)*"
                         "scopedsm: rank 2: jia_lock\\(2\\) timed out: rank [02] has waited [0-9.]+ s, the "
                         "SCOPEDSM_TIMEOUT limit, for rank 1, which holds lock 2; is rank 1 alive, and does it release "
                         "the lock\\?",
                         {"SCOPEDSM_TIMEOUT=3"}},
                    // Rank 0 warns about, then reports, the rank that never arrived: the
                    // others told it they wait (BARRSTALL), even when rank 0 itself is
                    // the one missing.
                    Case{"hang_at_barrier", 1,
                         "scopedsm: rank 0: warning: jia_barrier: ranks 0, 2 have waited 2\\.[0-9] s of the 3 s limit "
                         "\\(SCOPEDSM_TIMEOUT\\) for rank 1, which has not arrived; the job ends at 3 s unless it "
                         "arrives\n(.*\n)*"
                         "scopedsm: rank 0: jia_barrier timed out: ranks 0, 2 have waited [0-9.]+ s, the "
                         "SCOPEDSM_TIMEOUT limit, for rank 1, which has not arrived; is that process alive and making "
                         "the same collective calls\\?",
                         {"SCOPEDSM_TIMEOUT=3"}},
                    Case{"hang_at_barrier", 0,
                         "scopedsm: rank 0: warning: jia_barrier: ranks 1, 2 have waited 2\\.[0-9] s of the 3 s limit "
                         "\\(SCOPEDSM_TIMEOUT\\) for rank 0, which has not arrived; the job ends at 3 s unless it "
                         "arrives\n(.*\n)*"
                         "scopedsm: rank 0: jia_barrier timed out: ranks 1, 2 have waited [0-9.]+ s, the "
                         "SCOPEDSM_TIMEOUT limit, for rank 0, which has not arrived",
                         {"SCOPEDSM_TIMEOUT=3"}},
                    // Deadlocks end the job without any limit, in one line
                    // that names the processes of the cycle, what each waits
                    // in, and for whom. A process that only waits for them
                    // (x) is named too if its own report reached rank 0
                    // before the cycle was proved, which nothing orders.
                    Case{"deadlock_wait_lock", 0,
                         "scopedsm: rank 0: deadlock: rank 0 waits in jia_wait for rank 1, which waits in "
                         "jia_lock\\(4\\) held by rank 0(; rank 2 waits in jia_wait for rank 1)?; none of them can "
                         "proceed\n",
                         {}},
                    Case{"deadlock_locks", 1,
                         "scopedsm: rank 0: deadlock: rank 1 waits in jia_lock\\(11\\) held by rank 2, which waits "
                         "in jia_lock\\(10\\) held by rank 1(; rank 0 waits in jia_barrier for ranks 1, 2)?; none "
                         "of them can proceed\n",
                         {}},
                    // Three locks in a ring: no two processes make a
                    // deadlock, the line names all three.
                    Case{"deadlock_ring", 2,
                         "scopedsm: rank 0: deadlock: rank 0 waits in jia_lock\\(21\\) held by rank 1, which waits "
                         "in jia_lock\\(22\\) held by rank 2, which waits in jia_lock\\(20\\) held by rank 0; none "
                         "of them can proceed\n",
                         {}},
                    Case{"deadlock_cv", 2,
                         "scopedsm: rank 0: deadlock: rank 0 waits in jia_barrier for rank 2, which waits in "
                         "jia_waitcv\\(1\\) for another process to set it; rank 1 waits in jia_barrier for rank 2; "
                         "none of them can proceed\n",
                         {}}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.name) + "_victim" + std::to_string(p.param.victim); });

// When a live process never arrives at a barrier, rank 0 (which the waiting
// processes told, BARRSTALL) reports the missing rank.
TEST(Diagnostics, BarrierTimeoutNamesTheMissingRank) {
  Outcome o = run_case("hang_at_barrier", 1, {"SCOPEDSM_TIMEOUT=3"});
  ASSERT_TRUE(o.failed_at_point) << o.output;
  EXPECT_TRUE(std::regex_search(o.output, std::regex("jia_barrier timed out: ranks 0, 2 have waited [0-9.]+ s, the "
                                                     "SCOPEDSM_TIMEOUT limit, for rank 1, which has not arrived")))
      << "the timeout does not name rank 1, the one that never arrived:\n" << o.output;
}

// A waiter for a lock whose holder stopped: the lock's home reports the holder.
TEST(Diagnostics, LockTimeoutNamesTheHolder) {
  Outcome o = run_case("hang_in_lock", 1, {"SCOPEDSM_TIMEOUT=3"});
  ASSERT_TRUE(o.failed_at_point) << o.output;
  EXPECT_TRUE(std::regex_search(o.output, std::regex("jia_lock\\(2\\) timed out: rank [02] has waited [0-9.]+ s, the "
                                                     "SCOPEDSM_TIMEOUT limit, for rank 1, which holds lock 2")))
      << "the timeout does not name rank 1, which holds the lock:\n" << o.output;
}

// A process computing alone for longer than the others wait at a barrier
// (a serial phase) is no failure: without a limit, the default, the job
// finishes; it would not under any default limit shorter than the phase.
TEST(SerialPhase, FinishesWithoutALimit) {
  Outcome o = run_case("serial_phase", 0, {});
  ASSERT_TRUE(o.failed_at_point) << o.output;
  EXPECT_FALSE(o.killed_by_us) << o.output;
  EXPECT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << "the job failed; output:\n" << o.output;
  for (int r = 0; r < 3; ++r)
    EXPECT_NE(o.output.find("FINISHED rank " + std::to_string(r)), std::string::npos)
        << "rank " << r << " did not finish; output:\n" << o.output;
  EXPECT_EQ(o.output.find("timed out"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("deadlock"), std::string::npos) << o.output;
}

// With a limit the user set, the same phase ends the job at it, and the
// report names the waiting ranks and the one they wait for (rank 0, which
// also hosts the barrier's manager: the report must not read as rank 0
// waiting for itself).
TEST(SerialPhase, AUserLimitEndsItNamingWhoWaitsForWhom) {
  Outcome o = run_case("serial_phase", 0, {"SCOPEDSM_TIMEOUT=2"});
  ASSERT_TRUE(o.failed_at_point) << o.output;
  EXPECT_FALSE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.output;
  EXPECT_EQ(o.output.find("FINISHED rank"), std::string::npos) << o.output;
  EXPECT_TRUE(std::regex_search(
      o.output, std::regex("scopedsm: rank 0: warning: jia_barrier: ranks 1, 2 have waited 1\\.[0-9] s of the 2 s "
                           "limit \\(SCOPEDSM_TIMEOUT\\) for rank 0, which has not arrived; the job ends at 2 s "
                           "unless it arrives\n(.*\n)*scopedsm: rank 0: jia_barrier timed out: ranks 1, 2 have waited "
                           "[0-9.]+ s, the SCOPEDSM_TIMEOUT limit, for rank 0, which has not arrived")))
      << o.output;
}

// Controls: the checks above can fail.
TEST(Controls, ANormalEndIsSeen) {
  Outcome o = run_case("no_failure", 1, {});
  EXPECT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.output;
  EXPECT_NE(o.output.find("FINISHED rank 0"), std::string::npos) << o.output;
  EXPECT_TRUE(o.left_over.empty());
  EXPECT_TRUE(scopedsm_files_in_dev_shm().empty()) << "ScopeDSM files left in /dev/shm after a normal end";
}

TEST(Controls, AFileLeftInDevShmIsSeen) {
  const std::string path = "/dev/shm/scopedsm.failure-test-control." + std::to_string(getpid());
  { std::ofstream f(path); f << "x"; }
  const auto found = scopedsm_files_in_dev_shm();
  std::remove(path.c_str());
  EXPECT_NE(std::find(found.begin(), found.end(), path.substr(9)), found.end());
}

TEST(Controls, AProcessLeftBehindIsSeen) {
  Outcome o = run_case("leave_orphan", 1, {});
  ASSERT_TRUE(o.failed_at_point) << o.output;
  EXPECT_FALSE(o.left_over.empty()) << "the child that escaped the launcher was not found; output:\n" << o.output;
}

TEST(Controls, AHangIsSeen) {
  Outcome o = run_case("hang_forever", 1, {"SCOPEDSM_TIMEOUT=0"}, 12);
  ASSERT_TRUE(o.failed_at_point) << o.output;
  EXPECT_TRUE(o.killed_by_us) << "the job ended by itself although nothing times out; output:\n" << o.output;
}

// With the deadlock detector broken (no process reports its waits to rank
// 0), a deadlock is a hang like any other: the deadlock cases depend on it.
TEST(Controls, ADeadlockIsAHangWithoutTheDetector) {
  Outcome o = run_case("deadlock_locks", 1, {"SCOPEDSM_TEST_FAULT=no-wait-reports"}, 12);
  ASSERT_TRUE(o.failed_at_point) << o.output;
  EXPECT_TRUE(o.killed_by_us) << "the job ended by itself without the detector; output:\n" << o.output;
  EXPECT_EQ(o.output.find("deadlock:"), std::string::npos) << o.output;
}

}  // namespace
