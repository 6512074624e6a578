// DOALL loops over the shared space: the processes ask for chunks of a
// loop's iterations until none are left (scopedsm_loop_init/next,
// scopedsm::parallel_for, jia_settask/jia_gettask), under one of the
// schedules of sched/schedule.h.
//
// Where the queue lives (allocated at the first loop, collectively):
//   * the central page(s), homed at rank 0: the central queue of SS, BSS,
//     GSS, FS, TSS and SSS, and ABS's p segments, all under one reserved
//     lock (common/limits.h). A grab is one critical section: one
//     synchronization, and the queue page's fetch when another process
//     wrote it since (0 or 2 messages, the dissertation's Tab 5.2), for a
//     steal as for a local grab.
//   * one page per process, homed there, for AFS and AAFS: process r's
//     local queue under a reserved lock homed at r. A local grab is one
//     synchronization with no message; a steal reads every other queue
//     under its lock to find the most loaded (p - 1 synchronizations) and
//     takes from it (one more); AAFS reads every queue's count before each
//     local grab too (Tab 5.2: p + 1).
// Static takes no lock: each process computes its block.
//
// Starting a loop is collective: a checked rendezvous (every process must
// pass the same bounds, schedule and data), rank 0 writes the queue, and a
// barrier makes it visible. Everyone has finished the previous loop by the
// rendezvous, so one queue serves every loop.
//
// Thread owner: the application thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/surface.h"
#include "sched/schedule.h"

namespace scopedsm {

class Runtime;

class LoopScheduler {
 public:
  explicit LoopScheduler(Runtime* rt) : rt_(rt) {}

  // Collective. [begin, end) (empty when end <= begin); `schedule` as
  // sched/schedule.h parses it, or null for SCOPEDSM_SCHEDULE. `data`, if
  // not null, is the address of iteration `begin`'s data, and iteration i's
  // is `stride` bytes further per iteration: AFS, AAFS and ABS give each
  // process the iterations whose data it homes.
  void start(ApiCall call, int64_t begin, int64_t end, const char* schedule, const void* data, size_t stride);
  // The next chunk for this process; false (and an empty chunk) when none
  // is left. Reports a call before any start.
  bool next(ApiCall call, Chunk* out);

 private:
  void allocate(ApiCall call);
  int queue_lock(int rank) const;  // the reserved lock of rank's AFS/AAFS queue, homed at rank
  int central_lock() const { return size_; }
  Segment* own_queue(int rank) const;
  // The central page: the central queue, then ABS's `size` segments.
  CentralQueue* queue() const;
  Segment* segments() const;
  bool no_steal() const;  // SCOPEDSM_TEST_FAULT=no-steal
  bool grab(ApiCall call, Chunk* out);
  bool grab_central(ApiCall call, Chunk* out);
  bool grab_abs(ApiCall call, Chunk* out);
  bool grab_distributed(ApiCall call, Chunk* out);
  void lock(ApiCall call, int index);
  void unlock(ApiCall call, int index);

  Runtime* const rt_;
  int rank_ = 0, size_ = 1;
  std::byte* central_ = nullptr;    // shared
  std::byte* queues_ = nullptr;     // shared: one page per process
  size_t page_ = 0;
  bool started_ = false;
  bool static_taken_ = false;
  Schedule schedule_;
  int64_t begin_ = 0, end_ = 0;
};

}  // namespace scopedsm
