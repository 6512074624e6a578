#include "sync/peer_inbox.h"

#include "common/log.h"

namespace scopedsm {

void PeerInbox::drain() {
  Incoming in;
  while (p_.transport->try_receive(kTagPeer, &in)) {
    Reader r(in.bytes.data(), in.bytes.size());
    MsgType type;
    if (Status st = r.open(&type); !st.ok())
      fatal("protocol error: malformed message from rank %d: %s", in.source, st.message().c_str());
    if (type == MsgType::kBarrier) {
      auto& queue = rounds_[static_cast<size_t>(in.source)];
      // A sender is at most one barrier ahead of the one we are in (it
      // cannot finish a barrier we have not arrived at): this one's round
      // and the next one's.
      if (queue.size() == 2)
        fatal("protocol error: a third barrier round from rank %d before the first was used", in.source);
      queue.push_back(Round{std::move(in)});
      ++rounds_received_;
    } else if (type == MsgType::kHandoff) {
      // Its notices were written before we took the lock, so they name
      // pages we have allocated.
      HandoffMsg msg = decode_or_fatal<HandoffMsg>(in.bytes, in.source, p_.limits());
      handoffs_[msg.lock] = std::move(msg);
    } else if (type == MsgType::kAmoNotify) {
      note_amo(decode_or_fatal<AmoNotifyMsg>(in.bytes, in.source, p_.limits()));
    } else {
      fatal("protocol error: rank %d sent %s between application threads", in.source, msg_type_name(type));
    }
  }
}

bool PeerInbox::take_handoff(uint32_t lock, uint64_t version, HandoffMsg* out) {
  auto it = handoffs_.find(lock);
  if (it == handoffs_.end()) return false;
  const bool current = it->second.version == version;
  if (current) *out = std::move(it->second);
  handoffs_.erase(it);
  return current;
}

void PeerInbox::note_amo(const AmoNotifyMsg& msg) {
  auto [it, fresh] = amo_.try_emplace(uint64_t{msg.page} << 32 | msg.offset, msg);
  if (!fresh && static_cast<int64_t>(msg.value) > static_cast<int64_t>(it->second.value)) it->second = msg;
}

bool PeerInbox::amo_reached(uint32_t page, uint32_t offset, int64_t value, uint64_t* payload) const {
  auto it = amo_.find(uint64_t{page} << 32 | offset);
  if (it == amo_.end() || static_cast<int64_t>(it->second.value) < value) return false;
  *payload = it->second.payload;
  return true;
}

}  // namespace scopedsm
