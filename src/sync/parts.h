// What the synchronization modules work with, passed in explicitly.
//
// The runtime owns every part and keeps it alive as long as the modules.
// Identity is constant after start-up, and so is the configuration but for
// the switches jia_config sets (config below); the transport and
// the page table are thread-safe where these modules use them (sending,
// and reading how many pages are allocated).
#pragma once

#include <atomic>
#include <cstdint>

#include "common/config.h"
#include "common/surface.h"
#include "memory/page_table.h"
#include "protocol/messages.h"
#include "sync/node_meet.h"
#include "transport/transport.h"

namespace scopedsm {

struct SyncParts {
  int rank = 0;
  int size = 1;
  uint64_t test_faults = 0;  // TestFault bits (negative controls only)
  double timeout_s = 0;      // SCOPEDSM_TIMEOUT; 0: waits are unbounded
  Transport* transport = nullptr;
  const PageTable* pages = nullptr;
  std::atomic<uint32_t>* barriers_done = nullptr;  // barriers this process has completed
  // Set from a barrier's start until the homes it moves are in place and
  // the requests it deferred served (HomeServer, docs/PROTOCOL.md §6a).
  std::atomic<bool>* in_barrier = nullptr;
  // The process's surface: the rendezvous manager names the calls of other
  // processes in its words (an SPMD program makes the same calls everywhere).
  const Surface* surface = &kCSurface;
  int locks = kMaxLocks;  // lock ids are 0 .. locks - 1 (SCOPEDSM_LOCKS)
  // Start-up values of two switches (the client may change them at run
  // time): SCOPEDSM_LOCK_INCARNATIONS and SCOPEDSM_BARRIER.
  bool lock_incarnations = true;
  BarrierForm barrier_form = BarrierForm::kDissemination;
  // The node's meeting place in shared memory (the barrier's node form);
  // null where the node's processes do not share memory.
  NodeMeet* meet = nullptr;
  // The synchronization wait the application thread is in (its number, from
  // 1; 0: none): written by it (WaitReporter), read by the service thread to
  // answer the deadlock detector's probes (sync/deadlock_watch.h).
  std::atomic<uint64_t>* wait_seq = nullptr;
  // The runtime's settings, read in place: a new setting is read from here,
  // with no field above and no copy (docs/ARCHITECTURE.md, "How to add a
  // setting"). jia_config switches some of them on the application thread,
  // so the service thread reads only those that stay as start-up set them.
  const Config* config = nullptr;

  // What a well-formed message may name, right now.
  Limits limits() const { return Limits{pages->allocated(), size, locks + kReservedLocks}; }
  bool test_fault(TestFault f) const { return (test_faults & static_cast<uint64_t>(f)) != 0; }
};

}  // namespace scopedsm
