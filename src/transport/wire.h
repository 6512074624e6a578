// Wire format of runtime messages.
//
// Every protocol message is one MPI message: a 12-byte header followed by a
// type-specific payload. Payloads are written with Writer and read with
// Reader; Reader checks every length against the bytes actually received, so
// a malformed or truncated message becomes an error Status, never an
// out-of-bounds access. Page contents answering a GETP travel separately as
// raw bytes (kTagPage) straight into the requester's page.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/limits.h"
#include "common/status.h"
#include "transport/message_table.h"

namespace scopedsm {

// MPI tags on the runtime's private communicator.
enum Tag : int {
  kTagRequest = 1,  // to the service thread of the destination
  kTagReply = 2,    // to the application thread of the destination
  kTagPage = 3,     // raw page contents answering a GETP on reply lane 0 (a fetch the requester waits for)
  kTagPeer = 4,     // application thread to application thread (barrier rounds), read where expected
  // Raw page contents answering a GETP on reply lane L >= 1 (a fetch left in
  // flight, docs/PROTOCOL.md §2.6) arrive on tag kTagPageLanes + L - 1, so
  // that each of a requester's outstanding fetches matches its own answer
  // whatever order the home answers them in.
  kTagPageLanes = 16,
};
// The tag of reply lane `lane` (0 to kMaxAsyncFetches).
inline Tag page_tag(uint32_t lane) { return lane == 0 ? kTagPage : static_cast<Tag>(kTagPageLanes + lane - 1); }
// Whether `tag` carries raw page contents (any lane).
inline bool is_page_tag(int tag) {
  return tag == kTagPage || (tag >= kTagPageLanes && tag < kTagPageLanes + static_cast<int>(kMaxAsyncFetches));
}

// One enumerator per line of the message table (message_table.h), with its id.
enum class MsgType : uint16_t {
#define SCOPEDSM_MSG_ENUMERATOR(id, enumerator, name, payload, tag) enumerator = id,
  SCOPEDSM_MESSAGES(SCOPEDSM_MSG_ENUMERATOR)
#undef SCOPEDSM_MSG_ENUMERATOR
  kCount  // one past the last id: the first id that names no message
};
constexpr size_t kMsgTypeCount = static_cast<size_t>(MsgType::kCount);

// What the table says about a type, for the layers below protocol/, which
// do not see payload structs.
struct MsgTypeInfo {
  MsgType type;
  const char* name;
  Tag tag;  // kTagRequest, kTagReply or kTagPeer: who receives it
};
inline constexpr MsgTypeInfo kMsgTypes[] = {
#define SCOPEDSM_MSG_INFO(id, enumerator, name, payload, tag) {MsgType::enumerator, name, tag},
    SCOPEDSM_MESSAGES(SCOPEDSM_MSG_INFO)
#undef SCOPEDSM_MSG_INFO
};
// Ids are dense from 1 in table order, so kMsgTypes[id - 1] describes id and
// a new line cannot silently renumber the messages after it.
static_assert([] {
  for (size_t i = 0; i < std::size(kMsgTypes); ++i)
    if (static_cast<size_t>(kMsgTypes[i].type) != i + 1) return false;
  return std::size(kMsgTypes) + 1 == kMsgTypeCount;
}(), "message table ids must be 1, 2, 3, ... in table order");

// The table's name for `type` ("?" for an id that names no message).
const char* msg_type_name(MsgType type);
// Who receives `type`: kTagRequest, kTagReply or kTagPeer (`type` must name a message).
Tag msg_type_tag(MsgType type);

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
    std::memcpy(grow(sizeof(T)), &value, sizeof(T));
  }
  void put_bytes(const void* data, size_t n);
  // Reserves room for a value filled in later (e.g. a count), returns its offset.
  size_t reserve_u32();
  void patch_u32(size_t offset, uint32_t value);
  // Drops everything after the first n bytes (n >= header size).
  void truncate(size_t n) { size_ = n; }
  // Appends n bytes to be filled in place through the returned pointer
  // (valid until the next append); truncate() gives back what was unused.
  // Their contents are undefined until written (room given back by
  // truncate is not cleared again when reused).
  std::byte* append_space(size_t n) { return grow(n); }
  size_t size() const { return size_; }
  // Finishes the header and hands the bytes over.
  std::vector<std::byte> finish(uint32_t seq);

 private:
  // Room for n more bytes at the end. The vector is resized (which clears
  // what it adds) only beyond the most it has held, doubling, so that room
  // taken and given back (a diff's worst case, truncated to its size) costs
  // no clearing each time.
  std::byte* grow(size_t n) {
    const size_t at = size_;
    if (buf_.size() < at + n) buf_.resize(std::max(at + n, 2 * buf_.size()));
    size_ = at + n;
    return buf_.data() + at;
  }
  std::vector<std::byte> buf_;  // bytes [0, size_) are the message; the rest is room
  size_t size_ = 0;
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
