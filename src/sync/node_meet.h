// Where the processes of a node meet for a barrier: memory they all map
// (docs/PROTOCOL.md §4, "The node form").
//
// Every process of a node that shares memory (SCOPEDSM_NODE_SHARING=on and
// the mapping worked) has one slot, in a memfd of its own that the node's
// other processes map (NodeTopology::exchange_fds; no named file ever
// exists). The node's lowest rank is its leader. In barrier e:
//   - a process that is not the leader writes its collective-call number
//     and its write notices into its slot, then stores e + 1 in `arrived`
//     (release) and wakes the leader;
//   - the leader waits until every peer's `arrived` is e + 1 (acquire),
//     checks their call numbers, merges their notices with its own, takes
//     part in the rounds between the job's leaders (if there are several
//     nodes), writes the merge (and rank 0's broadcast) into its own slot,
//     stores e + 1 in `released` (release) and wakes its peers;
//   - a peer waits until the leader's `released` is e + 1 (acquire) and
//     copies the merge out.
// The leader writes the merge of barrier e + 1 only after every peer has
// arrived at it, so after every peer has copied the merge of barrier e; a
// peer writes its notices of barrier e + 1 only after leaving barrier e, so
// after the leader has read those of barrier e. No slot is ever read while
// it is written.
//
// `barrier_call` says which barrier a process is in ((call + 1) << 2 |
// form; 0 when in none), so that processes of a node find each other in
// different collective calls or barrier forms (sync/barrier.h, "Checks").
//
// A process whose node does not share memory is a node of its own here:
// its own leader, with no peers.
//
// Thread owner: the application thread (init by the runtime at start-up;
// only the application threads of the node's processes touch the slots).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/config.h"
#include "common/status.h"
#include "protocol/notices.h"
#include "transport/node.h"

namespace scopedsm {

class NodeMeet {
 public:
  // Largest broadcast a barrier can carry through the node (bytes).
  static constexpr size_t kMaxBroadcast = size_t{1} << 20;

  struct alignas(64) Head {
    std::atomic<uint32_t> arrived;  // peer: barrier epoch + 1 whose arrival is in the slot
    uint32_t call;                  // its collective-call number
    uint64_t count;                 // its notices
    alignas(64) std::atomic<uint32_t> released;  // leader: barrier epoch + 1 whose merge is in the slot
    uint64_t merged;                             // its notices
    uint64_t broadcast;                          // bytes of rank 0's broadcast with it (0: none)
    alignas(64) std::atomic<uint64_t> barrier_call;  // (call + 1) << 2 | form, while in a barrier; else 0
  };

  NodeMeet() = default;
  ~NodeMeet();
  NodeMeet(const NodeMeet&) = delete;
  NodeMeet& operator=(const NodeMeet&) = delete;

  // Collective over the job (`world`): maps the node's slots if `shared`
  // (the same on every process of a node), each room for `capacity`
  // notices, then learns every process's leader. A node whose slots cannot
  // all be mapped is, for barriers, one node per process.
  Status init(MPI_Comm world, const NodeTopology& node, bool shared, uint64_t capacity);
  void shutdown();

  // This node's processes meet here (more than one, slots mapped).
  bool active() const { return !slots_.empty(); }
  int leader() const { return leader_; }
  bool is_leader() const { return leader_ == rank_; }
  // World ranks of the node's processes (the leader first); just this one when not active.
  const std::vector<int>& members() const { return members_; }
  // World ranks of every node's leader, ascending.
  const std::vector<int>& leaders() const { return leaders_; }
  uint64_t capacity() const { return capacity_; }

  Head& head(size_t local) const { return *reinterpret_cast<Head*>(slots_[local]); }
  Head& own() const { return head(local_); }
  size_t local() const { return local_; }
  // Notices in `local`'s slot: packed as on the wire (u32 page, i32 writer
  // with kWireOffersHome / kWireTouchOnly).
  void write_notices(const std::vector<WriteNotice>& notices) const;
  void read_notices(size_t local, uint64_t count, std::vector<WriteNotice>* out) const;
  std::byte* broadcast_area(size_t local) const { return slots_[local] + broadcast_offset_; }

  static uint64_t barrier_word(uint32_t call, BarrierForm form) {
    return (uint64_t{call} + 1) << 2 | static_cast<uint64_t>(form);
  }

 private:
  std::vector<std::byte*> slots_;  // per local index, mapped here (empty: not active)
  size_t bytes_ = 0;
  size_t broadcast_offset_ = 0;
  uint64_t capacity_ = 0;
  size_t local_ = 0;
  int rank_ = 0;
  int leader_ = 0;
  std::vector<int> members_;
  std::vector<int> leaders_;
};

}  // namespace scopedsm
