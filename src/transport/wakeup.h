// Wake-up channel between processes on the same node.
//
// MPI implementations poll: a thread blocked in MPI_Recv spins a core. So no
// runtime thread ever blocks inside MPI. A waiting thread polls for a short
// spin window and then sleeps on a futex word in memory shared by all the
// processes of its node; whoever sends it a message bumps that word and wakes
// it. Processes on other nodes cannot reach the word, so when a job spans
// nodes the sleep is bounded by SCOPEDSM_POLL_US and the thread polls again.
//
// Each process has two words: one for its service thread (requests) and one
// for its application thread (replies), in a small memfd of its own that the
// node's other processes map (NodeTopology::exchange_fds): no named file
// exists at any time, so none can be left behind.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "transport/node.h"

namespace scopedsm {

enum class WakeRole { kService = 0, kApp = 1 };

class Wakeup {
 public:
  Wakeup() = default;
  ~Wakeup();
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  // Collective over the node. Without shared memory it still works: every
  // peer is then treated as remote.
  Status init(const NodeTopology& node);
  void shutdown();

  // True when some process of the job cannot be woken through memory.
  bool has_remote_peers() const { return has_remote_; }

  // Bumps the word of (rank, role) and wakes it if it sleeps.
  void notify(int rank, WakeRole role);

  // The current value of this process's word; pass it to sleep().
  uint32_t snapshot(WakeRole role) const;
  // Sleeps until the word differs from `seen`, a notify arrives, or
  // `max_ns` passes. Spurious returns are allowed. Returns true if the
  // word changed (someone sent us something).
  bool sleep(WakeRole role, uint32_t seen, uint64_t max_ns);

 private:
  struct alignas(64) Word {
    std::atomic<uint32_t> seq;
    std::atomic<uint32_t> sleepers;
  };
  struct alignas(64) Slot {
    Word words[2];
  };
  Word* word(int rank, WakeRole role) const;

  const NodeTopology* node_ = nullptr;
  std::vector<Slot*> slots_;     // per local index: that process's slot, mapped here
  int my_slot_ = -1;
  bool has_remote_ = false;
};

}  // namespace scopedsm
