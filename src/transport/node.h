// Which processes share a node, and how they share memory.
//
// Processes of one node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED) can
// map each other's memory. The MPI library decides who shares a node: Open
// MPI by its daemons, one per host of the job, so the network-namespace
// hosts of `scopedsm run --hosts` (each with its own daemon and hostname)
// are nodes of their own, as the hosts.mpi.2x2 test checks. With SCOPEDSM_NODE_SHARING=off every process is
// a node of its own, so the cross-node paths can be exercised and measured
// on one machine.
//
// Memory is shared through memfds, never through named files: a process
// hands its peers a memfd by letting them open /proc/<pid>/fd/<fd>. The
// kernel frees a memfd when its last descriptor and mapping are gone, so
// nothing is left behind in /dev/shm or elsewhere after any kind of exit,
// SIGKILL included.
//
// Thread ownership: built once by the application thread at init, constant
// afterwards; every thread may read it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace scopedsm {

class NodeTopology {
 public:
  NodeTopology() = default;
  NodeTopology(const NodeTopology&) = delete;
  NodeTopology& operator=(const NodeTopology&) = delete;

  // Collective over `world`. With `sharing` false every process is its own
  // node; with `max_procs` > 0 each machine's processes form nodes of at most
  // that many consecutive ranks (SCOPEDSM_NODE_PROCS).
  Status init(MPI_Comm world, bool sharing, uint32_t max_procs = 0);

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Index of this process among its node's processes, and their number.
  int local_rank() const { return local_rank_; }
  int local_size() const { return static_cast<int>(members_.size()); }
  // World rank -> index on this node, or -1 when that process is elsewhere.
  int local_index(int world_rank) const { return local_index_[static_cast<size_t>(world_rank)]; }
  bool same_node(int world_rank) const { return local_index(world_rank) >= 0; }
  // World ranks of this node's processes, in local order.
  const std::vector<int>& members() const { return members_; }
  // World rank -> node number (0 .. nodes()-1, numbered by lowest rank).
  int node_of(int world_rank) const { return node_of_[static_cast<size_t>(world_rank)]; }
  int nodes() const { return nodes_; }
  bool sharing() const { return sharing_; }
  // "2 nodes: {0,1} {2,3}", for info and logs.
  std::string describe() const;

  // Collective over the node: every process passes one of its memfds (or -1)
  // and gets back, per local index, a descriptor of the same memory opened
  // for itself (its own entry is a dup). Fails if any peer's memfd cannot
  // be opened; the caller then falls back to the cross-node path.
  Status exchange_fds(int my_fd, std::vector<int>* fds) const;

  MPI_Comm node_comm() const { return node_comm_; }
  // Frees the node communicator (before MPI_Finalize).
  void finalize();

 private:
  MPI_Comm node_comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int nodes_ = 1;
  bool sharing_ = true;
  std::vector<int> members_;
  std::vector<int> local_index_;
  std::vector<int> node_of_;
};

}  // namespace scopedsm
