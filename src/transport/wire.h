// Wire format of runtime messages.
//
// Every protocol message is one MPI message: a 12-byte header followed by a
// type-specific payload. Payloads are written with Writer and read with
// Reader; Reader checks every length against the bytes actually received, so
// a malformed or truncated message becomes an error Status, never an
// out-of-bounds access. Page contents answering a GETP travel separately as
// raw bytes (kTagPage) straight into the requester's page.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/status.h"

namespace scopedsm {

// MPI tags on the runtime's private communicator.
enum Tag : int {
  kTagRequest = 1,  // to the service thread of the destination
  kTagReply = 2,    // to the application thread of the destination
  kTagPage = 3,     // raw page contents answering a GETP
};

enum class MsgType : uint16_t {
  kGetPage = 1,      // page -> raw page on kTagPage
  kDiff = 2,         // diffs of pages homed at the destination -> kDiffAck
  kDiffAck = 3,
  kAcquire = 4,      // lock, epoch, last incarnation seen -> kAcquireGrant
  kAcquireGrant = 5, // lock, incarnation, notices
  kRelease = 6,      // lock, epoch, notices
  kBarrier = 7,      // epoch, notices -> kBarrierGrant (to all)
  kBarrierGrant = 8, // epoch, notices
  kWait = 9,         // -> kWaitGrant (to all)
  kWaitGrant = 10,
  kCvSet = 11,       // cv, epoch, notices
  kCvReset = 12,     // cv, epoch
  kCvWait = 13,      // cv, epoch -> kCvGrant
  kCvGrant = 14,     // cv, notices
  kCollective = 15,  // a checked rendezvous at rank 0 (alloc agreement, exit)
  kCollectiveDone = 16,
  kHomeClaim = 17,   // first-touch: page -> kHomeIs
  kHomeIs = 18,      // page, home
  kShutdown = 19,    // every process to every process at exit
  kAck = 20,         // a state-changing request (SETCV, RESETCV) was applied
  kCount
};
const char* msg_type_name(MsgType type);
constexpr size_t kMsgTypeCount = static_cast<size_t>(MsgType::kCount);

struct MsgHeader {
  uint16_t magic;  // kMagic: catches stray or misrouted messages
  uint16_t type;   // MsgType
  uint32_t payload_bytes;
  uint32_t seq;    // per-sender sequence, for diagnostics
};
static_assert(sizeof(MsgHeader) == 12);
constexpr uint16_t kMagic = 0x5d53;

// Appends little pieces to a growing byte buffer.
class Writer {
 public:
  explicit Writer(MsgType type);
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    size_t at = buf_.size();
    buf_.resize(at + sizeof(T));
    std::memcpy(buf_.data() + at, &value, sizeof(T));
  }
  void put_bytes(const void* data, size_t n);
  // Reserves room for a value filled in later (e.g. a count), returns its offset.
  size_t reserve_u32();
  void patch_u32(size_t offset, uint32_t value);
  // Drops everything after the first n bytes (n >= header size).
  void truncate(size_t n) { buf_.resize(n); }
  // Appends n bytes to be filled in place through the returned pointer
  // (valid until the next append); truncate() gives back what was unused.
  std::byte* append_space(size_t n) {
    size_t at = buf_.size();
    buf_.resize(at + n);
    return buf_.data() + at;
  }
  size_t size() const { return buf_.size(); }
  // Finishes the header and hands the bytes over.
  std::vector<std::byte> finish(uint32_t seq);

 private:
  std::vector<std::byte> buf_;
};

// Reads a received message. Every accessor fails rather than overrun.
class Reader {
 public:
  Reader(const std::byte* data, size_t n) : data_(data), size_(n) {}
  // Checks magic, type range and payload length; positions after the header.
  Status open(MsgType* type);
  template <typename T>
  Status get(T* out) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (size_ - pos_ < sizeof(T)) return Status::Error("message truncated");
    std::memcpy(out, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return Status::Ok();
  }
  // Returns a view of the next n bytes.
  Status get_bytes(size_t n, const std::byte** out);
  size_t remaining() const { return size_ - pos_; }

 private:
  const std::byte* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace scopedsm
