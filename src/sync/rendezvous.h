// The rendezvous manager on rank 0: barriers, jia_wait, and checked
// collective calls (allocation agreement, exit). Runs on the service thread.
//
// Every process's arrival names what it is doing. All arrivals of one
// rendezvous must name the same thing; anything else (one process in
// jia_barrier while another is in jia_alloc, or allocations of different
// sizes) is reported with both ranks' calls and ends the job, instead of
// hanging.
//
// A barrier is a release and acquire of the whole job: its arrivals carry
// each process's write notices since the last barrier, and its grant
// carries their merge to everybody.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/notices.h"
#include "sync/parts.h"
#include "sync/stall.h"
#include "transport/transport.h"

namespace scopedsm {

enum class RendezvousKind : uint32_t { kBarrier = 1, kWait = 2, kCollective = 3 };

class RendezvousManager {
 public:
  explicit RendezvousManager(const SyncParts& parts) : p_(parts) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, const BarrierMsg& msg);
  void on(const Incoming& in, const WaitMsg& msg);
  void on(const Incoming& in, CollectiveMsg&& msg);  // keeps the payload
  // Reports a rendezvous incomplete for long, naming the ranks that have
  // not arrived: once as a warning at 80% of `stall.limit_s`, then as the
  // fatal error that ends the job at the limit (sync/stall.h).
  void check_stalls(uint64_t now, const StallLimit& stall);

 private:
  void arrive(int rank, RendezvousKind kind, const std::string& call);
  void complete();

  const SyncParts p_;
  int arrived_ = 0;
  RendezvousKind kind_ = RendezvousKind::kBarrier;
  std::string call_;        // what the first arrival called
  int first_rank_ = -1;
  uint64_t first_arrival_ns_ = 0;
  bool warned_ = false;  // this rendezvous's stall has been warned about
  std::vector<bool> arrived_from_;
  uint32_t barrier_epoch_ = 0;
  NoticeMerge merge_;
  std::vector<std::vector<std::byte>> blobs_;  // per-rank payloads (exit statistics)
};

}  // namespace scopedsm
