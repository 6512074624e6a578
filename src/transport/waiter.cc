#include "transport/waiter.h"

#include <sched.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  std::vsnprintf(text.data(), text.size() + 1, fmt, again);
  va_end(again);
  return text;
}

}  // namespace

void Waiter::poll_until(const std::function<bool()>& done, const char* what, int from) {
  if (done()) return;
  const uint64_t deadline =
      tuning_.timeout_s > 0 ? now_ns() + static_cast<uint64_t>(tuning_.timeout_s * 1e9) : UINT64_MAX;
  for (uint64_t polls = 1;; ++polls) {
    if (done()) return;
    if (polls % 1024 == 0 && now_ns() >= deadline) fatal("%s", timeout_report(what, from).c_str());
    cpu_relax();
  }
}

void Waiter::wait_until(WakeRole role, const std::function<bool()>& done, const char* what, int from, bool watched) {
  if (done()) return;
  const bool app = role == WakeRole::kApp;
  if (app) app_polling_.store(true, std::memory_order_relaxed);
  const uint64_t start = now_ns();
  const uint64_t deadline = tuning_.timeout_s > 0
                                ? start + static_cast<uint64_t>(tuning_.timeout_s * 1e9) + (watched ? kWatchedGraceNs : 0)
                                : UINT64_MAX;
  const uint64_t extra = spin_extension_ns_ != nullptr ? spin_extension_ns_->load(std::memory_order_relaxed) : 0;
  uint64_t spin_until = start + tuning_.spin_ns + extra;
  uint64_t last_poll = 0;  // 0 unless the previous step was an empty poll
  for (;;) {
    uint32_t seen = wakeup_->snapshot(role);
    outbox_->progress();
    if (done()) break;
    if (app && idle_work_ && idle_work_()) {
      last_poll = 0;
      spin_until = std::max(spin_until, now_ns() + kSpinAfterWakeNs);
      continue;
    }
    const uint64_t now = now_ns();
    if (now < spin_until && spin_policy_.may_spin(&last_poll, now)) {
      for (int i = 0; i < kPausesPerPoll; ++i) cpu_relax();
      continue;
    }
    if (now >= deadline) fatal("%s", timeout_report(what, from, watched).c_str());
    // A send waiting for its modelled departure (net_model.h) leaves only
    // through someone's progress: poll instead of sleeping.
    // Yield rather than spin: with more threads than cores the thread that
    // must post may be the one this core would run next.
    if (outbox_->delaying()) {
      sched_yield();
      continue;
    }
    // Open MPI polls some channels only every few progress calls, so one
    // empty poll does not prove that nothing has arrived.
    bool found = false;
    for (int i = 0; i < kPollsBeforeSleep && !found; ++i) found = done();
    if (found) break;
    // Sleep less while sends are still in flight: they may need our progress.
    uint64_t nap = outbox_->pending() ? kNapWithSendsNs : tuning_.sleep_ns;
    if (deadline - now < nap) nap = deadline - now;
    // Asleep, the application thread no longer polls for the service
    // thread, which must then answer requests quickly itself.
    if (app) app_polling_.store(false, std::memory_order_relaxed);
    const bool woken = wakeup_->sleep(role, seen, nap);
    if (app) app_polling_.store(true, std::memory_order_relaxed);
    if (woken) spin_until = now_ns() + std::max(tuning_.spin_ns, kSpinAfterWakeNs) + extra;
    last_poll = 0;
  }
  if (app) app_polling_.store(false, std::memory_order_relaxed);
  const uint64_t waited = now_ns() - start;
  if (waited > 1000000 && log_enabled(LogLevel::kDebug))
    log_message(LogLevel::kDebug, "waited %.3f ms for %s from rank %d", static_cast<double>(waited) / 1e6, what, from);
}

std::string Waiter::timeout_report(const char* what, int from, bool watched) const {
  const std::string ctx = wait_context_ ? wait_context_() : std::string();
  const char* sep = ctx.empty() ? "" : "; ";
  const double t = tuning_.timeout_s;
  const double grace = watched ? static_cast<double>(kWatchedGraceNs) / 1e9 : 0;
  const std::string limit =
      watched ? format(" (the SCOPEDSM_TIMEOUT limit of %g s and %g s for the report of the wait's manager, which did "
                       "not come)",
                       t, grace)
              : format(", the SCOPEDSM_TIMEOUT limit,");
  if (from >= 0)
    return format("timed out after %.1f s%s waiting for %s from rank %d%s%s; is that process alive and is every "
                  "process making the same synchronization calls?",
                  t + grace, limit.c_str(), what, from, sep, ctx.c_str());
  return format("timed out after %.1f s%s waiting for %s%s%s; is every process alive and making the same "
                "synchronization calls?",
                t + grace, limit.c_str(), what, sep, ctx.c_str());
}

}  // namespace scopedsm
