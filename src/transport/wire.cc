#include "transport/wire.h"

#include "common/log.h"
#include "transport/message_size.h"

namespace scopedsm {

const char* msg_type_name(MsgType type) {
  const auto id = static_cast<size_t>(type);
  return id >= 1 && id < kMsgTypeCount ? kMsgTypes[id - 1].name : "?";
}

Tag msg_type_tag(MsgType type) { return kMsgTypes[static_cast<size_t>(type) - 1].tag; }

Writer::Writer(MsgType type) {
  const MsgHeader h{kMagic, static_cast<uint16_t>(type), 0, 0};
  std::memcpy(grow(sizeof h), &h, sizeof h);
}

void Writer::put_bytes(const void* data, size_t n) {
  std::byte* at = grow(n);
  if (n > 0) std::memcpy(at, data, n);
}

size_t Writer::reserve_u32() {
  const size_t at = size_;
  put<uint32_t>(0);
  return at;
}

void Writer::patch_u32(size_t offset, uint32_t value) {
  std::memcpy(buf_.data() + offset, &value, sizeof value);
}

std::vector<std::byte> Writer::finish(uint32_t seq) {
  buf_.resize(size_);  // only ever shrinks here
  MsgHeader h;
  std::memcpy(&h, buf_.data(), sizeof h);
  const size_t payload = buf_.size() - sizeof(MsgHeader);
  // Never a truncated length: the receiver would misparse or reject the message far from the cause.
  if (Status s = check_payload_size(static_cast<MsgType>(h.type), payload); !s.ok()) fatal("%s", s.message().c_str());
  h.payload_bytes = static_cast<uint32_t>(payload);
  h.seq = seq;
  std::memcpy(buf_.data(), &h, sizeof h);
  size_ = 0;
  return std::move(buf_);
}

Status Reader::open(MsgType* type) {
  MsgHeader h;
  if (size_ < sizeof h) return Status::Error("message shorter than its header");
  std::memcpy(&h, data_, sizeof h);
  if (h.magic != kMagic) return Status::Error("bad magic number");
  if (h.type == 0 || h.type >= static_cast<uint16_t>(MsgType::kCount)) return Status::Error("unknown message type");
  if (h.payload_bytes != size_ - sizeof h) return Status::Error("payload length does not match the message size");
  pos_ = sizeof h;
  *type = static_cast<MsgType>(h.type);
  return Status::Ok();
}

Status Reader::get_bytes(size_t n, const std::byte** out) {
  if (size_ - pos_ < n) return Status::Error("message truncated");
  *out = data_ + pos_;
  pos_ += n;
  return Status::Ok();
}

}  // namespace scopedsm
