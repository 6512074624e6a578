// Messages a process sends to itself (transport/mailbox.h).
#include "transport/mailbox.h"

#include <gtest/gtest.h>

namespace scopedsm {
namespace {

Bytes bytes_of(std::initializer_list<int> values) {
  Bytes b;
  for (int v : values) b.push_back(static_cast<std::byte>(v));
  return b;
}

TEST(Mailbox, KeepsEachTagInOrderAndApart) {
  Mailbox m;
  Bytes out;
  EXPECT_FALSE(m.take(kTagRequest, &out));
  EXPECT_FALSE(m.take(kTagReply, &out));
  const Bytes a = bytes_of({1, 2}), b = bytes_of({3}), c = bytes_of({4, 5, 6});
  m.put(kTagRequest, a.data(), a.size());
  m.put(kTagReply, b.data(), b.size());
  m.put(kTagRequest, c.data(), c.size());
  ASSERT_TRUE(m.take(kTagReply, &out));
  EXPECT_EQ(out, b);
  EXPECT_FALSE(m.take(kTagReply, &out)) << "the requests are not the application thread's";
  ASSERT_TRUE(m.take(kTagRequest, &out));
  EXPECT_EQ(out, a);
  ASSERT_TRUE(m.take(kTagRequest, &out));
  EXPECT_EQ(out, c);
  EXPECT_FALSE(m.take(kTagRequest, &out));
}

TEST(Mailbox, KeepsACopy) {
  // The sender's buffer may be reused (or freed) as soon as put returns.
  Mailbox m;
  Bytes b = bytes_of({7, 8});
  m.put(kTagReply, b.data(), b.size());
  b[0] = std::byte{0};
  Bytes out;
  ASSERT_TRUE(m.take(kTagReply, &out));
  EXPECT_EQ(out, bytes_of({7, 8}));
}

TEST(Mailbox, RefusesPages) {
  Mailbox m;
  const Bytes b = bytes_of({1});
  EXPECT_EXIT(m.put(kTagPage, b.data(), b.size()), ::testing::ExitedWithCode(1), "a message to oneself on tag 3");
}

}  // namespace
}  // namespace scopedsm
