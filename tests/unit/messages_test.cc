// The message table against the encoders and decoders made from it: every
// entry, including one added later, is encoded, decoded, truncated,
// lengthened and broken field by field without a line of its own here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "protocol/messages.h"
#include "support/message_samples.h"

namespace scopedsm {
namespace {

using Bytes = std::vector<std::byte>;
constexpr size_t kHeader = sizeof(MsgHeader);

// The situations a receiver may be in: the runtime's usual limits, the
// smallest, and the largest the fuzz target knows.
const Limits kLimits[] = {
    Limits{100, 4, kMaxLocks, kMaxCondvars},
    Limits{1, 1, 1, 1},
    Limits{1ull << 32, 65536, 1 << 20, 4096},
};

Bytes from_hex(const std::string& hex) {
  Bytes out;
  for (size_t i = 0; i < hex.size(); ++i) {
    if (hex[i] == ' ') continue;
    out.push_back(static_cast<std::byte>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    ++i;
  }
  return out;
}

MsgHeader header_of(const Bytes& b) {
  MsgHeader h{};
  std::memcpy(&h, b.data(), sizeof h);
  return h;
}

// A message with its header's length rewritten to fit a changed payload.
Bytes with_payload(const Bytes& msg, size_t payload_bytes) {
  Bytes out(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(std::min(msg.size(), kHeader + payload_bytes)));
  out.resize(kHeader + payload_bytes, std::byte{0});
  const auto n = static_cast<uint32_t>(payload_bytes);
  std::memcpy(out.data() + offsetof(MsgHeader, payload_bytes), &n, sizeof n);
  return out;
}

// Whether M ends in a tail (which takes any number of bytes).
struct FindTail : samples::LookAtNothing {
  bool found = false;
  void tail(const auto&) { found = true; }
};

template <typename M>
bool has_tail() {
  M m;
  FindTail t;
  M::fields(m, t);
  return t.found;
}

TEST(MessageTable, IdsAreDenseAndNamesUniqueOnBothSides) {
  // The transport's view (kMsgTypes, msg_type_name) ...
  ASSERT_EQ(std::size(kMsgTypes) + 1, kMsgTypeCount);
  std::set<std::string> names;
  for (size_t i = 0; i < std::size(kMsgTypes); ++i) {
    const MsgTypeInfo& e = kMsgTypes[i];
    EXPECT_EQ(static_cast<size_t>(e.type), i + 1) << e.name;
    EXPECT_STREQ(msg_type_name(e.type), e.name);
    EXPECT_TRUE(e.tag == kTagRequest || e.tag == kTagReply || e.tag == kTagPeer) << e.name;
    EXPECT_EQ(msg_type_tag(e.type), e.tag) << e.name;
    // Statistics keys (msgs_sent_<NAME>) and corpus file names use it as is.
    const std::string name = e.name;
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), std::string::npos) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
  }
  EXPECT_STREQ(msg_type_name(static_cast<MsgType>(0)), "?");
  EXPECT_STREQ(msg_type_name(MsgType::kCount), "?");
  // ... and protocol's (MessageInfo), line by line.
  size_t i = 0;
  for_each_message([&]<typename M>(std::type_identity<M>) {
    ASSERT_LT(i, std::size(kMsgTypes));
    EXPECT_EQ(MessageInfo<M>::type, kMsgTypes[i].type);
    EXPECT_STREQ(MessageInfo<M>::name, kMsgTypes[i].name);
    EXPECT_EQ(MessageInfo<M>::tag, kMsgTypes[i].tag);
    bool visited = false;
    EXPECT_TRUE(visit_message(kMsgTypes[i].type, [&]<typename V>(std::type_identity<V>) {
      visited = std::is_same_v<V, M>;
    }));
    EXPECT_TRUE(visited) << MessageInfo<M>::name;
    ++i;
  });
  EXPECT_EQ(i, std::size(kMsgTypes));
  EXPECT_FALSE(visit_message(MsgType::kCount, [](auto) { FAIL(); }));
}

// Encodes m, checks the header, decodes it back and re-encodes it.
template <typename M>
void round_trip(const M& m, const Limits& l, const std::string& what) {
  SCOPED_TRACE(what);
  const Bytes bytes = encode(m, 4711);
  ASSERT_GE(bytes.size(), kHeader);
  const MsgHeader h = header_of(bytes);
  EXPECT_EQ(h.magic, kMagic);
  EXPECT_EQ(h.type, static_cast<uint16_t>(MessageInfo<M>::type));
  EXPECT_EQ(h.payload_bytes, bytes.size() - kHeader);
  EXPECT_EQ(h.seq, 4711u);
  M back;
  const Status st = decode_message(bytes, l, &back);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(encode(back, 4711), bytes);
  // Any other message's decoder refuses it, naming both.
  for_each_message([&]<typename O>(std::type_identity<O>) {
    if constexpr (!std::is_same_v<O, M>) {
      O other;
      const Status wrong = decode_message(bytes, l, &other);
      EXPECT_FALSE(wrong.ok()) << MessageInfo<O>::name;
      EXPECT_EQ(wrong.message(), std::string("expected ") + MessageInfo<O>::name + ", got " + MessageInfo<M>::name);
    }
  });
}

template <typename M, typename Source>
void round_trip_sample(const Limits& l, Source src, const std::string& what) {
  samples::ValidFiller<Source> filler(l, &src);
  M m;
  M::fields(m, filler);
  if (filler.possible()) round_trip(m, l, what);
}

TEST(MessageTable, EveryMessageRoundTrips) {
  for (const Limits& l : kLimits) {
    for_each_message([&]<typename M>(std::type_identity<M>) {
      const std::string what = std::string(MessageInfo<M>::name) + " under " + std::to_string(l.pages) + " pages, " +
                               std::to_string(l.ranks) + " ranks";
      round_trip_sample<M>(l, samples::LowestSource{}, what + ", lowest values");
      round_trip_sample<M>(l, samples::HighestSource{}, what + ", highest values");
      for (uint64_t seed = 1; seed <= 20; ++seed)
        round_trip_sample<M>(l, samples::SeededSource(seed), what + ", seed " + std::to_string(seed));
    });
  }
}

TEST(MessageTable, ShortOrLongPayloadsAreRejected) {
  const Limits& l = kLimits[0];
  for_each_message([&]<typename M>(std::type_identity<M>) {
    SCOPED_TRACE(MessageInfo<M>::name);
    if (has_tail<M>()) return;  // a tail takes any number of bytes
    samples::HighestSource src;
    samples::ValidFiller<samples::HighestSource> filler(l, &src);
    M m;
    M::fields(m, filler);
    ASSERT_TRUE(filler.possible());
    const Bytes bytes = encode(m, 1);
    const size_t n = bytes.size() - kHeader;
    // Every length prefix says how much follows: no shorter payload decodes.
    for (size_t cut = 0; cut < n; ++cut) {
      M back;
      EXPECT_FALSE(decode_message(with_payload(bytes, cut), l, &back).ok()) << cut << " of " << n << " bytes";
    }
    M back;
    const Status longer = decode_message(with_payload(bytes, n + 1), l, &back);
    EXPECT_FALSE(longer.ok());
    EXPECT_EQ(longer.message(), "trailing bytes after the payload");
  });
}

// Fills a message with valid values but one: the `target`-th field whose
// decoder has a check gets a value just outside it. `expect` is then what
// the decoder's error message must say.
template <typename Source>
class BreakOne {
 public:
  BreakOne(const Limits& l, Source* src, int target) : l_(l), valid_(l, src), target_(target) {}
  int checked() const { return seen_; }
  std::string expect;

