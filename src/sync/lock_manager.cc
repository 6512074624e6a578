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

void LockManager::grant(int lock, LockState* l, const Waiter& w) {
  l->holder = w.rank;
  AcquireGrantMsg msg;
  msg.lock = static_cast<uint32_t>(lock);
  msg.version = l->version;
  auto first = std::upper_bound(l->log.begin(), l->log.end(), w.seen,
                                [](uint64_t seen, const LoggedNotice& e) { return seen < e.version; });
  msg.notices.reserve(static_cast<size_t>(l->log.end() - first));
  for (auto it = first; it != l->log.end(); ++it) msg.notices.push_back(it->notice);
  p_.transport->send(w.rank, kTagReply, encode(msg, p_.transport->next_seq()));
}

void LockManager::on(const Incoming& in, const AcquireMsg& msg) {
  LockState& l = lock_state(static_cast<int>(msg.lock), "ACQ", in.source);
  refresh_epoch(&l, msg.epoch);
  Waiter w{in.source, msg.seen, now_ns()};
  if (l.holder < 0) {
    grant(static_cast<int>(msg.lock), &l, w);
  } else {
    l.waiters.push_back(w);
  }
}

void LockManager::on(const Incoming& in, const ReleaseMsg& msg) {
  LockState& l = lock_state(static_cast<int>(msg.lock), "REL", in.source);
  if (l.holder != in.source)
    fatal("protocol error: rank %d released lock %u, which is held by rank %d", in.source, msg.lock, l.holder);
  refresh_epoch(&l, msg.epoch);
  ++l.version;
  // A release from before the latest barrier has its notices covered by
  // that barrier; only the hand-over matters.
  if (msg.epoch == l.epoch && !p_.test_fault(TestFault::kSkipNotices)) record(&l, msg.notices);
  l.holder = -1;
  if (!l.waiters.empty()) {
    Waiter next = l.waiters.front();
    l.waiters.pop_front();
    grant(static_cast<int>(msg.lock), &l, next);
  }
}

void LockManager::check_stalls(uint64_t now, const StallLimit& stall) {
  for (auto& [lock, l] : locks_) {
    if (l.waiters.empty()) continue;
    Waiter& w = l.waiters.front();
    const StallLimit::Verdict v = stall.judge(StallLimit::age(now, w.since_ns), &w.warned);
    if (v == StallLimit::kQuiet) continue;
    const std::string waited = stall.waited(StallLimit::age(now, w.since_ns), v);
    if (v == StallLimit::kWarn)
      SCOPEDSM_LOG(LogLevel::kWarn, "rank %d %s for lock %d (homed here), which is held by rank %d; %s unless rank %d "
                   "releases it",
                   w.rank, waited.c_str(), lock, l.holder, stall.ends().c_str(), l.holder);
    else
      fatal("timed out: rank %d %s for lock %d (homed here), which is held by rank %d; is rank %d alive, and does it "
            "release the lock?",
            w.rank, waited.c_str(), lock, l.holder, l.holder);
  }
}

}  // namespace scopedsm
