#include <gtest/gtest.h>

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

TEST(PageCache, FreeSlotsThenRoundRobinVictims) {
  PageCache c;
  ASSERT_TRUE(c.init(3, 4096).ok());
  uint32_t a = c.take_free(), b = c.take_free(), d = c.take_free();
  EXPECT_EQ(c.take_free(), kNoSlot);
  c.occupy(a, 10);
  c.occupy(b, 11);
  c.occupy(d, 12);
  EXPECT_EQ(c.used(), 3u);
  uint32_t v1 = c.next_victim(), v2 = c.next_victim(), v3 = c.next_victim();
  EXPECT_NE(v1, v2);
  EXPECT_NE(v2, v3);
  EXPECT_NE(v1, v3);
  c.free(v2);
  EXPECT_EQ(c.take_free(), v2);
  c.twin(a)[0] = std::byte{1};  // twin buffers are usable memory
}

}  // namespace
}  // namespace scopedsm
