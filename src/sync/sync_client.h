// Synchronization as the application thread sees it: lock, unlock, barrier,
// wait, condition variables and checked collective calls. Each operation
// validates its arguments (misuse is reported naming `call`), performs the
// coherence actions of scope consistency through the Coherence engine, and
// exchanges messages with the lock, condition-variable or rendezvous home.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/surface.h"
#include "common/thread_annotations.h"
#include "protocol/coherence.h"
#include "protocol/home_server.h"
#include "protocol/lock_stack.h"
#include "stats/stats.h"
#include "sync/barrier.h"
#include "sync/deadlock_watch.h"
#include "sync/lock_manager.h"
#include "sync/parts.h"
#include "sync/peer_inbox.h"

namespace scopedsm {

class SyncClient {
 public:
  // Thread owner: the application thread (every method and field).
  // This process's lock manager and home server, and the mutex whoever
  // serves holds (runtime/service.h). The locks homed here are taken and
  // released directly, under that mutex, with no message to oneself and no
  // hand-off to the service thread; and at the end of a barrier, under it
  // too, the homes move and the home server answers the requests it
  // deferred meanwhile. They must outlive the client.
  struct ServeHere {
    Mutex* mutex;
    LockManager* locks PT_GUARDED_BY(mutex);
    HomeServer* home PT_GUARDED_BY(mutex);
  };
  SyncClient(const SyncParts& parts, Coherence* coherence, LockStack* stack, AppCounters* stats, ServeHere here);

  // Misuse is reported in the words of `call` (common/surface.h).
  void lock(ApiCall call, int lock);
  void unlock(ApiCall call, int lock);
  // The runtime's own locks (common/limits.h, kReservedLocks): `index` 0 ..
  // kReservedLocks - 1 is lock id kMaxLocks + index, homed at rank id % size.
  void lock_reserved(ApiCall call, int index);
  void unlock_reserved(ApiCall call, int index);
  // `broadcast`: rank 0's bytes reach every process with the barrier
  // (Barrier::run); a process that passes none still forwards them.
  void barrier(ApiCall call, std::vector<std::byte>* broadcast = nullptr);
  void wait(ApiCall call);
  void cv_set(ApiCall call, int cv);
  void cv_reset(ApiCall call, int cv);
  void cv_wait(ApiCall call, int cv);

  // Atomics at the home (docs/MEMORY_MODEL.md, "Atomics at the home"): the
  // operation (Coherence::atomic) with the coherence actions `order` adds:
  // a release of this process's writes before it, an acquire after it.
  // These and the AMO calls below are the statistics' atomic time
  // (t_atomic_ns, round trips and waits included) and the trace's atomic
  // events.
  uint64_t atomic(ApiCall call, uint64_t page, uint32_t offset, AtomicOp op, AtomicType type, uint64_t operand,
                  uint64_t expected, AtomicOrder order);
  // AMO synchronization on the int64 counter word at (page, offset)
  // (docs/PROTOCOL.md §4b). amo_inc adds 1 at the home (a release if
  // `order` says so) and returns the old value; the process whose
  // increment makes the word equal `test` notifies every process, itself
  // included, once, carrying `payload`. amo_wait returns the payload once
  // the word was announced at `value` or beyond (an acquire if `order` says).
  int64_t amo_inc(ApiCall call, uint64_t page, uint32_t offset, int64_t test, uint64_t payload, AtomicOrder order);
  uint64_t amo_wait(ApiCall call, uint64_t page, uint32_t offset, int64_t value, AtomicOrder order);
  // A counting barrier of all processes on the counter (initially a
  // multiple of the number of processes): amo_inc with the test value of
  // the episode the old value falls in, then amo_wait for it.
  void amo_barrier(ApiCall call, uint64_t page, uint32_t offset, AtomicOrder order);
  // The sum of every process's `value`, on a reduction's counter (page,
  // offset) followed by two double accumulators (offset + 8, offset + 16),
  // which episodes use in turn; the last arriver clears the one the next
  // episode uses and announces the sum.
  double amo_reduce_sum(ApiCall call, uint64_t page, uint32_t offset, double value, AtomicOrder order);

  // The coherence actions of an atomic's memory order (docs/MEMORY_MODEL.md):
  // with a releasing order, every write of ours reaches its home; with an
  // acquiring one, every cached copy of a page homed elsewhere is dropped
  // (after our own writes have gone home). Also the OpenMP runtime's flush
  // (omp/): a release and an acquire of everything, not of one lock's scope.
  void release_before(AtomicOrder order);
  void acquire_after(AtomicOrder order);

  // A rendezvous of all processes at rank 0 that checks everyone passed the
  // same `description`. Rank 0 gets back every rank's `blob`, in rank order;
  // the others get an empty vector, or (`to_all`) the same as rank 0.
  std::vector<std::vector<std::byte>> collective(const std::string& description, const std::vector<std::byte>& blob,
                                                 bool to_all = false);

  // The lock's version (incarnation) in our latest grant of it: critical
  // sections of one lock are totally ordered by it. For tests.
  uint64_t granted_version(int lock) const {
    auto it = seen_.find(lock);
    return it == seen_.end() ? 0 : it->second;
  }

  // jia_config(BROADCAST, ON/OFF): the barrier of SCOPEDSM_BARRIER (the
  // dissemination form if that is central), or the central one (every
  // process must make the same choice before its next barrier). Returns
  // the form, which the caller sets in Config (the barrier reads it there).
  BarrierForm broadcast_form(bool on) const {
    return !on ? BarrierForm::kCentral
               : (p_.barrier_form == BarrierForm::kCentral ? BarrierForm::kDissemination : p_.barrier_form);
  }

 private:
  void check_lock_id(ApiCall call, int lock) const;
  void acquire(ApiCall call, int lock);
  void release(ApiCall call, int lock);
  void check_cv_id(ApiCall call, int cv) const;
  void release_to_cv(int cv);
  // An AMO arrival: the counter's fetch_add of 1 at its home; the old value.
  int64_t arrive(ApiCall call, uint64_t page, uint32_t offset);
  // amo_wait without timing it (the calls built on it time themselves).
  uint64_t await_amo(ApiCall call, uint64_t page, uint32_t offset, int64_t value, AtomicOrder order);
  // Sends `note` to every other process and files it for ourselves.
  void announce(const AmoNotifyMsg& note);
  // Waits for `expected` from rank 0 at collective call `what`, watching
  // for barrier rounds that show a mismatch (Barrier::watch); a long wait
  // is reported to the deadlock detector, named `what`.
  Incoming await_rendezvous(MsgType expected, const std::string& what, const char* wait_text);

  const SyncParts p_;
  Coherence* const c_;
  LockStack* const stack_;
  AppCounters* const stats_;
  // Per lock used: the lock version at our last grant (0 before the first).
  std::unordered_map<int, uint64_t> seen_;
  WaitReporter waits_;  // long waits, to the deadlock detector
  PeerInbox inbox_;
  Barrier barrier_;
  // Under the serve mutex, which the engine names (Coherence::serve_mutex,
  // the same as ServeHere::mutex): the analysis sees one capability at the
  // end of a barrier, where the homes move and the home server answers.
  LockManager* const own_locks_ PT_GUARDED_BY(c_->serve_mutex());
  HomeServer* const own_home_ PT_GUARDED_BY(c_->serve_mutex());
  const bool lock_incarnations_;  // SCOPEDSM_LOCK_INCARNATIONS: ACQ names the version we saw (off: 0)
  uint32_t calls_ = 0;  // collective calls made so far (barriers, jia_wait, checked collectives)
};

}  // namespace scopedsm
