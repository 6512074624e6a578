#include "sync/lock_manager.h"

#include <algorithm>
#include <cstdio>

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

std::vector<WriteNotice> LockManager::notices_after(const LockState& l, uint64_t seen) {
  auto first = std::upper_bound(l.log.begin(), l.log.end(), seen,
                                [](uint64_t s, const LoggedNotice& e) { return s < e.version; });
  std::vector<WriteNotice> out;
  out.reserve(static_cast<size_t>(l.log.end() - first));
  for (auto it = first; it != l.log.end(); ++it) out.push_back(it->notice);
  return out;
}

std::vector<WriteNotice> LockManager::unseen_by(const LockState& l, const Waiter& w) const {
  if (!p_.test_fault(TestFault::kStaleIncarnation)) return notices_after(l, w.seen);
  auto end = std::lower_bound(l.log.begin(), l.log.end(), l.version,
                              [](const LoggedNotice& e, uint64_t v) { return e.version < v; });
  std::vector<WriteNotice> out;
  for (auto it = l.log.begin(); it != end; ++it)
    if (it->version > w.seen) out.push_back(it->notice);
  return out;
}

AcquireGrantMsg LockManager::grant(int lock, LockState* l, const Waiter& w) {
  l->holder = w.rank;
  return AcquireGrantMsg{static_cast<uint32_t>(lock), l->version, unseen_by(*l, w)};
}

void LockManager::send_grant(int lock, LockState* l, const Waiter& w) {
  p_.transport->send(w.rank, kTagReply, encode(grant(lock, l, w), p_.transport->next_seq()));
}

void LockManager::name_successor(int lock, LockState* l) {
  if (l->holder < 0 || l->holder == p_.rank || l->successor >= 0 || l->waiters.empty()) return;
  const Waiter& next = l->waiters.front();
  HandoffMsg msg;
  msg.lock = static_cast<uint32_t>(lock);
  msg.version = l->version;  // the holder's tenure: the version its grant carried
  msg.successor = next.rank;
  // What the successor's grant from here would carry: the log newer than
  // the version it saw. The log cannot change before the holder releases.
  msg.notices = unseen_by(*l, next);
  l->successor = next.rank;
  p_.transport->send(l->holder, kTagPeer, encode(msg, p_.transport->next_seq()));
}

bool LockManager::acquire(int rank, const AcquireMsg& msg, AcquireGrantMsg* inline_grant) {
  const int lock = static_cast<int>(msg.lock);
  LockState& l = lock_state(lock, "ACQ", rank);
  refresh_epoch(&l, msg.epoch);
  Waiter w{rank, msg.seen, now_ns()};
  if (l.holder >= 0) {
    l.waiters.push_back(w);
    name_successor(lock, &l);
    return false;
  }
  if (inline_grant == nullptr) {
    send_grant(lock, &l, w);
    return false;
  }
  *inline_grant = grant(lock, &l, w);
  return true;
}

void LockManager::on(const Incoming& in, const AcquireMsg& msg) { acquire(in.source, msg, nullptr); }

bool LockManager::acquire_here(const AcquireMsg& msg, AcquireGrantMsg* grant_out) {
  return acquire(p_.rank, msg, grant_out);
}

void LockManager::release_one(int lock, LockState* l, int rank, const ReleaseMsg& msg) {
  refresh_epoch(l, msg.epoch);
  ++l->version;
  // A release from before the latest barrier has its notices covered by
  // that barrier; only the hand-over matters.
  if (msg.epoch == l->epoch && !p_.test_fault(TestFault::kSkipNotices)) record(l, msg.notices);
  l->holder = -1;
  const int successor = l->successor;
  l->successor = -1;
  if (msg.handed_to >= 0) {
    // The releaser granted the lock to the successor we named, with what
    // this grant would have carried: only the bookkeeping is left here.
    if (msg.handed_to != successor || l->waiters.empty() || l->waiters.front().rank != successor)
      fatal("protocol error: rank %d handed lock %d to rank %d, but the successor named was rank %d", rank, lock,
            msg.handed_to, successor);
    l->holder = successor;
    l->waiters.pop_front();
  } else if (!l->waiters.empty()) {
    Waiter next = l->waiters.front();
    l->waiters.pop_front();
    send_grant(lock, l, next);
  }
}

void LockManager::release(int rank, const ReleaseMsg& msg) {
  const int lock = static_cast<int>(msg.lock);
  LockState& l = lock_state(lock, "REL", rank);
  if (l.holder != rank) {
    // The successor, which had the lock from the holder directly, may
    // release it before the holder's REL (naming it) gets here.
    if (rank == l.successor && l.holder >= 0 && !l.early && msg.handed_to < 0) {
      l.early = msg;
      stats_->early_releases.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    fatal("protocol error: rank %d released lock %u, which is held by rank %d", rank, msg.lock, l.holder);
  }
  const int successor = l.successor;
  release_one(lock, &l, rank, msg);
  if (l.early) {
    // The holder's REL must have handed the lock to the early releaser.
    if (l.holder != successor)
      fatal("protocol error: rank %d released lock %d early, but the lock went to rank %d", successor, lock, l.holder);
    const ReleaseMsg next = std::move(*l.early);
    l.early.reset();
    release_one(lock, &l, successor, next);
  }
  name_successor(lock, &l);
}

void LockManager::on(const Incoming& in, const ReleaseMsg& msg) { release(in.source, msg); }

void LockManager::release_here(const ReleaseMsg& msg) { release(p_.rank, msg); }

void LockManager::check_stalls(uint64_t now, const StallLimit& stall) {
  for (auto& [lock, l] : locks_) {
    if (l.waiters.empty()) continue;
    Waiter& w = l.waiters.front();
    const StallLimit::Verdict v = stall.judge(StallLimit::age(now, w.since_ns), &w.warned);
    if (v == StallLimit::kQuiet) continue;
    const std::string waited = stall.waited(StallLimit::age(now, w.since_ns), v);
    // The waiter's call, in the words of the surface: "jia_lock(5)". The
    // line is printed by the lock's home, which need be neither the waiter
    // nor the holder.
    char call[96];
    if (lock < p_.locks)
      std::snprintf(call, sizeof call, "%s(%d)", p_.surface->lock, lock);
    else
      std::snprintf(call, sizeof call, "the runtime's own lock %d", lock);
    if (v == StallLimit::kWarn)
      SCOPEDSM_LOG(LogLevel::kWarn, "%s: rank %d %s for rank %d, which holds lock %d; %s unless rank %d releases it",
                   call, w.rank, waited.c_str(), l.holder, lock, stall.ends().c_str(), l.holder);
    else
      fatal("%s timed out: rank %d %s for rank %d, which holds lock %d; is rank %d alive, and does it release the "
            "lock?",
            call, w.rank, waited.c_str(), l.holder, lock, l.holder);
  }
}

}  // namespace scopedsm
