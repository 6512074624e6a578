// The acknowledgement ledger (transport/ack_ledger.h): owed counts, the
// wait that spares one destination, and acknowledgements nobody owed.
#include "transport/ack_ledger.h"

#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>

namespace scopedsm {
namespace {

// A ledger over `size` ranks whose reads come from `script`, in order; a
// read past the end of the script fails the test.
struct ScriptedLedger {
  explicit ScriptedLedger(int size) {
    ledger.init(size, [this](const char* what) {
      EXPECT_NE(what, nullptr);
      ++reads;
      // Thrown through the ledger, so that the test fails rather than the
      // ledger ending the whole test program on a reply of its invention.
      if (script.empty()) throw std::logic_error("the ledger read a reply that was never sent");
      AckLedger::Reply r = script.front();
      script.pop_front();
      return r;
    });
  }
  AckLedger ledger;
  std::deque<AckLedger::Reply> script;
  int reads = 0;
};

TEST(AckLedger, OnlyDiffGrantAndAckAreAcknowledgements) {
  for (uint16_t t = 1; t < static_cast<uint16_t>(MsgType::kCount); ++t) {
    const auto type = static_cast<MsgType>(t);
    EXPECT_EQ(AckLedger::is_ack(type), type == MsgType::kDiffAck || type == MsgType::kAck) << msg_type_name(type);
  }
}

TEST(AckLedger, CountsWhatEachDestinationOwes) {
  ScriptedLedger s(4);
  AckLedger& l = s.ledger;
  for (int d = 0; d < 4; ++d) EXPECT_EQ(l.owed(d), 0);
  l.expect(1);
  l.expect(1);
  l.expect(3);
  EXPECT_EQ(l.owed(0), 0);
  EXPECT_EQ(l.owed(1), 2);
  EXPECT_EQ(l.owed(3), 1);
  // Either acknowledgement type pays for any request: the ledger counts.
  EXPECT_TRUE(l.consume(MsgType::kDiffAck, 1).ok());
  EXPECT_TRUE(l.consume(MsgType::kAck, 1).ok());
  EXPECT_TRUE(l.consume(MsgType::kAck, 3).ok());
  for (int d = 0; d < 4; ++d) EXPECT_EQ(l.owed(d), 0) << "rank " << d;
  EXPECT_EQ(s.reads, 0);
}

TEST(AckLedger, AnAcknowledgementNobodyOwedIsAnError) {
  ScriptedLedger s(3);
  AckLedger& l = s.ledger;
  Status st = l.consume(MsgType::kDiffAck, 2);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "unexpected DIFFGRANT from rank 2");
  l.expect(2);
  EXPECT_TRUE(l.consume(MsgType::kAck, 2).ok());
  st = l.consume(MsgType::kAck, 2);  // one too many
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "unexpected ACK from rank 2");
  EXPECT_EQ(l.owed(2), 0) << "a rejected acknowledgement must not be counted";
  // Sources outside the job are errors too, not out-of-range indexes.
  EXPECT_FALSE(l.consume(MsgType::kAck, -1).ok());
  EXPECT_FALSE(l.consume(MsgType::kAck, 3).ok());
}

TEST(AckLedger, AnAcknowledgementWithAPayloadIsAnError) {
  ScriptedLedger s(3);
  AckLedger& l = s.ledger;
  l.expect(1);
  Status st = l.consume(MsgType::kDiffAck, 1, 4);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "DIFFGRANT from rank 1 carries 4 byte(s); it has no payload");
  EXPECT_EQ(l.owed(1), 1) << "a rejected acknowledgement must not be counted";
  EXPECT_TRUE(l.consume(MsgType::kDiffAck, 1, 0).ok());
}

TEST(AckLedger, OtherRepliesAreNotConsumed) {
  ScriptedLedger s(2);
  AckLedger& l = s.ledger;
  l.expect(1);
  Status st = l.consume(MsgType::kAcquireGrant, 1);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "ACQGRANT is not an acknowledgement");
  EXPECT_FALSE(l.absorb(MsgType::kAcquireGrant, 1)) << "a grant is for the reader";
  EXPECT_EQ(l.owed(1), 1);
  EXPECT_TRUE(l.absorb(MsgType::kDiffAck, 1));
  EXPECT_EQ(l.owed(1), 0);
}

TEST(AckLedger, AbsorbingAnUnexpectedAcknowledgementEndsTheJob) {
  ScriptedLedger s(3);
  EXPECT_EXIT(s.ledger.absorb(MsgType::kAck, 2), ::testing::ExitedWithCode(1),
              "protocol error: unexpected ACK from rank 2");
}

TEST(AckLedger, OwingExceptSkipsOneDestination) {
  ScriptedLedger s(4);
  AckLedger& l = s.ledger;
  EXPECT_EQ(l.owing_except(-1), -1);
  l.expect(2);
  EXPECT_EQ(l.owing_except(-1), 2);
  EXPECT_EQ(l.owing_except(2), -1);
  l.expect(3);
  EXPECT_EQ(l.owing_except(2), 3);
  l.expect(0);
  EXPECT_EQ(l.owing_except(2), 0) << "the lowest destination that owes";
}

TEST(AckLedger, WaitExceptReadsUntilOnlyTheSparedDestinationOwes) {
  ScriptedLedger s(3);
  AckLedger& l = s.ledger;
  l.expect(0);
  l.expect(1);
  l.expect(1);
  l.expect(2);
  // Acknowledgements come in any order, the spared destination's too.
  s.script = {{MsgType::kAck, 2}, {MsgType::kDiffAck, 1}, {MsgType::kDiffAck, 0}, {MsgType::kAck, 1}};
  l.wait_except(1);
  EXPECT_EQ(s.reads, 3) << "rank 1 is spared: its second acknowledgement is not waited for";
  EXPECT_EQ(l.owed(0), 0);
  EXPECT_EQ(l.owed(1), 1);
  EXPECT_EQ(l.owed(2), 0);
  // Without a spared destination, everyone.
  l.wait_except(-1);
  EXPECT_EQ(s.reads, 4);
  EXPECT_EQ(l.owed(1), 0);
}

TEST(AckLedger, WaitExceptReadsNothingWhenNothingIsOwed) {
  ScriptedLedger s(3);
  s.ledger.wait_except(-1);
  s.ledger.expect(2);
  s.ledger.wait_except(2);
  EXPECT_EQ(s.reads, 0);
  EXPECT_EQ(s.ledger.owed(2), 1);
}

TEST(AckLedger, AnotherReplyWhileWaitingForAcknowledgementsEndsTheJob) {
  ScriptedLedger s(2);
  s.ledger.expect(1);
  s.script = {{MsgType::kCvGrant, 1}};
  EXPECT_EXIT(s.ledger.wait_except(-1), ::testing::ExitedWithCode(1),
              "protocol error: waiting for acknowledgements \\(DIFFGRANT or ACK\\) but received CVGRANT from rank 1");
}

TEST(AckLedger, ExpectingFromARankOutsideTheJobEndsTheJob) {
  ScriptedLedger s(2);
  EXPECT_EXIT(s.ledger.expect(2), ::testing::ExitedWithCode(1),
              "internal error: an acknowledgement expected from rank 2");
}

}  // namespace
}  // namespace scopedsm
