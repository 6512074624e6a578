// Drives the differential test from outside MPI: shrinking a failing
// program and long runs over many jobs.
//
//   difftest_driver shrink --np N --seed S [--tries T] [--first-touch]
//       Delta debugging (ddmin) of program S: finds a small subset of its
//       operations that still makes the run report a mismatch, first by
//       whole phases, then by top-level blocks (critical sections with
//       everything inside them), then by single operations. A candidate
//       counts as failing if any of T runs (default 3) reports a mismatch;
//       the environment (SCOPEDSM_*) is passed on unchanged. Finally it
//       tries removing each lock/unlock pair that guards none of the cells
//       accessed inside (keeping the accesses). Prints the
//       minimized program and the --drop file that reproduces it.
//   difftest_driver long --minutes M [--seed S] [--job-minutes J]
//       Runs jobs of J minutes (default 3) one after another for M minutes,
//       cycling through 2, 3 and 4 processes, caches of 4, 8 and 16 pages,
//       with and without random delays, trap-all write detection and
//       first-touch homes, with fresh seeds (S defaults to the clock), and
//       prints the operations checked. Stops at the first mismatch and
//       shrinks it.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "program.h"

extern char** environ;

using namespace difftest;

namespace {

struct Job {
  int status = 0;
  bool timed_out = false;
  std::string output;
};

// Runs the launcher with `args` and extra environment entries in a process
// group of its own; kills the group after `limit_s` seconds.
Job spawn(const std::vector<std::string>& args, const std::vector<std::string>& env_extra, double limit_s) {
  std::vector<std::string> a = args;
  std::vector<char*> argv;
  for (auto& s : a) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = env_extra;
  for (const char* e : {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "SCOPEDSM_SUMMARY=off"})
    env.emplace_back(e);
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int fd[2];
  if (pipe(fd) != 0) {
    std::perror("pipe");
    std::exit(2);
  }
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
  if (posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data()) != 0) {
    std::perror("posix_spawn");
    std::exit(2);
  }
  close(fd[1]);
  Job job;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(fd[0], buf, sizeof buf)) > 0) job.output.append(buf, static_cast<size_t>(n));
  });
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      job.status = st;
      break;
    }
    if (!job.timed_out && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit_s) {
      kill(-pid, SIGKILL);
      job.timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  reader.join();
  close(fd[0]);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return job;
}

std::vector<std::string> launcher(int np) {
  std::vector<std::string> a = {DIFFTEST_MPIEXEC, "-n", std::to_string(np)};
  static const char* const kFlags[] = {DIFFTEST_MPIEXEC_FLAGS nullptr};  // each flag ends in a comma
  for (const char* const* f = kFlags; *f; ++f) a.emplace_back(*f);
  a.emplace_back(DIFFTEST_EXE);
  return a;
}

uint32_t page_size() { return static_cast<uint32_t>(sysconf(_SC_PAGESIZE)); }

// ---------------------------------------------------------------- shrink

struct Shrinker {
  int np;
  uint64_t seed;
  int tries;
  bool first_touch;
  std::string drop_path;
  int runs = 0;

  int failing_cell = -1;  // from the first failing run's report

  bool fails(const std::set<uint32_t>& drop) {
    {
      std::ofstream out(drop_path);
      for (uint32_t id : drop) out << id << "\n";
    }
    std::vector<std::string> args = launcher(np);
    args.emplace_back("--seed");
    args.push_back(std::to_string(seed));
    args.emplace_back("--drop");
    args.push_back(drop_path);
    if (first_touch) args.emplace_back("--first-touch");
    for (int t = 0; t < tries; ++t) {
      ++runs;
      Job j = spawn(args, {}, 120);
      if (j.output.find("DIFFTEST MISMATCH") != std::string::npos) {
        std::smatch m;
        if (failing_cell < 0 && std::regex_search(j.output, m, std::regex("read c([0-9]+) and saw")))
          failing_cell = std::stoi(m[1]);
        return true;
      }
    }
    return false;
  }

