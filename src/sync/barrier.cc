#include "sync/barrier.h"

#include <cstdio>
#include <utility>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

Barrier::Barrier(const SyncParts& parts, PeerInbox* inbox, WaitReporter* waits)
    : p_(parts),
      stall_after_ns_(parts.timeout_s > 0 ? static_cast<uint64_t>(parts.timeout_s * 0.1e9) : 0),
      inbox_(inbox),
      waits_(waits) {}

int Barrier::rounds(int size) {
  int r = 0;
  while ((1 << r) < size) ++r;
  return r;
}

int Barrier::target(int rank, int size, int k) { return (rank + (1 << k)) % size; }

int Barrier::source(int rank, int size, int k) { return ((rank - (1 << k)) % size + size) % size; }

void Barrier::mismatch(int other, uint32_t other_call, const std::string& ours, uint32_t our_call) const {
  const Surface& s = *p_.surface;
  // This process is ending without shutting down, and `other` waits for it
  // in a barrier.
  if (is_implicit_exit(ours)) fatal("%s", exit_while_waited_error(s, "the process", other, s.barrier).c_str());
  if (other_call == our_call)
    fatal("mismatched collective calls: rank %d called %s but rank %d called %s; %s", other, s.barrier, p_.rank,
          ours.c_str(), same_collective_calls(s).c_str());
  fatal("mismatched collective calls: rank %d called %s as its collective call %u but rank %d is in %s as its call %u; "
        "%s",
        other, s.barrier, other_call + 1, p_.rank, ours.c_str(), our_call + 1, same_collective_calls(s).c_str());
}

void Barrier::watch(uint32_t call, const std::string& what) {
  inbox_->drain();
  for (int s = 0; s < p_.size; ++s) {
    for (PeerInbox::Round& e : inbox_->rounds_from(s)) {
      // Only the call number matters here; the notices are checked against
      // the allocated pages when the round is used (the sender may already
      // have made an allocation we have not finished).
      if (e.call < 0) e.call = decode_or_fatal<BarrierMsg>(e.in.bytes, s, Limits{uint64_t{1} << 32, p_.size}).call;
      if (e.call <= call) mismatch(s, static_cast<uint32_t>(e.call), what, call);
    }
  }
}

void Barrier::send_round(int to, BarrierMsg& out, uint32_t round) {
  Transport& t = *p_.transport;
  out.round = round;
  t.send(to, kTagPeer, encode(out, t.next_seq()));
}

void Barrier::take_round(ApiCall api, uint32_t epoch, uint32_t call, int from, uint32_t round, uint64_t start,
                         bool* stall_told, BarrierMsg* into, bool last) {
  Transport& t = *p_.transport;
  auto& queue = inbox_->rounds_from(from);
  char what[96];  // for a timeout report only: no allocation per round
  std::snprintf(what, sizeof what, "rank %d's round %u of barrier %u (BARR)", from, round, epoch);
  t.wait_until(
      WakeRole::kApp,
      [&] {
        inbox_->drain();
        if (!queue.empty()) return true;
        waits_->poll();
        if (stall_after_ns_ != 0 && !*stall_told && now_ns() - start >= stall_after_ns_) {
          t.send(0, kTagRequest, encode(BarrierStallMsg{epoch, now_ns() - start}, t.next_seq()));
          *stall_told = true;
        }
        return false;
      },
      what, from, /*watched=*/stall_after_ns_ != 0);
  Incoming in = std::move(queue.front().in);
  queue.pop_front();
  auto msg = decode_or_fatal<BarrierMsg>(in.bytes, from, p_.limits());
  if (msg.call != call) mismatch(from, msg.call, api.name, call);
  const bool their_central = msg.round >= kCentralUp, our_central = round >= kCentralUp;
  if (their_central != our_central)
    fatal("mismatched barriers: rank %d uses the %s barrier and rank %d the %s one; select the same on every process "
          "(SCOPEDSM_BARRIER, jia_config(BROADCAST, ...))",
          from, their_central ? "central" : "dissemination", p_.rank, our_central ? "central" : "dissemination");
  if (msg.epoch != epoch || msg.round != round)
    fatal("protocol error: rank %d sent round %u of barrier %u where round %u of barrier %u was due", from, msg.round,
          msg.epoch, round, epoch);
  if (!sorted_by_page(msg.notices))
    fatal("protocol error: rank %d's round %u of barrier %u has notices out of page order", from, round, epoch);
  if (into->broadcast.empty()) into->broadcast = std::move(msg.broadcast);
  // Negative controls: a round's notices are lost (tests must notice).
  if (p_.test_fault(TestFault::kSkipNotices)) return;
  if (last && p_.test_fault(TestFault::kSkipBarrierRound)) return;
  if (round == kCentralDown) {
    into->notices = std::move(msg.notices);  // rank 0's merge includes ours
  } else {
    merge_sorted(&into->notices, msg.notices, p_.test_fault(TestFault::kNextTouchStale));
  }
}

std::vector<WriteNotice> Barrier::run(ApiCall api, uint32_t epoch, uint32_t call, std::vector<WriteNotice> mine,
                                      bool central, std::vector<std::byte>* broadcast) {
  const uint64_t start = now_ns();
  bool stall_told = false;
  // What we send in each round: every notice we know so far, merged in
  // place, and rank 0's broadcast once we know it.
  BarrierMsg out{epoch, call, 0, std::move(mine), {}};
  if (p_.rank == 0 && broadcast != nullptr) {
    out.broadcast = *broadcast;
    // Negative control: the previous broadcast goes out again.
    if (p_.test_fault(TestFault::kStaleBroadcast)) {
      if (!last_broadcast_.empty()) std::swap(out.broadcast, last_broadcast_);
      last_broadcast_ = *broadcast;
    }
  }
  if (central) {
    if (p_.rank != 0) {
      send_round(0, out, kCentralUp);
      take_round(api, epoch, call, 0, kCentralDown, start, &stall_told, &out, true);
    } else {
      for (int s = 1; s < p_.size; ++s)
        take_round(api, epoch, call, s, kCentralUp, start, &stall_told, &out, s == p_.size - 1);
      for (int s = 1; s < p_.size; ++s) send_round(s, out, kCentralDown);
    }
  } else {
    const int n = rounds(p_.size);
    for (int k = 0; k < n; ++k) {
      const int to = target(p_.rank, p_.size, k), from = source(p_.rank, p_.size, k);
      send_round(to, out, static_cast<uint32_t>(k));
      take_round(api, epoch, call, from, static_cast<uint32_t>(k), start, &stall_told, &out, k == n - 1);
    }
  }
  if (broadcast != nullptr && p_.rank != 0) *broadcast = std::move(out.broadcast);
  return std::move(out.notices);
}

}  // namespace scopedsm
