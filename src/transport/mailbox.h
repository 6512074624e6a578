// The local mailbox: messages a process sends to itself.
//
// A condition variable or page directory homed at this process, the grant
// of a lock homed here that it queued for, and rank 0's own arrivals at
// jia_wait and collective calls make a process send itself requests and
// replies. Those never enter MPI: a copy waits here, per tag, until the
// receive calls that drain MPI (Transport::try_receive) take it first.
// Raw page contents (kTagPage) never come here: a process is the home of
// its own pages and never asks itself for one; nor do barrier rounds
// (kTagPeer): a process never sends itself one.
//
// Thread owner: none; both threads put (either may send to itself), and each
// takes only its own tag (requests: the service thread, replies: the
// application thread). A mutex guards both queues.
#pragma once

#include <cstddef>
#include <deque>

#include "common/thread_annotations.h"
#include "transport/bytes.h"
#include "transport/wire.h"

namespace scopedsm {

class Mailbox {
 public:
  // Queues a copy of the `n` bytes at `data` for the receiver of `tag`
  // (kTagRequest or kTagReply).
  void put(Tag tag, const void* data, size_t n) EXCLUDES(mu_);
  // Takes the oldest message queued on `tag`, if any.
  bool take(Tag tag, Bytes* out) EXCLUDES(mu_);

 private:
  static size_t queue_of(Tag tag);

  Mutex mu_;
  std::deque<Bytes> queues_[2] GUARDED_BY(mu_);  // requests, replies
};

}  // namespace scopedsm
