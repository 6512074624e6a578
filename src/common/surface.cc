#include "common/surface.h"

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string_view>

#include "common/limits.h"

namespace scopedsm {

namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// Where ids travel by value only on request (Fortran 77's %val), the hint
// that says how to pass one.
std::string by_value_hint(ApiCall call) {
  if (!call.surface->ids_by_value) return "";
  return format("; from Fortran pass the id by value, call %s(%%val(id))", call.name);
}

}  // namespace

std::string lock_id_error(ApiCall call, int lock, int locks) {
  return format("%s(%d): lock id out of range; valid ids are 0 to %d (%s - 1)", call.name, lock, locks - 1,
                locks == kMaxLocks ? call.surface->lock_limit : "SCOPEDSM_LOCKS") +
         by_value_hint(call);
}

std::string cv_id_error(ApiCall call, int cv) {
  return format("%s(%d): condition variable out of range; valid ids are 0 to %d (%s - 1)", call.name, cv,
                kMaxCondvars - 1, call.surface->cv_limit) +
         by_value_hint(call);
}

std::string before_init_error(ApiCall call) {
  return format("%s: called %s; initialize ScopeDSM first", call.name, call.surface->before_init);
}

std::string after_finalize_error(ApiCall call) {
  return format("%s: called %s; ScopeDSM has shut down", call.name, call.surface->after_finalize);
}

std::string init_again_error(ApiCall call, bool shut_down) {
  return format("%s: ScopeDSM is already %s; %s", call.name, shut_down ? "shut down" : "initialized",
                call.surface->init_once);
}

std::string barrier_in_lock_error(ApiCall call, const std::string& held) {
  return format("%s: called inside a critical section (%s); a barrier cannot be used %s (use %s there, which has no "
                "coherence actions)",
                call.name, held.c_str(), call.surface->critical_section, call.surface->wait);
}

std::string relock_error(ApiCall call, int lock, const std::string& held) {
  return format("%s(%d): this process already holds lock %d; a lock cannot be nested inside itself (%s)", call.name,
                lock, lock, held.c_str());
}

std::string unlock_unheld_error(ApiCall call, int lock, const std::string& held) {
  return format("%s(%d): this process does not hold lock %d (%s); unlock only locks you acquired", call.name, lock,
                lock, held.c_str());
}

std::string unlock_not_innermost_error(ApiCall call, int lock, const std::string& held) {
  return format("%s(%d): lock %d is not the innermost lock held (%s); release locks in the reverse order of "
                "acquiring them",
                call.name, lock, lock, held.c_str());
}

std::string finalize_in_lock_error(ApiCall call, const std::string& held) {
  return format("%s: called while holding locks (%s); release every lock before exiting", call.name, held.c_str());
}

std::string describe_locks_held(const std::vector<int>& outermost_first) {
  if (outermost_first.empty()) return "no locks held";
  std::string s = "locks held (outermost first):";
  for (int lock : outermost_first) {
    s.push_back(' ');
    s.append(std::to_string(lock));
  }
  return s;
}

namespace {
constexpr std::string_view kImplicitMark = " [at exit: the process returned from main or called exit()]";

// The call without the at-exit mark, if it has one.
std::string_view without_exit_mark(std::string_view call) {
  return call.ends_with(kImplicitMark) && call.size() > kImplicitMark.size()
             ? call.substr(0, call.size() - kImplicitMark.size())
             : call;
}
}  // namespace

std::string implicit_exit_call(const Surface& s) { return std::string(s.finalize) + std::string(kImplicitMark); }

bool is_implicit_exit(const std::string& call) { return without_exit_mark(call).size() != call.size(); }

bool same_collective_call(const std::string& a, const std::string& b) {
  return a == b || without_exit_mark(a) == without_exit_mark(b);
}

std::string exit_while_waited_error(const Surface& s, const std::string& who, int waiting_rank,
                                    const std::string& waiting_call) {
  return format("%s is exiting (returned from main or called exit()) %s while rank %d still waits for it in %s; %s",
                who.c_str(), s.exit_without_finalize, waiting_rank, waiting_call.c_str(), s.exit_advice);
}

int jia_int_arg(const char* call, const char* what, long double value, std::string* error) {
  constexpr long double kMin = std::numeric_limits<int>::min(), kMax = std::numeric_limits<int>::max();
  // As the conversion to int does: the fraction goes.
  if (value >= kMin && value < kMax + 1.0L) return static_cast<int>(value);
  // An integer of at most 64 bits, as C converts it to int (GCC: modulo 2^32).
  constexpr long double kTwo64 = 18446744073709551616.0L;
  const long double whole = std::trunc(value);
  char shown[400], converted[96] = "";
  if (std::fabs(whole) < kTwo64) {
    const bool negative = whole < 0;
    const auto magnitude = static_cast<uint64_t>(negative ? -whole : whole);
    const uint64_t bits = negative ? 0 - magnitude : magnitude;
    std::snprintf(shown, sizeof shown, "%s%" PRIu64, negative ? "-" : "", magnitude);
    std::snprintf(converted, sizeof converted, ", and converted to one it is %d",
                  static_cast<int32_t>(static_cast<uint32_t>(bits)));
  } else {
    std::snprintf(shown, sizeof shown, "%.0Lf", whole);
  }
  const std::string arg = what;
  std::string advice;
  if (arg == "size")
    advice = "one JIAJIA allocation holds at most 2147483647 bytes: split the data into several";
  else if (arg == "block")
    advice = "a block holds at most 2147483647 bytes: give a smaller block";
  else
    advice = "it must be a rank of this job";
  *error = std::string(call) + ": " + arg + " " + shown + " does not fit its int argument (-2147483648 to "
           "2147483647)" + converted + "; " + advice;
  return 0;
}

}  // namespace scopedsm
