// The switchable parts of JIAJIA's JIA_w and JIA_w+c+b configurations
// (docs/PROTOCOL.md §6b): incarnation numbers on locks
// (SCOPEDSM_LOCK_INCARNATIONS), single-writer retention
// (SCOPEDSM_WRITER_RETENTION) and the central barrier
// (SCOPEDSM_BARRIER=central, jia_config(BROADCAST, OFF)). Each test expects
// what the configured setting should do, so the file runs in every
// configuration of the suite; tests/CMakeLists.txt also runs it with each
// switched off.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

constexpr size_t kPages = 8;

bool cache_holds_all() {
  const char* v = std::getenv("SCOPEDSM_CACHE_PAGES");
  return v == nullptr || std::strtoull(v, nullptr, 10) >= kPages + 4;
}

uint64_t& word(uint64_t* a, size_t p) { return a[p * page() / 8]; }

// A lock's grant carries only the notices of releases the acquirer has not
// seen: rank 0 takes the lock twice after another process's critical
// section wrote kPages pages; the second grant carries none of them. Grants
// that carried every notice since the barrier (incarnations off) would
// carry them again.
TEST(Options, ALockGrantCarriesOnlyTheNoticesTheAcquirerHasNotSeen) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a writer besides rank 0";
  const int writer = nprocs() - 1;
  const int lock = 5;
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic(kPages * page(), kPages * page(), 0));
  if (rank() == writer) {
    jia_lock(lock);
    for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(7, p);
    jia_unlock(lock);
  }
  jia_wait();  // the writer's critical section is over (its grant came before)
  if (rank() == 0) {
    const uint64_t g0 = counter("grant_notices");
    jia_lock(lock);
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(word(a, p), pattern(7, p)) << "page " << p;
    jia_unlock(lock);
    const uint64_t g1 = counter("grant_notices");
    EXPECT_EQ(g1 - g0, kPages);
    jia_lock(lock);
    jia_unlock(lock);
    const uint64_t again = counter("grant_notices") - g1;
    if (env_is("SCOPEDSM_LOCK_INCARNATIONS", "off"))
      EXPECT_EQ(again, kPages);  // JIA_base: every notice since the barrier
    else
      EXPECT_EQ(again, 0u);
  }
  jia_barrier();
}

// A page written since the last barrier by this process alone keeps its
// copy at the barrier (single-writer retention): reading it again fetches
// nothing. Without retention the copy is invalidated and fetched again.
TEST(Options, TheOnlyWriterKeepsItsCopyAtTheBarrier) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a writer besides the home";
  const int writer = nprocs() - 1;
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic(kPages * page(), kPages * page(), 0));
  // Every home write trapped: otherwise the home, whose untrapped page was
  // copied, notes it as written too (it cannot tell), and the page has two
  // writers (docs/PROTOCOL.md §2.3).
  // The pages start untrapped at the home, so the copies the first writes
  // take make the home note them as written at its next synchronization:
  // a first round, and a barrier more for that note to pass.
  jia_config(ADWD, OFF);
  if (rank() == writer)
    for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(8, p);
  jia_barrier();
  jia_barrier();
  const uint64_t kept0 = counter("retained"), fetched0 = counter("remote_fetches");
  if (rank() == writer)
    for (size_t p = 0; p < kPages; ++p) word(a, p) = pattern(9, p);
  jia_barrier();
  // Home migration moves the pages to the writer instead (its copy becomes
  // the page before the notices are applied).
  const bool moves = env_is("SCOPEDSM_HOME_MIGRATION", "on");
  const bool retains = !env_is("SCOPEDSM_WRITER_RETENTION", "off");
  if (rank() == writer) {
    for (size_t p = 0; p < kPages; ++p) ASSERT_EQ(word(a, p), pattern(9, p)) << "page " << p;
    const uint64_t fetched = counter("remote_fetches") - fetched0;  // transfers (a run is one)
    if (cache_holds_all()) {
      // The first write to each page fetched it (runs may take several in one).
      EXPECT_GE(fetched, 1u);
      if (moves) {
        EXPECT_LE(fetched, kPages);
      } else if (retains) {
        EXPECT_EQ(counter("retained") - kept0, kPages);
        EXPECT_LE(fetched, kPages);
      } else {
        EXPECT_EQ(counter("retained") - kept0, 0u);
        EXPECT_GT(fetched, 1u);  // fetched to write, and again to read
      }
    }
  }
  jia_config(ADWD, env_is("SCOPEDSM_WRITE_DETECT", "all") ? OFF : ON);
  jia_barrier();
}

