#include "runtime/blocked_read.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace scopedsm {
namespace {

long gettid_now() { return static_cast<long>(syscall(SYS_gettid)); }

// Polls until `pred` holds or 10 s pass (a state to reach, not a time limit
// on anything measured).
template <typename Pred>
bool eventually(Pred pred) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(BlockedRead, SeesAThreadBlockedReadingThatDescriptorOnly) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::atomic<long> tid{0};
  std::thread reader([&] {
    tid.store(gettid_now());
    char c = 0;
    EXPECT_EQ(read(fds[0], &c, 1), 1);
  });
  ASSERT_TRUE(eventually([&] { return tid.load() != 0 && thread_blocked_in_read(tid.load(), fds[0]); }))
      << "the reader never showed as blocked in read on the pipe";
  EXPECT_FALSE(thread_blocked_in_read(tid.load(), fds[1]));     // another descriptor
  EXPECT_FALSE(thread_blocked_in_read(tid.load(), fds[0] + 100));
  const char c = 'x';
  ASSERT_EQ(write(fds[1], &c, 1), 1);
  reader.join();
  close(fds[0]);
  close(fds[1]);
}

TEST(BlockedRead, ASleepingThreadOrOneReadingElsewhereOrAnUnknownOneIsNot) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::atomic<long> tid{0};
  std::atomic<bool> stop{false};
  std::thread sleeper([&] {
    tid.store(gettid_now());
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  ASSERT_TRUE(eventually([&] { return tid.load() != 0; }));
  for (int i = 0; i < 50; ++i) EXPECT_FALSE(thread_blocked_in_read(tid.load(), fds[0]));
  // This thread: the kernel shows it in read(2), but on the procfs file it reads.
  EXPECT_FALSE(thread_blocked_in_read(gettid_now(), fds[0]));
  stop.store(true);
  sleeper.join();
  EXPECT_FALSE(thread_blocked_in_read(-5, fds[0]));  // no such thread
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace scopedsm