  // ddmin over `units`, each a group of op ids: returns a small subset to
  // keep such that dropping everything else (plus `base`) still fails.
  std::vector<std::vector<uint32_t>> ddmin(std::vector<std::vector<uint32_t>> units, const std::set<uint32_t>& base) {
    auto drop_for = [&](const std::vector<std::vector<uint32_t>>& keep, const std::vector<std::vector<uint32_t>>& all) {
      std::set<uint32_t> d = base;
      std::set<uint32_t> kept;
      for (auto& u : keep) kept.insert(u.begin(), u.end());
      for (auto& u : all)
        for (uint32_t id : u)
          if (!kept.count(id)) d.insert(id);
      return d;
    };
    const auto all = units;
    size_t n = 2;
    while (units.size() >= 2) {
      std::vector<std::vector<std::vector<uint32_t>>> chunks;
      const size_t per = (units.size() + n - 1) / n;
      for (size_t i = 0; i < units.size(); i += per)
        chunks.emplace_back(units.begin() + static_cast<long>(i), units.begin() + static_cast<long>(std::min(units.size(), i + per)));
      bool reduced = false;
      for (auto& c : chunks)
        if (fails(drop_for(c, all))) {
          units = c;
          n = 2;
          reduced = true;
          break;
        }
      if (!reduced && chunks.size() > 2)
        for (size_t i = 0; i < chunks.size() && !reduced; ++i) {
          std::vector<std::vector<uint32_t>> comp;
          for (size_t j = 0; j < chunks.size(); ++j)
            if (j != i) comp.insert(comp.end(), chunks[j].begin(), chunks[j].end());
          if (fails(drop_for(comp, all))) {
            units = comp;
            n = std::max<size_t>(n - 1, 2);
            reduced = true;
          }
        }
      if (!reduced) {
        if (n >= units.size()) break;
        n = std::min(units.size(), 2 * n);
      }
      std::printf("  ddmin: %zu unit(s) left after %d run(s)\n", units.size(), runs);
      std::fflush(stdout);
    }
    return units;
  }

  int run() {
    const Program full = generate(seed, np, page_size());
    std::set<uint32_t> drop;
    if (!fails(drop)) {
      std::printf("DIFFTEST SHRINK: program %" PRIu64 " on %d processes did not fail in %d run(s); nothing to shrink\n",
                  seed, np, tries);
      return 1;
    }
    // First guess: only the failing cell's accesses and the critical
    // sections around them.
    if (failing_cell >= 0) {
      std::set<uint32_t> d = slice_drop(full, static_cast<uint32_t>(failing_cell));
      const bool ok = fails(d);
      std::printf("DIFFTEST SHRINK slice of cell c%d: %s\n", failing_cell, ok ? "still fails" : "passes; shrinking the whole program");
      if (ok) drop = d;
    }
    for (int level = 0; level < 3; ++level) {
      const Program cur = without(full, drop);
      auto units = drop_units(cur, level);
      std::printf("DIFFTEST SHRINK level %d (%s): %zu unit(s)\n", level,
                  level == 0 ? "phases" : level == 1 ? "top-level blocks" : "operations", units.size());
      std::fflush(stdout);
      auto keep = ddmin(units, drop);
      std::set<uint32_t> kept;
      for (auto& u : keep) kept.insert(u.begin(), u.end());
      for (auto& u : units)
        for (uint32_t id : u)
          if (!kept.count(id)) drop.insert(id);
    }
    // Last, critical sections that guard nothing the failure needs: try
    // removing each lock/unlock pair while keeping what it encloses.
    for (uint32_t id : unwrappable(without(full, drop))) {
      std::set<uint32_t> d = drop;
      d.insert(unwrap(id));
      if (fails(d)) drop = d;
    }
    std::printf("DIFFTEST SHRINK unwrapping critical sections: done after %d run(s)\n", runs);
    {
      std::ofstream out(drop_path);
      for (uint32_t id : drop) out << id << "\n";
    }
    const Program small = without(full, drop);
    const Counts c = count(small);
    std::printf("DIFFTEST SHRUNK seed=%" PRIu64 " np=%d to %" PRIu64 " read(s), %" PRIu64 " write(s), %" PRIu64
                " critical section(s) in %d run(s); replay: difftest --seed %" PRIu64 " --drop %s%s\n",
                seed, np, c.reads, c.writes, c.locks, runs, seed, drop_path.c_str(), first_touch ? " --first-touch" : "");
    // The verification phase reads every cell: show only what is left of it.
    std::fputs(describe(small).c_str(), stdout);
    return 0;
  }
};

// ---------------------------------------------------------------- long runs

