// What copiers record at a page's home (memory/home_share.h): the share
// words, the multi-producer retrap ring and the untrap rules, in ordinary
// memory (in a run it is the home's memfd, after its pages).
#include "memory/home_share.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

namespace scopedsm {
namespace {

constexpr size_t kPageSize = 4096;

// Zero-filled, page-aligned memory for a HomeShare of `pages`, as a fresh
// memfd range is.
class ShareMemory {
 public:
  explicit ShareMemory(uint64_t pages) : bytes_(HomeShare::bytes_for(pages, kPageSize)) {
    base_ = static_cast<std::byte*>(std::aligned_alloc(kPageSize, bytes_));
    std::memset(base_, 0, bytes_);
    share_ = HomeShare(base_, pages);
  }
  ~ShareMemory() { std::free(base_); }
  ShareMemory(const ShareMemory&) = delete;
  ShareMemory& operator=(const ShareMemory&) = delete;
  const HomeShare& share() const { return share_; }
  // What a one-sided reader writes before it reads the page.
  void mark_seen(uint64_t pages, uint64_t page) { base_[HomeShare::seen_offset(pages, page)] = std::byte{1}; }

 private:
  size_t bytes_;
  std::byte* base_;
  HomeShare share_;
};

// drain(), which waits for every entry claimed to be written: a ring that
// lost one would wait forever, so a drain of over 10 s ends the test binary.
std::vector<uint32_t> drained(const HomeShare& s) {
  std::vector<uint32_t> out;
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread watchdog([&finished] {
    if (finished.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
      std::fprintf(stderr, "HomeShare::drain waits for an entry that never comes\n");
      std::abort();
    }
  });
  s.drain(&out);
  done.set_value();
  watchdog.join();
  return out;
}

TEST(HomeShare, LayoutFitsInTheBytesReserved) {
  for (uint64_t pages : {1, 7, 1000}) {
    const uint64_t bytes = HomeShare::bytes_for(pages, kPageSize);
    EXPECT_EQ(bytes % kPageSize, 0u);
    EXPECT_GE(HomeShare::seen_offset(pages, 0), HomeShare::word_offset(pages)) << "the seen bytes follow the words";
    EXPECT_GT(HomeShare::probe_offset(pages), HomeShare::seen_offset(pages, pages - 1));
    EXPECT_LE(HomeShare::probe_offset(pages) + 4, bytes);
  }
}

TEST(HomeShare, ACopyOfATrappedPageIsRecordedNotQueued) {
  ShareMemory m(4);
  const HomeShare& s = m.share();
  s.record_copies(1, 2, 5);
  EXPECT_EQ(s.word(1).load(), 6u) << "the epoch + 1 of the latest copy";
  EXPECT_EQ(s.word(2).load(), 6u);
  EXPECT_EQ(s.word(0).load(), 0u);
  s.record_copies(1, 1, 3);
  EXPECT_EQ(s.word(1).load(), 6u) << "an older epoch does not lower it";
  EXPECT_TRUE(drained(s).empty());
}

TEST(HomeShare, ACopyOfAnUntrappedPageQueuesItOnce) {
  ShareMemory m(4);
  const HomeShare& s = m.share();
  ASSERT_TRUE(s.try_untrap_fresh(2));
  EXPECT_EQ(s.word(2).load(), kShareUntrapped);
  s.record_copies(2, 1, 0);
  EXPECT_EQ(s.word(2).load(), kShareUntrapped | kShareRetrap | kSharePushed | 1u);
  s.record_copies(2, 1, 1);  // a second copy before the drain: not queued again
  EXPECT_EQ(drained(s), std::vector<uint32_t>{2});
  EXPECT_EQ(s.word(2).load(), 2u) << "the drain clears the bits (trapped again), keeps the epoch";
  EXPECT_TRUE(drained(s).empty());
  s.record_copies(2, 1, 2);
  EXPECT_TRUE(drained(s).empty()) << "trapped again: a copy is not queued";
}

TEST(HomeShare, TheRingWrapsAndKeepsQueueOrder) {
  // The ring has one entry per page; pages leave it at every drain, so its
  // positions are reused many times over.
  constexpr uint64_t kPages = 3;
  ShareMemory m(kPages);
  const HomeShare& s = m.share();
  for (uint32_t round = 0; round < 10; ++round) {
    for (uint32_t p = 0; p < kPages; ++p) ASSERT_TRUE(s.try_untrap(p, round + 1)) << "round " << round;
    const std::vector<uint32_t> order = round % 2 ? std::vector<uint32_t>{2, 0, 1} : std::vector<uint32_t>{1, 2, 0};
    for (uint32_t p : order) s.record_copies(p, 1, round);
    EXPECT_EQ(drained(s), order) << "round " << round;
  }
}

TEST(HomeShare, UntrapRules) {
  ShareMemory m(4);
  const HomeShare& s = m.share();
  s.record_copies(0, 1, 3);
  EXPECT_FALSE(s.try_untrap(0, 3)) << "a copy was taken in epoch 3";
  EXPECT_TRUE(s.try_untrap(0, 4));
  EXPECT_FALSE(s.try_untrap(0, 4)) << "already untrapped";
  s.record_copies(0, 1, 4);  // queued
  s.trap_settled(0);
  EXPECT_FALSE(s.try_untrap(0, 100)) << "queued and not yet drained";
  EXPECT_EQ(drained(s), std::vector<uint32_t>{0});
  EXPECT_TRUE(s.try_untrap(0, 100));

  EXPECT_TRUE(s.try_untrap_fresh(1));
  s.record_copies(2, 1, 0);
  EXPECT_FALSE(s.try_untrap_fresh(2)) << "someone took a copy";

  // A page read one-sided stays trapped (its reader cannot record copies).
  m.mark_seen(4, 3);
  EXPECT_TRUE(s.seen(3));
  EXPECT_FALSE(s.try_untrap_fresh(3));
  EXPECT_FALSE(s.try_untrap(3, 100));
  EXPECT_EQ(s.word(3).load() & kShareUntrapped, 0u) << "the untrap was undone";
  s.reset(3, true);
  EXPECT_FALSE(s.seen(3)) << "a new allocation forgets the reader";
  EXPECT_EQ(s.word(3).load(), kShareUntrapped);
}

TEST(HomeShare, TrapSettledWaitsForACopierStillQueueing) {
  // A copier that saw the page untrapped is paused between claiming the
  // queueing and queueing it; trap_settled must not return before it
  // has, or the drain after it would miss that copy.
  ShareMemory m(2);
  const HomeShare& s = m.share();
  ASSERT_TRUE(s.try_untrap_fresh(1));
  std::thread copier([&s] { s.record_copies(1, 1, 0, 100'000'000); });
  while ((s.word(1).load() & kShareRetrap) == 0) std::this_thread::yield();
  s.trap_settled(1);
  EXPECT_NE(s.word(1).load() & kSharePushed, 0u) << "returned before the copier queued the page";
  EXPECT_EQ(s.word(1).load() & kShareUntrapped, 0u);
  EXPECT_EQ(drained(s), std::vector<uint32_t>{1});
  copier.join();
}

TEST(HomeShare, ConcurrentCopiersAndDrainsLoseAndRepeatNoPage) {
  // Many copiers record copies of every page while the home drains: each
  // untrapped page comes out of the ring exactly once (a drained page is
  // trapped again, so no later copy queues it).
  constexpr uint32_t kPages = 64;
  constexpr int kCopiers = 4;
  ShareMemory m(kPages);
  const HomeShare& s = m.share();
  for (uint32_t p = 0; p < kPages; ++p) ASSERT_TRUE(s.try_untrap_fresh(p));
  std::atomic<int> running{kCopiers};
  std::vector<std::thread> copiers;
  for (int c = 0; c < kCopiers; ++c)
    copiers.emplace_back([&s, &running, c] {
      for (int round = 0; round < 20; ++round)
        for (uint32_t i = 0; i < kPages; ++i) s.record_copies((i * 7 + static_cast<uint32_t>(c)) % kPages, 1, 1);
      running.fetch_sub(1);
    });
  std::vector<uint32_t> all;
  while (running.load() > 0) {
    const std::vector<uint32_t> some = drained(s);
    all.insert(all.end(), some.begin(), some.end());
  }
  for (auto& t : copiers) t.join();
  const std::vector<uint32_t> rest = drained(s);
  all.insert(all.end(), rest.begin(), rest.end());
  std::sort(all.begin(), all.end());
  std::vector<uint32_t> every(kPages);
  for (uint32_t p = 0; p < kPages; ++p) every[p] = p;
  EXPECT_EQ(all, every);
  for (uint32_t p = 0; p < kPages; ++p) EXPECT_EQ(s.word(p).load(), 2u) << "page " << p;
}

}  // namespace
}  // namespace scopedsm
