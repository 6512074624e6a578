// The lock manager: the home side of every lock homed at this process
// (lock l is homed at rank l % size). Runs on whichever thread holds the
// serve mutex (runtime/service.h): the service thread, or the application
// thread, which also takes and releases the locks homed at its own process
// directly (acquire_here, release_here), with no message and no hand-off
// to the service thread.
//
// Contended, a lock passes straight from its releaser to the next holder:
// when a requester queues behind a holder on another process, the holder
// is told whom to grant the lock to and with which notices (HANDOFF); its
// REL then names the successor (docs/PROTOCOL.md §4, "Hand-over").
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
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "protocol/notices.h"
#include "stats/stats.h"
#include "sync/parts.h"
#include "sync/stall.h"
#include "transport/transport.h"

namespace scopedsm {

class LockManager {
 public:
  LockManager(const SyncParts& parts, ServiceCounters* stats) : p_(parts), stats_(stats) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, const AcquireMsg& msg);
  void on(const Incoming& in, const ReleaseMsg& msg);
  // The application thread of this process, for a lock homed here, under
  // the serve mutex. acquire_here fills `grant` and returns true if the
  // lock is free; otherwise this process joins the queue and its grant
  // comes later as a message (ACQGRANT through the mailbox).
  bool acquire_here(const AcquireMsg& msg, AcquireGrantMsg* grant);
  void release_here(const ReleaseMsg& msg);
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
    // The waiter a HANDOFF has named to the holder (the queue's front), or
    // -1: the holder may grant it the lock itself at release.
    int successor = -1;
    // The successor's REL that overtook the holder's REL naming it (it got
    // the lock straight from the holder): applied right after it. At most
    // one: the successor's next ACQ queues behind it, and it cannot name a
    // successor of its own before the home sees it hold the lock.
    std::optional<ReleaseMsg> early;
    // The notices since the latest barrier, in version order, so that a
    // grant copies only the tail the acquirer has not seen.
    std::vector<LoggedNotice> log;
    std::unordered_map<uint32_t, uint64_t> latest;  // page -> version of its newest entry
    uint64_t version = 0;
    uint32_t epoch = 0;
  };

  static void record(LockState* l, const std::vector<WriteNotice>& notices);
  // The log's notices newer than version `seen`, in version order.
  static std::vector<WriteNotice> notices_after(const LockState& l, uint64_t seen);
  // What `w`'s grant carries: the notices newer than the version it saw
  // (under the negative control stale-incarnation, without the newest
  // release's).
  std::vector<WriteNotice> unseen_by(const LockState& l, const Waiter& w) const;
  LockState& lock_state(int lock, const char* what, int source);
  void refresh_epoch(LockState* l, uint32_t epoch);
  // Grants a free lock at once: into `inline_grant` if given (returns
  // true), else by message. A held one queues `rank` (returns false).
  bool acquire(int rank, const AcquireMsg& msg, AcquireGrantMsg* inline_grant);
  void release(int rank, const ReleaseMsg& msg);
  void release_one(int lock, LockState* l, int rank, const ReleaseMsg& msg);
  // With a remote holder and someone waiting, tells the holder to hand the
  // lock to the queue's front itself (HANDOFF), once per tenure.
  void name_successor(int lock, LockState* l);
  // Makes `w` the holder; the grant is the notices newer than what it saw.
  AcquireGrantMsg grant(int lock, LockState* l, const Waiter& w);
  void send_grant(int lock, LockState* l, const Waiter& w);

  const SyncParts p_;
  ServiceCounters* const stats_;  // early_releases (atomic)
  std::unordered_map<int, LockState> locks_;
};

}  // namespace scopedsm
