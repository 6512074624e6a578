#include "sync/sync_client.h"

#include <cstdio>

#include "common/clock.h"
#include "common/limits.h"
#include "common/log.h"
#include "jia.h"
#include "protocol/messages.h"
#include "sync/condvar_manager.h"
#include "sync/lock_manager.h"

namespace scopedsm {

// jia.h spells the limits as literals for C programs; they must be these.
static_assert(Maxlocks == kMaxLocks, "include/jia.h's Maxlocks differs from kMaxLocks (src/common/limits.h)");
static_assert(Maxcondvs == kMaxCondvars, "include/jia.h's Maxcondvs differs from kMaxCondvars (src/common/limits.h)");

namespace {

// Waits for the reply whose payload is M from `from` and decodes it.
// `watched`: a manager reports the wait if it stalls (Service::check_stalls).
template <typename M>
M await_decoded(const SyncParts& p, int from, const char* what, bool watched) {
  constexpr MsgType expected = MessageInfo<M>::type;
  Incoming in = p.transport->await_reply(expected, from, what, watched);
  M msg;
  Status st = decode_message(in.bytes, p.limits(), &msg);
  if (!st.ok()) fatal("protocol error: malformed %s from rank %d: %s", msg_type_name(expected), in.source, st.message().c_str());
  return msg;
}

std::vector<WriteNotice> as_notices(const std::vector<uint32_t>& pages, int writer) {
  std::vector<WriteNotice> out;
  out.reserve(pages.size());
  for (uint32_t p : pages) out.push_back({p, writer});
  return out;
}

}  // namespace

SyncClient::SyncClient(const SyncParts& parts, Coherence* coherence, LockStack* stack, AppCounters* stats)
    : p_(parts), c_(coherence), stack_(stack), stats_(stats), seen_(kMaxLocks, 0) {}

void SyncClient::check_lock_id(ApiCall call, int lock) const {
  if (lock < 0 || lock >= kMaxLocks)
    fatal("%s", lock_id_error(call, lock).c_str());
}

void SyncClient::check_cv_id(ApiCall call, int cv) const {
  if (cv < 0 || cv >= kMaxCondvars)
    fatal("%s", cv_id_error(call, cv).c_str());
}

void SyncClient::lock(ApiCall call, int lock) {
  check_lock_id(call, lock);
  if (stack_->holds(lock))
    fatal("%s(%d): this process already holds lock %d; a lock cannot be nested inside itself (%s)", call.name, lock,
          lock, stack_->describe().c_str());
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kLock, static_cast<uint32_t>(lock));
  ++stats_->locks;
  c_->close_interval();
  const int home = LockManager::home_of(lock, p_.size);
  Transport& t = *p_.transport;
  AcquireMsg req{static_cast<uint32_t>(lock), c_->epoch(), seen_[static_cast<size_t>(lock)]};
  t.send(home, kTagRequest, encode(req, t.next_seq()));
  char what[48];  // for a timeout report only: no allocation on every acquire
  std::snprintf(what, sizeof what, "lock %d (ACQGRANT)", lock);
  auto grant = await_decoded<AcquireGrantMsg>(p_, home, what, true);
  if (grant.lock != static_cast<uint32_t>(lock)) fatal("protocol error: ACQGRANT for lock %u while acquiring %d", grant.lock, lock);
  seen_[static_cast<size_t>(lock)] = grant.version;
  c_->invalidate(grant.notices);
  stack_->push(lock);
}

void SyncClient::unlock(ApiCall call, int lock) {
  check_lock_id(call, lock);
  if (!stack_->holds(lock))
    fatal("%s(%d): this process does not hold lock %d (%s); unlock only locks you acquired", call.name, lock, lock,
          stack_->describe().c_str());
  if (stack_->top_lock() != lock)
    fatal("%s(%d): lock %d is not the innermost lock held (%s); release locks in the reverse order of acquiring them",
          call.name, lock, lock, stack_->describe().c_str());
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kUnlock, static_cast<uint32_t>(lock));
  ++stats_->unlocks;
  c_->close_interval();
  // The diffs must be at their homes before the next acquirer can fault on
  // those pages, which it may do as soon as the lock home sees REL.
  c_->flush_diffs(LockManager::home_of(lock, p_.size));
  Transport& t = *p_.transport;
  ReleaseMsg rel{static_cast<uint32_t>(lock), c_->epoch(), as_notices(stack_->top_pages(), p_.rank)};
  t.send(LockManager::home_of(lock, p_.size), kTagRequest, encode(rel, t.next_seq()));
  stack_->pop();
}

