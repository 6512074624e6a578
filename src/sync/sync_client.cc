#include "sync/sync_client.h"

#include <algorithm>
#include <cstdio>
#include <functional>

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

// Decodes a reply whose payload is M; a malformed one ends the job.
template <typename M>
M decode_reply(const SyncParts& p, const Incoming& in) {
  return decode_or_fatal<M>(in.bytes, in.source, p.limits());
}

// Waits for the reply whose payload is M from `from` (-1: anyone) and
// decodes it, calling `watch` at every poll. `watched`: a manager reports
// the wait if it stalls (Service::check_stalls).
template <typename M>
M await_decoded(const SyncParts& p, int from, const char* what, const std::function<void()>& watch, bool watched) {
  return decode_reply<M>(p, p.transport->await_reply(MessageInfo<M>::type, from, what, watch, watched));
}

std::vector<WriteNotice> as_notices(const std::vector<uint32_t>& pages, int writer) {
  std::vector<WriteNotice> out;
  out.reserve(pages.size());
  for (uint32_t p : pages) out.push_back({p, writer});
  return out;
}

}  // namespace

SyncClient::SyncClient(const SyncParts& parts, Coherence* coherence, LockStack* stack, AppCounters* stats,
                       ServeHere here)
    : p_(parts),
      c_(coherence),
      stack_(stack),
      stats_(stats),
      waits_(parts, stack),
      inbox_(parts),
      barrier_(parts, &inbox_, &waits_),
      own_locks_(here.locks),
      own_home_(here.home),
      lock_incarnations_(parts.lock_incarnations) {
  if (here.mutex != c_->serve_mutex()) fatal("internal error: the engine and the client name different serve mutexes");
}

void SyncClient::check_lock_id(ApiCall call, int lock) const {
  if (lock < 0 || lock >= p_.locks)
    fatal("%s", lock_id_error(call, lock, p_.locks).c_str());
}

void SyncClient::check_cv_id(ApiCall call, int cv) const {
  if (cv < 0 || cv >= kMaxCondvars)
    fatal("%s", cv_id_error(call, cv).c_str());
}

void SyncClient::lock(ApiCall call, int lock) {
  check_lock_id(call, lock);
  acquire(call, lock);
}

void SyncClient::unlock(ApiCall call, int lock) {
  check_lock_id(call, lock);
  release(call, lock);
}

void SyncClient::lock_reserved(ApiCall call, int index) {
  if (index < 0 || index >= kReservedLocks) fatal("%s: reserved lock %d out of range", call.name, index);
  acquire(call, p_.locks + index);
}

void SyncClient::unlock_reserved(ApiCall call, int index) {
  if (index < 0 || index >= kReservedLocks) fatal("%s: reserved lock %d out of range", call.name, index);
  release(call, p_.locks + index);
}

void SyncClient::acquire(ApiCall call, int lock) {
  if (stack_->holds(lock))
    fatal("%s", relock_error(call, lock, stack_->describe()).c_str());
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kLock, static_cast<uint32_t>(lock));
  ++stats_->locks;
  c_->close_interval();
  const int home = LockManager::home_of(lock, p_.size);
  Transport& t = *p_.transport;
  // Without incarnations the grant carries every notice since the barrier
  // (JIAJIA_base): we claim to have seen nothing.
  AcquireMsg req{static_cast<uint32_t>(lock), c_->epoch(), lock_incarnations_ ? seen_[lock] : 0};
  AcquireGrantMsg grant;
  bool granted = false;
  if (home == p_.rank) {
    MutexLock serving(c_->serve_mutex());
    granted = own_locks_->acquire_here(req, &grant);
  } else {
    t.send(home, kTagRequest, encode(req, t.next_seq()));
  }
  // The grant comes from the home, or straight from the holder before us
  // (a hand-over, §4 of docs/PROTOCOL.md): from anyone. The home watches
  // the wait (LockManager::check_stalls).
  if (!granted) {
    char what[48];  // for a timeout report only: no allocation on every acquire
    std::snprintf(what, sizeof what, "lock %d (ACQGRANT)", lock);
    WaitReporter::Scope waiting(&waits_, WaitKind::kLock, static_cast<uint32_t>(lock), calls_, call);
    grant = await_decoded<AcquireGrantMsg>(p_, -1, what, [this] { waits_.poll(); }, true);
  }
  if (grant.lock != static_cast<uint32_t>(lock)) fatal("protocol error: ACQGRANT for lock %u while acquiring %d", grant.lock, lock);
  seen_[lock] = grant.version;
  stats_->grant_notices += grant.notices.size();
  c_->invalidate(grant.notices);
  stack_->push(lock);
}

