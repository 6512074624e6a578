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

// Seconds since the first call of this function in the process, on the
// monotonic clock: jia_clock, which JIAJIA 2.1 defined so, and which a
// program may call before jia_init (to time its start-up too).
inline double seconds_since_first_call() {
  static const uint64_t origin = now_ns();
  return static_cast<double>(now_ns() - origin) / 1e9;
}

// A hint to the core that this thread spins.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Busy-waits until now_ns() reaches `until` (never sleeps: a sleep's
// granularity is far coarser than the microseconds it is used for).
inline void spin_until_ns(uint64_t until) {
  while (now_ns() < until) cpu_relax();
}

inline void sleep_ns(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

}  // namespace scopedsm
