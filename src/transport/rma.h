// One-sided access to other processes' home memory: two MPI windows, and the
// start-up check that decides whether they are worth using.
//
// The page window covers every process's alias view of the region (its home
// pages at their offsets); the share window covers its HomeShare (the share
// words, the `seen` bytes, the probe word; memory/home_share.h). Both are
// created with MPI_Win_create over memory the region already maps, and both
// stay in one passive-target epoch (MPI_Win_lock_all) for the whole run.
//
// Whether a one-sided read is progressed without the target's CPU depends
// on the MPI library and the network: Open MPI's osc/rdma over shared memory
// (single-copy CMA) and over RDMA networks does; MPICH's ch3 and Open MPI's
// osc/pt2pt need the target to enter MPI, so a computing home would delay
// the reader as long as its message path would, or longer. probe() measures
// it: each process in turn stays out of MPI for up to `budget` while a
// neighbour reads from it and then writes its probe word; the check passes
// only if every such write arrived while the target was still away.
//
// Thread owner: created, probed and freed by the application thread at
// init and exit; get/put by the application thread only.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/status.h"

namespace scopedsm {

class RmaWindows {
 public:
  RmaWindows() = default;
  RmaWindows(const RmaWindows&) = delete;
  RmaWindows& operator=(const RmaWindows&) = delete;

  // Collective over `comm`. `pages` (`page_bytes`) and `share`
  // (`share_bytes`) stay mapped until free(). Fails, without leaving a
  // window behind, if any process cannot create either window.
  Status create(MPI_Comm comm, void* pages, uint64_t page_bytes, void* share, uint64_t share_bytes);

  // Collective: true if one-sided reads and writes completed in every tried
  // pair while their target stayed out of MPI (see above). `probe_word` is
  // this process's word at `probe_disp` of the share window.
  bool probe(std::atomic<uint32_t>* probe_word, uint64_t probe_disp, double budget_s);

  // Starts reading `n` bytes at `disp` of `target`'s page or share window
  // into `dst`; complete the request (MPI_Test or MPI_Wait) to have them.
  void get_page(void* dst, size_t n, int target, uint64_t disp, MPI_Request* req) const;
  void get_share(void* dst, size_t n, int target, uint64_t disp, MPI_Request* req) const;
  // Writes `n` bytes to `disp` of `target`'s share window and returns once
  // they are in the target's memory (MPI_Win_flush).
  void put_share_flushed(const void* src, size_t n, int target, uint64_t disp) const;

  // Collective: ends the epoch and frees both windows.
  void free();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Win pages_win_ = MPI_WIN_NULL;
  MPI_Win share_win_ = MPI_WIN_NULL;
};

}  // namespace scopedsm
