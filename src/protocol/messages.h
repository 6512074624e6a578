// Typed protocol messages: one payload struct per line of the message table
// (transport/message_table.h). A struct's fields() lists its fields, in wire
// order, by kind; the encoder and the checked decoder of every message are
// made from that list, so no message has code of its own here.
//
// Every decoder validates the whole payload against `Limits` (pages inside
// the allocated region, ranks, lock and condition-variable ids, flags,
// lengths, no trailing bytes) and returns an error Status instead of
// trusting the sender. The service thread and the application thread decode
// through these functions only, but for the acknowledgements (DIFFGRANT,
// ACK), which have no payload and are counted by the transport's AckLedger:
// it refuses one that carries bytes. The fuzz target feeds the decoders
// arbitrary bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/limits.h"
#include "common/log.h"
#include "common/status.h"
#include "protocol/notices.h"
#include "transport/wire.h"

namespace scopedsm {

struct Limits {
  uint64_t pages = 0;  // allocated pages: valid page numbers are below this
  int ranks = 1;
  int locks = kMaxLocks + kReservedLocks;  // the program's and the runtime's (common/limits.h)
  int condvars = kMaxCondvars;
};

// The field kinds. A struct's fields(m, v) calls one method of the visitor v
// per field, in wire order; FieldWriter encodes, FieldReader decodes and
// checks, and tests bring visitors of their own. On the wire (native byte
// order; every field follows the previous one without padding):
//
//   kind                    wire form                    the decoder rejects
//   u32, u64, i32 (x)       the value                    nothing
//   epoch(x)                u32                          nothing: the receiver compares it with its own
//   page(x)                 u32                          x >= Limits::pages
//   run(first, n)           u32                          n == 0, n > kMaxFetchPages, first + n > Limits::pages;
//                                                        follows the page(first) it counts from
//   lane(x)                 u32                          x > kMaxAsyncFetches (the reply lanes, transport/wire.h)
//   lock(x)                 u32                          x >= Limits::locks
//   cv(x)                   u32                          x >= Limits::condvars
//   rank(name, x)           i32                          x outside [0, Limits::ranks)
//   flag(name, b)           u8                           anything but 0 and 1
//   notices(v)              u32 count, count notices     what get_notices rejects (protocol/notices.h)
//   text(name, s, max)      u32 length, the bytes        a length above max
//   blob(b)                 u32 length, the bytes        nothing but truncation
//   blobs(v)                u32 count, count blobs       more blobs than Limits::ranks (one per rank at most)
//   tail(bytes)             every remaining byte         nothing: the handler checks them; last field only
//
// Every length is checked against the bytes received before it is used, and
// bytes left after the last field are an error. `name` is the field's name
// in the decoder's error messages.
class FieldWriter {
 public:
  explicit FieldWriter(Writer* w) : w_(w) {}
  void u32(uint32_t x) { w_->put(x); }
  void u64(uint64_t x) { w_->put(x); }
  void i32(int32_t x) { w_->put(x); }
  void epoch(uint32_t x) { w_->put(x); }
  void page(uint32_t x) { w_->put(x); }
  void run(uint32_t, uint32_t n) { w_->put(n); }
  void lane(uint32_t x) { w_->put(x); }
  void lock(uint32_t x) { w_->put(x); }
  void cv(uint32_t x) { w_->put(x); }
  void rank(const char*, int32_t x) { w_->put(x); }
  void flag(const char*, bool b) { w_->put<uint8_t>(b ? 1 : 0); }
  void notices(const std::vector<WriteNotice>& v) { put_notices(w_, v); }
  // Encoders write whatever they are given, out-of-range values and texts
  // above `max` included: tests and the fuzz corpus make bad messages so.
  void text(const char*, const std::string& s, uint32_t max);
  void blob(const std::vector<std::byte>& b);
  void blobs(const std::vector<std::vector<std::byte>>& v);
  void tail(std::span<const std::byte> bytes) { w_->put_bytes(bytes.data(), bytes.size()); }

