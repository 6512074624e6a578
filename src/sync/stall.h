// When a stalled synchronization is reported, and in which words.
//
// With a SCOPEDSM_TIMEOUT limit set (by default there is none), the
// managers (a lock's home, the rendezvous on rank 0) watch every queued
// lock request and every incomplete rendezvous. They know what the waiter
// cannot: who holds the lock, which ranks have not arrived. A stall is
// warned about once at 80% of the limit, and ends the job at the limit;
// the waiter's own timeout comes later (Waiter::kWatchedGraceNs) as the
// backstop. Their lines say who waits for whom, in the words of the call
// ("jia_barrier timed out: ranks 1, 2 have waited 3.0 s, the
// SCOPEDSM_TIMEOUT limit, for rank 0, which has not arrived"): the process
// that prints them hosts the manager, and is not the one waiting.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace scopedsm {

struct StallLimit {
  enum Verdict { kQuiet, kWarn, kFatal };

  double limit_s = 0;  // SCOPEDSM_TIMEOUT (at most 10^7 s); 0: never

  // How long a stall that began at `since_ns` has lasted at `now_ns`. A
  // backstop: Service::check_stalls reads the clock under the serve mutex,
  // under which every stall's start is recorded, so `since_ns` is never
  // later; were it ever, 0 rather than a wrap-around to 584 years.
  static uint64_t age(uint64_t now_ns, uint64_t since_ns) { return now_ns > since_ns ? now_ns - since_ns : 0; }

  // What to do about a stall of `waited_ns`; `warned` is the stall's own
  // flag, set when the warning is due, so that it comes once. The warning
  // is due at 4/5 of the limit, in whole nanoseconds (no rounding of 0.8).
  Verdict judge(uint64_t waited_ns, bool* warned) const {
    if (limit_s <= 0) return kQuiet;
    const auto limit_ns = static_cast<uint64_t>(limit_s * 1e9 + 0.5);
    if (waited_ns >= limit_ns) return kFatal;
    if (waited_ns / 4 < limit_ns / 5 || *warned) return kQuiet;
    *warned = true;
    return kWarn;
  }
  // "has waited 2.4 s of the 3 s limit (SCOPEDSM_TIMEOUT)" for a warning,
  // "has waited 3.0 s, the SCOPEDSM_TIMEOUT limit," for the fatal report;
  // "have waited" when `plural` (several ranks wait).
  std::string waited(uint64_t waited_ns, Verdict v, bool plural = false) const {
    char buf[128];
    const double waited_s = static_cast<double>(waited_ns) / 1e9;
    const char* has = plural ? "have" : "has";
    if (v == kWarn)
      std::snprintf(buf, sizeof buf, "%s waited %.1f s of the %g s limit (SCOPEDSM_TIMEOUT)", has, waited_s, limit_s);
    else
      std::snprintf(buf, sizeof buf, "%s waited %.1f s, the SCOPEDSM_TIMEOUT limit,", has, waited_s);
    return buf;
  }
  // "the job ends at 3 s"
  std::string ends() const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "the job ends at %g s", limit_s);
    return buf;
  }
};

}  // namespace scopedsm
