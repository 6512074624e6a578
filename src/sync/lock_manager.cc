#include "sync/lock_manager.h"

#include <algorithm>

#include "common/log.h"
#include "protocol/messages.h"

namespace scopedsm {

LockManager::LockState& LockManager::lock_state(int lock, const char* what, int source) {
  if (home_of(lock, s_->size) != s_->rank)
    fatal("protocol error: %s from rank %d names lock %d, which is not homed here", what, source, lock);
  return locks_[lock];
}

void LockManager::refresh_epoch(LockState* l, uint32_t epoch) {
  if (epoch > l->epoch) {
    l->notices.clear();
    l->epoch = epoch;
  }
}

void LockManager::grant(int lock, LockState* l, const Waiter& w) {
  l->holder = w.rank;
  AcquireGrantMsg msg;
  msg.lock = static_cast<uint32_t>(lock);
  msg.version = l->version;
  for (const auto& [page, e] : l->notices)
    if (e.version > w.seen) msg.notices.push_back({page, e.writer});
  std::sort(msg.notices.begin(), msg.notices.end(),
            [](const WriteNotice& a, const WriteNotice& b) { return a.page < b.page; });
  s_->transport.send(w.rank, kTagReply, encode(msg, s_->transport.next_seq()));
}

void LockManager::on_acquire(const Incoming& in, Reader* r) {
  AcquireMsg msg;
  if (Status st = decode(r, s_->limits(), &msg); !st.ok())
    fatal("protocol error: malformed ACQ from rank %d: %s", in.source, st.message().c_str());
  LockState& l = lock_state(static_cast<int>(msg.lock), "ACQ", in.source);
  refresh_epoch(&l, msg.epoch);
  Waiter w{in.source, msg.seen};
  if (l.holder < 0) {
    grant(static_cast<int>(msg.lock), &l, w);
  } else {
    l.waiters.push_back(w);
  }
}

void LockManager::on_release(const Incoming& in, Reader* r) {
  ReleaseMsg msg;
  if (Status st = decode(r, s_->limits(), &msg); !st.ok())
    fatal("protocol error: malformed REL from rank %d: %s", in.source, st.message().c_str());
  LockState& l = lock_state(static_cast<int>(msg.lock), "REL", in.source);
  if (l.holder != in.source)
    fatal("protocol error: rank %d released lock %u, which is held by rank %d", in.source, msg.lock, l.holder);
  refresh_epoch(&l, msg.epoch);
  ++l.version;
  // A release from before the latest barrier has its notices covered by
  // that barrier; only the hand-over matters.
  if (msg.epoch == l.epoch && !s_->test_fault("skip-notices")) {
    for (const WriteNotice& n : msg.notices) l.notices[n.page] = NoticeEntry{n.writer, l.version};
  }
  l.holder = -1;
  if (!l.waiters.empty()) {
    Waiter next = l.waiters.front();
    l.waiters.pop_front();
    grant(static_cast<int>(msg.lock), &l, next);
  }
}

}  // namespace scopedsm