 private:
  Writer* const w_;
};

// Reads fields from `r` and checks them against `l`. After the first
// failure it reads nothing more, and finish() reports that failure.
class FieldReader {
 public:
  FieldReader(Reader* r, const Limits& l) : r_(r), l_(l) {}
  void u32(uint32_t& x) { get(&x); }
  void u64(uint64_t& x) { get(&x); }
  void i32(int32_t& x) { get(&x); }
  void epoch(uint32_t& x) { get(&x); }
  void page(uint32_t& x);
  // Pages in a run from page `first` (read before): 1 to kMaxFetchPages, all allocated.
  void run(uint32_t first, uint32_t& n);
  void lane(uint32_t& x);
  void lock(uint32_t& x);
  void cv(uint32_t& x);
  void rank(const char* name, int32_t& x);
  void flag(const char* name, bool& b);
  void notices(std::vector<WriteNotice>& v);
  void text(const char* name, std::string& s, uint32_t max);
  void blob(std::vector<std::byte>& b);
  void blobs(std::vector<std::vector<std::byte>>& v);
  // `bytes` points into the received message and is valid as long as it is.
  void tail(std::span<const std::byte>& bytes);
  // The first failure, else whether the payload ended with the last field.
  Status finish();

 private:
  template <typename T>
  bool get(T* x) {
    if (status_.ok()) status_ = r_->get(x);
    return status_.ok();
  }
  bool get_bytes(size_t n, const std::byte** p);
  void fail(std::string why) { status_ = Status::Error(std::move(why)); }

  Reader* const r_;
  const Limits& l_;
  Status status_;
};

// ---------------------------------------------------------------------------
// The payload structs, one per line of the message table. fields() is a
// static template so that one list serves a const message (encoding) and a
// mutable one (decoding): Self is the struct, const or not.

// A payload-less message: its header says everything.
struct NoPayload {
  template <typename Self, typename V>
  static void fields(Self&, V&) {}
};

// GETP: the requester's copy of `page` goes out in barrier epoch `epoch`;
// answered with the raw page on reply lane `lane` (page_tag(lane)).
struct GetPageMsg {
  uint32_t page = 0;
  uint32_t epoch = 0;
  uint32_t count = 1;  // pages page .. page + count - 1, all homed at the destination
  uint32_t lane = 0;   // 0: the requester waits for it; 1..kMaxAsyncFetches: a fetch left in flight
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.page(m.page);
    v.epoch(m.epoch);
    v.run(m.page, m.count);
    v.lane(m.lane);
  }
};

// GETPV: GETP with write vectors (docs/PROTOCOL.md §6b): `versions` holds
// one little-endian u64 per page of the run, the version of the stale copy
// the requester still holds (0: none). Answered on kTagPage, per page: u64
// version, u64 block mask, then the masked blocks in order (protocol/
// page_source.h). The handler checks the blob's length against the run.
struct GetPageVecMsg {
  uint32_t page = 0;
  uint32_t epoch = 0;
  uint32_t count = 1;
  uint32_t lane = 0;  // as GETP's
  std::vector<std::byte> versions;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.page(m.page);
    v.epoch(m.epoch);
    v.run(m.page, m.count);
    v.lane(m.lane);
    v.blob(m.versions);
  }
};

// RECORD: the sender read pages page .. page + count - 1 one-sided in
// barrier epoch `epoch` and found them untrapped (docs/PROTOCOL.md §2.3):
// the home records the copies as a GETP would (so it traps the pages again
// and notes them at its next synchronization). Advisory: never answered,
// and pages no longer homed at the destination are skipped. The sender's
// correctness does not wait for it: it drops such copies at its next
// acquire.
struct RecordCopiesMsg {
  uint32_t page = 0;
  uint32_t epoch = 0;
  uint32_t count = 1;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.page(m.page);
    v.epoch(m.epoch);
    v.run(m.page, m.count);
  }
};

// DIFF: diff records (protocol/diff.h) of pages homed at the destination.
// Coherence writes them record by record into a Writer; the home applies
// them record by record, checking each against the page it names, so to
// the decoder they are a tail.
struct DiffMsg {
  std::span<const std::byte> records;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.tail(m.records);
  }
};

struct DiffAckMsg : NoPayload {};  // DIFFGRANT: every record of a DIFF was applied

// ACQ: acquire `lock`; `seen` is the lock version of the requester's last grant.
struct AcquireMsg {
  uint32_t lock = 0;
  uint32_t epoch = 0;
  uint64_t seen = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.lock(m.lock);
    v.epoch(m.epoch);
    v.u64(m.seen);
  }
};

