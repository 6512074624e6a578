// libFuzzer target: every decoder the runtime runs on received bytes.
//
// Input: two setup bytes (fuzz_setup.h), then one message as MPI delivered
// it. For each input the target
//   1. opens the header and decodes the message as the type it names, the
//      way the service thread and SyncClient do (decode_message);
//   2. runs every typed decoder, get_notices and the DIFF record loop on the
//      payload whatever the header says (and on the payload framed as one
//      diff record), so the fuzzer need not match types or framing;
//   3. builds a valid message of a chosen type from the input and checks it
//      is accepted.
// Properties: a rejected message is an error Status with a message; an
// accepted one obeys the Limits and re-encodes to the very same bytes (every
// encoding is canonical); a diff changes only what it names, inside the page
// it names. Memory errors are ASan's and UBSan's to find.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "check.h"
#include "diff_check.h"
#include "fuzz_setup.h"
#include "protocol/messages.h"
#include "stats_check.h"

namespace scopedsm::fuzz {

namespace {

using Bytes = std::vector<std::byte>;
constexpr size_t kHeader = 12;

// What a decoder promises about an accepted message, checked independently.
bool page_ok(uint32_t page, const Limits& l) { return page < l.pages; }
bool lock_ok(uint32_t lock, const Limits& l) { return lock < static_cast<uint32_t>(l.locks); }
bool cv_ok(uint32_t cv, const Limits& l) { return cv < static_cast<uint32_t>(l.condvars); }
bool notices_ok(const std::vector<WriteNotice>& ns, const Limits& l) {
  for (const auto& n : ns)
    if (!page_ok(n.page, l) || (n.writer != kMultipleWriters && (n.writer < 0 || n.writer >= l.ranks))) return false;
  return true;
}

bool valid(const GetPageMsg& m, const Limits& l) { return page_ok(m.page, l); }
bool valid(const AcquireMsg& m, const Limits& l) { return lock_ok(m.lock, l); }
bool valid(const AcquireGrantMsg& m, const Limits& l) { return lock_ok(m.lock, l) && notices_ok(m.notices, l); }
bool valid(const ReleaseMsg& m, const Limits& l) { return lock_ok(m.lock, l) && notices_ok(m.notices, l); }
bool valid(const BarrierMsg& m, const Limits& l) { return notices_ok(m.notices, l); }
bool valid(const BarrierGrantMsg& m, const Limits& l) { return notices_ok(m.notices, l); }
bool valid(const CvSetMsg& m, const Limits& l) { return cv_ok(m.cv, l) && notices_ok(m.notices, l); }
bool valid(const CvMsg& m, const Limits& l) { return cv_ok(m.cv, l); }
bool valid(const CvGrantMsg& m, const Limits& l) { return cv_ok(m.cv, l) && notices_ok(m.notices, l); }
bool valid(const CollectiveMsg& m, const Limits&) { return m.call.size() <= 4096; }
bool valid(const CollectiveDoneMsg& m, const Limits& l) { return m.blobs.size() <= static_cast<size_t>(l.ranks); }
bool valid(const HomeClaimMsg& m, const Limits& l) { return page_ok(m.page, l); }
bool valid(const HomeIsMsg& m, const Limits& l) { return page_ok(m.page, l) && m.home >= -1 && m.home < l.ranks; }

// One encoder name for every struct; CvMsg serves RESETCV and WAITCV.
template <typename M>
Bytes encode_as(const M& m, MsgType, uint32_t seq) {
  return encode(m, seq);
}
Bytes encode_as(const CvMsg& m, MsgType type, uint32_t seq) { return encode_cv(type, m, seq); }

// Data that is decoded further after the message: statistics records.
template <typename M>
void after_decode(const M&) {}
void after_decode(const CollectiveDoneMsg& m) { check_stats_blobs(m.blobs); }
void after_decode(const CollectiveMsg& m) { check_stats_blobs({m.blob}); }

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
void check_message(const Bytes& bytes, MsgType type, const Limits& l) {
  M m;
  const Status st = decode_message(bytes, type, l, &m);
  M other;
  const MsgType wrong = type == MsgType::kGetPage ? MsgType::kAcquire : MsgType::kGetPage;
  FUZZ_CHECK(!decode_message(bytes, wrong, l, &other).ok());
  if (!st.ok()) {
    FUZZ_CHECK(!st.message().empty());
    return;
  }
  FUZZ_CHECK(valid(m, l));
  FUZZ_CHECK(encode_as(m, type, field<uint32_t>(bytes, 8)) == bytes);
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
  switch (type) {
    case MsgType::kGetPage: check_message<GetPageMsg>(msg, type, l); break;
    case MsgType::kAcquire: check_message<AcquireMsg>(msg, type, l); break;
    case MsgType::kAcquireGrant: check_message<AcquireGrantMsg>(msg, type, l); break;
    case MsgType::kRelease: check_message<ReleaseMsg>(msg, type, l); break;
    case MsgType::kBarrier: check_message<BarrierMsg>(msg, type, l); break;
    case MsgType::kBarrierGrant: check_message<BarrierGrantMsg>(msg, type, l); break;
    case MsgType::kCvSet: check_message<CvSetMsg>(msg, type, l); break;
    case MsgType::kCvReset:
    case MsgType::kCvWait: check_message<CvMsg>(msg, type, l); break;
    case MsgType::kCvGrant: check_message<CvGrantMsg>(msg, type, l); break;
    case MsgType::kCollective: check_message<CollectiveMsg>(msg, type, l); break;
    case MsgType::kCollectiveDone: check_message<CollectiveDoneMsg>(msg, type, l); break;
    case MsgType::kHomeClaim: check_message<HomeClaimMsg>(msg, type, l); break;
    case MsgType::kHomeIs: check_message<HomeIsMsg>(msg, type, l); break;
    // DIFF's payload goes to the record loop, which runs on every input.
    case MsgType::kDiff: break;
    // The rest carry no payload (DIFFGRANT, WAIT, WAITGRANT, SHUTDOWN, and
    // acknowledgements added later).
    default: FUZZ_CHECK(decode_empty(&r).ok() == (msg.size() == kHeader)); break;
  }
}

// A payload decoded as an M, as if the header had named M's type.
template <typename M>
void check_payload(const std::byte* p, size_t n, const Limits& l, MsgType type) {
  Reader r(p, n);
  M m;
  const Status st = decode(&r, l, &m);
  if (!st.ok()) {
    FUZZ_CHECK(!st.message().empty());
    return;
  }
  FUZZ_CHECK(r.remaining() == 0);
  FUZZ_CHECK(valid(m, l));
  const Bytes again = encode_as(m, type, 0);
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
  const Limits& l = s.limits;
  check_payload<GetPageMsg>(p, n, l, MsgType::kGetPage);
  check_payload<AcquireMsg>(p, n, l, MsgType::kAcquire);
  check_payload<AcquireGrantMsg>(p, n, l, MsgType::kAcquireGrant);
  check_payload<ReleaseMsg>(p, n, l, MsgType::kRelease);
  check_payload<BarrierMsg>(p, n, l, MsgType::kBarrier);
  check_payload<BarrierGrantMsg>(p, n, l, MsgType::kBarrierGrant);
  check_payload<CvSetMsg>(p, n, l, MsgType::kCvSet);
  check_payload<CvMsg>(p, n, l, MsgType::kCvWait);
  check_payload<CvGrantMsg>(p, n, l, MsgType::kCvGrant);
  check_payload<CollectiveMsg>(p, n, l, MsgType::kCollective);
  check_payload<CollectiveDoneMsg>(p, n, l, MsgType::kCollectiveDone);
  check_payload<HomeClaimMsg>(p, n, l, MsgType::kHomeClaim);
  check_payload<HomeIsMsg>(p, n, l, MsgType::kHomeIs);
  Reader empty(p, n);
  FUZZ_CHECK(decode_empty(&empty).ok() == (n == 0));
  check_notices(p, n, l);
  check_diff_stream(p, n, s);
  check_diff_body(p, n, s);
  check_diff_encoder(p, n, s);
}

// The other direction: a message built within the limits is accepted and
// decodes to itself (same bytes again).
template <typename M>
void accepted(const M& m, MsgType type, const Limits& l) {
  const Bytes bytes = encode_as(m, type, 77);
  M back;
  const Status st = decode_message(bytes, type, l, &back);
  FUZZ_CHECK(st.ok());
  FUZZ_CHECK(encode_as(back, type, 77) == bytes);
}

void check_valid_accepted(FuzzedDataProvider* in, const Limits& l) {
  const bool any_page = l.pages > 0;
  auto page = [&] { return static_cast<uint32_t>(in->ConsumeIntegralInRange<uint64_t>(0, l.pages - 1)); };
  auto lock = [&] { return in->ConsumeIntegralInRange<uint32_t>(0, static_cast<uint32_t>(l.locks - 1)); };
  auto cv = [&] { return in->ConsumeIntegralInRange<uint32_t>(0, static_cast<uint32_t>(l.condvars - 1)); };
  auto u32 = [&] { return in->ConsumeIntegral<uint32_t>(); };
  auto notices = [&] {
    std::vector<WriteNotice> ns(any_page ? in->ConsumeIntegralInRange<size_t>(0, 40) : 0);
    for (auto& n : ns) {
      n.page = page();
      n.writer = in->ConsumeIntegralInRange<int32_t>(-1, l.ranks - 1);
      if (n.writer < 0) n.writer = kMultipleWriters;
    }
    return ns;
  };
  auto blob = [&] { return in->ConsumeBytes<std::byte>(in->ConsumeIntegralInRange<size_t>(0, 64)); };
  switch (in->ConsumeIntegralInRange<int>(0, 13)) {
    case 0: if (any_page) accepted(GetPageMsg{page(), u32()}, MsgType::kGetPage, l); break;
    case 1: accepted(AcquireMsg{lock(), u32(), in->ConsumeIntegral<uint64_t>()}, MsgType::kAcquire, l); break;
    case 2: accepted(AcquireGrantMsg{lock(), in->ConsumeIntegral<uint64_t>(), notices()}, MsgType::kAcquireGrant, l); break;
    case 3: accepted(ReleaseMsg{lock(), u32(), notices()}, MsgType::kRelease, l); break;
    case 4: accepted(BarrierMsg{u32(), notices()}, MsgType::kBarrier, l); break;
    case 5: accepted(BarrierGrantMsg{u32(), notices()}, MsgType::kBarrierGrant, l); break;
    case 6: accepted(CvSetMsg{cv(), u32(), notices()}, MsgType::kCvSet, l); break;
    case 7: accepted(CvMsg{cv(), u32()}, in->ConsumeBool() ? MsgType::kCvReset : MsgType::kCvWait, l); break;
    case 8: accepted(CvGrantMsg{cv(), notices()}, MsgType::kCvGrant, l); break;
    case 9: accepted(CollectiveMsg{in->ConsumeRandomLengthString(4096), blob()}, MsgType::kCollective, l); break;
    case 10: {
      CollectiveDoneMsg m;
      m.blobs.resize(in->ConsumeIntegralInRange<size_t>(0, std::min(l.ranks, 8)));
      for (auto& b : m.blobs) b = blob();
      accepted(m, MsgType::kCollectiveDone, l);
      break;
    }
    case 11: if (any_page) accepted(HomeClaimMsg{page()}, MsgType::kHomeClaim, l); break;
    case 12:
      if (any_page) accepted(HomeIsMsg{page(), in->ConsumeIntegralInRange<int32_t>(-1, l.ranks - 1)}, MsgType::kHomeIs, l);
      break;
    default: check_stats_accepted(in); break;
  }
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