// jia_config(BROADCAST, OFF): every process sends rank 0 one round and gets
// one back; rank 0 receives and sends N-1. The notices of every process
// still reach every process.
TEST(Options, TheCentralBarrierMeetsAtRankZeroAndCarriesEveryNotice) {
  const int n = nprocs();
  const size_t words = page() / sizeof(uint64_t);
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic((static_cast<size_t>(n) + 1) * page(), page(), 0));
  uint64_t* shared = a + static_cast<size_t>(n) * words;
  jia_config(BROADCAST, OFF);
  const uint64_t sent0 = counter("msgs_sent_BARR"), recv0 = counter("msgs_recv_BARR");
  jia_wait();
  const uint64_t barriers = 6;
  for (uint64_t round = 1; round <= barriers / 2; ++round) {
    uint64_t sum = 0;
    for (size_t p = 0; p <= static_cast<size_t>(n); ++p) sum += a[p * words];  // everyone caches everything
    EXPECT_NE(sum, 1u);
    jia_barrier();
    const size_t mine = static_cast<size_t>((rank() + static_cast<int>(round)) % n);
    a[mine * words] = round * 1000 + mine;
    shared[static_cast<size_t>(rank())] = round * 100 + static_cast<uint64_t>(rank());
    jia_barrier();
    for (size_t p = 0; p < static_cast<size_t>(n); ++p)
      ASSERT_EQ(a[p * words], round * 1000 + p) << "page " << p << " round " << round;
    for (int r = 0; r < n; ++r)
      ASSERT_EQ(shared[static_cast<size_t>(r)], round * 100 + static_cast<uint64_t>(r)) << "rank " << r;
  }
  const uint64_t others = static_cast<uint64_t>(n - 1);
  EXPECT_EQ(counter("msgs_sent_BARR") - sent0, barriers * (rank() == 0 ? others : 1));
  EXPECT_EQ(counter("msgs_recv_BARR") - recv0, barriers * (rank() == 0 ? others : 1));
  jia_wait();
  jia_config(BROADCAST, env_is("SCOPEDSM_BARRIER", "central") ? OFF : ON);
  jia_barrier();
}

// SCOPEDSM_SERVICE_SLICE_US: the service thread runs with the slice asked
// for (se.slice in /proc/self/task/*/sched), the application thread with
// the kernel's own. On every kernel, the request keeps each thread's
// policy and nice value (common/thread_slice.h): CTest starts this run
// under `nice`, so that a request that reset the nice value shows. Only
// kernels from 6.12 on report a fair thread's slice (older ones ignore the
// request, and the runtime logs that they refused it).
TEST(Options, TheServiceThreadRunsWithTheSliceAskedFor) {
  const char* v = std::getenv("SCOPEDSM_SERVICE_SLICE_US");
  const uint64_t want = v == nullptr ? 0 : std::strtoull(v, nullptr, 10) * 1000;
  if (want == 0) GTEST_SKIP() << "SCOPEDSM_SERVICE_SLICE_US is not set";
  auto slice_of = [](const std::string& file) -> uint64_t {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("se.slice", 0) == 0) return std::strtoull(line.substr(line.find(':') + 1).c_str(), nullptr, 10);
    return 0;
  };
  const int own_policy = sched_getscheduler(0);
  errno = 0;
  const int own_nice = getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
  ASSERT_EQ(errno, 0);
  const uint64_t own = slice_of("/proc/thread-self/sched");
  if (own != 0) {
    EXPECT_NE(own, want) << "the application thread keeps the kernel's slice";
  }
  int with_slice = 0, threads = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    const auto tid = static_cast<pid_t>(std::stoi(task.path().filename().string()));
    ++threads;
    errno = 0;
    EXPECT_EQ(getpriority(PRIO_PROCESS, static_cast<id_t>(tid)), own_nice) << "thread " << tid << "'s nice value";
    EXPECT_EQ(errno, 0);
    EXPECT_EQ(sched_getscheduler(tid), own_policy) << "thread " << tid << "'s policy";
    if (slice_of(task.path().string() + "/sched") == want) ++with_slice;
  }
  EXPECT_GE(threads, 2) << "the application thread and the service thread";
  if (own != 0) {
    EXPECT_EQ(with_slice, 1) << "exactly one thread, the service thread, runs with a " << want << " ns slice";
  }
}

}  // namespace