// ACQGRANT: the lock is the requester's; the notices newer than its `seen`.
struct AcquireGrantMsg {
  uint32_t lock = 0;
  uint64_t version = 0;
  std::vector<WriteNotice> notices;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.lock(m.lock);
    v.u64(m.version);
    v.notices(m.notices);
  }
};

// REL: release `lock` with the notices of the critical section.
// `handed_to` is -1, or the waiter the releaser has granted the lock to
// itself (the successor a HANDOFF named); the lock manager checks it.
struct ReleaseMsg {
  uint32_t lock = 0;
  uint32_t epoch = 0;
  std::vector<WriteNotice> notices;
  int32_t handed_to = -1;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.lock(m.lock);
    v.epoch(m.epoch);
    v.notices(m.notices);
    v.i32(m.handed_to);
  }
};

// HANDOFF: from a lock's home to the holder of its tenure `version`: when
// you release, grant the lock to `successor` yourself, with these notices
// (those newer than the successor's version, up to yours) and your own
// (docs/PROTOCOL.md §4). Application thread to application thread
// (kTagPeer); a HANDOFF whose tenure has ended is dropped.
struct HandoffMsg {
  uint32_t lock = 0;
  uint64_t version = 0;
  int32_t successor = 0;
  std::vector<WriteNotice> notices;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.lock(m.lock);
    v.u64(m.version);
    v.rank("successor", m.successor);
    v.notices(m.notices);
  }
};

// BARR: one round of the dissemination barrier (docs/PROTOCOL.md §4),
// from application thread to application thread (kTagPeer). In round k of
// barrier `epoch` rank r sends to rank (r + 2^k) mod N the merge of every
// notice it knows so far: its own since the last barrier and those the
// earlier rounds brought. `call` counts the sender's collective calls
// (barriers, jia_wait, checked collectives) before this one, so that a
// receiver in a different call at the same count reports the mismatch.
struct BarrierMsg {
  uint32_t epoch = 0;
  uint32_t call = 0;
  uint32_t round = 0;
  std::vector<WriteNotice> notices;
  // Rank 0's broadcast, once the sender knows it (empty: none, or not yet).
  std::vector<std::byte> broadcast;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.epoch(m.epoch);
    v.u32(m.call);
    v.u32(m.round);
    v.notices(m.notices);
    v.blob(m.broadcast);
  }
};

// BARRSTALL: the sender has waited `waited_ns` in barrier `epoch` (sent once
// per barrier, after a tenth of SCOPEDSM_TIMEOUT), so that rank 0 can name
// the ranks that never arrive (RendezvousManager::check_stalls).
struct BarrierStallMsg {
  uint32_t epoch = 0;
  uint64_t waited_ns = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.epoch(m.epoch);
    v.u64(m.waited_ns);
  }
};

struct WaitMsg : NoPayload {};       // WAIT: arrival at jia_wait
struct WaitGrantMsg : NoPayload {};  // WAITGRANT: everybody arrived

// SETCV: set `cv`, depositing every page the setter wrote since the last barrier.
struct CvSetMsg {
  uint32_t cv = 0;
  uint32_t epoch = 0;
  std::vector<WriteNotice> notices;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.cv(m.cv);
    v.epoch(m.epoch);
    v.notices(m.notices);
  }
};

// RESETCV: clear `cv` and its notices.
struct CvResetMsg {
  uint32_t cv = 0;
  uint32_t epoch = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.cv(m.cv);
    v.epoch(m.epoch);
  }
};

// WAITCV: answer with CVGRANT once `cv` is set.
struct CvWaitMsg {
  uint32_t cv = 0;
  uint32_t epoch = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.cv(m.cv);
    v.epoch(m.epoch);
  }
};

// CVGRANT: `cv` is set; the notices deposited since its last reset.
struct CvGrantMsg {
  uint32_t cv = 0;
  std::vector<WriteNotice> notices;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.cv(m.cv);
    v.notices(m.notices);
  }
};

// COLL: arrival at a checked collective call (allocation agreement, exit):
// the call's text, which every rank's must equal, and a payload for rank 0.
struct CollectiveMsg {
  static constexpr uint32_t kMaxCall = 4096;
  std::string call;
  std::vector<std::byte> blob;
  bool to_all = false;  // every rank gets every payload back, not only rank 0
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.text("collective call text", m.call, kMaxCall);
    v.blob(m.blob);
    v.flag("to_all", m.to_all);
  }
};

