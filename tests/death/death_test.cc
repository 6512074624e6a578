// Death tests: each misuse case runs as a real job under the MPI launcher
// and must end every process with a non-zero status, within seconds, with a
// message that names the mistake.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

struct Outcome {
  int status = 0;       // raw wait status
  double seconds = 0;
  std::string output;   // stdout and stderr together
  bool killed_by_us = false;
};

// Runs a misuse program (misuse.c unless told) on `np` processes with extra
// environment entries.
Outcome run_case(const std::string& name, int np, const std::vector<std::string>& env_extra, double limit_s = 30,
                 const char* program = SCOPEDSM_MISUSE_PROGRAM) {
  std::vector<std::string> args = {SCOPEDSM_MPIEXEC, "-n", std::to_string(np)};
  const char* const flags[] = {SCOPEDSM_MPIEXEC_FLAGS_LIST nullptr};
  for (const char* const* f = flags; *f != nullptr; ++f) args.push_back(*f);
  args.push_back(program);
  args.push_back(name);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Each variable appears once (launchers differ in which duplicate wins):
  // the case's own settings, then the defaults for death tests, then the
  // inherited environment.
  std::vector<std::string> env;
  auto add = [&env](const std::string& entry) {
    std::string key = entry.substr(0, entry.find('='));
    for (const auto& e : env)
      if (e.compare(0, key.size() + 1, key + "=") == 0) return;
    env.push_back(entry);
  };
  for (const auto& e : env_extra) add(e);
  for (const char* e : {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "SCOPEDSM_SUMMARY=off",
                        "SCOPEDSM_TIMEOUT=20"})
    add(e);
  for (char** e = environ; *e; ++e) add(*e);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int pipefd[2];
  EXPECT_EQ(pipe(pipefd), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data()), 0);
  close(pipefd[1]);

  Outcome out;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0) out.output.append(buf, static_cast<size_t>(n));
  });
  for (;;) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) {
      out.status = st;
      break;
    }
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (el > limit_s && !out.killed_by_us) {
      kill(-pid, SIGKILL);
      out.killed_by_us = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  reader.join();
  close(pipefd[0]);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return out;
}

struct Case {
  const char* name;
  int np;
  const char* pattern;  // ECMAScript regex the output must contain
  std::vector<std::string> env;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name << "/np" << c.np; }

