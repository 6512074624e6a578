// Synchronization as the application thread sees it: lock, unlock, barrier,
// wait, condition variables and checked collective calls. Each operation
// validates its arguments (misuse is reported naming `call`), performs the
// coherence actions of scope consistency through the Coherence engine, and
// exchanges messages with the lock, condition-variable or rendezvous home.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/surface.h"
#include "protocol/coherence.h"
#include "protocol/lock_stack.h"
#include "stats/stats.h"
#include "sync/parts.h"

namespace scopedsm {

class SyncClient {
 public:
  // Thread owner: the application thread (every method and field).
  SyncClient(const SyncParts& parts, Coherence* coherence, LockStack* stack, AppCounters* stats);

  // Misuse is reported in the words of `call` (common/surface.h).
  void lock(ApiCall call, int lock);
  void unlock(ApiCall call, int lock);
  void barrier(ApiCall call);
  void wait(ApiCall call);
  void cv_set(ApiCall call, int cv);
  void cv_reset(ApiCall call, int cv);
  void cv_wait(ApiCall call, int cv);

  // A rendezvous of all processes at rank 0 that checks everyone passed the
  // same `description`. Rank 0 gets back every rank's `blob`, in rank order;
  // the others get an empty vector.
  std::vector<std::vector<std::byte>> collective(const std::string& description, const std::vector<std::byte>& blob);

  // The lock's version (incarnation) in our latest grant of it: critical
  // sections of one lock are totally ordered by it. For tests.
  uint64_t granted_version(int lock) const { return seen_[static_cast<size_t>(lock)]; }

 private:
  void check_lock_id(ApiCall call, int lock) const;
  void check_cv_id(ApiCall call, int cv) const;
  void release_to_cv(int cv);

  const SyncParts p_;
  Coherence* const c_;
  LockStack* const stack_;
  AppCounters* const stats_;
  std::vector<uint64_t> seen_;  // per lock: the lock version at our last grant
};

}  // namespace scopedsm