// COLLGRANT: everybody arrived; rank 0's carries every rank's payload (every
// rank's does when the calls asked for it, to_all).
struct CollectiveDoneMsg {
  std::vector<std::vector<std::byte>> blobs;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.blobs(m.blobs);
  }
};

// HOMECLAIM: first touch of `page`, to its directory (rank page % size).
struct HomeClaimMsg {
  uint32_t page = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.page(m.page);
  }
};

// HOMEIS: the home of `page` (its first claimant).
struct HomeIsMsg {
  uint32_t page = 0;
  int32_t home = -1;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.page(m.page);
    v.rank("home", m.home);  // every claim names its claimant
  }
};

// ATOMIC: apply operation `op` (memory/atomic_word.h's AtomicOp) to the
// word of type `type` (AtomicType) at byte `offset` of `page`, homed at the
// destination, in the home's memory; answered with ATOMICRES. The operands
// are the values' bits (a 4-byte type's in the low half). The home checks
// op, type and offset (atomic_request_error).
struct AtomicMsg {
  uint32_t page = 0;
  uint32_t offset = 0;
  uint32_t op = 0;
  uint32_t type = 0;
  uint64_t operand = 0;
  uint64_t expected = 0;  // compare_exchange only
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.page(m.page);
    v.u32(m.offset);
    v.u32(m.op);
    v.u32(m.type);
    v.u64(m.operand);
    v.u64(m.expected);
  }
};

// ATOMICRES: the bits the word held before the ATOMIC.
struct AtomicResultMsg {
  uint64_t old = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.u64(m.old);
  }
};

// AMONOTIFY: the counter word at byte `offset` of `page` has reached
// `value` (an AMO barrier or reduction episode ended), with the episode's
// result `payload` (a reduction's bits; 0 for a barrier). Sent once to each
// other process by the process whose increment reached it (docs/PROTOCOL.md
// §4b); application thread to application thread (kTagPeer).
struct AmoNotifyMsg {
  uint32_t page = 0;
  uint32_t offset = 0;
  uint64_t value = 0;  // the int64 counter's bits
  uint64_t payload = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.page(m.page);
    v.u32(m.offset);
    v.u64(m.value);
    v.u64(m.payload);
  }
};

struct ShutdownMsg : NoPayload {};  // SHUTDOWN: the sender sends nothing more
struct AckMsg : NoPayload {};       // ACK: a SETCV or RESETCV was applied

// The deadlock detector's messages (sync/deadlock.h, docs/PROTOCOL.md §8).
// SYNCWAIT: to rank 0, once the sender's application thread has waited a
// second in the synchronization wait it numbers `seq` (from 1): its kind
// (sync/deadlock.h WaitKind: 1 lock, 2 collective call, 3 condition
// variable), the lock, collective-call number or condition variable `id`,
// the collective calls the sender had entered, whether it still owed
// acknowledgements, the call as the program wrote it, and the locks it holds
// (`held`: one u32 lock id each, outermost first). Sent again with `owes`
// cleared if its acknowledgements come during the wait. The handler checks
// the kind, the id and the held locks against the limits.
struct SyncWaitMsg {
  static constexpr uint32_t kMaxCall = 4096;
  uint64_t seq = 0;
  uint32_t kind = 0;
  uint32_t id = 0;
  uint32_t calls = 0;
  bool owes = false;
  std::string call;
  std::vector<std::byte> held;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.u64(m.seq);
    v.u32(m.kind);
    v.u32(m.id);
    v.u32(m.calls);
    v.flag("owes", m.owes);
    v.text("waiting call text", m.call, kMaxCall);
    v.blob(m.held);
  }
};

// SYNCDONE: to rank 0, when the wait the sender reported (SYNCWAIT `seq`) ends.
struct SyncDoneMsg {
  uint64_t seq = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.u64(m.seq);
  }
};

// SYNCPROBE: from rank 0 to every process, when the reports show a
// deadlock: which wait are you in now? Answered with SYNCSTATE.
struct SyncProbeMsg {
  uint64_t round = 0;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.u64(m.round);
  }
};

