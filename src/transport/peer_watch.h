// Deaths of the job's other processes on this machine, seen by the kernel.
//
// A launcher normally ends the job when one of its processes dies (Open
// MPI's mpiexec, Hydra, srun with PMIx), within a second or two. Some do
// not: srun starting MPICH through PMI-2, unless --kill-on-bad-exit is
// given, leaves the others running, and they would wait for the dead
// process forever (SCOPEDSM_TIMEOUT is 0, no limit, by default). So each
// process watches the job's other processes on its machine through a pidfd
// each (pidfd_open: readable once the process has exited, and immune to pid
// reuse), and the service thread ends the job when one has been dead for
// longer than a launcher that notices deaths takes to do so
// (docs/RELIABILITY.md). A process that has sent its SHUTDOWN may end at
// any time after and is no longer watched. Processes on other machines are
// not seen: a launcher that misses their deaths still needs a limit.
//
// A peer in another pid namespace (a container per process) cannot be
// told from an unrelated process of the same pid: init() compares the
// process start time each peer published with what /proc shows, and does
// not watch a peer whose start time differs.
//
// Thread owner: init() by the application thread; dead_peer() by the
// service thread; finished() by whichever thread serves (atomic).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"

namespace scopedsm {

class PeerWatch {
 public:
  struct Peer {
    int rank = -1;
    long pid = 0;
    uint64_t start_ticks = 0;  // /proc/<pid>/stat field 22
  };

  PeerWatch() = default;
  ~PeerWatch();
  PeerWatch(const PeerWatch&) = delete;
  PeerWatch& operator=(const PeerWatch&) = delete;

  // Collective over `comm` (the job's processes, this one being `rank`):
  // exchanges pids and start times among the processes of each machine
  // (MPI_COMM_TYPE_SHARED, whatever SCOPEDSM_NODE_SHARING says) and watches
  // the others. Where pidfds are not available, watches nobody.
  void init(MPI_Comm comm, int rank, int size);
  // Watches `peers` (ranks below `size`); without MPI, for tests.
  void watch(const std::vector<Peer>& peers, int size);
  // `rank` sent its SHUTDOWN: its end is expected.
  void finished(int rank);
  // A watched process that had exited `grace_ns` or more before `now_ns`
  // (first seen dead by an earlier call), or -1. Non-blocking.
  int dead_peer(uint64_t now_ns, uint64_t grace_ns);
  // The pid of a watched rank (for the report), or 0.
  long pid_of(int rank) const;
  size_t watched() const { return watched_.size(); }

  // This process's start time in clock ticks since boot (0 if unknown).
  static uint64_t own_start_ticks();
  // `pid`'s, or 0 if /proc does not show it.
  static uint64_t start_ticks_of(long pid);

 private:
  struct Watched {
    Peer peer;
    int fd = -1;
    uint64_t dead_since_ns = 0;  // first seen exited; 0 while alive
  };
  std::vector<Watched> watched_;
  std::unique_ptr<std::atomic<bool>[]> done_;  // by rank: SHUTDOWN seen
  int size_ = 0;
};

}  // namespace scopedsm