void SyncClient::barrier(ApiCall call) {
  if (stack_->depth() > 1)
    fatal("%s", barrier_in_lock_error(call, stack_->describe()).c_str());
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kBarrier, c_->epoch());
  ++stats_->barriers;
  c_->close_interval();
  c_->flush_diffs(0);
  Transport& t = *p_.transport;
  t.send(0, kTagRequest, encode(BarrierMsg{c_->epoch(), as_notices(stack_->take_bottom(), p_.rank)}, t.next_seq()));
  auto grant = await_decoded<BarrierGrantMsg>(p_, 0,
                                              "the other processes at the barrier (BARRGRANT)", true);
  if (grant.epoch != c_->epoch()) fatal("protocol error: BARRGRANT for barrier %u while at barrier %u", grant.epoch, c_->epoch());
  c_->finish_barrier(grant.notices);
}

void SyncClient::wait(ApiCall call) {
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kWait);
  ++stats_->waits;
  Transport& t = *p_.transport;
  // No coherence, but our earlier requests (condition-variable sets and
  // resets) take effect before anything the others do after the rendezvous.
  t.acks().wait_except(0);
  t.send(0, kTagRequest, encode(WaitMsg{}, t.next_seq()));
  const std::string what = std::string("the other processes at ") + call.name + " (WAITGRANT)";
  await_decoded<WaitGrantMsg>(p_, 0, what.c_str(), true);  // decoded: no stray payload
}

void SyncClient::release_to_cv(int cv) {
  c_->close_interval();
  c_->flush_diffs(CondvarManager::home_of(cv, p_.size));
  Transport& t = *p_.transport;
  CvSetMsg msg{static_cast<uint32_t>(cv), c_->epoch(), as_notices(stack_->all_pages(), p_.rank)};
  const int home = CondvarManager::home_of(cv, p_.size);
  t.send(home, kTagRequest, encode(msg, t.next_seq()));
  t.acks().expect(home);  // ACK, waited for at our next release
}

void SyncClient::cv_set(ApiCall call, int cv) {
  check_cv_id(call, cv);
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kCvSet, static_cast<uint32_t>(cv));
  ++stats_->cv_ops;
  release_to_cv(cv);
}

void SyncClient::cv_reset(ApiCall call, int cv) {
  check_cv_id(call, cv);
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kCvReset, static_cast<uint32_t>(cv));
  ++stats_->cv_ops;
  Transport& t = *p_.transport;
  const int home = CondvarManager::home_of(cv, p_.size);
  t.send(home, kTagRequest, encode(CvResetMsg{static_cast<uint32_t>(cv), c_->epoch()}, t.next_seq()));
  t.acks().expect(home);  // ACK, waited for at our next release
}

void SyncClient::cv_wait(ApiCall call, int cv) {
  check_cv_id(call, cv);
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kCvWait, static_cast<uint32_t>(cv));
  ++stats_->cv_ops;
  c_->close_interval();
  const int home = CondvarManager::home_of(cv, p_.size);
  Transport& t = *p_.transport;
  t.send(home, kTagRequest, encode(CvWaitMsg{static_cast<uint32_t>(cv), c_->epoch()}, t.next_seq()));
  auto grant = await_decoded<CvGrantMsg>(p_, home, "a condition variable to be set (CVGRANT)", false);
  if (grant.cv != static_cast<uint32_t>(cv)) fatal("protocol error: CVGRANT for %u while waiting on %d", grant.cv, cv);
  c_->invalidate(grant.notices);
}

std::vector<std::vector<std::byte>> SyncClient::collective(const std::string& description,
                                                           const std::vector<std::byte>& blob) {
  Transport& t = *p_.transport;
  t.send(0, kTagRequest, encode(CollectiveMsg{description, blob}, t.next_seq()));
  auto done = await_decoded<CollectiveDoneMsg>(p_, 0,
                                              "the other processes at a collective call (COLLGRANT)", true);
  return std::move(done.blobs);
}

}  // namespace scopedsm
