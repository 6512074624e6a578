// Monotonic time in nanoseconds, for statistics, the trace and timeouts.
// (stats/trace.h's TraceSpan times a call for both.)
#pragma once

#include <cstdint>
#include <ctime>

namespace scopedsm {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace scopedsm
