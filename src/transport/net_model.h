// The communication-cost model (SCOPEDSM_NET): costs injected on messages
// between nodes, to find out which property of a network a program is
// sensitive to (issue 12; Bilas and Singh's four parameters, digest
// seed-002 §6). Off by default; off, the transport tests one flag per send
// and per receive and nothing else runs.
//
// A message of n bytes from node A to node B (different nodes: NodeTopology;
// processes of one node share memory and follow the node model, with no
// injected cost) is k = ceil(n / mtu) packets, at least 1. Each end's cost
// of the message is
//
//   end(n) = k * occupancy + n / bandwidth
//
// spent on one serialising resource per node and direction (NiLine): A's
// outgoing line, then the link's latency, then B's incoming line. The lines
// are FIFO in virtual time, so messages of one node queue behind each other
// (the wait is the `queue` category). Where each cost lands, so that what a
// program measures on top of its native run is exactly what was injected:
//
//   overhead   the sending thread busy-waits it before handing the message
//              to MPI (the host's CPU posting the message).
//   out line   + latency: the message is not handed to MPI before
//              start + end(n) + latency, where start is when A's outgoing
//              line is free (on_send returns that time; the outbox holds
//              the message until then, FIFO, while the sender goes on).
//   in line    the thread that receives the message (the requester waiting
//              for its reply or page, the service thread taking a request)
//              holds it until B's incoming line has passed it: from
//              receipt, or from when the line is free, plus end(n).
//   interrupt  only for requests (kTagRequest), which need the home's CPU
//              to run a handler: the thread about to serve the request
//              busy-waits issue + delivery (2 * interrupt) first. Replies
//              go to a requester that polls for them, barrier rounds and
//              hand-overs (kTagPeer) to a thread that waits where it reads
//              them, and one-sided reads need no CPU at the target: none
//              of them pays it.
//   one-sided  a completed MPI_Rget of n bytes (RmaSource) holds the reader
//              for overhead + a one-packet request (occupancy at both
//              ends + latency) + the reply (end(n) at both ends + latency),
//              with this node's lines reserved (the home's lines are on
//              another node, not visible here: uncontended). No interrupt.
//
// While a message waits for its departure, waiting threads poll (yielding
// the core) instead of sleeping (Outbox::delaying), and every waiting thread polls an injected
// round trip longer before it sleeps (spin_extension_ns): otherwise an
// injected delay would push an answer into a sleep of SCOPEDSM_POLL_US.
//
// Every injected cost is added after or before the native transfer, never
// overlapped with it: native time + injected time = measured time, so a
// sweep's measured delta is the injected one (bench/micro/net_model.cc
// checks it, and reports the native floor each knob sits on).
//
// Statistics (NetCounters) count, per process, the time injected by
// category: what this process's threads waited (overhead, in-line,
// interrupt, one-sided) and what its messages were held (out-line,
// latency), so a breakdown can tell injected from native costs.
//
// Thread owner: initialized by the application thread (collective over the
// node when enabled); afterwards both threads call it. Parameters are
// atomics so that a test may change them at run time (configure(), while
// no message is in flight); the lines are atomics, shared by the node's
// processes through a memfd when they share memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/config.h"
#include "common/status.h"
#include "transport/node.h"
#include "transport/wire.h"

