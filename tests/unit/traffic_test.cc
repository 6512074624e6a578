// Traffic counters by type and direction (transport/traffic.h).
#include "transport/traffic.h"

#include <gtest/gtest.h>

namespace scopedsm {
namespace {

uint64_t at(const std::array<std::atomic<uint64_t>, kMsgTypeCount>& a, MsgType t) {
  return a[static_cast<size_t>(t)].load();
}

Bytes message(MsgType type, size_t payload) {
  Writer w(type);
  for (size_t i = 0; i < payload; ++i) w.put<uint8_t>(1);
  return w.finish(0);
}

TEST(Traffic, CountsSentMessagesByTypeAndThoseToOneself) {
  Traffic t;
  const Bytes diff = message(MsgType::kDiff, 100), ack = message(MsgType::kAck, 0);
  t.count_sent(kTagRequest, diff.data(), diff.size(), false);
  t.count_sent(kTagRequest, diff.data(), diff.size(), false);
  t.count_sent(kTagReply, ack.data(), ack.size(), true);
  EXPECT_EQ(at(t.sent().messages, MsgType::kDiff), 2u);
  EXPECT_EQ(at(t.sent().bytes, MsgType::kDiff), 2 * diff.size());
  EXPECT_EQ(at(t.sent().messages, MsgType::kAck), 1u) << "messages to oneself count by type too";
  EXPECT_EQ(t.sent().self_messages.load(), 1u);
  EXPECT_EQ(t.sent().self_bytes.load(), ack.size());
  EXPECT_EQ(t.sent().page_messages.load(), 0u);
  EXPECT_EQ(at(t.received().messages, MsgType::kDiff), 0u) << "directions are apart";
}

TEST(Traffic, CountsPagesApart) {
  Traffic t;
  const Bytes page(4096, std::byte{0x5d});  // raw contents: no header to read
  t.count_sent(kTagPage, page.data(), page.size(), false);
  t.count_received_page(4096);
  t.count_received_page(4096);
  EXPECT_EQ(t.sent().page_messages.load(), 1u);
  EXPECT_EQ(t.sent().page_bytes.load(), 4096u);
  EXPECT_EQ(t.received().page_messages.load(), 2u);
  EXPECT_EQ(t.received().page_bytes.load(), 8192u);
  for (size_t i = 0; i < kMsgTypeCount; ++i) EXPECT_EQ(t.sent().messages[i].load(), 0u);
}

TEST(Traffic, CountsReceivedMessagesWithAValidHeaderOnly) {
  Traffic t;
  const Bytes grant = message(MsgType::kBarrier, 8);
  t.count_received(grant);
  EXPECT_EQ(at(t.received().messages, MsgType::kBarrier), 1u);
  EXPECT_EQ(at(t.received().bytes, MsgType::kBarrier), grant.size());
  // Too short for a header, or a type past the arrays: not counted (and no
  // write out of bounds); the reader that opens them reports them.
  t.count_received(Bytes(5));
  Bytes bad = grant;
  bad[2] = std::byte{0xff};
  bad[3] = std::byte{0xff};
  t.count_received(bad);
  uint64_t total = 0;
  for (size_t i = 0; i < kMsgTypeCount; ++i) total += t.received().messages[i].load();
  EXPECT_EQ(total, 1u);
}

}  // namespace
}  // namespace scopedsm
