#include "transport/message_size.h"

#include <cstdio>

namespace scopedsm {

Status check_payload_size(MsgType type, size_t payload_bytes) {
  if (payload_bytes <= kMaxPayloadBytes) return Status::Ok();
  char text[256];
  std::snprintf(text, sizeof text,
                "a %s message with a payload of %zu bytes exceeds the limit of %zu bytes (the header stores the "
                "payload length in 32 bits)",
                msg_type_name(type), payload_bytes, kMaxPayloadBytes);
  return Status::Error(text);
}

Status check_message_size(const char* what, size_t bytes) {
  if (bytes <= kMaxMessageBytes) return Status::Ok();
  char text[256];
  std::snprintf(text, sizeof text,
                "a %s message of %zu bytes exceeds the limit of %zu bytes (MPI counts bytes in an int)", what, bytes,
                kMaxMessageBytes);
  return Status::Error(text);
}

const char* posted_message_name(Tag tag, const void* data, size_t n) {
  if (is_page_tag(tag)) return "page";
  MsgHeader h;
  if (n < sizeof h) return "?";
  std::memcpy(&h, data, sizeof h);
  return msg_type_name(static_cast<MsgType>(h.type));
}

}  // namespace scopedsm
