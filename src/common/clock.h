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

inline void sleep_ns(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

}  // namespace scopedsm
