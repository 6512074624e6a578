// Per-process counters and times.
//
// The time categories follow JIAJIA's overhead breakdown (digest section 7):
//   busy    computation: elapsed minus the categories below spent by the
//           application thread
//   data    inside the SIGSEGV handler (fetching pages, making twins)
//   segv    entering and leaving the handler: faults times a per-fault cost
//           calibrated at start-up (the kernel's part is not observable)
//   syn     inside lock, unlock, barrier, wait and condition-variable calls
//   atomic  inside atomics at the home and the AMO calls (barrier, sum,
//           increment, wait), their round trips and waits included
//   server  service thread busy serving requests (it runs beside the
//           application thread, so it is reported, not subtracted)
//   diff    making diffs (application thread) and applying them (service)
// With SCOPEDSM_NET on, the time the cost model injected, by category
// (net_overhead_ns, ...), is reported beside them: it is part of the
// categories above (a fetch's injected wait is data time), not subtracted.
// The application thread writes AppCounters; the service thread writes
// ServiceCounters (atomics, because a snapshot may be taken at any time).
// With SCOPEDSM_TRACE set, each also points at a TraceLog (stats/trace.h)
// that the same code fills with the events it times; null otherwise.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stats/stats_record.h"
#include "stats/trace.h"
#include "transport/transport.h"

namespace scopedsm {

// Name, value pairs, in one fixed order, so every rank's record lines up.
#define SCOPEDSM_APP_COUNTERS(X) \
  X(read_faults)                 \
  X(write_faults)                \
  X(remote_fetches)              \
  X(node_fetches)                \
  X(rma_fetches)                 \
  X(rma_unrecorded)              \
  X(wvec_fetches)                \
  X(wvec_partial_fetches)        \
  X(wvec_blocks_fetched)         \
  X(wvec_bytes_saved)            \
  X(prefetched)                  \
  X(prefetch_used)               \
  X(prefetch_wasted)             \
  X(hint_prefetch_pages)         \
  X(hint_prefetch_filtered)      \
  X(hint_prefetch_requests)      \
  X(hint_prefetch_fetched)       \
  X(hint_prefetch_read_ahead)    \
  X(hint_prefetch_dropped)       \
  X(hint_prefetch_useful)        \
  X(hint_prefetch_wasted)        \
  X(hint_prefetch_late)          \
  X(prefetch_async)              \
  X(prefetch_waits)              \
  X(hint_release_pages)          \
  X(hint_release_filtered)       \
  X(auto_streams)                \
  X(auto_prefetches)             \
  X(auto_prefetch_requests)      \
  X(auto_prefetch_filtered)      \
  X(auto_prefetch_dropped)       \
  X(auto_prefetch_used)          \
  X(auto_prefetch_late)          \
  X(auto_prefetch_wasted)        \
  X(auto_deferred)               \
  X(auto_releases)               \
  X(pages_released)              \
  X(release_flushed)             \
  X(twins)                       \
  X(diffs_made)                  \
  X(diff_bytes_made)             \
  X(node_diffs)                  \
  X(invalidations)               \
  X(retained)                    \
  X(evictions)                   \
  X(evictions_far)               \
  X(dirty_evictions)             \
  X(stale_discards)              \
  X(map_reliefs)                 \
  X(locks)                       \
  X(handoffs)                    \
  X(grant_notices)               \
  X(unlocks)                     \
  X(barriers)                    \
  X(waits)                       \
  X(cv_ops)                      \
  X(atomics)                     \
  X(home_claims)                 \
  X(homes_gained)                \
  X(homes_lost)                  \
  X(next_touch_pages_marked)     \
  X(next_touch_pages_rehomed)    \
  X(retraps)                     \
  X(untraps)                     \
  X(loop_grabs)                  \
  X(loop_steals)                 \
  X(loop_syncs)                  \
  X(loop_messages)               \
  X(taskmig_decisions)           \
  X(taskmig_moved)               \
  X(taskmig_rehomed)             \
  X(interposed_calls)            \
  X(interposed_chunks)           \
  X(interposed_bounced_bytes)    \
  X(t_data_ns)                   \
  X(t_syn_ns)                    \
  X(t_atomic_ns)                 \
  X(t_diff_make_ns)              \
  X(t_fetch_wait_ns)

#define SCOPEDSM_SERVICE_COUNTERS(X) \
  X(pages_served)                    \
  X(copies_recorded)                 \
  X(diffs_applied)                   \
  X(diff_bytes_applied)              \
  X(requests_served)                 \
  X(requests_deferred)               \
  X(early_releases)                  \
  X(t_server_ns)                     \
  X(t_diff_apply_ns)

struct AppCounters {
#define X(name) uint64_t name = 0;
  SCOPEDSM_APP_COUNTERS(X)
#undef X
  TraceLog* trace = nullptr;  // the application thread's events; null: not tracing
};

struct ServiceCounters {
#define X(name) std::atomic<uint64_t> name{0};
  SCOPEDSM_SERVICE_COUNTERS(X)
#undef X
  // Requests served, by either thread; both fields belong to whichever
  // thread holds the service's serve mutex. Null: not tracing.
  TraceLog* trace = nullptr;
  TraceThread serving_thread = TraceThread::kService;
};

class Stats {
 public:
  AppCounters app;
  ServiceCounters service;

  // Starts (or restarts) the measured region: later snapshots are relative
  // to this point.
  void start(TrafficCounters& sent, TrafficCounters& received);
  // Ends the measured region; snapshots after it report the region only.
  void stop(TrafficCounters& sent, TrafficCounters& received);
  StatsRecord snapshot(int rank, TrafficCounters& sent, TrafficCounters& received) const;
  // Starts recording events (SCOPEDSM_TRACE): reserves the two logs.
  void enable_trace();
  bool tracing() const { return app_trace_ != nullptr; }
  // Every event recorded (once both threads are done), and how many were
  // dropped because a log was full.
  std::vector<TraceEvent> trace_events() const;
  uint64_t trace_dropped() const;
  void set_segv_cost_ns(double ns) { segv_cost_ns_ = ns; }
  // Where elapsed time counts from when start() was never called.
  void set_origin_ns(uint64_t ns) { origin_ns_ = ns; }
  // The cost model's counters (transport/net_model.h), reported as
  // net_<name>: the time injected by category.
  void set_net(const NetCounters* net) { net_ = net; }
  // The node layout, reported with every snapshot (not as a counter: it is
  // not made relative to start()): this process's node number, the number
  // of nodes, the processes on this node, and whether they share homes.
  // `rma`: pages homed on other nodes are read one-sided (else by message).
  void set_layout(int node, int nodes, int node_procs, bool node_shared, bool rma) {
    layout_ = {{"node", static_cast<uint64_t>(node)},
               {"nodes", static_cast<uint64_t>(nodes)},
               {"node_procs", static_cast<uint64_t>(node_procs)},
               {"node_shared", node_shared ? 1u : 0u},
               {"rma", rma ? 1u : 0u}};
  }

 private:
  StatsRecord raw(int rank, TrafficCounters& sent, TrafficCounters& received) const;
  StatsRecord base_;
  StatsRecord end_;
  uint64_t start_ns_ = 0;
  uint64_t stop_ns_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  double segv_cost_ns_ = 0;
  uint64_t origin_ns_ = 0;
  const NetCounters* net_ = nullptr;
  std::vector<std::pair<std::string, uint64_t>> layout_;
  std::unique_ptr<TraceLog> app_trace_;
  std::unique_ptr<TraceLog> serve_trace_;
};

}  // namespace scopedsm
