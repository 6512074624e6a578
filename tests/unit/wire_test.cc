#include <gtest/gtest.h>

#include "protocol/notices.h"
#include "transport/wire.h"

namespace scopedsm {
namespace {

TEST(Wire, HeaderRoundTrip) {
  Writer w(MsgType::kAcquire);
  w.put<uint32_t>(3);
  w.put<uint64_t>(99);
  auto bytes = w.finish(17);
  Reader r(bytes.data(), bytes.size());
  MsgType t;
  ASSERT_TRUE(r.open(&t).ok());
  EXPECT_EQ(t, MsgType::kAcquire);
  uint32_t a = 0;
  uint64_t b = 0;
  ASSERT_TRUE(r.get(&a).ok());
  ASSERT_TRUE(r.get(&b).ok());
  EXPECT_EQ(a, 3u);
  EXPECT_EQ(b, 99u);
  EXPECT_FALSE(r.get(&a).ok());  // nothing left
}

TEST(Wire, RejectsBadHeaders) {
  Writer w(MsgType::kRelease);
  w.put<uint32_t>(1);
  auto good = w.finish(1);
  MsgType t;
  {
    auto bad = good;
    bad[0] = std::byte{0};  // magic
    Reader r(bad.data(), bad.size());
    EXPECT_FALSE(r.open(&t).ok());
  }
  {
    auto bad = good;
    bad.pop_back();  // length mismatch
    Reader r(bad.data(), bad.size());
    EXPECT_FALSE(r.open(&t).ok());
  }
  {
    auto bad = good;
    bad[2] = std::byte{0xff};  // type out of range
    Reader r(bad.data(), bad.size());
    EXPECT_FALSE(r.open(&t).ok());
  }
  {
    Reader r(good.data(), 5);  // shorter than a header
    EXPECT_FALSE(r.open(&t).ok());
  }
}

TEST(Notices, RoundTripAndValidation) {
  Writer w(MsgType::kRelease);
  put_notices(&w, {{1, 0}, {5, kMultipleWriters}, {9, 3}});
  auto bytes = w.finish(1);
  Reader r(bytes.data(), bytes.size());
  MsgType t;
  ASSERT_TRUE(r.open(&t).ok());
  std::vector<WriteNotice> got;
  ASSERT_TRUE(get_notices(&r, 10, 4, &got).ok());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1].page, 5u);
  EXPECT_EQ(got[1].writer, kMultipleWriters);

  Reader r2(bytes.data(), bytes.size());
  ASSERT_TRUE(r2.open(&t).ok());
  EXPECT_FALSE(get_notices(&r2, 9, 4, &got).ok());  // page 9 beyond the limit
  Reader r3(bytes.data(), bytes.size());
  ASSERT_TRUE(r3.open(&t).ok());
  EXPECT_FALSE(get_notices(&r3, 10, 3, &got).ok());  // writer 3 is not a rank of 3
}

TEST(Notices, CountLargerThanMessageIsRejected) {
  Writer w(MsgType::kRelease);
  w.put<uint32_t>(1000000);
  auto bytes = w.finish(1);
  Reader r(bytes.data(), bytes.size());
  MsgType t;
  ASSERT_TRUE(r.open(&t).ok());
  std::vector<WriteNotice> got;
  EXPECT_FALSE(get_notices(&r, 10, 4, &got).ok());
}

TEST(Notices, MergeMarksPagesWithSeveralWriters) {
  NoticeMerge m;
  m.add({4, 1});
  m.add({4, 1});
  m.add({2, 0});
  m.add({2, 3});
  auto out = m.take();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].page, 2u);
  EXPECT_EQ(out[0].writer, kMultipleWriters);
  EXPECT_EQ(out[1].page, 4u);
  EXPECT_EQ(out[1].writer, 1);
  EXPECT_EQ(m.size(), 0u);
}

TEST(Notices, SortedKeepsTheMergeAndClearEmptiesIt) {
  // A condition variable's notices go out with every grant until a reset.
  NoticeMerge m;
  m.add({9, 2});
  m.add({3, 0});
  m.add({9, 1});
  const auto first = m.sorted();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].page, 3u);
  EXPECT_EQ(first[0].writer, 0);
  EXPECT_EQ(first[1].page, 9u);
  EXPECT_EQ(first[1].writer, kMultipleWriters);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.sorted().size(), 2u);
  m.clear();
  EXPECT_EQ(m.size(), 0u);
  EXPECT_TRUE(m.sorted().empty());
}

}  // namespace
}  // namespace scopedsm
