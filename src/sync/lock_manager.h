// The lock manager: the home side of every lock homed at this process
// (lock l is homed at rank l % size). Runs on the service thread.
//
// Per lock it keeps the holder, a FIFO queue of waiting requesters, and the
// lock's write notices in release order, each stamped with the lock's
// version (incarnation) at that release. A grant carries only the notices
// newer than the version the acquirer saw last, so a process that takes the
// same lock again is not told about writes it already saw; finding them is
// a binary search, not a scan. When a page is noticed again, only its newest
// entry matters (its writer is the latest writer), so the log is compacted
// once stale entries outnumber live ones. Notices made before the latest
// barrier are dropped: the barrier covered them.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "protocol/notices.h"
#include "sync/parts.h"
#include "sync/stall.h"
#include "transport/transport.h"

namespace scopedsm {

class LockManager {
 public:
  explicit LockManager(const SyncParts& parts) : p_(parts) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, const AcquireMsg& msg);
  void on(const Incoming& in, const ReleaseMsg& msg);
  // Reports a requester queued for long, naming the lock, the holder and
  // the waiter (the waiter itself knows only the lock's home): once as a
  // warning at 80% of `stall.limit_s`, then as the fatal error that ends
  // the job at the limit (sync/stall.h).
  void check_stalls(uint64_t now, const StallLimit& stall);

  static int home_of(int lock, int size) { return lock % size; }

 private:
  struct Waiter {
    int rank;
    uint64_t seen;
    uint64_t since_ns = 0;  // when it was queued
    bool warned = false;    // its stall has been warned about
  };
  struct LoggedNotice {
    uint64_t version;
    WriteNotice notice;
  };
  struct LockState {
    int holder = -1;
    std::deque<Waiter> waiters;
    // The notices since the latest barrier, in version order, so that a
    // grant copies only the tail the acquirer has not seen.
    std::vector<LoggedNotice> log;
    std::unordered_map<uint32_t, uint64_t> latest;  // page -> version of its newest entry
    uint64_t version = 0;
    uint32_t epoch = 0;
  };

  static void record(LockState* l, const std::vector<WriteNotice>& notices);
  LockState& lock_state(int lock, const char* what, int source);
  void refresh_epoch(LockState* l, uint32_t epoch);
  void grant(int lock, LockState* l, const Waiter& w);

  const SyncParts p_;
  std::unordered_map<int, LockState> locks_;
};

}  // namespace scopedsm
