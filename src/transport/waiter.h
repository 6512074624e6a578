// Waiting: poll, spin, then sleep, with a timeout and its report.
//
// No runtime thread blocks inside MPI (Open MPI's blocking calls spin a
// core). wait_until() polls its condition, completing our own sends in
// between (they may be what the other side needs first); it keeps polling
// for the spin window while SpinPolicy says this thread has a core to
// itself, then sleeps on its Wakeup word until a sender bumps it or the nap
// ends, and polls again. With a SCOPEDSM_TIMEOUT limit (there is none by
// default: a process may compute as long as it likes while others wait),
// a wait that outlasts it ends the job with what was awaited, from whom,
// and the caller's context (the lock stack). Deadlocks are found without a
// limit, at rank 0 (sync/deadlock.h, docs/PROTOCOL.md §8).
//
// Thread owner: the tuning is set at init and constant afterwards. The
// idle work and the context belong to the application thread, which sets
// them and alone runs them (in its waits). wait_until() is called by the
// thread whose `role` it names; in practice only the application thread
// waits (the service thread never waits for another process: its loop,
// Service::run, uses the same tuning and SpinPolicy). The service thread
// reads app_polling().
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "transport/outbox.h"
#include "transport/spin_policy.h"
#include "transport/wakeup.h"

namespace scopedsm {

struct WaitTuning {
  uint64_t spin_ns = 50000;      // poll this long before sleeping (SCOPEDSM_SPIN_US)
  uint64_t sleep_ns = 20000000;  // longest sleep without a wake-up
  double timeout_s = 0;          // longest wait; 0: unbounded (SCOPEDSM_TIMEOUT)
};

class Waiter {
 public:
  static constexpr int kPollsBeforeSleep = 16;         // polls that must all find nothing
  static constexpr uint64_t kSpinAfterWakeNs = 20000;  // keep polling this long after a wake-up
  static constexpr uint64_t kNapWithSendsNs = 200000;  // sleep bound while our sends are in flight
  // Spin hints between two polls of a spinning wait. One: a PAUSE costs
  // about 25 ns on the project's AMD EPYC (Zen 4) and up to 140 cycles on
  // recent Intel cores, so 16 would add 0.2 us on average to noticing each
  // reply, twice per round trip (PERFORMANCE.md, "Operations: where the
  // time goes").
  static constexpr int kPausesPerPoll = 1;
  // A wait that a manager watches too (a queued lock request, a barrier or
  // other rendezvous) ends this much after SCOPEDSM_TIMEOUT: the manager's
  // report at the limit names what the waiter cannot know (the holder, the
  // missing ranks) and should come first; the waiter's own report is the
  // backstop for a manager that cannot report.
  static constexpr uint64_t kWatchedGraceNs = 1000000000;

  // `wakeup` and `outbox` must outlive the waiter.
  Waiter(Wakeup* wakeup, Outbox* outbox) : wakeup_(wakeup), outbox_(outbox) {}
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  void configure(const WaitTuning& tuning) { tuning_ = tuning; }
  // How long an idle thread may sleep before it polls again.
  uint64_t idle_sleep_ns() const { return tuning_.sleep_ns; }

  // Polls `done` until it returns true; `what` and `from` (-1: nobody in
  // particular) describe the wait for the timeout report. `watched`: a
  // manager watches this wait too (kWatchedGraceNs).
  void wait_until(WakeRole role, const std::function<bool()>& done, const char* what, int from,
                  bool watched = false);

  // The text a timed-out wait reports.
  std::string timeout_report(const char* what, int from, bool watched = false) const;
  // Polls `done` without ever sleeping, until it returns true or the
  // timeout (then the same report): for work that only this thread's own
  // polling completes, such as a one-sided read, which no wake-up announces.
  void poll_until(const std::function<bool()>& done, const char* what, int from);

  // True while the application thread polls inside wait_until (not while
  // it sleeps there): it serves requests itself then, so the service thread
  // need not poll.
  bool app_polling() const { return app_polling_.load(std::memory_order_relaxed); }
  SpinPolicy& spin_policy() { return spin_policy_; }

  // Work the application thread does while it waits (serving requests);
  // returns true if it did something.
  void set_idle_work(std::function<bool()> work) { idle_work_ = std::move(work); }
  // Polls this much longer before sleeping (the cost model's, net_model.h);
  // set once at init, the word may change.
  void set_spin_extension(const std::atomic<uint64_t>* ns) { spin_extension_ns_ = ns; }
  // Extra text appended to timeout reports (the lock stack).
  void set_wait_context(std::function<std::string()> context) { wait_context_ = std::move(context); }

 private:
  Wakeup* const wakeup_;
  Outbox* const outbox_;
  WaitTuning tuning_;
  SpinPolicy spin_policy_;
  std::atomic<bool> app_polling_{false};
  std::function<bool()> idle_work_;
  const std::atomic<uint64_t>* spin_extension_ns_ = nullptr;
  std::function<std::string()> wait_context_;
};

}  // namespace scopedsm
