#include <gtest/gtest.h>

#include <vector>

#include "memory/page_cache.h"
#include "protocol/lock_stack.h"

namespace scopedsm {
namespace {

class LockStackTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(pages_.init(1024).ok()); }
  PageTable pages_;
};

TEST_F(LockStackTest, InnerWritesAreAlsoOuterWrites) {
  LockStack s(&pages_);
  s.note(1);            // outside any lock: bottom level
  s.push(10);
  s.note(2);
  s.push(11);
  s.note(3);
  s.note(3);            // duplicates collapse
  EXPECT_EQ(s.top_pages(), (std::vector<uint32_t>{3}));
  EXPECT_EQ(s.pop(), (std::vector<uint32_t>{3}));
  EXPECT_EQ(s.top_pages(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(s.pop(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(s.depth(), 1u);
  EXPECT_EQ(s.take_bottom(), (std::vector<uint32_t>{1, 2, 3}));
}

TEST_F(LockStackTest, BottomStaysDuplicateFreeAcrossManySections) {
  LockStack s(&pages_);
  for (int i = 0; i < 1000; ++i) {
    s.push(1);
    s.note(static_cast<uint32_t>(i % 3));
    s.pop();
  }
  EXPECT_EQ(s.bottom_pages().size(), 3u);
  s.take_bottom();
  s.set_epoch(1);  // next barrier epoch: membership starts afresh
  s.note(0);
  EXPECT_EQ(s.bottom_pages().size(), 1u);
}

TEST_F(LockStackTest, HoldsAndDescribe) {
  LockStack s(&pages_);
  EXPECT_FALSE(s.holds(3));
  s.push(3);
  s.push(7);
  EXPECT_TRUE(s.holds(3));
  EXPECT_EQ(s.top_lock(), 7);
  EXPECT_EQ(s.describe(), "locks held (outermost first): 3 7");
  s.note_everywhere(9);
  EXPECT_EQ(s.all_pages(), (std::vector<uint32_t>{9}));
  EXPECT_EQ(s.pop(), (std::vector<uint32_t>{9}));
}

TEST(PageCache, FreeSlotsThenFirstInFirstOutVictims) {
  // Victims come in the order pages were placed, whatever slots they are in:
  // an invalidated page leaves the queue, and the page that next takes its
  // slot joins at the back.
  PageCache c;
  ASSERT_TRUE(c.init(4, 4096).ok());
  EXPECT_EQ(c.next_victim(), kNoSlot);
  for (uint32_t s = 0; s < 4; ++s) EXPECT_EQ(c.take_free(), s);  // low slots first
  EXPECT_EQ(c.take_free(), kNoSlot);
  c.occupy(2, 10);
  c.occupy(0, 11);
  c.occupy(3, 12);
  c.occupy(1, 13);
  EXPECT_EQ(c.used(), 4u);
  c.free(0);  // page 11 invalidated
  EXPECT_EQ(c.take_free(), 0u);
  c.occupy(0, 14);
  // Evict as the coherence engine does: free the victim, take its slot
  // back, place the new page there.
  std::vector<uint64_t> evicted;
  for (uint64_t page = 20; page < 24; ++page) {
    const uint32_t v = c.next_victim();
    evicted.push_back(c.page_in(v));
    c.free(v);
    ASSERT_EQ(c.take_free(), v);
    c.occupy(v, page);
  }
  EXPECT_EQ(evicted, (std::vector<uint64_t>{10, 12, 13, 14}));
  // A victim the caller keeps (pinned) goes to the back of the queue.
  std::vector<uint64_t> offered;
  for (int i = 0; i < 5; ++i) offered.push_back(c.page_in(c.next_victim()));
  EXPECT_EQ(offered, (std::vector<uint64_t>{20, 21, 22, 23, 20}));
  c.twin(0)[0] = std::byte{1};  // twin buffers are usable memory
}

}  // namespace
}  // namespace scopedsm