void SyncClient::release(ApiCall call, int lock) {
  if (!stack_->holds(lock))
    fatal("%s", unlock_unheld_error(call, lock, stack_->describe()).c_str());
  if (stack_->top_lock() != lock) fatal("%s", unlock_not_innermost_error(call, lock, stack_->describe()).c_str());
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kUnlock, static_cast<uint32_t>(lock));
  ++stats_->unlocks;
  c_->close_interval();
  const int home = LockManager::home_of(lock, p_.size);
  Transport& t = *p_.transport;
  ReleaseMsg rel{static_cast<uint32_t>(lock), c_->epoch(), as_notices(stack_->top_pages(), p_.rank)};
  if (home == p_.rank) {
    // The diffs must be at their homes before the next acquirer can fault
    // on those pages, which it may do as soon as it has the grant.
    c_->flush_diffs(-1);
    MutexLock serving(c_->serve_mutex());
    own_locks_->release_here(rel);  // grants the next waiter, if any, by message
    stack_->pop();
    return;
  }
  // REL is ordered after our diffs to the lock's home, and the home grants
  // the next acquirer only after REL: every other home must have applied
  // our diffs before REL leaves.
  c_->flush_diffs(home);
  // Has the home named a waiter to hand the lock to (HANDOFF)? Then the
  // grant goes to it from here, one message, and REL tells the home. Only
  // if the lock's home owes us nothing: the successor may fault on our pages
  // as soon as it has the grant, and a DIFF still on its way to the lock's
  // home would have to be waited for (a round trip), which the plain
  // release through the home does not need.
  HandoffMsg handoff;
  inbox_.drain();
  if (inbox_.take_handoff(static_cast<uint32_t>(lock), seen_[lock], &handoff) &&
      t.acks().owed(home) == 0) {
    AcquireGrantMsg grant{static_cast<uint32_t>(lock), handoff.version + 1, std::move(handoff.notices)};
    // The grant carries what the home would have: the log newer than the
    // successor's version (in the HANDOFF), then our critical section's.
    if (!p_.test_fault(TestFault::kSkipNotices))
      grant.notices.insert(grant.notices.end(), rel.notices.begin(), rel.notices.end());
    rel.handed_to = handoff.successor;
    t.send(handoff.successor, kTagReply, encode(grant, t.next_seq()));
    ++stats_->handoffs;
    if (p_.test_fault(TestFault::kSlowHandoffRelease)) sleep_ns(50'000'000);  // test only: the successor's REL first
  }
  t.send(home, kTagRequest, encode(rel, t.next_seq()));
  stack_->pop();
}

void SyncClient::barrier(ApiCall call, std::vector<std::byte>* broadcast) {
  if (stack_->depth() > 1)
    fatal("%s", barrier_in_lock_error(call, stack_->describe()).c_str());
  TraceSpan span(stats_->trace, &stats_->t_syn_ns, TraceKind::kBarrier, c_->epoch());
  ++stats_->barriers;
  c_->close_interval();
  // Every diff is at its home before our first round leaves: nobody leaves
  // the barrier (and fetches) before that round has reached them, directly
  // or through others. (The rounds are not ordered with our requests, so
  // no home is exempt.)
  c_->flush_diffs(-1);
  const uint32_t epoch = c_->epoch();
  // Before our first round leaves: nobody finishes this barrier (and asks
  // us for a page it may move here) before that round has reached them.
  p_.in_barrier->store(true, std::memory_order_seq_cst);
  std::vector<WriteNotice> merged;
  {
    const uint32_t number = calls_++;
    WaitReporter::Scope waiting(&waits_, WaitKind::kCollective, number, calls_, call, call.name);
    merged = barrier_.run(call, epoch, number, c_->barrier_notices(stack_->take_bottom()), p_.config->barrier_form, broadcast);
  }
  if (p_.test_fault(TestFault::kSlowBarrierFinish) &&
      std::any_of(merged.begin(), merged.end(), [&](const WriteNotice& n) { return n.offers_home && n.writer == p_.rank; }))
    sleep_ns(50'000'000);  // test only: others finish first and ask for the pages coming here
  {
    // Whoever serves sees the homes either all before the barrier, with
    // requests for moved pages deferred, or all after it, with the deferred
    // requests already answered in their order. Only this is done under the
    // serve mutex: requests keep being served while we invalidate.
    MutexLock serving(c_->serve_mutex());
    c_->move_homes(merged);
    p_.in_barrier->store(false, std::memory_order_seq_cst);
    own_home_->serve_deferred();
  }
  c_->finish_barrier(merged);
  p_.barriers_done->store(epoch + 1, std::memory_order_release);
}

// Rank 0's rendezvous manager watches the wait (RendezvousManager::check_stalls).
Incoming SyncClient::await_rendezvous(MsgType expected, const std::string& what, const char* wait_text) {
  const uint32_t call = calls_++;
  WaitReporter::Scope waiting(&waits_, WaitKind::kCollective, call, calls_, ApiCall{p_.surface, ""}, what.c_str());
  return p_.transport->await_reply(
      expected, 0, wait_text,
      [&] {
        barrier_.watch(call, what);
        waits_.poll();
      },
      true);
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
  decode_reply<WaitGrantMsg>(p_, await_rendezvous(MsgType::kWaitGrant, call.name, what.c_str()));  // no stray payload
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
  CvGrantMsg grant;
  {
    WaitReporter::Scope waiting(&waits_, WaitKind::kCondvar, static_cast<uint32_t>(cv), calls_, call);
    grant = await_decoded<CvGrantMsg>(p_, home, "a condition variable to be set (CVGRANT)", [this] { waits_.poll(); },
                                      false);
  }
  if (grant.cv != static_cast<uint32_t>(cv)) fatal("protocol error: CVGRANT for %u while waiting on %d", grant.cv, cv);
  c_->invalidate(grant.notices);
}

std::vector<std::vector<std::byte>> SyncClient::collective(const std::string& description,
                                                           const std::vector<std::byte>& blob, bool to_all) {
  Transport& t = *p_.transport;
  t.send(0, kTagRequest, encode(CollectiveMsg{description, blob, to_all}, t.next_seq()));
  Incoming in = await_rendezvous(MsgType::kCollectiveDone, description,
                                 "the other processes at a collective call (COLLGRANT)");
  return decode_reply<CollectiveDoneMsg>(p_, in).blobs;
}

}  // namespace scopedsm
