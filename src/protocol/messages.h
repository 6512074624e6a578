// Typed protocol messages: one struct per message type, with its encoder and
// its checked decoder.
//
// Every decoder validates the whole payload against `Limits` (pages inside
// the allocated region, ranks, lock and condition-variable ids, flags,
// lengths, no trailing bytes) and returns an error Status instead of
// trusting the sender. The service thread and the application thread decode
// through these functions only; the fuzz target feeds them arbitrary bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/limits.h"
#include "common/status.h"
#include "protocol/notices.h"
#include "transport/wire.h"

namespace scopedsm {

struct Limits {
  uint64_t pages = 0;  // allocated pages: valid page numbers are below this
  int ranks = 1;
  int locks = kMaxLocks;
  int condvars = kMaxCondvars;
};

struct GetPageMsg { uint32_t page = 0; uint32_t epoch = 0; };
struct AcquireMsg { uint32_t lock = 0; uint32_t epoch = 0; uint64_t seen = 0; };
struct AcquireGrantMsg { uint32_t lock = 0; uint64_t version = 0; std::vector<WriteNotice> notices; };
struct ReleaseMsg { uint32_t lock = 0; uint32_t epoch = 0; std::vector<WriteNotice> notices; };
struct BarrierMsg { uint32_t epoch = 0; std::vector<WriteNotice> notices; };
struct BarrierGrantMsg { uint32_t epoch = 0; std::vector<WriteNotice> notices; };
struct CvSetMsg { uint32_t cv = 0; uint32_t epoch = 0; std::vector<WriteNotice> notices; };
struct CvMsg { uint32_t cv = 0; uint32_t epoch = 0; };  // RESETCV and WAITCV
struct CvGrantMsg { uint32_t cv = 0; std::vector<WriteNotice> notices; };
struct CollectiveMsg { std::string call; std::vector<std::byte> blob; };
struct CollectiveDoneMsg { std::vector<std::vector<std::byte>> blobs; };
struct HomeClaimMsg { uint32_t page = 0; };
struct HomeIsMsg { uint32_t page = 0; int32_t home = -1; };

// Encoders return a finished message (header included).
std::vector<std::byte> encode(const GetPageMsg& m, uint32_t seq);
std::vector<std::byte> encode(const AcquireMsg& m, uint32_t seq);
std::vector<std::byte> encode(const AcquireGrantMsg& m, uint32_t seq);
std::vector<std::byte> encode(const ReleaseMsg& m, uint32_t seq);
std::vector<std::byte> encode(const BarrierMsg& m, uint32_t seq);
std::vector<std::byte> encode(const BarrierGrantMsg& m, uint32_t seq);
std::vector<std::byte> encode(const CvSetMsg& m, uint32_t seq);
std::vector<std::byte> encode_cv(MsgType type, const CvMsg& m, uint32_t seq);
std::vector<std::byte> encode(const CvGrantMsg& m, uint32_t seq);
std::vector<std::byte> encode(const CollectiveMsg& m, uint32_t seq);
std::vector<std::byte> encode(const CollectiveDoneMsg& m, uint32_t seq);
std::vector<std::byte> encode(const HomeClaimMsg& m, uint32_t seq);
std::vector<std::byte> encode(const HomeIsMsg& m, uint32_t seq);
std::vector<std::byte> encode_empty(MsgType type, uint32_t seq);

// Decoders take a Reader positioned after the header (Reader::open).
Status decode(Reader* r, const Limits& l, GetPageMsg* m);
Status decode(Reader* r, const Limits& l, AcquireMsg* m);
Status decode(Reader* r, const Limits& l, AcquireGrantMsg* m);
Status decode(Reader* r, const Limits& l, ReleaseMsg* m);
Status decode(Reader* r, const Limits& l, BarrierMsg* m);
Status decode(Reader* r, const Limits& l, BarrierGrantMsg* m);
Status decode(Reader* r, const Limits& l, CvSetMsg* m);
Status decode(Reader* r, const Limits& l, CvMsg* m);
Status decode(Reader* r, const Limits& l, CvGrantMsg* m);
Status decode(Reader* r, const Limits& l, CollectiveMsg* m);
Status decode(Reader* r, const Limits& l, CollectiveDoneMsg* m);
Status decode(Reader* r, const Limits& l, HomeClaimMsg* m);
Status decode(Reader* r, const Limits& l, HomeIsMsg* m);
// For messages without a payload (DIFFGRANT, WAIT, WAITGRANT, SHUTDOWN).
Status decode_empty(Reader* r);

// Opens `bytes` as a message of type `expected` and decodes it.
template <typename M>
Status decode_message(const std::vector<std::byte>& bytes, MsgType expected, const Limits& l, M* m) {
  Reader r(bytes.data(), bytes.size());
  MsgType type;
  if (Status s = r.open(&type); !s.ok()) return s;
  if (type != expected) return Status::Error(std::string("expected ") + msg_type_name(expected) + ", got " + msg_type_name(type));
  return decode(&r, l, m);
}

}  // namespace scopedsm
