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
// Node (SCOPEDSM_BARRIER=node; not yet the default: across hosts it has a
// slow mode not yet understood): the processes of a node meet
// in shared memory (sync/node_meet.h): each hands its notices to the node's
// leader, its lowest rank, with no message; the leaders run the rounds
// above among themselves (rounds kNodeRound + k), carrying their nodes'
// merged notices; each leader then hands the merge to its node's
// processes. One node: no message at all. A process whose node shares no
// memory is its own node's leader. A process in another collective call
// or another barrier form is found as the other forms find it: by rounds
// reaching it, and on a node by reading the node's `barrier_call` words —
// a process in a checked collective call reads its predecessor's on the
// node's ring (the ring argument above, within the node), and a process in
// the dissemination or central form reads every node peer's. The leader
// compares its peers' call numbers as a round's are compared.
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
#include <functional>
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
                               BarrierForm form = BarrierForm::kDissemination, std::vector<std::byte>* broadcast = nullptr);

  // The round numbers of the central form (dissemination rounds are below
  // 32), and the first of the node form's rounds between leaders.
  static constexpr uint32_t kCentralUp = 1000;
  static constexpr uint32_t kCentralDown = 1001;
  static constexpr uint32_t kNodeRound = 2000;
  // How often a node-form wait files peer messages and runs its checks.
  static constexpr uint64_t kChecksEveryNs = 20000;
  // Polls of the meeting word between two steps of the waiter (a PAUSE
  // apart: about 0.5 µs in all).
  static constexpr int kBurstPolls = 20;
  static BarrierForm form_of_round(uint32_t round);
  static const char* form_name(BarrierForm form);

  // While this process waits in collective call number `call`, described by
  // `what` (the surface's wait, an allocation, its finalize): takes the barrier rounds
  // that have arrived and reports a mismatch if one is for call `call` or
  // an earlier one. Every round waiting in the inbox is compared at every
  // such wait: one that arrived during an earlier wait, for a call after
  // that one, may be the mismatch of this one.
  void watch(uint32_t call, const std::string& what);

 private:
  void mismatch(int other, uint32_t other_call, const std::string& ours, uint32_t our_call) const;
  // Reads a queued round's call and round numbers into it, once.
  void peek(int source, PeerInbox::Round* e) const;
  [[noreturn]] void forms_differ(int first, BarrierForm first_form, int second, BarrierForm second_form) const;
  // The dissemination rounds among `group` (ascending ranks, ours among
  // them), numbered from `base`.
  void rounds_among(ApiCall api, uint32_t epoch, uint32_t call, const std::vector<int>& group, uint32_t base,
                    uint64_t start, bool* stall_told, BarrierMsg* out);
  // The node form's two halves: the leader gathers its peers' notices and
  // hands out the merge; a peer hands in its notices and takes the merge.
  void gather_node(ApiCall api, uint32_t epoch, uint32_t call, uint64_t start, bool* stall_told, BarrierMsg* out);
  void publish_node(uint32_t epoch, const BarrierMsg& out);
  void meet_leader(ApiCall api, uint32_t epoch, uint32_t call, uint64_t start, bool* stall_told, BarrierMsg* out);
  // Waits in the node form until `ready`, as take_round waits for a round.
  void wait_node(const std::function<bool()>& ready, const char* what, int from, uint32_t epoch, uint32_t call,
                 uint64_t start, bool* stall_told);
  // What every barrier wait does between polls: file peer messages, feed
  // the deadlock detector, tell rank 0 of a stall; and find a process of
  // another barrier form (rounds of another form reaching a node-form
  // process; node peers of another form, seen by the other forms).
  void between_polls(BarrierForm form, uint32_t call, uint32_t epoch, uint64_t start, bool* stall_told);
  // Sends `out` as round `round` to `to`.
  void send_round(int to, BarrierMsg& out, uint32_t round);
  // Waits for the next round from `from`, checks it is round `round` of
  // barrier `epoch` and call `call`, and merges its notices into `into`'s
  // (and takes its broadcast if `into` has none yet).
  void take_round(ApiCall api, uint32_t epoch, uint32_t call, int from, uint32_t round, uint64_t start,
                  bool* stall_told, BarrierMsg* into, bool last);

  const SyncParts p_;
  uint64_t rounds_checked_ = 0;  // PeerInbox::rounds_received() when the rounds' forms were last checked
  std::vector<WriteNotice> theirs_;  // a node peer's notices, read out of its slot
  std::vector<int> all_ranks_;       // 0 .. size - 1: the dissemination form's group
  std::vector<std::byte> last_broadcast_;  // rank 0, test fault stale-broadcast only
  const uint64_t stall_after_ns_;  // when a waiting process tells rank 0 (0: never)
  PeerInbox* const inbox_;
  WaitReporter* const waits_;
};

}  // namespace scopedsm
