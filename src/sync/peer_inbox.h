// Messages between application threads (kTagPeer): the barrier's rounds
// (BARR) and lock hand-overs (HANDOFF). Neither is a reply to anything the
// receiver is waiting for, so they are read only where the receiver wants
// one: drain() takes every one that has arrived and files it, BARR by
// sender (in order: a round is known by its sender, sync/barrier.h) and
// HANDOFF by lock (only the newest: an older one's tenure has ended).
//
// Thread owner: the application thread.
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include "protocol/messages.h"
#include "sync/parts.h"

namespace scopedsm {

class PeerInbox {
 public:
  // A barrier round as received; its notices are checked when it is used
  // (the sender may have made an allocation the receiver has not finished).
  struct Round {
    Incoming in;
    // The round's collective-call number once Barrier::watch has decoded it
    // (-1: not yet). Kept, not just marked seen: a round that matched no
    // mistake during one wait (it belongs to a later call) must still be
    // compared with the call of every later wait.
    int64_t call = -1;
    uint32_t round = 0;  // its round number, with `call`
  };

  explicit PeerInbox(const SyncParts& parts) : p_(parts), rounds_(static_cast<size_t>(parts.size)) {}

  void drain();
  // The rounds from `source` not yet used, oldest first.
  std::deque<Round>& rounds_from(int source) { return rounds_[static_cast<size_t>(source)]; }
  // How many rounds drain() has filed so far (a waiter compares counts to
  // see whether any came).
  uint64_t rounds_received() const { return rounds_received_; }
  // Takes the hand-over of `lock` for tenure `version`, if it has arrived
  // (one for an earlier tenure is dropped).
  bool take_handoff(uint32_t lock, uint64_t version, HandoffMsg* out);
  // AMO notifications (AMONOTIFY): the latest value (and its payload) the
  // counter word at (page, offset) was announced to have reached.
  void note_amo(const AmoNotifyMsg& msg);
  // True (and the payload) once the word was announced at `value` or beyond.
  bool amo_reached(uint32_t page, uint32_t offset, int64_t value, uint64_t* payload) const;

 private:
  const SyncParts p_;
  std::vector<std::deque<Round>> rounds_;
  uint64_t rounds_received_ = 0;
  std::unordered_map<uint32_t, HandoffMsg> handoffs_;
  std::unordered_map<uint64_t, AmoNotifyMsg> amo_;  // by page << 32 | offset
};

}  // namespace scopedsm
