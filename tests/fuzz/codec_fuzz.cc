// libFuzzer target: every decoder the runtime runs on received bytes.
//
// Input: two setup bytes (fuzz_setup.h), then one message as MPI delivered
// it. For each input the target
//   1. opens the header and decodes the message as the type it names, the
//      way the service thread and SyncClient do (decode_message);
//   2. runs the decoder of every message of the table, get_notices and the
//      DIFF record loop on the payload whatever the header says (and on the
//      payload framed as one diff record), so the fuzzer need not match
//      types or framing;
//   3. builds a valid message of a chosen type from the input and checks it
//      is accepted.
// Properties: a rejected message is an error Status with a message; an
// accepted one obeys the Limits and re-encodes to the very same bytes (every
// encoding is canonical); a diff changes only what it names, inside the page
// it names. Memory errors are ASan's and UBSan's to find. Nothing here names
// a message: the message table and the field kinds drive it all.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "check.h"
#include "diff_check.h"
#include "fuzz_setup.h"
#include "protocol/messages.h"
#include "stats_check.h"
#include "support/message_samples.h"

namespace scopedsm::fuzz {

namespace {

using Bytes = std::vector<std::byte>;
constexpr size_t kHeader = 12;

// What a decoder promises about an accepted message, checked independently
// of FieldReader, kind by kind.
bool page_ok(uint32_t page, const Limits& l) { return page < l.pages; }
bool notices_ok(const std::vector<WriteNotice>& ns, const Limits& l) {
  for (const auto& n : ns)
    if (!page_ok(n.page, l) || (n.writer != kMultipleWriters && (n.writer < 0 || n.writer >= l.ranks))) return false;
  return true;
}

struct Promises : samples::LookAtNothing {
  explicit Promises(const Limits& limits) : l(limits) {}
  const Limits& l;
  bool kept = true;
  void page(uint32_t x) { kept = kept && page_ok(x, l); }
  void run(uint32_t first, uint32_t n) { kept = kept && n >= 1 && n <= kMaxFetchPages && first + uint64_t{n} <= l.pages; }
  void lane(uint32_t x) { kept = kept && x <= kMaxAsyncFetches; }
  void lock(uint32_t x) { kept = kept && x < static_cast<uint32_t>(l.locks); }
  void cv(uint32_t x) { kept = kept && x < static_cast<uint32_t>(l.condvars); }
  void rank(const char*, int32_t x) { kept = kept && x >= 0 && x < l.ranks; }
  void notices(const std::vector<WriteNotice>& ns) { kept = kept && notices_ok(ns, l); }
  void text(const char*, const std::string& s, uint32_t max) { kept = kept && s.size() <= max; }
  void blobs(const std::vector<Bytes>& v) { kept = kept && v.size() <= static_cast<size_t>(l.ranks); }
};

template <typename M>
bool valid(const M& m, const Limits& l) {
  Promises p(l);
  M::fields(m, p);
  return p.kept;
}

// Data that is decoded further after the message: rank 0 deserializes the
// payloads of COLL and COLLGRANT as statistics records at exit, so every
// blob is tried as one.
struct StatsBlobs : samples::LookAtNothing {
  void blob(const Bytes& b) { check_stats_blobs({b}); }
  void blobs(const std::vector<Bytes>& v) { check_stats_blobs(v); }
};

template <typename M>
void after_decode(const M& m) {
  StatsBlobs s;
  M::fields(m, s);
}

// The header, read from the offsets PROTOCOL.md gives rather than MsgHeader.
template <typename T>
T field(const Bytes& b, size_t offset) {
  T v;
  std::memcpy(&v, b.data() + offset, sizeof v);
  return v;
}

bool header_valid(const Bytes& m) {
  if (m.size() < kHeader) return false;
  const auto type = field<uint16_t>(m, 2);
  return field<uint16_t>(m, 0) == kMagic && type >= 1 && type < kMsgTypeCount &&
         field<uint32_t>(m, 4) == m.size() - kHeader;
}

// decode_message as the receiving thread calls it.
template <typename M>
void check_message(const Bytes& bytes, const Limits& l) {
  M m;
  const Status st = decode_message(bytes, l, &m);
  // Waiting for another message, the receiver refuses this one.
  using Other = std::conditional_t<std::is_same_v<M, GetPageMsg>, AcquireMsg, GetPageMsg>;
  Other other;
  FUZZ_CHECK(!decode_message(bytes, l, &other).ok());
  if (!st.ok()) {
    FUZZ_CHECK(!st.message().empty());
    return;
  }
  FUZZ_CHECK(valid(m, l));
  FUZZ_CHECK(encode(m, field<uint32_t>(bytes, 8)) == bytes);
}

void check_received(const Bytes& msg, const Limits& l) {
  Reader r(msg.data(), msg.size());
  MsgType type;
  const Status opened = r.open(&type);
  FUZZ_CHECK(opened.ok() == header_valid(msg));
  if (!opened.ok()) {
    FUZZ_CHECK(!opened.message().empty());
    return;
  }
  FUZZ_CHECK(static_cast<uint16_t>(type) == field<uint16_t>(msg, 2));
  // Every type the header may name is a message of the table.
  FUZZ_CHECK(visit_message(type, [&]<typename M>(std::type_identity<M>) { check_message<M>(msg, l); }));
}

// A payload decoded as an M, as if the header had named M's type.
template <typename M>
void check_payload(const std::byte* p, size_t n, const Limits& l) {
  Reader r(p, n);
  M m;
  const Status st = decode(&r, l, &m);
  if (!st.ok()) {
    FUZZ_CHECK(!st.message().empty());
    return;
  }
  FUZZ_CHECK(r.remaining() == 0);
  FUZZ_CHECK(valid(m, l));
  const Bytes again = encode(m, 0);
  FUZZ_CHECK(again.size() == kHeader + n);
  FUZZ_CHECK(n == 0 || std::memcmp(again.data() + kHeader, p, n) == 0);
  after_decode(m);
}

void check_notices(const std::byte* p, size_t n, const Limits& l) {
  Reader r(p, n);
  std::vector<WriteNotice> ns{{1, 2}};
  if (!get_notices(&r, l.pages, l.ranks, &ns).ok()) return;
  FUZZ_CHECK(notices_ok(ns, l));
  const size_t used = n - r.remaining();
  FUZZ_CHECK(used == 4 + 8 * ns.size());
  Writer w(MsgType::kBarrier);
  const size_t start = w.size();
  put_notices(&w, ns);
  const Bytes again = w.finish(0);
  FUZZ_CHECK(again.size() - start == used && std::memcmp(again.data() + start, p, used) == 0);
}

void check_all_payloads(const std::byte* p, size_t n, const Setup& s) {
  for_each_message([&]<typename M>(std::type_identity<M>) { check_payload<M>(p, n, s.limits); });
  check_notices(p, n, s.limits);
  check_diff_stream(p, n, s);
  check_diff_body(p, n, s);
  check_diff_encoder(p, n, s);
}

// The other direction: a message built within the limits is accepted and
// decodes to itself (same bytes again).
template <typename M>
void accepted(const M& m, const Limits& l) {
  const Bytes bytes = encode(m, 77);
  M back;
  const Status st = decode_message(bytes, l, &back);
  FUZZ_CHECK(st.ok());
  FUZZ_CHECK(encode(back, 77) == bytes);
}

// Values for samples::ValidFiller, from the fuzzer's input.
struct InputSource {
  FuzzedDataProvider* in;
  uint64_t pick(uint64_t lo, uint64_t hi) { return in->ConsumeIntegralInRange<uint64_t>(lo, hi); }
  std::vector<std::byte> bytes(size_t max) {
    return in->ConsumeBytes<std::byte>(in->ConsumeIntegralInRange<size_t>(0, max));
  }
};

void check_valid_accepted(FuzzedDataProvider* in, const Limits& l) {
  // One choice past the last message: a statistics record.
  const auto choice = in->ConsumeIntegralInRange<size_t>(1, kMsgTypeCount);
  if (choice == kMsgTypeCount) return check_stats_accepted(in);
  visit_message(static_cast<MsgType>(choice), [&]<typename M>(std::type_identity<M>) {
    InputSource src{in};
    samples::ValidFiller<InputSource> filler(l, &src);
    M m;
    M::fields(m, filler);
    if (filler.possible()) accepted(m, l);
  });
}

}  // namespace

}  // namespace scopedsm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scopedsm::fuzz;
  if (size < kSetupBytes) return 0;
  const Setup s = setup_from(data[0], data[1]);
  // A copy exactly as long as the message: ASan flags a read past its end.
  const auto* begin = reinterpret_cast<const std::byte*>(data);
  const Bytes msg(begin + kSetupBytes, begin + size);
  check_received(msg, s.limits);
  const size_t skip = msg.size() >= kHeader ? kHeader : 0;
  check_all_payloads(msg.data() + skip, msg.size() - skip, s);
  FuzzedDataProvider in(data + kSetupBytes, size - kSetupBytes);
  check_valid_accepted(&in, s.limits);
  return 0;
}
