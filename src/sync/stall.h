// When a stalled synchronization is reported, and in which words.
//
// The managers (a lock's home, the rendezvous on rank 0) watch every queued
// lock request and every incomplete rendezvous. They know what the waiter
// cannot: who holds the lock, which ranks have not arrived. A stall is
// warned about once at 80% of SCOPEDSM_TIMEOUT, and ends the job at the
// limit; the waiter's own timeout comes later (Waiter::kWatchedGraceNs) as
// the backstop.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace scopedsm {

struct StallLimit {
  static constexpr double kWarnFraction = 0.8;
  enum Verdict { kQuiet, kWarn, kFatal };

  double limit_s = 0;  // SCOPEDSM_TIMEOUT; 0: never

  // What to do about a stall of `waited_ns`; `warned` is the stall's own
  // flag, set when the warning is due, so that it comes once.
  Verdict judge(uint64_t waited_ns, bool* warned) const {
    if (limit_s <= 0) return kQuiet;
    const double waited_s = static_cast<double>(waited_ns) / 1e9;
    if (waited_s >= limit_s) return kFatal;
    if (waited_s < kWarnFraction * limit_s || *warned) return kQuiet;
    *warned = true;
    return kWarn;
  }
  // "has waited 2.4 s of the 3 s limit (SCOPEDSM_TIMEOUT)" for a warning,
  // "has waited 3.0 s, the SCOPEDSM_TIMEOUT limit," for the fatal report.
  std::string waited(uint64_t waited_ns, Verdict v) const {
    char buf[128];
    const double waited_s = static_cast<double>(waited_ns) / 1e9;
    if (v == kWarn)
      std::snprintf(buf, sizeof buf, "has waited %.1f s of the %g s limit (SCOPEDSM_TIMEOUT)", waited_s, limit_s);
    else
      std::snprintf(buf, sizeof buf, "has waited %.1f s, the SCOPEDSM_TIMEOUT limit,", waited_s);
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
