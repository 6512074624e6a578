#include "common/timing.h"

#include <algorithm>

namespace bench {

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
  s.p90 = samples[static_cast<size_t>(0.9 * static_cast<double>(n - 1) + 0.5)];
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(samples.size() - 1) + 0.5);
  return samples[std::min(i, samples.size() - 1)];
}

Summary add(const Summary& a, const Summary& b) {
  Summary s;
  s.median = a.median + b.median;
  s.min = a.min + b.min;
  s.max = a.max + b.max;
  s.count = std::min(a.count, b.count);
  return s;
}

}  // namespace bench
