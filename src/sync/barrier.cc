#include "sync/barrier.h"

#include <cstdio>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

Barrier::Barrier(const SyncParts& parts, PeerInbox* inbox)
    : p_(parts),
      stall_after_ns_(parts.timeout_s > 0 ? static_cast<uint64_t>(parts.timeout_s * 0.1e9) : 0),
      inbox_(inbox) {}

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
      if (e.watched) continue;
      e.watched = true;
    // Only the call number matters here; the notices are checked against
    // the allocated pages when the round is used (the sender may already
    // have made an allocation we have not finished).
      const auto msg = decode_or_fatal<BarrierMsg>(e.in.bytes, s, Limits{uint64_t{1} << 32, p_.size});
      if (msg.call <= call) mismatch(s, msg.call, what, call);
    }
  }
}

std::vector<WriteNotice> Barrier::run(ApiCall api, uint32_t epoch, uint32_t call, std::vector<WriteNotice> mine) {
  Transport& t = *p_.transport;
  const int n = rounds(p_.size);
  const uint64_t start = now_ns();
  bool stall_told = false;
  // What we send in each round: every notice we know so far, merged in place.
  BarrierMsg out{epoch, call, 0, std::move(mine)};
  for (int k = 0; k < n; ++k) {
    const int to = target(p_.rank, p_.size, k), from = source(p_.rank, p_.size, k);
    out.round = static_cast<uint32_t>(k);
    t.send(to, kTagPeer, encode(out, t.next_seq()));
    auto& queue = inbox_->rounds_from(from);
    char what[96];  // for a timeout report only: no allocation per round
    std::snprintf(what, sizeof what, "rank %d's round %d of barrier %u (BARR)", from, k, epoch);
    t.wait_until(
        WakeRole::kApp,
        [&] {
          inbox_->drain();
          if (!queue.empty()) return true;
          if (stall_after_ns_ != 0 && !stall_told && now_ns() - start >= stall_after_ns_) {
            t.send(0, kTagRequest, encode(BarrierStallMsg{epoch, now_ns() - start}, t.next_seq()));
            stall_told = true;
          }
          return false;
        },
        what, from, /*watched=*/stall_after_ns_ != 0);
    Incoming in = std::move(queue.front().in);
    queue.pop_front();
    const auto msg = decode_or_fatal<BarrierMsg>(in.bytes, from, p_.limits());
    if (msg.call != call) mismatch(from, msg.call, api.name, call);
    if (msg.epoch != epoch || msg.round != static_cast<uint32_t>(k))
      fatal("protocol error: rank %d sent round %u of barrier %u where round %d of barrier %u was due", from,
            msg.round, msg.epoch, k, epoch);
    if (!sorted_by_page(msg.notices))
      fatal("protocol error: rank %d's round %d of barrier %u has notices out of page order", from, k, epoch);
    // Negative controls: a round's notices are lost (tests must notice).
    if (p_.test_fault(TestFault::kSkipNotices)) continue;
    if (k == n - 1 && p_.test_fault(TestFault::kSkipBarrierRound)) continue;
    merge_sorted(&out.notices, msg.notices);
  }
  return std::move(out.notices);
}

}  // namespace scopedsm
