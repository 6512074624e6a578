// Traffic counters: messages and bytes by type, per direction.
//
// Counts what the transport posts and receives, so the statistics (stats/)
// can report traffic by message type and tell network traffic from messages
// a process addressed to itself. Page contents answering a GETP are raw
// bytes with no header; they are counted apart.
//
// Thread owner: none; every counter is atomic and any thread counts (both
// threads send, each receives its own tag).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "transport/bytes.h"
#include "transport/wire.h"

namespace scopedsm {

// Messages and bytes by type, kept per direction.
struct TrafficCounters {
  std::array<std::atomic<uint64_t>, kMsgTypeCount> messages{};
  std::array<std::atomic<uint64_t>, kMsgTypeCount> bytes{};
  std::atomic<uint64_t> page_messages{0};  // raw GETP answers (kTagPage and the reply lanes)
  std::atomic<uint64_t> page_bytes{0};
  // Sent only: of the above, those a rank addressed to itself (local
  // mailbox, no MPI); already counted by type, kept apart so reports can
  // tell network traffic.
  std::atomic<uint64_t> self_messages{0};
  std::atomic<uint64_t> self_bytes{0};
};

class Traffic {
 public:
  // A message of `n` bytes at `data` posted on `tag`; `to_self` when it
  // went through the local mailbox rather than MPI.
  void count_sent(Tag tag, const void* data, size_t n, bool to_self);
  // A request or reply as received. Bytes without a valid header are not
  // counted: the reader that opens them reports them.
  void count_received(const Bytes& bytes, bool from_self = false);
  // Raw page contents of `n` bytes received for a GETP.
  void count_received_page(size_t n);

  // Messages the calling thread has sent to other processes and received,
  // over the process's life; a per-operation count (loop scheduling's
  // messages per grab) is the difference across the operation.
  static uint64_t thread_messages();

  TrafficCounters& sent() { return sent_; }
  TrafficCounters& received() { return received_; }

 private:
  static void count_typed(TrafficCounters* c, const void* data, size_t n);

  TrafficCounters sent_;
  TrafficCounters received_;
};

}  // namespace scopedsm
