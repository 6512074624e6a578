#include "sync/lock_manager.h"

#include <algorithm>

#include "common/clock.h"
#include "common/log.h"
#include "protocol/messages.h"

namespace scopedsm {

LockManager::LockState& LockManager::lock_state(int lock, const char* what, int source) {
  if (home_of(lock, p_.size) != p_.rank)
    fatal("protocol error: %s from rank %d names lock %d, which is not homed here", what, source, lock);
  return locks_[lock];
}

void LockManager::refresh_epoch(LockState* l, uint32_t epoch) {
  if (epoch > l->epoch) {
    l->log.clear();
    l->latest.clear();
    l->epoch = epoch;
  }
}

void LockManager::record(LockState* l, const std::vector<WriteNotice>& notices) {
  for (const WriteNotice& n : notices) {
    l->log.push_back({l->version, n});
    l->latest[n.page] = l->version;
  }
  if (l->log.size() > 2 * l->latest.size() + 64) {
    // Keep each page's newest entry only; version order is preserved.
    std::vector<LoggedNotice> live;
    live.reserve(l->latest.size());
    for (const LoggedNotice& e : l->log)
      if (l->latest[e.notice.page] == e.version) live.push_back(e);
    l->log.swap(live);
  }
}

AcquireGrantMsg LockManager::grant(int lock, LockState* l, const Waiter& w) {
  l->holder = w.rank;
  AcquireGrantMsg msg;
  msg.lock = static_cast<uint32_t>(lock);
  msg.version = l->version;
  auto first = std::upper_bound(l->log.begin(), l->log.end(), w.seen,
                                [](uint64_t seen, const LoggedNotice& e) { return seen < e.version; });
  msg.notices.reserve(static_cast<size_t>(l->log.end() - first));
  for (auto it = first; it != l->log.end(); ++it) msg.notices.push_back(it->notice);
  return msg;
}

void LockManager::send_grant(int lock, LockState* l, const Waiter& w) {
  p_.transport->send(w.rank, kTagReply, encode(grant(lock, l, w), p_.transport->next_seq()));
}

void LockManager::acquire(int rank, const AcquireMsg& msg, AcquireGrantMsg* inline_grant, bool* granted) {
  LockState& l = lock_state(static_cast<int>(msg.lock), "ACQ", rank);
  refresh_epoch(&l, msg.epoch);
  Waiter w{rank, msg.seen, now_ns()};
  if (l.holder >= 0) {
    l.waiters.push_back(w);
  } else if (inline_grant != nullptr) {
    *inline_grant = grant(static_cast<int>(msg.lock), &l, w);
    *granted = true;
  } else {
    send_grant(static_cast<int>(msg.lock), &l, w);
  }
}

void LockManager::on(const Incoming& in, const AcquireMsg& msg) { acquire(in.source, msg, nullptr, nullptr); }

bool LockManager::acquire_here(const AcquireMsg& msg, AcquireGrantMsg* grant_out) {
  bool granted = false;
  acquire(p_.rank, msg, grant_out, &granted);
  return granted;
}

void LockManager::release(int rank, const ReleaseMsg& msg) {
  LockState& l = lock_state(static_cast<int>(msg.lock), "REL", rank);
  if (l.holder != rank)
    fatal("protocol error: rank %d released lock %u, which is held by rank %d", rank, msg.lock, l.holder);
  refresh_epoch(&l, msg.epoch);
  ++l.version;
  // A release from before the latest barrier has its notices covered by
  // that barrier; only the hand-over matters.
  if (msg.epoch == l.epoch && !p_.test_fault(TestFault::kSkipNotices)) record(&l, msg.notices);
  l.holder = -1;
  if (!l.waiters.empty()) {
    Waiter next = l.waiters.front();
    l.waiters.pop_front();
    send_grant(static_cast<int>(msg.lock), &l, next);
  }
}

void LockManager::on(const Incoming& in, const ReleaseMsg& msg) { release(in.source, msg); }

void LockManager::release_here(const ReleaseMsg& msg) { release(p_.rank, msg); }

void LockManager::check_stalls(uint64_t now, uint64_t limit_ns) const {
  for (const auto& [lock, l] : locks_) {
    if (l.waiters.empty() || now - l.waiters.front().since_ns < limit_ns) continue;
    const Waiter& w = l.waiters.front();
    fatal("timed out: rank %d has waited %.1f s for lock %d (homed here), which is held by rank %d; is rank %d alive, and "
          "does it release the lock?",
          w.rank, static_cast<double>(now - w.since_ns) / 1e9, lock, l.holder, l.holder);
  }
}

}  // namespace scopedsm
