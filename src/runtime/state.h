// RuntimeState: the parts of one process's runtime, wired together.
//
// Each module (coherence engine, synchronization client, request servers)
// holds a pointer to this and uses only the parts its job needs. Ownership
// of fields between the two threads:
//   application thread: stack, epoch, coherence state in `pages` (except the
//                       atomics), cache, app counters
//   service thread:     the managers' tables, service counters
//   both, thread-safe:  transport, node, region views, pages[].home,
//                       the HomeShare in the region (atomics)
//   constant after init: rank, size, node, and config, except the four
//                       switches jia_config sets on the application thread
//                       (HMIG, ADWD, BROADCAST, WVEC)
#pragma once

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "common/config.h"
#include "common/limits.h"
#include "common/surface.h"
#include "memory/page_cache.h"
#include "memory/page_table.h"
#include "memory/write_vectors.h"
#include "memory/region.h"
#include "protocol/messages.h"
#include "sync/parts.h"
#include "stats/stats.h"
#include "protocol/lock_stack.h"
#include "sync/node_meet.h"
#include "transport/node.h"
#include "transport/peer_watch.h"
#include "transport/rma.h"
#include "transport/transport.h"

namespace scopedsm {

struct RuntimeState {
  Config config;
  // The surface the program initialized through (common/surface.h).
  const Surface* surface = &kCSurface;
  int rank = 0;
  int size = 1;
  NodeTopology node;
  NodeMeet meet;  // the node's meeting place for barriers (sync/node_meet.h)
  PeerWatch peers;  // the job's processes on this machine, watched for deaths (service thread)
  Transport transport;
  RmaWindows rma;  // active only when pages homed on other nodes are read one-sided
  Region region;
  PageTable pages;
  WriteVectors wvec;  // the home's write vectors (WVEC)
  bool wvec_tracking_ok = false;  // no node peers map our memory: the home may track write vectors
  PageCache cache;
  LockStack stack{&pages};
  Stats stats;
  std::atomic<uint32_t> barriers_done{0};  // written by the application thread, read by the service thread
  std::atomic<bool> in_barrier{false};     // likewise: the application thread is completing a barrier
  std::atomic<uint64_t> wait_seq{0};       // likewise: the synchronization wait it is in (sync/parts.h)

  // The parts the synchronization modules and the service work with.
  SyncParts sync_parts() {
    return SyncParts{rank,      size,   config.test_faults, config.timeout_s, &transport, &pages, &barriers_done,
                     &in_barrier, surface,      config.locks, config.lock_incarnations, config.barrier_form,
                     &meet,       &wait_seq,   &config};
  }
};

}  // namespace scopedsm
