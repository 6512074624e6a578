#include "sync/sync_client.h"

#include "common/clock.h"
#include "common/log.h"
#include "jia.h"
#include "sync/condvar_manager.h"
#include "sync/lock_manager.h"

namespace scopedsm {

namespace {

std::vector<WriteNotice> read_grant_notices(RuntimeState* s, const Incoming& in, const char* what,
                                            const std::function<bool(Reader*)>& header) {
  Reader r(in.bytes.data(), in.bytes.size());
  MsgType type;
  std::vector<WriteNotice> notices;
  if (!r.open(&type).ok() || !header(&r)) fatal("protocol error: malformed %s from rank %d", what, in.source);
  Status st = get_notices(&r, s->pages.allocated(), s->size, &notices);
  if (!st.ok() || r.remaining() != 0)
    fatal("protocol error: malformed %s from rank %d: %s", what, in.source, st.ok() ? "trailing bytes" : st.message().c_str());
  return notices;
}

}  // namespace

SyncClient::SyncClient(RuntimeState* state, Coherence* coherence)
    : s_(state), c_(coherence), seen_(Maxlocks, 0) {}

void SyncClient::check_lock_id(const char* call, int lock) const {
  if (lock < 0 || lock >= Maxlocks)
    fatal("%s(%d): lock id out of range; valid ids are 0 to %d (Maxlocks - 1)", call, lock, Maxlocks - 1);
}

void SyncClient::check_cv_id(const char* call, int cv) const {
  if (cv < 0 || cv >= Maxcondvs)
    fatal("%s(%d): condition variable out of range; valid ids are 0 to %d (Maxcondvs - 1)", call, cv, Maxcondvs - 1);
}

void SyncClient::lock(const char* call, int lock) {
  check_lock_id(call, lock);
  if (s_->stack.holds(lock))
    fatal("%s(%d): this process already holds lock %d; a lock cannot be nested inside itself (%s)", call, lock, lock,
          s_->stack.describe().c_str());
  ScopedTimer timer(&s_->stats.app.t_syn_ns);
  ++s_->stats.app.locks;
  c_->close_interval();
  const int home = LockManager::home_of(lock, s_->size);
  Transport& t = s_->transport;
  Writer w(MsgType::kAcquire);
  w.put<uint32_t>(static_cast<uint32_t>(lock));
  w.put<uint32_t>(s_->epoch);
  w.put<uint64_t>(seen_[static_cast<size_t>(lock)]);
  t.send(home, kTagRequest, w.finish(t.next_seq()));
  Incoming in = t.await_reply(MsgType::kAcquireGrant, home, "a lock grant (ACQGRANT)");
  uint32_t granted = 0;
  uint64_t version = 0;
  auto notices = read_grant_notices(s_, in, "ACQGRANT", [&](Reader* r) {
    return r->get(&granted).ok() && r->get(&version).ok() && granted == static_cast<uint32_t>(lock);
  });
  seen_[static_cast<size_t>(lock)] = version;
  c_->invalidate(notices);
  s_->stack.push(lock);
}

void SyncClient::unlock(const char* call, int lock) {
  check_lock_id(call, lock);
  if (!s_->stack.holds(lock))
    fatal("%s(%d): this process does not hold lock %d (%s); unlock only locks you acquired", call, lock, lock,
          s_->stack.describe().c_str());
  if (s_->stack.top_lock() != lock)
    fatal("%s(%d): lock %d is not the innermost lock held (%s); release locks in the reverse order of acquiring them",
          call, lock, lock, s_->stack.describe().c_str());
  ScopedTimer timer(&s_->stats.app.t_syn_ns);
  ++s_->stats.app.unlocks;
  c_->close_interval();
  // The diffs must be at their homes before the next acquirer can fault on
  // those pages, which it may do as soon as the lock home sees REL.
  c_->flush_diffs();
  Transport& t = s_->transport;
  Writer w(MsgType::kRelease);
  w.put<uint32_t>(static_cast<uint32_t>(lock));
  w.put<uint32_t>(s_->epoch);
  put_pages_as_notices(&w, s_->stack.top_pages(), s_->rank);
  t.send(LockManager::home_of(lock, s_->size), kTagRequest, w.finish(t.next_seq()));
  s_->stack.pop();
}

void SyncClient::barrier(const char* call) {
  if (s_->stack.depth() > 1)
    fatal("%s: called inside a critical section (%s); a barrier cannot be used between jia_lock and jia_unlock (use "
          "jia_wait there, which has no coherence actions)",
          call, s_->stack.describe().c_str());
  ScopedTimer timer(&s_->stats.app.t_syn_ns);
  ++s_->stats.app.barriers;
  c_->close_interval();
  c_->flush_diffs();
  Transport& t = s_->transport;
  Writer w(MsgType::kBarrier);
  w.put<uint32_t>(s_->epoch);
  put_pages_as_notices(&w, s_->stack.take_bottom(), s_->rank);
  t.send(0, kTagRequest, w.finish(t.next_seq()));
  Incoming in = t.await_reply(MsgType::kBarrierGrant, 0, "the other processes at the barrier (BARRGRANT)");
  uint32_t epoch = 0;
  auto notices = read_grant_notices(s_, in, "BARRGRANT", [&](Reader* r) { return r->get(&epoch).ok() && epoch == s_->epoch; });
  c_->invalidate(notices);
  c_->untrap_after_barrier(notices, s_->epoch);
  ++s_->epoch;
  s_->stack.set_epoch(s_->epoch);
}

void SyncClient::wait(const char*) {
  ScopedTimer timer(&s_->stats.app.t_syn_ns);
  ++s_->stats.app.waits;
  Transport& t = s_->transport;
  Writer w(MsgType::kWait);
  t.send(0, kTagRequest, w.finish(t.next_seq()));
  t.await_reply(MsgType::kWaitGrant, 0, "the other processes at jia_wait (WAITGRANT)");
}

void SyncClient::release_to_cv(int cv) {
  c_->close_interval();
  c_->flush_diffs();
  Transport& t = s_->transport;
  Writer w(MsgType::kCvSet);
  w.put<uint32_t>(static_cast<uint32_t>(cv));
  w.put<uint32_t>(s_->epoch);
  put_pages_as_notices(&w, s_->stack.all_pages(), s_->rank);
  t.send(CondvarManager::home_of(cv, s_->size), kTagRequest, w.finish(t.next_seq()));
}

void SyncClient::cv_set(const char* call, int cv) {
  check_cv_id(call, cv);
  ScopedTimer timer(&s_->stats.app.t_syn_ns);
  ++s_->stats.app.cv_ops;
  release_to_cv(cv);
}

void SyncClient::cv_reset(const char* call, int cv) {
  check_cv_id(call, cv);
  ScopedTimer timer(&s_->stats.app.t_syn_ns);
  ++s_->stats.app.cv_ops;
  Transport& t = s_->transport;
  Writer w(MsgType::kCvReset);
  w.put<uint32_t>(static_cast<uint32_t>(cv));
  w.put<uint32_t>(s_->epoch);
  t.send(CondvarManager::home_of(cv, s_->size), kTagRequest, w.finish(t.next_seq()));
}

void SyncClient::cv_wait(const char* call, int cv) {
  check_cv_id(call, cv);
  ScopedTimer timer(&s_->stats.app.t_syn_ns);
  ++s_->stats.app.cv_ops;
  c_->close_interval();
  const int home = CondvarManager::home_of(cv, s_->size);
  Transport& t = s_->transport;
  Writer w(MsgType::kCvWait);
  w.put<uint32_t>(static_cast<uint32_t>(cv));
  w.put<uint32_t>(s_->epoch);
  t.send(home, kTagRequest, w.finish(t.next_seq()));
  Incoming in = t.await_reply(MsgType::kCvGrant, home, "a condition variable to be set (CVGRANT)");
  uint32_t got = 0;
  auto notices = read_grant_notices(s_, in, "CVGRANT", [&](Reader* r) { return r->get(&got).ok() && got == static_cast<uint32_t>(cv); });
  c_->invalidate(notices);
}

std::vector<std::vector<std::byte>> SyncClient::collective(const std::string& description,
                                                           const std::vector<std::byte>& blob) {
  Transport& t = s_->transport;
  Writer w(MsgType::kCollective);
  w.put<uint32_t>(static_cast<uint32_t>(description.size()));
  w.put_bytes(description.data(), description.size());
  w.put<uint32_t>(static_cast<uint32_t>(blob.size()));
  w.put_bytes(blob.data(), blob.size());
  t.send(0, kTagRequest, w.finish(t.next_seq()));
  Incoming in = t.await_reply(MsgType::kCollectiveDone, 0, "the other processes at a collective call (COLLGRANT)");
  Reader r(in.bytes.data(), in.bytes.size());
  MsgType type;
  uint32_t n = 0;
  if (!r.open(&type).ok() || !r.get(&n).ok() || n > static_cast<uint32_t>(s_->size))
    fatal("protocol error: malformed COLLGRANT");
  std::vector<std::vector<std::byte>> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t len = 0;
    const std::byte* p = nullptr;
    if (!r.get(&len).ok() || !r.get_bytes(len, &p).ok()) fatal("protocol error: malformed COLLGRANT");
    out[i].assign(p, p + len);
  }
  return out;
}

}  // namespace scopedsm
