#include "runtime/load_balance.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

std::vector<uint64_t> rebalance(const std::vector<uint64_t>& shares, const std::vector<double>& seconds) {
  std::vector<double> speed(shares.size());
  double total = 0;
  for (size_t i = 0; i < shares.size(); ++i) {
    speed[i] = static_cast<double>(shares[i]) / std::max(seconds[i], 1e-6);
    total += speed[i];
  }
  std::vector<uint64_t> out(shares.size());
  for (size_t i = 0; i < shares.size(); ++i)
    out[i] = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(static_cast<double>(kShareUnits) * speed[i] / total)));
  return out;
}

void divide_range(int begin, int end, const std::vector<uint64_t>& shares, int rank, int* first, int* last) {
  *first = begin;
  *last = end;
  if (end < begin) return;
  // n < 2^32, and the shares sum to at most kShareUnits + N (they are
  // scaled to kShareUnits in total, each rounded and at least 1), below
  // 2^31 for any process count MPI can have (an int, less 2^20), so
  // n * sum < 2^63.
  const int64_t n = static_cast<int64_t>(end) - begin + 1;
  int64_t total = 0, before = 0;
  for (size_t i = 0; i < shares.size(); ++i) {
    if (static_cast<int>(i) < rank) before += static_cast<int64_t>(shares[i]);
    total += static_cast<int64_t>(shares[i]);
  }
  const int64_t mine = static_cast<int64_t>(shares[static_cast<size_t>(rank)]);
  // Each bound lies in [begin, end + 1]; the last part ends at end + 1 - 1.
  *first = static_cast<int>(begin + n * before / total);
  *last = static_cast<int>(begin + n * (before + mine) / total - 1);
}

LoadBalancer::LoadBalancer(int size, int rank)
    : shares_(static_cast<size_t>(size), kShareUnits / static_cast<uint64_t>(size)),
      even_(static_cast<size_t>(size), 1),
      rank_(rank) {
  interval_start_ns_ = now_ns();
}

void LoadBalancer::set_enabled(bool on, const AppCounters& stats) {
  if (on && !enabled_) {
    shares_.assign(shares_.size(), kShareUnits / static_cast<uint64_t>(shares_.size()));
    start_interval(stats);
  }
  enabled_ = on;
}

void LoadBalancer::start_interval(const AppCounters& stats) {
  measuring_ = true;
  interval_start_ns_ = now_ns();
  interval_syn_ns_ = stats.t_syn_ns;
}

void LoadBalancer::divide(int* begin, int* end, const AppCounters& stats) {
  if (!measuring_) start_interval(stats);
  divide_range(*begin, *end, enabled_ ? shares_ : even_, rank_, begin, end);
}

void LoadBalancer::check(SyncClient& sync, AppCounters& stats, ApiCall call) {
  if (!enabled_) return;
  const uint64_t now = now_ns();
  const uint64_t elapsed = now - interval_start_ns_;
  const uint64_t waited = stats.t_syn_ns - interval_syn_ns_;
  double seconds = elapsed > waited ? static_cast<double>(elapsed - waited) / 1e9 : 0.0;
  if (test_seconds_ >= 0) {
    seconds = test_seconds_;
    test_seconds_ = -1;
  }
  std::vector<std::byte> mine(sizeof seconds);
  std::memcpy(mine.data(), &seconds, sizeof seconds);
  const auto all = sync.collective(call.name, mine, true);
  if (all.size() != shares_.size()) fatal("protocol error: %s: %zu loads for %zu processes", call.name, all.size(), shares_.size());
  std::vector<double> times(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].size() != sizeof(double) || (std::memcpy(&times[i], all[i].data(), sizeof(double)), !(times[i] >= 0)))
      fatal("protocol error: %s: malformed load from rank %zu", call.name, i);
  }
  shares_ = rebalance(shares_, times);
  stats.t_syn_ns += now_ns() - now;
  start_interval(stats);
}

}  // namespace scopedsm