void expect_clear_death(const Case& c, const char* program) {
  Outcome o = run_case(c.name, c.np, c.env, 30, program);
  EXPECT_FALSE(o.killed_by_us) << "the job hung; output:\n" << o.output;
  EXPECT_FALSE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << "exited with status 0; output:\n" << o.output;
  EXPECT_LT(o.seconds, 25.0) << o.output;
  EXPECT_TRUE(std::regex_search(o.output, std::regex(c.pattern))) << "expected /" << c.pattern << "/ in:\n" << o.output;
  EXPECT_EQ(o.output.find("was not detected"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find(" alias at "), std::string::npos) << o.output;
}

class Misuse : public testing::TestWithParam<Case> {};
TEST_P(Misuse, EndsTheJobWithAClearMessage) { expect_clear_death(GetParam(), SCOPEDSM_MISUSE_PROGRAM); }

// The same for the C++ API (misuse_cxx.cc).
class MisuseCxx : public testing::TestWithParam<Case> {};
TEST_P(MisuseCxx, EndsTheJobWithAClearMessage) { expect_clear_death(GetParam(), SCOPEDSM_MISUSE_CXX_PROGRAM); }

std::string case_name(const testing::TestParamInfo<Case>& p) {
  return std::string(p.param.name) + "_np" + std::to_string(p.param.np);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, Misuse,
    testing::Values(
        Case{"lock_out_of_range", 2, "rank [0-9]+: jia_lock\\(1024\\): lock id out of range", {}},
        Case{"lock_negative", 1, "rank 0: jia_lock\\(-1\\): lock id out of range", {}},
        Case{"unlock_not_held", 2, "rank [0-9]+: jia_unlock\\(3\\): this process does not hold lock 3", {}},
        Case{"unlock_out_of_order", 1, "jia_unlock\\(1\\): lock 1 is not the innermost", {}},
        Case{"lock_twice", 1, "jia_lock\\(1\\): this process already holds lock 1", {}},
        Case{"barrier_in_cs", 2, "rank [0-9]+: jia_barrier: called inside a critical section", {}},
        Case{"alloc_zero", 2, "rank [0-9]+: jia_alloc\\(size=0.*allocation of zero bytes", {}},
        Case{"alloc_beyond_region", 2, "jia_alloc3\\(size=536870912.*only [0-9]+ bytes of the shared region remain",
             {"SCOPEDSM_REGION_SIZE=64M"}},
        // Sizes, blocks and ranges that do not fit 64 bits or the protocol's
        // 32-bit page numbers (issue 13): a message naming the call, never an
        // address shared with another allocation and never a signal.
        Case{"alloc_size_max", 2,
             "rank [0-9]+: scopedsm_alloc\\(size=18446744073709551515\\): size too large: 18446744073709551515 bytes "
             "cannot be rounded up to whole [0-9]+-byte pages within 64 bits \\(as a signed number it is -101",
             {}},
        Case{"alloc_first_touch_size_max", 1,
             "scopedsm_alloc_first_touch\\(size=18446744073709551615\\): size too large: .*it is -1:", {}},
        Case{"alloc_cyclic_block_max", 2,
             "rank [0-9]+: scopedsm_alloc_cyclic\\(size=8192, block=18446744073709551615, start_rank=0\\): block size "
             "too large: 18446744073709551615 bytes cannot be rounded up",
             {}},
        Case{"alloc_size_negative", 1,
             "scopedsm_alloc\\(size=18446744073709546616\\): 18446744073709546616 bytes asked for but only [0-9]+ "
             "bytes of the shared region remain.*as a signed number it is -5000:",
             {}},
        Case{"alloc_past_page_2_32", 1,
             "scopedsm_alloc_first_touch\\(size=17592186048512\\): size too large: the allocation would end past "
             "page 4294967296 .*32-bit page numbers",
             {"SCOPEDSM_REGION_SIZE=32T"}},
        Case{"prepare_huge_len", 1,
             "scopedsm_prepare\\(0x[0-9a-f]+, 18446744073709551615\\): the range reaches shared pages that are not "
             "allocated",
             {}},
        Case{"next_touch_past_end", 2,
             "scopedsm_next_touch\\(0x[0-9a-f]+, 8192\\): the range is not all allocated shared memory \\(allocated: "
             "1 pages from 0x[0-9a-f]+\\); name memory that scopedsm_alloc returned",
             {}},
        Case{"next_touch_private", 1, "scopedsm_next_touch\\(0x[0-9a-f]+, 4\\): the range is not all allocated shared memory",
             {}},
        Case{"next_touch_not_collective", 2,
             "mismatched collective calls: rank [01] called .*scopedsm_next_touch\\(0x[0-9a-f]+, 4096\\)", {}},
        // A start rank out of range, in the words of the call's own argument.
        Case{"alloc_on_bad_rank", 2,
             "rank [01]: scopedsm_alloc_on\\(size=4096, rank=99\\): 99 is not a rank of this job: ranks are 0 to 1\n",
             {}},
        Case{"jia_alloc3_bad_starthost", 2,
             "rank [01]: jia_alloc3\\(size=4096, block=4096, starthost=99\\): 99 is not a rank of this job: ranks "
             "are 0 to 1\n",
             {}},
        Case{"jia_alloc3_negative_size", 2, "jia_alloc3\\(size=-1, block=4096, starthost=0\\): negative size", {}},
        Case{"jia_alloc3_int_max", 2,
             "jia_alloc3\\(size=2147483647, block=2147483647, starthost=0\\): 2147483647 bytes asked for but only "
             "[0-9]+ bytes of the shared region remain",
             {"SCOPEDSM_REGION_SIZE=1G"}},
        Case{"jia_alloc2_negative_block", 2,
             "jia_alloc2\\(size=8192, block=-2147483648, starthost=0\\): block size must be positive", {}},
        Case{"jia_alloc2p_int_max", 1,
             "jia_alloc2p\\(size=2147483647, block=2147483647, starthost=0\\): 2147483647 bytes asked for but only",
             {"SCOPEDSM_REGION_SIZE=1G"}},
        Case{"jia_alloc1_negative_size", 1, "jia_alloc1\\(size=-2147483648, block=-2147483648, starthost=0\\): "
             "negative size", {}},
        Case{"jia_alloc_negative_size", 2, "jia_alloc\\(size=-4096, block=-4096, starthost=0\\): negative size", {}},
        Case{"jia_alloc3_block_long", 1,
             "rank 0: jia_alloc3: block 3000000000 does not fit its int argument \\(-2147483648 to 2147483647\\), and "
             "converted to one it is -1294967296; a block holds at most 2147483647 bytes: give a smaller block\n",
             {}},
        Case{"jia_alloc2p_proc_long", 1,
             "rank 0: jia_alloc2p: proc -5000000000 does not fit its int argument \\(-2147483648 to 2147483647\\), "
             "and converted to one it is -705032704; it must be a rank of this job\n",
             {}},
        Case{"jia_alloc1_int_max_plus_one", 2,
             "rank [01]: jia_alloc1: size 2147483648 does not fit its int argument \\(-2147483648 to 2147483647\\), "
             "and converted to one it is -2147483648; one JIAJIA allocation holds at most 2147483647 bytes: split the "
             "data into several\n",
             {}},
        Case{"alloc_mismatch", 2, "mismatched collective calls: rank [01] called jia_alloc3\\(size=(4096|8192)", {}},
        Case{"barrier_vs_alloc", 2, "mismatched collective calls: rank [01] called (jia_barrier|jia_alloc)", {}},
        // jia_config(BROADCAST, OFF) on one process only: the barrier's forms differ.
        Case{"barrier_forms_differ", 3, "mismatched barriers: rank [0-2] uses the (central|dissemination) barrier", {}},
        // The barrier's rounds go from process to process; whoever receives
        // one while in another call reports both.
        Case{"wait_vs_barrier", 3, "rank 1: mismatched collective calls: rank 0 called jia_barrier but rank 1 called jia_wait",
             {}},
        Case{"alloc_vs_barrier", 3,
             "rank 0: mismatched collective calls: rank 2 called jia_barrier but rank 0 called jia_alloc\\(size=4096", {}},
        Case{"alloc_in_cs", 1, "collective allocation inside a critical section", {}},
        Case{"gettask_without_settask", 2, "rank [0-9]+: jia_gettask: no loop started", {}},
        Case{"loop_bad_schedule", 2, "rank [0-9]+: scopedsm_loop_init: 'runtime,4' is not a schedule: expected static, ss",
             {}},
        Case{"loop_mismatch", 2, "jia_settask\\(begin=0, end=1[12], schedule=gss", {}},
        Case{"lbarrier_reversed", 2, "rank [0-9]+: jia_lbarrier: this process's range \\[5, 2\\] is reversed \\(an "
             "empty range is end = begin - 1\\)", {}},
        Case{"lbarrier_setup_mismatch", 2,
             "mismatched collective calls: rank [01] called jia_lbarrier_setup\\(iterations=10[01], alpha=10, "
             "beta=0.2\\) but rank [01] called jia_lbarrier_setup\\(iterations=10[01]", {}},
        Case{"lbarrier_gap", 2, "rank [0-9]+: jia_lbarrier: the processes' ranges do not follow each other in rank "
             "order: rank 0's \\[0, 4\\], then rank 1's \\[10, 14\\]", {}},
        Case{"lbarrier_one_process", 2, "mismatched collective calls: rank [01] called (jia_barrier|jia_lbarrier \\(task "
             "migration: call 1)", {}},
        Case{"touch_unallocated", 2, "rank [0-9]+: touched shared address 0x[0-9a-f]+, which is not part of any allocation", {}},
        Case{"touch_after_exit", 1, "rank 0: touched shared memory at 0x[0-9a-f]+ after jia_exit", {}},
        Case{"after_exit", 2, "rank [0-9]+: jia_lock: called after jia_exit", {}},
        Case{"before_init", 2, "rank [0-9]+: jia_lock: called before jia_init", {}},
        Case{"double_init", 2, "rank [0-9]+: jia_init: ScopeDSM is already initialized", {}},
        Case{"locks_held_at_exit", 2, "jia_exit: called while holding locks \\(locks held \\(outermost first\\): 5\\)", {}},
        // A process that ends without jia_exit while the others wait for it:
        // it says so itself when they wait at a barrier (their rounds reach
        // it), rank 0 does when they wait in its rendezvous.
        Case{"return_early", 2, "rank 1: the process is exiting \\(returned from main or called exit\\(\\)\\) without "
             "calling jia_exit while rank 0 still waits for it in jia_barrier; call jia_exit before the process ends, "
             "or let every process end without it at the same point", {}},
        Case{"exit_early", 2, "rank 1: the process is exiting \\(returned from main or called exit\\(\\)\\) without "
             "calling jia_exit while rank 0 still waits for it in jia_barrier", {}},
        Case{"return_before_wait", 3, "rank 0: rank 2 is exiting \\(returned from main or called exit\\(\\)\\) "
             "without calling jia_exit while rank [01] still waits for it in jia_wait", {}},
        Case{"return_in_lock", 1, "rank 0: the process is exiting \\(returned from main or called exit\\(\\)\\) "
             "without calling jia_exit while holding locks \\(locks held \\(outermost first\\): 5\\)", {}},
        Case{"cv_out_of_range", 1, "jia_setcv\\(64\\): condition variable out of range", {}},
        Case{"recv_too_small", 2, "jia_recv: a 64-byte message from rank 0 \\(tag 0\\) does not fit the 8-byte buffer", {}},
        Case{"send_bad_rank", 2, "jia_send: destination [0-9]+ is not a rank", {}},
        Case{"jia_error", 2, "jia_error: the application gave up: 42", {}},
        Case{"config_bad", 2, "SCOPEDSM_CACHE_PAGES='0' is invalid", {"SCOPEDSM_CACHE_PAGES=0"}},
        Case{"config_bad_unit", 2, "SCOPEDSM_UNIT_PAGES='3' is invalid: expected a power of two from 1 to 128",
             {"SCOPEDSM_UNIT_PAGES=3"}},
        // Every process must use the same coherence unit; a mismatch names both.
        Case{"unit_mismatch", 3,
             "jia_init: SCOPEDSM_UNIT_PAGES differs between processes: some use 1 and others 2 \\(this one [12]\\)",
             {}},
        // The lock's home warns at 80% of the limit, saying what the limit
        // is, and ends the job at it, naming the holder both times.
        Case{"timeout", 2,
             "rank 0: warning: jia_lock\\(0\\): rank 1 has waited 1\\.[0-9] s of the 2 s limit \\(SCOPEDSM_TIMEOUT\\) "
             "for rank 0, which holds lock 0; the job ends at 2 s unless rank 0 releases it\n"
             "(.*\n)*scopedsm: rank 0: jia_lock\\(0\\) timed out: rank 1 has waited [0-9]+\\.[0-9] s, the "
             "SCOPEDSM_TIMEOUT limit, for rank 0, which holds lock 0; is rank 0 alive, and does it release the lock\\?",
             {"SCOPEDSM_TIMEOUT=2"}},
        // Inside an MPI program (scopedsm_mpi.h): one line each.
        Case{"comm_before_mpi_init", 2,
             "scopedsm: rank [01]: scopedsm_init_comm: MPI is not initialized; call MPI_Init_thread with "
             "MPI_THREAD_MULTIPLE first \\(or scopedsm_init, which initializes MPI itself\\)\n",
             {}},
        Case{"comm_after_mpi_finalize", 2,
             "scopedsm: rank [01]: scopedsm_init_comm: MPI has been finalized; ScopeDSM must start after MPI_Init and "
             "end before MPI_Finalize\n",
             {}},
        Case{"comm_null", 2,
             "scopedsm: rank [01]: scopedsm_init_comm: the communicator is MPI_COMM_NULL; pass one this process "
             "belongs to",
             {}},
        Case{"comm_twice", 2, "scopedsm: rank [01]: scopedsm_init_comm: ScopeDSM is already initialized; call "
             "scopedsm_init exactly once per process\n", {}},
        Case{"comm_thread_single", 2,
             "scopedsm: rank [01]: scopedsm_init_comm: MPI was initialized with thread level MPI_THREAD_SINGLE, but "
             "ScopeDSM needs MPI_THREAD_MULTIPLE \\(its service thread and the application thread both use MPI\\): "
             "initialize MPI with MPI_Init_thread\\(\\.\\.\\., MPI_THREAD_MULTIPLE, \\.\\.\\.\\)\n",
             {}},
        Case{"comm_mpi_finalize_first", 2,
             "scopedsm: rank [01]: MPI_Finalize was called while ScopeDSM still runs; ScopeDSM must end first: call "
             "scopedsm_finalize before MPI_Finalize\n",
             {}}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    Errors, MisuseCxx,
    testing::Values(
        // jia.h from C++: the size_t reaches the check before it is an int.
        Case{"jia_alloc_size_t", 2,
             "rank [01]: jia_alloc: size 4800000000 does not fit its int argument \\(-2147483648 to 2147483647\\), "
             "and converted to one it is 505032704; one JIAJIA allocation holds at most 2147483647 bytes: split the "
             "data into several\n",
             {}},
        Case{"alloc_array_minus_one", 2,
             "rank [0-9]+: alloc_array<double>\\(n=18446744073709551615\\): n is -1 as a signed number: a negative "
             "count converted to size_t",
             {}},
        Case{"alloc_array_wraps", 1,
             "alloc_array<double>\\(n=2305843009213693953\\): n \\* sizeof\\(T\\) = n \\* 8 bytes is more than any "
             "object can hold",
             {}},
        Case{"alloc_array_cyclic_minus_one", 1, "alloc_array<int>\\(n=18446744073709551615\\): n is -1 as a signed", {}},
        Case{"alloc_array_first_touch_wraps", 1,
             "alloc_array<(long unsigned int|unsigned long|std::uint64_t|uint64_t)>\\(n=4611686018427387904\\): n "
             "\\* sizeof\\(T\\) = n \\* 8 bytes",
             {}},
        Case{"alloc_array_block_max", 2,
             "rank [0-9]+: alloc_array<double>\\(n=1024, Cyclic\\{18446744073709551615, 0\\}\\): block size too "
             "large",
             {}},
        Case{"next_touch_past_end", 2,
             "rank [0-9]+: scopedsm::next_touch\\(0x[0-9a-f]+, 8192\\): the range is not all allocated shared memory",
             {}},
        Case{"write_from_other_thread", 2,
             "rank 0: write\\(0x[0-9a-f]+, 16384 bytes\\) on shared memory failed with EFAULT in thread [0-9]+, "
             "which is not the thread that called scopedsm::Runtime",
             {}},
        // Inside an MPI program (scopedsm_mpi.h), in the C++ API's words.
        Case{"comm_mpi_finalize_first", 2,
             "scopedsm: rank [01]: MPI_Finalize was called while ScopeDSM still runs; ScopeDSM must end first: call "
             "scopedsm::finalize before MPI_Finalize\n",
             {}},
        Case{"comm_twice", 2,
             "scopedsm: rank [01]: scopedsm::init: ScopeDSM is already initialized; call scopedsm::init exactly once "
             "per process\n",
             {}}),
    case_name);

// Errors in the caller's vocabulary: the same mistakes made through the
// JIAJIA API (misuse.c), the C API (misuse.c, c_* cases) and the C++ API
// (misuse_cxx.cc). Each message names the calls of the surface the program
// used, and no other surface's names appear anywhere in the output.
struct Worded {
  const char* surface;  // jia, c or cxx
  Case c;
};

std::ostream& operator<<(std::ostream& os, const Worded& w) { return os << w.surface << "/" << w.c; }

// What a program of each surface must never read.
const char* foreign_names(const std::string& surface) {
  if (surface == "jia") return "scopedsm_|scopedsm::";
  if (surface == "c") return "jia_|Maxlocks|Maxcondvs|JIAJIA|scopedsm::";
  return "jia_|Maxlocks|Maxcondvs|JIAJIA|scopedsm_";
}

class Vocabulary : public testing::TestWithParam<Worded> {};
TEST_P(Vocabulary, MessagesNameTheCallsOfTheSurfaceUsed) {
  const Worded& w = GetParam();
  const char* program = std::string(w.surface) == "cxx" ? SCOPEDSM_MISUSE_CXX_PROGRAM : SCOPEDSM_MISUSE_PROGRAM;
  Case c = w.c;
  const std::string name = std::string(w.surface) == "c" ? std::string("c_") + c.name : std::string(c.name);
  c.name = name.c_str();
  Outcome o = run_case(c.name, c.np, c.env, 30, program);
  EXPECT_FALSE(o.killed_by_us) << "the job hung; output:\n" << o.output;
  EXPECT_FALSE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << "exited with status 0; output:\n" << o.output;
  EXPECT_TRUE(std::regex_search(o.output, std::regex(c.pattern))) << "expected /" << c.pattern << "/ in:\n" << o.output;
  std::smatch foreign;
  EXPECT_FALSE(std::regex_search(o.output, foreign, std::regex(foreign_names(w.surface))))
      << "a " << w.surface << " program reads '" << foreign.str() << "':\n" << o.output;
  EXPECT_EQ(o.output.find("was not detected"), std::string::npos) << o.output;
}

std::string worded_name(const testing::TestParamInfo<Worded>& p) {
  return std::string(p.param.surface) + "_" + p.param.c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, Vocabulary,
    testing::Values(
        // A barrier inside a critical section.
        Worded{"jia", {"barrier_in_cs", 2, "jia_barrier: called inside a critical section \\(locks held \\(outermost "
                       "first\\): 1\\); a barrier cannot be used between jia_lock and jia_unlock \\(use jia_wait there", {}}},
        Worded{"c", {"barrier_in_cs", 2, "scopedsm_barrier: called inside a critical section \\(locks held "
                     "\\(outermost first\\): 1\\); a barrier cannot be used between scopedsm_lock and "
                     "scopedsm_unlock \\(use scopedsm_wait there", {}}},
        Worded{"cxx", {"barrier_in_cs", 2, "scopedsm::barrier: called inside a critical section \\(locks held "
                       "\\(outermost first\\): 1\\); a barrier cannot be used while a scopedsm::LockGuard holds a "
                       "lock \\(use scopedsm::wait there", {}}},
        // A lock id out of range.
        Worded{"jia", {"lock_out_of_range", 2, "jia_lock\\(1024\\): lock id out of range; valid ids are 0 to 1023 "
                       "\\(Maxlocks - 1\\)", {}}},
        Worded{"c", {"lock_out_of_range", 2, "scopedsm_lock\\(1024\\): lock id out of range; valid ids are 0 to "
                     "1023 \\(scopedsm_num_locks\\(\\) - 1\\)", {}}},
        Worded{"cxx", {"lock_out_of_range", 2, "scopedsm::LockGuard\\(1024\\): lock id out of range; valid ids are "
                       "0 to 1023 \\(scopedsm::num_locks\\(\\) - 1\\)", {}}},
        // ... with more lock ids (SCOPEDSM_LOCKS): the limit is the variable's.
        Worded{"c", {"lock_past_scopedsm_locks", 2, "scopedsm_lock\\(5000\\): lock id out of range; valid ids are 0 to "
                     "4999 \\(SCOPEDSM_LOCKS - 1\\)", {"SCOPEDSM_LOCKS=5000"}}},
        // A condition variable out of range (no C++ form: the C call is named).
        Worded{"jia", {"cv_out_of_range", 1, "jia_setcv\\(64\\): condition variable out of range; valid ids are 0 "
                       "to 63 \\(Maxcondvs - 1\\)", {}}},
        Worded{"c", {"cv_out_of_range", 1, "scopedsm_cv_set\\(64\\): condition variable out of range; valid ids "
                     "are 0 to 63 \\(scopedsm_num_condvars\\(\\) - 1\\)", {}}},
        // A bad configuration, reported at initialization.
        Worded{"jia", {"config_bad", 2, "rank [01]: jia_init: bad configuration: SCOPEDSM_CACHE_PAGES='0' is invalid",
                       {"SCOPEDSM_CACHE_PAGES=0"}}},
        Worded{"c", {"config_bad", 2, "rank [01]: scopedsm_init: bad configuration: SCOPEDSM_CACHE_PAGES='0' is "
                     "invalid", {"SCOPEDSM_CACHE_PAGES=0"}}},
        Worded{"cxx", {"config_bad", 2, "rank [01]: scopedsm::Runtime: bad configuration: SCOPEDSM_CACHE_PAGES='0' "
                       "is invalid", {"SCOPEDSM_CACHE_PAGES=0"}}},
        // A call before initialization, and a second initialization.
        Worded{"jia", {"before_init", 2, "jia_lock: called before jia_init; initialize ScopeDSM first", {}}},
        Worded{"c", {"before_init", 2, "scopedsm_lock: called before scopedsm_init; initialize ScopeDSM first", {}}},
        Worded{"cxx", {"before_init", 2, "scopedsm::barrier: called before a scopedsm::Runtime was constructed; "
                       "initialize ScopeDSM first", {}}},
        Worded{"jia", {"double_init", 2, "jia_init: ScopeDSM is already initialized; call jia_init exactly once per "
                       "process", {}}},
        Worded{"c", {"double_init", 2, "scopedsm_init: ScopeDSM is already initialized; call scopedsm_init exactly "
                     "once per process", {}}},
        Worded{"cxx", {"double_init", 2, "scopedsm::Runtime: ScopeDSM is already initialized; construct exactly one "
                       "scopedsm::Runtime per process", {}}},
        // A call after shutting down, locks held at shutdown, no shutdown.
        Worded{"jia", {"after_exit", 2, "jia_lock: called after jia_exit; ScopeDSM has shut down", {}}},
        Worded{"c", {"after_exit", 2, "scopedsm_lock: called after scopedsm_finalize; ScopeDSM has shut down", {}}},
        Worded{"cxx", {"after_exit", 2, "scopedsm::barrier: called after the scopedsm::Runtime was destroyed; "
                       "ScopeDSM has shut down", {}}},
        Worded{"jia", {"locks_held_at_exit", 2, "jia_exit: called while holding locks", {}}},
        Worded{"c", {"locks_held_at_exit", 2, "scopedsm_finalize: called while holding locks", {}}},
        Worded{"cxx", {"locks_held_at_exit", 2, "scopedsm::Runtime::~Runtime: called while holding locks", {}}},
        Worded{"jia", {"return_early", 2, "exiting \\(returned from main or called exit\\(\\)\\) without "
                       "calling jia_exit while rank 0 still waits for it in jia_barrier; call jia_exit", {}}},
        Worded{"c", {"return_early", 2, "exiting \\(returned from main or called exit\\(\\)\\) without "
                     "calling scopedsm_finalize while rank 0 still waits for it in scopedsm_barrier; call "
                     "scopedsm_finalize", {}}},
        Worded{"cxx", {"exit_early", 2, "exiting \\(returned from main or called exit\\(\\)\\) "
                       "without destroying its scopedsm::Runtime while rank 0 still waits for it in "
                       "scopedsm::barrier; keep the Runtime in main", {}}},
        Worded{"c", {"return_before_wait", 3, "rank 2 is exiting \\(returned from main or called exit\\(\\)\\) "
                     "without calling scopedsm_finalize while rank [01] still waits for it in scopedsm_wait", {}}},
        // Shared memory no allocation holds.
        Worded{"jia", {"touch_unallocated", 2, "not part of any allocation .*; allocate it with jia_alloc first", {}}},
        Worded{"c", {"touch_unallocated", 2, "not part of any allocation .*; allocate it with scopedsm_alloc first",
                     {}}},
        Worded{"cxx", {"touch_unallocated", 2, "not part of any allocation .*; allocate it with "
                       "scopedsm::alloc_array first", {}}},
        // A size that does not fit JIAJIA's int, in JIAJIA's words.
        Worded{"jia", {"jia_alloc_size_t", 2, "jia_alloc: size 4800000000 does not fit its int argument "
                       "\\(-2147483648 to 2147483647\\), and converted to one it is 505032704; one JIAJIA "
                       "allocation holds at most 2147483647 bytes: split the data into several\n", {}}},
        // Processes in different collective calls.
        Worded{"jia", {"barrier_vs_alloc", 2, "mismatched collective calls: rank [01] called (jia_barrier|jia_alloc)"
                       ".*\\(jia_barrier, allocations, jia_wait, jia_exit\\)", {}}},
        Worded{"c", {"barrier_vs_alloc", 2, "mismatched collective calls: rank [01] called "
                     "(scopedsm_barrier|scopedsm_alloc).*\\(scopedsm_barrier, allocations, scopedsm_wait, "
                     "scopedsm_finalize\\)", {}}},
        Worded{"cxx", {"barrier_vs_alloc", 2, "mismatched collective calls: rank [01] called "
                       "(scopedsm::barrier|alloc_array<char>\\(n=4096\\)).*\\(scopedsm::barrier, allocations, "
                       "scopedsm::wait, scopedsm::Runtime::~Runtime\\)", {}}},
        // A deadlock, found without a limit (SCOPEDSM_TIMEOUT=0, the
        // default; the death tests' driver sets 20 otherwise).
        Worded{"jia", {"deadlock", 2, "scopedsm: rank 0: deadlock: rank 0 waits in jia_wait for rank 1, which waits "
                       "in jia_lock\\(0\\) held by rank 0; none of them can proceed\n", {"SCOPEDSM_TIMEOUT=0"}}},
        Worded{"c", {"deadlock", 2, "scopedsm: rank 0: deadlock: rank 0 waits in scopedsm_wait for rank 1, which "
                     "waits in scopedsm_lock\\(0\\) held by rank 0; none of them can proceed\n",
                     {"SCOPEDSM_TIMEOUT=0"}}},
        Worded{"cxx", {"deadlock", 2, "scopedsm: rank 0: deadlock: rank 0 waits in scopedsm::wait for rank 1, which "
                       "waits in scopedsm::LockGuard\\(0\\) held by rank 0; none of them can proceed\n",
                       {"SCOPEDSM_TIMEOUT=0"}}},
        // A condition variable nobody can set: the report names it.
        Worded{"jia", {"cv_deadlock", 2, "scopedsm: rank 0: deadlock: rank 0 waits in jia_barrier for rank 1, which "
                       "waits in jia_waitcv\\(3\\) for another process to set it; none of them can proceed\n",
                       {"SCOPEDSM_TIMEOUT=0"}}},
        Worded{"c", {"cv_deadlock", 2, "scopedsm: rank 0: deadlock: rank 0 waits in scopedsm_barrier for rank 1, "
                     "which waits in scopedsm_cv_wait\\(3\\) for another process to set it; none of them can "
                     "proceed\n",
                     {"SCOPEDSM_TIMEOUT=0"}}},
        // A lock never released: the stall's warning and report.
        Worded{"c", {"timeout", 2, "warning: scopedsm_lock\\(0\\): rank 1 has waited 1\\.[0-9] s of the 2 s limit "
                     "\\(SCOPEDSM_TIMEOUT\\)[^\n]*\n(.*\n)*scopedsm: rank 0: scopedsm_lock\\(0\\) timed out: rank 1 "
                     "has waited [0-9.]+ s, the SCOPEDSM_TIMEOUT limit, for rank 0, which holds lock 0",
                     {"SCOPEDSM_TIMEOUT=2"}}},
        Worded{"cxx", {"timeout", 2, "warning: scopedsm::LockGuard\\(0\\): rank 1 has waited 1\\.[0-9] s of the 2 s "
                       "limit \\(SCOPEDSM_TIMEOUT\\)[^\n]*\n(.*\n)*scopedsm: rank 0: scopedsm::LockGuard\\(0\\) timed "
                       "out: rank 1 has waited [0-9.]+ s, the SCOPEDSM_TIMEOUT limit, for rank 0, which holds lock 0",
                       {"SCOPEDSM_TIMEOUT=2"}}}),
    worded_name);

// Built with AddressSanitizer (gcc says so with a macro, clang with a feature).
#if defined(__SANITIZE_ADDRESS__)
#define SCOPEDSM_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCOPEDSM_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef SCOPEDSM_TEST_UNDER_ASAN
#define SCOPEDSM_TEST_UNDER_ASAN 0
#endif

TEST(Faults, OutsideTheRegionKeepTheirDefaultBehaviour) {
  Outcome o = run_case("segv_outside_region", 1, {});
  EXPECT_FALSE(o.killed_by_us);
  EXPECT_FALSE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.output;
  // The process dies of the signal itself, not of a ScopeDSM report. Under
  // AddressSanitizer the handler installed before ours is ASan's, so that
  // is the behaviour our handler must hand the fault to.
#if SCOPEDSM_TEST_UNDER_ASAN
  const char* died = "AddressSanitizer: SEGV on unknown address 0x0+10 ";
#else
  const char* died = "signal 11|Segmentation fault";
#endif
  EXPECT_TRUE(std::regex_search(o.output, std::regex(died))) << o.output;
  // Before the crash, exactly one line of ours, naming the address, the
  // rank and the shared memory allocated so far (8192 bytes). A handler a
  // shared library set before ours (ASan's, UCX's under MPICH, the MPI
  // library's) is a crash report, not the program's: the line comes first.
  std::smatch m;
  const std::regex line("scopedsm: rank 0: error: SIGSEGV at 0x10: the program touched an address outside the "
                        "shared space \\(the nearest shared memory is 0x([0-9a-f]+)-0x([0-9a-f]+), the 8192 bytes "
                        "allocated so far\\); not a fault of shared memory: the program crashes as it would without "
                        "ScopeDSM\n");
  ASSERT_TRUE(std::regex_search(o.output, m, line)) << o.output;
  EXPECT_EQ(std::stoull(m[2].str(), nullptr, 16) - std::stoull(m[1].str(), nullptr, 16), 8192u) << o.output;
  size_t lines = 0;
  for (size_t at = o.output.find("scopedsm: "); at != std::string::npos; at = o.output.find("scopedsm: ", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << o.output;
}

TEST(Faults, ApplicationHandlerIsChained) {
  Outcome o = run_case("chained_handler", 1, {});
  EXPECT_FALSE(o.killed_by_us);
  EXPECT_NE(o.output.find("application SIGSEGV handler ran"), std::string::npos) << o.output;
  // The program's handler took the fault: ScopeDSM says nothing about it.
  EXPECT_EQ(o.output.find("scopedsm: rank"), std::string::npos) << o.output;
  EXPECT_FALSE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.output;
}

}  // namespace