int long_run(double minutes, uint64_t seed, double job_minutes) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 60.0; };
  const int nps[] = {2, 3, 4};
  const int caches[] = {8, 4, 16};
  uint64_t ops = 0, programs = 0;
  int jobs = 0;
  std::printf("DIFFTEST LONG start seed=%" PRIu64 " minutes=%.1f\n", seed, minutes);
  std::fflush(stdout);
  while (elapsed() < minutes) {
    const int np = nps[jobs % 3];
    const int cache = caches[(jobs / 3) % 3];
    const bool delay = jobs % 2 == 1;
    const bool trap_all = jobs % 4 == 3;
    const bool first_touch = jobs % 5 == 4;
    const double jm = std::min(job_minutes, std::max(0.2, minutes - elapsed()));
    const uint64_t job_seed = seed + static_cast<uint64_t>(jobs) * 1000000;
    std::vector<std::string> env = {"SCOPEDSM_CACHE_PAGES=" + std::to_string(cache), "SCOPEDSM_TIMEOUT=120"};
    if (delay) env.emplace_back("SCOPEDSM_TEST_DELAY_US=20");
    if (trap_all) env.emplace_back("SCOPEDSM_WRITE_DETECT=all");
    std::vector<std::string> args = launcher(np);
    args.emplace_back("--seed");
    args.push_back(std::to_string(job_seed));
    args.emplace_back("--minutes");
    args.push_back(std::to_string(jm));
    if (first_touch) args.emplace_back("--first-touch");
    Job j = spawn(args, env, jm * 60 + 300);
    ++jobs;
    std::smatch m;
    if (std::regex_search(j.output, m, std::regex("DIFFTEST OK .*programs=([0-9]+) ops=([0-9]+)"))) {
      programs += std::stoull(m[1]);
      ops += std::stoull(m[2]);
      std::printf("job %d: np=%d cache=%d%s%s%s seed=%" PRIu64 ": programs=%s ops=%s (total ops %" PRIu64 ", %.1f min)\n",
                  jobs, np, cache, delay ? " delay=20us" : "", trap_all ? " trap-all" : "", first_touch ? " first-touch" : "",
                  job_seed, m[1].str().c_str(), m[2].str().c_str(), ops, elapsed());
      std::fflush(stdout);
      continue;
    }
    std::string envs;
    for (auto& e : env) envs += e + " ";
    std::printf("DIFFTEST LONG FAILURE in job %d (np=%d, %s%s%s):\n%s\n", jobs, np, envs.c_str(),
                first_touch ? "--first-touch " : "", j.timed_out ? "timed out" : "", j.output.c_str());
    std::printf("DIFFTEST LONG minutes=%.1f jobs=%d programs=%" PRIu64 " ops=%" PRIu64 " result=FAILED\n", elapsed(), jobs,
                programs, ops);
    if (std::regex_search(j.output, m, std::regex("DIFFTEST MISMATCH seed=([0-9]+)"))) {
      for (auto& e : env) putenv(strdup(e.c_str()));
      Shrinker s{np, std::stoull(m[1]), 3, first_touch, "difftest_drop_" + m[1].str() + ".txt"};
      s.run();
    }
    return 1;
  }
  std::printf("DIFFTEST LONG minutes=%.1f jobs=%d programs=%" PRIu64 " ops=%" PRIu64 " result=OK\n", elapsed(), jobs, programs,
              ops);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: difftest_driver shrink --np N --seed S [--tries T] [--first-touch]\n"
                         "       difftest_driver long --minutes M [--seed S] [--job-minutes J]\n");
    return 2;
  }
  const std::string mode = argv[1];
  int np = 2, tries = 3;
  uint64_t seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000000000ull;
  double minutes = 0, job_minutes = 3;
  bool first_touch = false;
  std::string drop_path;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--np") np = std::atoi(v), ++i;
    else if (a == "--seed") seed = std::strtoull(v, nullptr, 10), ++i;
    else if (a == "--tries") tries = std::atoi(v), ++i;
    else if (a == "--minutes") minutes = std::strtod(v, nullptr), ++i;
    else if (a == "--job-minutes") job_minutes = std::strtod(v, nullptr), ++i;
    else if (a == "--drop-file") drop_path = v, ++i;
    else if (a == "--first-touch") first_touch = true;
    else {
      std::fprintf(stderr, "difftest_driver: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (mode == "shrink") {
    if (drop_path.empty()) drop_path = "difftest_drop_" + std::to_string(seed) + ".txt";
    Shrinker s{np, seed, tries, first_touch, drop_path};
    return s.run();
  }
  if (mode == "long") return long_run(minutes, seed, job_minutes);
  std::fprintf(stderr, "difftest_driver: unknown mode %s\n", mode.c_str());
  return 2;
}
