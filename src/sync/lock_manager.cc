#include "sync/lock_manager.h"

#include <algorithm>

#include "common/log.h"
#include "jia.h"
#include "protocol/notices.h"

namespace scopedsm {

LockManager::LockState& LockManager::lock_state(int lock, const char* what, int source) {
  if (lock < 0 || lock >= Maxlocks || home_of(lock, s_->size) != s_->rank)
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
  std::vector<WriteNotice> out;
  for (const auto& [page, e] : l->notices)
    if (e.version > w.seen) out.push_back({page, e.writer});
  std::sort(out.begin(), out.end(), [](const WriteNotice& a, const WriteNotice& b) { return a.page < b.page; });
  Writer msg(MsgType::kAcquireGrant);
  msg.put<uint32_t>(static_cast<uint32_t>(lock));
  msg.put<uint64_t>(l->version);
  put_notices(&msg, out);
  s_->transport.send(w.rank, kTagReply, msg.finish(s_->transport.next_seq()));
}

void LockManager::on_acquire(const Incoming& in, Reader* r) {
  uint32_t lock = 0, epoch = 0;
  uint64_t seen = 0;
  if (!r->get(&lock).ok() || !r->get(&epoch).ok() || !r->get(&seen).ok() || r->remaining() != 0)
    fatal("protocol error: malformed ACQ from rank %d", in.source);
  LockState& l = lock_state(static_cast<int>(lock), "ACQ", in.source);
  refresh_epoch(&l, epoch);
  Waiter w{in.source, seen};
  if (l.holder < 0) {
    grant(static_cast<int>(lock), &l, w);
  } else {
    l.waiters.push_back(w);
  }
}

void LockManager::on_release(const Incoming& in, Reader* r) {
  uint32_t lock = 0, epoch = 0;
  if (!r->get(&lock).ok() || !r->get(&epoch).ok()) fatal("protocol error: malformed REL from rank %d", in.source);
  std::vector<WriteNotice> notices;
  Status st = get_notices(r, s_->pages.allocated(), s_->size, &notices);
  if (!st.ok() || r->remaining() != 0)
    fatal("protocol error: malformed REL from rank %d: %s", in.source, st.ok() ? "trailing bytes" : st.message().c_str());
  LockState& l = lock_state(static_cast<int>(lock), "REL", in.source);
  if (l.holder != in.source)
    fatal("protocol error: rank %d released lock %u, which is held by rank %d", in.source, lock, l.holder);
  refresh_epoch(&l, epoch);
  ++l.version;
  // A release from before the latest barrier has its notices covered by
  // that barrier; only the hand-over matters.
  if (epoch == l.epoch && !s_->test_fault("skip-notices")) {
    for (const WriteNotice& n : notices) l.notices[n.page] = NoticeEntry{n.writer, l.version};
  }
  l.holder = -1;
  if (!l.waiters.empty()) {
    Waiter next = l.waiters.front();
    l.waiters.pop_front();
    grant(static_cast<int>(lock), &l, next);
  }
}

}  // namespace scopedsm
