// jia_loadcheck and jia_divtask: each process's share of divided work, in
// proportion to the speed it showed in the last interval.
//
// A process's speed is the share of the work it was given over the seconds
// it computed in the interval between two jia_loadcheck calls (wall time
// less the time it waited in synchronization, the statistics' `syn`), as
// JIAJIA 2.1 measured it. jia_loadcheck exchanges every process's seconds
// (a collective call, COLL with to_all) and every process then computes the
// same new shares from the same numbers, so the divisions of jia_divtask
// agree without another message.
//
// Shares are integers (kShareUnits in total, about) so that the division is
// exact integer arithmetic: equal shares divide a range exactly as an even
// split does, and the parts cover the range without gaps or overlaps.
#pragma once

#include <cstdint>
#include <vector>

#include "common/surface.h"
#include "stats/stats.h"
#include "sync/sync_client.h"

namespace scopedsm {

inline constexpr uint64_t kShareUnits = uint64_t{1} << 20;

// The new shares from the old ones and the seconds each process computed:
// speed = share / seconds (seconds below a microsecond count as one), and
// the new shares are the speeds scaled to kShareUnits in total, each at
// least 1 (a process never drops out of the measurement).
std::vector<uint64_t> rebalance(const std::vector<uint64_t>& shares, const std::vector<double>& seconds);

// Part `rank` of the inclusive range [begin, end] (JIAJIA's convention),
// divided in proportion to `shares` (at least one positive): [*first,
// *last], empty (*last == *first - 1) when the share rounds to nothing. The
// parts, in rank order, cover [begin, end] exactly. An empty range
// (end < begin) is every process's part as it is.
void divide_range(int begin, int end, const std::vector<uint64_t>& shares, int rank, int* first, int* last);

// One process's load balancing state. Thread owner: the application thread.
class LoadBalancer {
 public:
  // The first interval starts now (initialization), or at the first divide.
  LoadBalancer(int size, int rank);

  // jia_config(LOADBAL, ON/OFF): off, jia_loadcheck does nothing (no
  // collective call) and jia_divtask splits evenly.
  // Switched on again, it starts afresh: even shares, a new interval. Every
  // process must switch alike (the division assumes the same shares).
  void set_enabled(bool on, const AppCounters& stats);
  // Collective: measures this process's interval, exchanges every
  // process's, and sets the new shares. The exchange's wait counts as
  // synchronization (`stats.t_syn_ns`).
  void check(SyncClient& sync, AppCounters& stats, ApiCall call);
  // This process's part of [*begin, *end], in place. The first call before
  // any check starts the first interval (JIAJIA 2.1 did the same).
  void divide(int* begin, int* end, const AppCounters& stats);
  // Tests: the seconds the next check reports instead of the measured ones.
  void set_test_seconds(double s) { test_seconds_ = s; }
  const std::vector<uint64_t>& shares() const { return shares_; }

 private:
  void start_interval(const AppCounters& stats);

  std::vector<uint64_t> shares_;
  const std::vector<uint64_t> even_;  // the split with LOADBAL off
  const int rank_;
  bool enabled_ = true;
  bool measuring_ = false;  // an interval has started (the first divide or check)
  uint64_t interval_start_ns_ = 0;
  uint64_t interval_syn_ns_ = 0;    // stats.t_syn_ns at the interval's start
  double test_seconds_ = -1;
};

}  // namespace scopedsm