  void u32(uint32_t& x) { valid_.u32(x); }
  void u64(uint64_t& x) { valid_.u64(x); }
  void i32(int32_t& x) { valid_.i32(x); }
  void epoch(uint32_t& x) { valid_.epoch(x); }
  void flag(const char* name, bool& b) { valid_.flag(name, b); }  // a bool holds no bad value: see Fields below
  void blob(std::vector<std::byte>& b) { valid_.blob(b); }
  void tail(std::span<const std::byte>& t) { valid_.tail(t); }
  void page(uint32_t& x) {
    valid_.page(x);
    if (!hit()) return;
    x = static_cast<uint32_t>(l_.pages);
    expect = "page " + std::to_string(x) + " is not allocated";
  }
  void run(uint32_t first, uint32_t& n) {
    valid_.run(first, n);
    if (!hit()) return;
    n = 0;
    expect = "a run of 0 pages from page " + std::to_string(first) + " is out of range";
  }
  void lane(uint32_t& x) {
    valid_.lane(x);
    if (!hit()) return;
    x = kMaxAsyncFetches + 1;
    expect = "reply lane " + std::to_string(x) + " is out of range (0 to " + std::to_string(kMaxAsyncFetches) + ")";
  }
  void lock(uint32_t& x) {
    valid_.lock(x);
    if (!hit()) return;
    x = static_cast<uint32_t>(l_.locks);
    expect = "lock id " + std::to_string(x) + " out of range";
  }
  void cv(uint32_t& x) {
    valid_.cv(x);
    if (!hit()) return;
    x = static_cast<uint32_t>(l_.condvars);
    expect = "condition variable " + std::to_string(x) + " out of range";
  }
  void rank(const char* name, int32_t& x) {
    valid_.rank(name, x);
    if (!hit()) return;
    x = l_.ranks;
    expect = std::string(name) + " " + std::to_string(x) + " is not a rank";
  }
  void notices(std::vector<WriteNotice>& v) {
    valid_.notices(v);
    if (!hit()) return;
    v.push_back({static_cast<uint32_t>(l_.pages), 0});
    expect = "notice names page " + std::to_string(l_.pages) + " outside the allocated region";
  }
  void text(const char* name, std::string& s, uint32_t max) {
    valid_.text(name, s, max);
    if (!hit()) return;
    s.assign(max + 1, 'x');
    expect = std::string(name) + " too long";
  }
  void blobs(std::vector<std::vector<std::byte>>& v) {
    valid_.blobs(v);
    if (!hit()) return;
    v.resize(static_cast<size_t>(l_.ranks) + 1);
    expect = "more payloads than ranks";
  }

