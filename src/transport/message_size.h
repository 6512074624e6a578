// How large one runtime message may be, and the checks that enforce it.
//
// Two limits apply. The header's payload length is 32 bits (MsgHeader), so
// a payload may hold at most UINT32_MAX bytes; MPI counts are int, so a
// message (header included) may hold at most INT_MAX bytes. Nothing in the
// protocol is supposed to come near either, but a silently truncated length
// would make the receiver reject or, worse, misparse a message far from the
// cause. So Writer::finish checks the first and Transport the second, and
// either ends the job naming the message type and its size.
//
// Pure functions of their arguments: any thread, and the codec (which the
// fuzz targets build without MPI) uses them too.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "transport/wire.h"

namespace scopedsm {

constexpr size_t kMaxPayloadBytes = UINT32_MAX;  // MsgHeader::payload_bytes
constexpr size_t kMaxMessageBytes = INT_MAX;     // the int count of MPI_Isend

// An error naming `type` and the size if a payload of `payload_bytes` does
// not fit the header's 32-bit length.
Status check_payload_size(MsgType type, size_t payload_bytes);

// An error naming `what` (a message type's name, or "page") and the size if
// `bytes` cannot travel as one MPI message.
Status check_message_size(const char* what, size_t bytes);

// The name of a message as posted on `tag`: "page" for raw page contents,
// otherwise its header's type ("?" when it has no valid header).
const char* posted_message_name(Tag tag, const void* data, size_t n);

}  // namespace scopedsm
