// The service thread: receives every request addressed to this process and
// hands it to the server for its type (pages and diffs, locks, barriers,
// condition variables). It never waits for another process, so requests
// are served whatever the application thread is doing, and nothing it does
// can take part in a wait cycle (docs/PROTOCOL.md, "Deadlock freedom").
//
// It polls for a spin window after the last message, then sleeps on its
// wake-up word; senders on the same node wake it.
//
// The application thread also serves, whenever it waits for a reply
// (serve_pending): on a machine with few cores the service thread may be
// asleep or descheduled exactly when a peer needs an answer, while the
// application thread is awake and idle. The two never serve at once.
#pragma once

#include <atomic>
#include <thread>

#include "common/thread_annotations.h"
#include "memory/page_table.h"
#include "memory/region.h"
#include "protocol/home_server.h"
#include "stats/stats.h"
#include "transport/peer_watch.h"
#include "sync/parts.h"
#include "sync/condvar_manager.h"
#include "sync/deadlock_watch.h"
#include "sync/lock_manager.h"
#include "sync/rendezvous.h"
#include "sync/sync_client.h"

namespace scopedsm {

class Service {
 public:
  // `parts.timeout_s` (SCOPEDSM_TIMEOUT; 0, the default: no limit) bounds
  // how long synchronization may stall before the managers report it;
  // `spin_us` (SCOPEDSM_SPIN_US) how long the service thread polls after
  // its last request. `wvec`: the home's write vectors
  // (memory/write_vectors.h).
  Service(const SyncParts& parts, Region* region, const PageTable* pages, ServiceCounters* stats, uint64_t spin_us,
          WriteVectors* wvec);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Starts the service thread. `slice_ns` > 0 (SCOPEDSM_SERVICE_SLICE_US):
  // it asks the kernel for that time slice (common/thread_slice.h), so that
  // a request may wake it ahead of a computing thread; a refusal is logged.
  void start(uint64_t slice_ns = 0);
  // Returns once every process has sent this one its shutdown message.
  void join();

  // Serves every request that has arrived, unless the other thread is
  // serving right now. Returns true if it served anything. Called by the
  // application thread while it waits (the service thread serves in run()).
  bool serve_pending();

  // With a SCOPEDSM_TIMEOUT limit, reports synchronization that stalls (a
  // barrier missing ranks, a lock never released), naming who is missing,
  // which the waiters themselves cannot: a warning at 80% of the limit, the
  // fatal error at it. (Deadlocks are found without a limit, by the
  // DeadlockWatch, as its messages arrive.)
  void check_stalls();

  // Ends the job when a process of it on this machine has died and its
  // launcher has not ended the job within kPeerDeathGraceNs
  // (transport/peer_watch.h). Set before start(); `peers` outlives the
  // service.
  void watch_peers(PeerWatch* peers) { peers_ = peers; }
  static constexpr uint64_t kPeerDeathGraceNs = 3'000'000'000;

  // For the application thread's direct use of the locks and the home
  // server here (SyncClient::ServeHere): the lock manager, the home server
  // and the mutex whichever thread serves holds, which guards them.
  SyncClient::ServeHere serve_here() { return {&serve_mu_, &locks_, &home_}; }
  // Test-only (scopedsm_test_hold_requests): while held, neither thread
  // serves; requests wait in MPI until the hold ends.
  void hold(bool on) { held_.store(on, std::memory_order_release); }

 private:
  void run();
  // Decodes a request with the message table's decoder for its type and
  // hands it to the server whose on() takes it (service.cc checks at
  // compile time that exactly one does). Returns the request's type.
  MsgType dispatch(const Incoming& in) REQUIRES(serve_mu_);
  // serve_pending on thread `who` (named in the trace).
  bool serve_pending_as(TraceThread who);
  template <typename M>
  void serve(const Incoming& in, Reader* r) REQUIRES(serve_mu_);
  bool finished() const { return shutdowns_.load(std::memory_order_acquire) >= p_.size; }

  const SyncParts p_;
  ServiceCounters* const stats_;
  const uint64_t spin_us_;
  // Held by whichever thread is serving; the servers are used only under it.
  Mutex serve_mu_;
  HomeServer home_ GUARDED_BY(serve_mu_);
  LockManager locks_ GUARDED_BY(serve_mu_);
  RendezvousManager rendezvous_ GUARDED_BY(serve_mu_);
  CondvarManager condvars_ GUARDED_BY(serve_mu_);
  DeadlockWatch deadlocks_ GUARDED_BY(serve_mu_);
  std::thread thread_;
  std::atomic<int> shutdowns_{0};
  std::atomic<bool> held_{false};  // hold(); set and cleared by the application thread
  uint64_t next_stall_check_ns_ = 0;
  PeerWatch* peers_ = nullptr;  // service thread (finished(): any thread, atomic)
  uint64_t next_peer_check_ns_ = 0;
  // The service thread, at most four times a second: a dead peer's report.
  void check_peers(uint64_t now);
};

}  // namespace scopedsm
