// Message size limits (transport/message_size.h): a length that does not
// fit is an error naming the message, never a truncation.
#include "transport/message_size.h"

#include <gtest/gtest.h>

namespace scopedsm {
namespace {

TEST(MessageSize, PayloadLengthMustFitTheHeader) {
  EXPECT_EQ(kMaxPayloadBytes, 4294967295u);
  EXPECT_TRUE(check_payload_size(MsgType::kDiff, 0).ok());
  EXPECT_TRUE(check_payload_size(MsgType::kDiff, kMaxPayloadBytes).ok());
  Status s = check_payload_size(MsgType::kDiff, kMaxPayloadBytes + 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("DIFF message"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("4294967296 bytes"), std::string::npos) << s.message();
  s = check_payload_size(MsgType::kBarrier, size_t{1} << 40);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("BARR message with a payload of 1099511627776 bytes"), std::string::npos)
      << s.message();
}

TEST(MessageSize, MessageMustFitAnMpiCount) {
  EXPECT_EQ(kMaxMessageBytes, 2147483647u);
  EXPECT_TRUE(check_message_size("SETCV", 12).ok());
  EXPECT_TRUE(check_message_size("SETCV", kMaxMessageBytes).ok());
  Status s = check_message_size("SETCV", kMaxMessageBytes + 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "a SETCV message of 2147483648 bytes exceeds the limit of 2147483647 bytes (MPI counts bytes in an int)");
  // A payload the header can still describe may be too large for MPI.
  EXPECT_TRUE(check_payload_size(MsgType::kCollectiveDone, 3000000000u).ok());
  EXPECT_FALSE(check_message_size("COLLGRANT", 3000000000u + sizeof(MsgHeader)).ok());
}

TEST(MessageSize, NamesWhatWasPosted) {
  Writer w(MsgType::kCvSet);
  w.put<uint32_t>(4);
  const auto bytes = w.finish(1);
  EXPECT_STREQ(posted_message_name(kTagRequest, bytes.data(), bytes.size()), "SETCV");
  EXPECT_STREQ(posted_message_name(kTagPage, bytes.data(), bytes.size()), "page");
  EXPECT_STREQ(posted_message_name(kTagReply, bytes.data(), 3), "?");
}

}  // namespace
}  // namespace scopedsm
