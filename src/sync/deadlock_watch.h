// The deadlock detector's two sides (the logic is sync/deadlock.h).
//
// WaitReporter, on the application thread, numbers every synchronization
// wait (a lock acquire that queues, a barrier, jia_wait and the other
// collective calls, a condition-variable wait) and publishes the number
// while the wait lasts (SyncParts::wait_seq). A wait that lasts
// kReportAfterNs is reported to rank 0 (SYNCWAIT), and its end too
// (SYNCDONE). Shorter waits cost a clock read per poll and two stores.
//
// DeadlockWatch is a server of every process's service thread: it answers
// rank 0's probes (SYNCPROBE) with the wait the application thread is in and
// the processes queued on unset condition variables homed here
// (SYNCSTATE). On rank 0 it keeps the reports in a DeadlockDetector, probes
// when they show a deadlock, and ends the job with the detector's line when
// the answers confirm one. It never waits: a probe round is messages, and
// its end is the last answer's arrival.
//
// Waits for a page, a diff's acknowledgement, an atomic's result or an AMO
// notification are never reported: their answers come from service threads,
// or (AMO) from a process the detector cannot name, so they are never part
// of a deadlock the detector proves.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/surface.h"
#include "protocol/lock_stack.h"
#include "protocol/messages.h"
#include "sync/condvar_manager.h"
#include "sync/deadlock.h"
#include "sync/parts.h"
#include "transport/transport.h"

namespace scopedsm {

class WaitReporter {
 public:
  // A wait is reported once it has lasted this long.
  static constexpr uint64_t kReportAfterNs = 1000000000;

  // Thread owner: the application thread. `stack` (the locks held) must
  // outlive the reporter.
  WaitReporter(const SyncParts& parts, const LockStack* stack) : p_(parts), stack_(stack) {}
  WaitReporter(const WaitReporter&) = delete;
  WaitReporter& operator=(const WaitReporter&) = delete;

  // One synchronization wait, from construction to destruction: of `kind`
  // on lock, collective-call number or condition variable `id`, in `call`;
  // `calls`: the collective calls entered so far (a collective call's
  // number is id, and calls id + 1). A collective call is named by `text`
  // (its description, "jia_alloc(4096)"), which must outlive the scope;
  // the others by `call` and `id` ("jia_lock(3)").
  class Scope {
   public:
    Scope(WaitReporter* r, WaitKind kind, uint32_t id, uint32_t calls, ApiCall call, const char* text = nullptr);
    ~Scope() { r_->end(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    WaitReporter* const r_;
  };

  // Called at every poll of the current wait (in its condition): reports
  // the wait once it has lasted kReportAfterNs, and again if the
  // acknowledgements it still owed have come meanwhile.
  void poll();

 private:
  void end();
  void send_report(bool owes);

  const SyncParts p_;
  const LockStack* const stack_;
  uint64_t last_seq_ = 0;  // the latest wait's number
  // The current wait (active_), as Scope set it.
  bool active_ = false;
  WaitKind kind_ = WaitKind::kLock;
  uint32_t id_ = 0;
  uint32_t calls_ = 0;
  ApiCall call_{&kCSurface, ""};
  const char* text_ = nullptr;
  uint64_t start_ns_ = 0;
  bool reported_ = false;
  bool reported_owing_ = false;  // the report said acknowledgements were owed
};

class DeadlockWatch {
 public:
  // `condvars`, this process's condition-variable manager, must outlive
  // the watch; both are used by whichever thread serves.
  DeadlockWatch(const SyncParts& parts, const CondvarManager* condvars)
      : p_(parts), condvars_(condvars), detector_(parts.rank == 0 ? parts.size : 0) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, SyncWaitMsg&& msg);  // rank 0 (keeps the text and the locks)
  void on(const Incoming& in, const SyncDoneMsg& msg);  // rank 0
  void on(const Incoming& in, const SyncProbeMsg& msg);
  void on(const Incoming& in, const SyncStateMsg& msg);  // rank 0

  // The u32 lists of SYNCWAIT's held locks and the (u32, i32) pairs of
  // SYNCSTATE's queued waiters, in native byte order. unpack_* return
  // false for a blob of the wrong length or with an id or rank out of
  // `limits`.
  static std::vector<std::byte> pack_locks(const std::vector<int>& locks);
  static bool unpack_locks(const std::vector<std::byte>& blob, const Limits& limits, std::vector<uint32_t>* out);
  static std::vector<std::byte> pack_queued(const std::vector<CvQueued>& queued);
  static bool unpack_queued(const std::vector<std::byte>& blob, const Limits& limits, std::vector<CvQueued>* out);

 private:
  void rank0_only(const char* what, int source) const;
  // Starts a probe round when the reports show a deadlock and none runs.
  void probe_if_due();

  const SyncParts p_;
  const CondvarManager* const condvars_;
  DeadlockDetector detector_;  // rank 0's
};

}  // namespace scopedsm
