// Clocks and sample summaries for the micro-benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <vector>

namespace bench {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline double ns_to_us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

// Median, minimum and maximum of a set of samples (all zero when empty).
struct Summary {
  double median = 0;
  double p90 = 0;  // the 90th percentile (nearest rank): a slow mode the median hides
  double min = 0;
  double max = 0;
  size_t count = 0;
};
Summary summarize(std::vector<double> samples);
// The q-quantile (0 <= q <= 1, nearest rank) of the samples; 0 when empty.
double quantile(std::vector<double> samples, double q);

// A baseline made of two independent parts (e.g. a round trip plus a local
// fault): medians, minima and maxima add up.
Summary add(const Summary& a, const Summary& b);

// Keeps the compiler from discarding a computed value.
template <typename T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

}  // namespace bench