// SYNCSTATE: the answer to SYNCPROBE `round`, from the service thread: the
// wait the application thread is in now (`seq`, 0: none), and the processes
// queued on unset condition variables homed at the sender (`queued`: a u32
// condition variable and an i32 rank each). The handler checks them.
struct SyncStateMsg {
  uint64_t round = 0;
  uint64_t seq = 0;
  std::vector<std::byte> queued;
  template <typename Self, typename V>
  static void fields(Self& m, V& v) {
    v.u64(m.round);
    v.u64(m.seq);
    v.blob(m.queued);
  }
};

// ---------------------------------------------------------------------------
// Encoding and decoding, made from fields().

template <typename M>
concept HasFields = requires(M& m, const M& c, FieldWriter& w, FieldReader& r) {
  M::fields(c, w);
  M::fields(m, r);
};

// The table's line of a payload struct. Only structs of the table have one,
// and a struct named on two lines would be defined twice: every message has
// a struct of its own, so the struct alone says which message it is.
template <typename M>
struct MessageInfo;
#define SCOPEDSM_MESSAGE_INFO(id, enumerator, name_, payload, tag_) \
  template <>                                                       \
  struct MessageInfo<payload> {                                     \
    static constexpr MsgType type = MsgType::enumerator;            \
    static constexpr const char* name = name_;                      \
    static constexpr Tag tag = tag_;                                \
  };
SCOPEDSM_MESSAGES(SCOPEDSM_MESSAGE_INFO)
#undef SCOPEDSM_MESSAGE_INFO

template <typename M>
concept Message = HasFields<M> && requires { MessageInfo<M>::type; };

// Calls f(std::type_identity<M>{}) for the struct M of every message, in table order.
template <typename F>
constexpr void for_each_message(F&& f) {
#define SCOPEDSM_MESSAGE_EACH(id, enumerator, name, payload, tag) f(std::type_identity<payload>{});
  SCOPEDSM_MESSAGES(SCOPEDSM_MESSAGE_EACH)
#undef SCOPEDSM_MESSAGE_EACH
}

// Calls f(std::type_identity<M>{}) for the struct M of `type`; returns false
// (and calls nothing) if `type` names no message.
template <typename F>
constexpr bool visit_message(MsgType type, F&& f) {
  switch (type) {
#define SCOPEDSM_MESSAGE_CASE(id, enumerator, name, payload, tag) \
  case MsgType::enumerator:                                       \
    f(std::type_identity<payload>{});                             \
    return true;
    SCOPEDSM_MESSAGES(SCOPEDSM_MESSAGE_CASE)
#undef SCOPEDSM_MESSAGE_CASE
    case MsgType::kCount: break;
  }
  return false;
}

// Appends m's fields to `w` (after the header Writer wrote).
template <HasFields M>
void put_fields(Writer* w, const M& m) {
  FieldWriter fw(w);
  M::fields(m, fw);
}

// A finished message (header included).
template <Message M>
std::vector<std::byte> encode(const M& m, uint32_t seq) {
  Writer w(MessageInfo<M>::type);
  put_fields(&w, m);
  return w.finish(seq);
}

// Decodes a payload from a Reader positioned after the header
// (Reader::open): every field, checked, and nothing after the last.
template <HasFields M>
Status decode(Reader* r, const Limits& l, M* m) {
  FieldReader fr(r, l);
  M::fields(*m, fr);
  return fr.finish();
}

// Opens `bytes` as a message, which must be M's, and decodes it.
template <Message M>
Status decode_message(const std::vector<std::byte>& bytes, const Limits& l, M* m) {
  Reader r(bytes.data(), bytes.size());
  MsgType type;
  if (Status s = r.open(&type); !s.ok()) return s;
  if (type != MessageInfo<M>::type)
    return Status::Error(std::string("expected ") + MessageInfo<M>::name + ", got " + msg_type_name(type));
  return decode(&r, l, m);
}

// decode_message, or the job ends with a protocol error naming `source`.
// (A payload that views the bytes, DIFF's records, must not outlive them.)
template <Message M>
M decode_or_fatal(const std::vector<std::byte>& bytes, int source, const Limits& l) {
  M m;
  if (Status s = decode_message(bytes, l, &m); !s.ok())
    fatal("protocol error: malformed %s from rank %d: %s", MessageInfo<M>::name, source, s.message().c_str());
  return m;
}

}  // namespace scopedsm
