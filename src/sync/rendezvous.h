// The rendezvous manager on rank 0: jia_wait, checked collective calls
// (allocation agreement, exit, jia_loadcheck), and the stall reports of
// barriers. Runs on
// the service thread.
//
// Every process's arrival names what it is doing. All arrivals of one
// rendezvous must name the same thing; anything else (one process in
// jia_barrier while another is in jia_alloc, or allocations of different
// sizes) is reported with both ranks' calls and ends the job, instead of
// hanging.
//
// Barriers do not meet here (sync/barrier.h: the processes exchange their
// rounds directly). With a SCOPEDSM_TIMEOUT limit, a process that has
// waited in a barrier for a tenth of it says so (BARRSTALL); if the barrier
// is still incomplete at 80% of the limit, this manager names the ranks
// that said so as waiting for those that never did.
// A barrier process that sees another process in a different call reports
// that mismatch itself (Barrier::watch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/messages.h"
#include "sync/parts.h"
#include "sync/stall.h"
#include "transport/transport.h"

namespace scopedsm {

enum class RendezvousKind : uint32_t { kWait = 2, kCollective = 3 };

class RendezvousManager {
 public:
  explicit RendezvousManager(const SyncParts& parts) : p_(parts) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, const BarrierStallMsg& msg);
  void on(const Incoming& in, const WaitMsg& msg);
  void on(const Incoming& in, CollectiveMsg&& msg);  // keeps the payload
  // Reports a rendezvous, or a barrier this process has not completed,
  // incomplete for long, naming the ranks that have not arrived: once as a
  // warning at 80% of `stall.limit_s`, then as the fatal error that ends the
  // job at the limit (sync/stall.h).
  void check_stalls(uint64_t now, const StallLimit& stall);

 private:
  void arrive(int rank, RendezvousKind kind, const std::string& call);
  void complete();

  const SyncParts p_;
  int arrived_ = 0;
  RendezvousKind kind_ = RendezvousKind::kWait;
  std::string call_;        // what the first arrival called
  int first_rank_ = -1;
  uint64_t first_arrival_ns_ = 0;
  bool warned_ = false;  // this rendezvous's stall has been warned about
  std::vector<bool> arrived_from_;
  // Barrier stalls: the latest barrier someone reported waiting in, since
  // when (the earliest report's wait) and who has reported.
  uint32_t stalled_epoch_ = 0;
  uint64_t stalled_since_ns_ = 0;
  std::vector<bool> stalled_;  // empty: no report
  bool stall_warned_ = false;  // the reported barrier stall has been warned about
  std::vector<std::vector<std::byte>> blobs_;  // per-rank payloads (exit statistics, loads)
  bool to_all_ = false;                        // every rank gets blobs_ (CollectiveMsg::to_all)
};

}  // namespace scopedsm