 private:
  bool hit() { return seen_++ == target_; }
  const Limits& l_;
  samples::ValidFiller<Source> valid_;
  const int target_;
  int seen_ = 0;
};

TEST(MessageTable, EveryCheckedFieldRejectsTheValueJustOutside) {
  const Limits& l = kLimits[0];
  int broken = 0;
  for_each_message([&]<typename M>(std::type_identity<M>) {
    for (int target = 0;; ++target) {
      samples::SeededSource src(static_cast<uint64_t>(target) + 1);
      BreakOne<samples::SeededSource> b(l, &src, target);
      M m;
      M::fields(m, b);
      if (target >= b.checked()) break;
      SCOPED_TRACE(std::string(MessageInfo<M>::name) + ", checked field " + std::to_string(target));
      M back;
      const Status st = decode_message(encode(m, 1), l, &back);
      EXPECT_FALSE(st.ok());
      EXPECT_EQ(st.message(), b.expect);
      ++broken;
    }
  });
  EXPECT_GT(broken, 0);
}

// The wire format, written out by hand from docs/PROTOCOL.md: the table and
// the field kinds must keep producing exactly these bytes (header: magic
// 0x5d53, type, payload length, sequence number; then the payload).
TEST(MessageTable, WireFormatIsUnchanged) {
  EXPECT_EQ(encode(GetPageMsg{5, 2, 3, 7}, 1),
            from_hex("535d 0100 10000000 01000000  05000000 02000000 03000000 07000000"));
  EXPECT_EQ(encode(AcquireMsg{3, 1, 0x0102030405060708}, 2),
            from_hex("535d 0400 10000000 02000000  03000000 01000000 0807060504030201"));
  EXPECT_EQ(encode(AcquireGrantMsg{3, 4, {{1, 0}, {2, kMultipleWriters}}}, 3),
            from_hex("535d 0500 20000000 03000000  03000000 0400000000000000 02000000 01000000 00000000 02000000 "
                     "feffffff"));
  EXPECT_EQ(encode(CvResetMsg{2, 9}, 4), from_hex("535d 0c00 08000000 04000000  02000000 09000000"));
  EXPECT_EQ(encode(CvWaitMsg{2, 9}, 4), from_hex("535d 0d00 08000000 04000000  02000000 09000000"));
  EXPECT_EQ(encode(CollectiveMsg{"ab", from_hex("0708")}, 5),
            from_hex("535d 0f00 0d000000 05000000  02000000 6162 02000000 0708 00"));
  EXPECT_EQ(encode(CollectiveMsg{"ab", {}, true}, 5), from_hex("535d 0f00 0b000000 05000000  02000000 6162 00000000 01"));
  EXPECT_EQ(encode(CollectiveDoneMsg{{from_hex("01"), {}}}, 6),
            from_hex("535d 1000 0d000000 06000000  02000000 01000000 01 00000000"));
  EXPECT_EQ(encode(HomeIsMsg{7, -1}, 7), from_hex("535d 1200 08000000 07000000  07000000 ffffffff"));
  const Bytes records = from_hex("aabbcc");
  EXPECT_EQ(encode(DiffMsg{records}, 8), from_hex("535d 0200 03000000 08000000  aabbcc"));
  EXPECT_EQ(encode(WaitMsg{}, 9), from_hex("535d 0900 00000000 09000000"));
  EXPECT_EQ(encode(AckMsg{}, 10), from_hex("535d 1400 00000000 0a000000"));
  EXPECT_EQ(encode(RecordCopiesMsg{5, 2, 3}, 11),
            from_hex("535d 1a00 0c000000 0b000000  05000000 02000000 03000000"));
  EXPECT_EQ(encode(SyncWaitMsg{1, 1, 3, 2, true, "ab", from_hex("07000000")}, 12),
            from_hex("535d 1b00 23000000 0c000000  0100000000000000 01000000 03000000 02000000 01 02000000 6162 "
                     "04000000 07000000"));
  EXPECT_EQ(encode(SyncDoneMsg{5}, 13), from_hex("535d 1c00 08000000 0d000000  0500000000000000"));
  EXPECT_EQ(encode(SyncProbeMsg{2}, 14), from_hex("535d 1d00 08000000 0e000000  0200000000000000"));
  EXPECT_EQ(encode(SyncStateMsg{2, 5, from_hex("01000000 02000000")}, 15),
            from_hex("535d 1e00 1c000000 0f000000  0200000000000000 0500000000000000 08000000 01000000 02000000"));
}

TEST(MessageTable, DiffRecordsAreLeftToTheHome) {
  // The decoder hands the home every byte; apply_diff checks the records.
  const Bytes msg = encode(DiffMsg{from_hex("01020304 ff")}, 1);
  DiffMsg m;
  ASSERT_TRUE(decode_message(msg, Limits{}, &m).ok());
  EXPECT_EQ(Bytes(m.records.begin(), m.records.end()), from_hex("01020304 ff"));
  EXPECT_EQ(m.records.data(), msg.data() + kHeader);  // a view, not a copy
}

// Kinds no message of the table uses today, so nothing above reaches them.
struct EveryKind {
  uint32_t a = 0;
  uint64_t b = 0;
  int32_t c = 0;
  uint32_t epoch = 0;
  int32_t rank = 0;
  bool on = false;
  std::string text;
  std::span<const std::byte> rest;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.u32(m.a);
    v.u64(m.b);
    v.i32(m.c);
    v.epoch(m.epoch);
    v.rank("owner", m.rank);
    v.flag("on", m.on);
    v.text("label", m.text, 3);
    v.tail(m.rest);
  }
};
static_assert(HasFields<EveryKind> && !Message<EveryKind>, "fields() alone does not make a message of the table");