namespace scopedsm {

// Counters of the injected costs, in the statistics as net_<name>.
#define SCOPEDSM_NET_COUNTERS(X)                                                           \
  X(msgs)          /* messages between nodes this process sent (each charged once) */     \
  X(packets)       /* their packets, and those of one-sided reads */                      \
  X(interrupts)    /* requests from other nodes this process served */                    \
  X(one_sided)     /* one-sided reads of other nodes' memory */                           \
  X(overhead_ns)   /* host overhead its threads busy-waited */                            \
  X(occupancy_ns)  /* packet occupancy of its messages, both lines, and one-sided reads */ \
  X(bandwidth_ns)  /* bytes / bandwidth, likewise */                                      \
  X(latency_ns)    /* link latency of its messages and one-sided reads */                 \
  X(queue_ns)      /* waits for a busy line (contention) */                               \
  X(interrupt_ns)  /* interrupts (issue + delivery) before serving requests */

struct NetCounters {
#define X(name) std::atomic<uint64_t> name{0};
  SCOPEDSM_NET_COUNTERS(X)
#undef X
};

// The cost arithmetic, pure: what one end of a message of `n` bytes costs.
struct EndCost {
  uint64_t packets = 0;
  uint64_t occupancy_ns = 0;  // packets * occupancy
  uint64_t bandwidth_ns = 0;  // n / bandwidth, rounded up; 0 when unlimited
  uint64_t total() const { return occupancy_ns + bandwidth_ns; }
};
EndCost end_cost(const NetParams& p, size_t n);
// What the model adds to one fetch whose request is `request` bytes and
// whose reply is `reply` bytes, uncontended: by message (a request the home
// serves), 2 overhead + 2 interrupt + 2 end(request) + 2 end(reply) +
// 2 latency; one-sided, overhead + 2 end(0) + 2 end(reply) + 2 latency.
uint64_t fetch_injected_ns(const NetParams& p, bool one_sided, size_t request, size_t reply);

// One serialising resource (a node's network interface in one direction):
// FIFO in virtual time, over a word that may be shared between processes.
class NiLine {
 public:
  explicit NiLine(std::atomic<uint64_t>* free_at = nullptr) : free_at_(free_at) {}
  void attach(std::atomic<uint64_t>* free_at) { free_at_ = free_at; }
  // Takes the line for `service` ns, from `now` or from when it is free,
  // whichever is later; returns that start.
  uint64_t reserve(uint64_t now, uint64_t service);

 private:
  std::atomic<uint64_t>* free_at_;
};

class NetModel {
 public:
  NetModel() = default;
  ~NetModel();
  NetModel(const NetModel&) = delete;
  NetModel& operator=(const NetModel&) = delete;

  // Collective over `node` when `params.enabled` (the node's processes map
  // one pair of lines; if they cannot, each keeps its own, with a warning).
  // `node` must outlive the model.
  Status init(const NetParams& params, const NodeTopology& node);
  // Test only: new costs (enabled or not) while no message is in flight.
  void configure(const NetParams& params);

  // The one test the transport makes when the model is off.
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  // A message of `n` bytes to `dest` on `tag` is about to be sent: charges
  // the overhead to the calling thread, takes the outgoing line, and
  // returns when it may be handed to MPI (0: at once, `dest` is on this node).
  uint64_t on_send(int dest, size_t n);
  // A message of `n` bytes from `source` on `tag` has been received: holds
  // the calling thread until the incoming line has passed it, then, for a
  // request, for the interrupt.
  void on_receive(int source, Tag tag, size_t n);
  // A one-sided read of `n` bytes from `target` has completed: holds the
  // calling thread for the modelled transfer.
  void on_one_sided(int target, size_t n);

  // How much longer a waiting thread polls before it sleeps: the injected
  // time of a page's round trip (0 when off). Without it an injected delay
  // would push an answer past the spin window into a sleep of up to
  // SCOPEDSM_POLL_US, and the measured cost would exceed the injected one.
  const std::atomic<uint64_t>& spin_extension_ns() const { return spin_extension_ns_; }

  NetCounters& counters() { return counters_; }
  NetParams params() const;

 private:
  bool crosses(int rank) const { return node_ != nullptr && !node_->same_node(rank); }

  const NodeTopology* node_ = nullptr;
  std::atomic<bool> enabled_{false};
  std::atomic<uint64_t> overhead_ns_{0}, occupancy_ns_{0}, mtu_{4096}, bandwidth_mbs_{0}, latency_ns_{0},
      interrupt_ns_{0};
  std::atomic<uint64_t> spin_extension_ns_{0};
  std::atomic<uint64_t> own_free_[2]{};  // the lines when not shared with node peers
  void* shared_ = nullptr;               // the node's lines, mapped
  NiLine out_, in_;
  NetCounters counters_;
};

}  // namespace scopedsm
