// The barrier: a dissemination barrier whose rounds carry and merge write
// notices (docs/PROTOCOL.md §4, "jia_barrier").
//
// With N processes there are R = ceil(log2 N) rounds. In round k rank r
// sends BARR to rank (r + 2^k) mod N with the merge of every notice it
// knows (its own since the last barrier, and what rounds 0..k-1 brought),
// then waits for BARR from rank (r - 2^k) mod N and merges that in. After
// round k a rank knows the notices of the 2^(k+1) ranks r, r-1, ...; after
// the last it knows everybody's, and everybody has arrived. Merging is
// idempotent (a page's writer, or kMultipleWriters), so the overlap of the
// last round when N is not a power of two changes nothing. Each process
// sends R messages and receives R, and no rank does more than the others.
//
// The rounds travel between application threads (kTagPeer): everyone is in
// the barrier, so nobody's service thread takes part and nothing is handed
// from thread to thread. A rank receives exactly one BARR per barrier from
// each of its R sources, in order (MPI keeps one sender's messages in
// order), so a round is identified by its source. Rounds are taken as they
// arrive and queue per source until used: a sender may already be in the
// next barrier (or we in another collective call) — never further ahead,
// since nobody finishes a barrier before everybody has arrived.
//
// Checks: every BARR names the sender's barrier epoch and the number of
// collective calls it made before (`call`). A process waiting in jia_wait
// or a checked collective call watches for BARR (watch()): one with its own
// call number means the sender is in a barrier where it is not, which is
// reported with both calls and ends the job. Some process in another call
// always has a barrier process just before it (the ring closes), and a
// barrier's first round goes out at arrival, so a mismatch is seen at once.
// With a SCOPEDSM_TIMEOUT limit, a process that waits in the barrier for a
// tenth of it tells rank 0 (BARRSTALL), whose rendezvous manager names the
// ranks that never arrive (RendezvousManager::check_stalls). With or
// without a limit, a wait of a second is reported to the deadlock detector
// (sync/deadlock_watch.h).
//
// Central (SCOPEDSM_BARRIER=central, jia_config(BROADCAST, OFF)): JIAJIA's
// barrier without its BROADCAST option, kept so that its configuration can
// be measured. Every other rank sends rank 0 its notices (BARR round
// kCentralUp); rank 0 merges them with its own and sends the merge to each
// (round kCentralDown). 2(N-1) messages, all through rank 0, two message
// latencies plus rank 0's N-1 sends on the critical path. A process in
// another collective call is found only by rank 0 (it gets the rounds), or
// by the stall report at the timeout.
//
// Thread owner: the application thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/surface.h"
#include "protocol/messages.h"
#include "sync/deadlock_watch.h"
#include "sync/parts.h"
#include "sync/peer_inbox.h"

namespace scopedsm {

class Barrier {
 public:
  // Rounds arrive through `inbox`; a long wait is reported through `waits`
  // (the caller opens its scope around run()). Both must outlive the barrier.
  Barrier(const SyncParts& parts, PeerInbox* inbox, WaitReporter* waits);

  // ceil(log2 size): the rounds of a barrier of `size` processes.
  static int rounds(int size);
  // The rank that process `rank` sends to in round `k`, and the one it hears from.
  static int target(int rank, int size, int k);
  static int source(int rank, int size, int k);

  // Runs barrier `epoch`, which is this process's collective call number
  // `call` (`api`, named in mismatch reports), contributing `mine` (sorted
  // by page, one notice per page). Returns the merge of every process's
  // notices, sorted by page.
  // `central`: the central form (rank 0 gathers and answers).
  // `broadcast` (optional): rank 0's bytes for everyone, carried by the
  // rounds as the notices are (a rank forwards them once it knows them,
  // whether it passed `broadcast` or not), so a process leaves the barrier
  // with them at no extra message. In at rank 0 (non-empty: empty means
  // none), out at the others (empty if rank 0 passed none).
  std::vector<WriteNotice> run(ApiCall api, uint32_t epoch, uint32_t call, std::vector<WriteNotice> mine,
                               bool central = false, std::vector<std::byte>* broadcast = nullptr);

  // The round numbers of the central form (dissemination rounds are below 32).
  static constexpr uint32_t kCentralUp = 1000;
  static constexpr uint32_t kCentralDown = 1001;

  // While this process waits in collective call number `call`, described by
  // `what` (the surface's wait, an allocation, its finalize): takes the barrier rounds
  // that have arrived and reports a mismatch if one is for call `call` or
  // an earlier one. Every round waiting in the inbox is compared at every
  // such wait: one that arrived during an earlier wait, for a call after
  // that one, may be the mismatch of this one.
  void watch(uint32_t call, const std::string& what);

 private:
  void mismatch(int other, uint32_t other_call, const std::string& ours, uint32_t our_call) const;
  // Sends `out` as round `round` to `to`.
  void send_round(int to, BarrierMsg& out, uint32_t round);
  // Waits for the next round from `from`, checks it is round `round` of
  // barrier `epoch` and call `call`, and merges its notices into `into`'s
  // (and takes its broadcast if `into` has none yet).
  void take_round(ApiCall api, uint32_t epoch, uint32_t call, int from, uint32_t round, uint64_t start,
                  bool* stall_told, BarrierMsg* into, bool last);

  const SyncParts p_;
  std::vector<std::byte> last_broadcast_;  // rank 0, test fault stale-broadcast only
  const uint64_t stall_after_ns_;  // when a waiting process tells rank 0 (0: never)
  PeerInbox* const inbox_;
  WaitReporter* const waits_;
};

}  // namespace scopedsm