Status decode_payload(const std::string& hex, EveryKind* m) {
  static Bytes payload;  // `rest` points into it
  payload = from_hex(hex);
  Reader r(payload.data(), payload.size());
  return decode(&r, Limits{0, 3}, m);
}

TEST(Fields, EveryKindHasItsWireFormAndItsCheck) {
  const Bytes rest = from_hex("eeff");
  EveryKind m{7, 8, -9, 10, 2, true, "abc", rest};
  Writer w(MsgType::kWait);
  put_fields(&w, m);
  const Bytes bytes = w.finish(0);
  const std::string payload = "07000000 0800000000000000 f7ffffff 0a000000 02000000 01 03000000 616263 eeff";
  EXPECT_EQ(Bytes(bytes.begin() + kHeader, bytes.end()), from_hex(payload));

  EveryKind back;
  ASSERT_TRUE(decode_payload(payload, &back).ok());
  EXPECT_EQ(back.a, 7u);
  EXPECT_EQ(back.b, 8u);
  EXPECT_EQ(back.c, -9);
  EXPECT_EQ(back.epoch, 10u);
  EXPECT_EQ(back.rank, 2);
  EXPECT_TRUE(back.on);
  EXPECT_EQ(back.text, "abc");
  EXPECT_EQ(Bytes(back.rest.begin(), back.rest.end()), rest);

  const std::string head = "07000000 0800000000000000 f7ffffff 0a000000 ";
  EXPECT_TRUE(decode_payload(head + "00000000 00 00000000", &back).ok());
  EXPECT_FALSE(back.on);
  EXPECT_EQ(decode_payload(head + "03000000 00 00000000", &back).message(), "owner 3 is not a rank");
  EXPECT_EQ(decode_payload(head + "ffffffff 00 00000000", &back).message(), "owner -1 is not a rank");
  EXPECT_EQ(decode_payload(head + "00000000 02 00000000", &back).message(), "on is 2, not 0 or 1");
  EXPECT_EQ(decode_payload(head + "00000000 01 04000000 61626364", &back).message(), "label too long");
  EXPECT_EQ(decode_payload(head + "00000000 01 03000000 6162", &back).message(), "message truncated");
  EXPECT_EQ(decode_payload(head + "00000000", &back).message(), "message truncated");
}

}  // namespace
}  // namespace scopedsm
