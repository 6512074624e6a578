#include "sync/barrier.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
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

void Barrier::peek(int source, PeerInbox::Round* e) const {
  // Only the call and round numbers matter here; the notices are checked
  // against the allocated pages when the round is used (the sender may
  // already have made an allocation we have not finished).
  if (e->call >= 0) return;
  const BarrierMsg msg = decode_or_fatal<BarrierMsg>(e->in.bytes, source, Limits{uint64_t{1} << 32, p_.size});
  e->call = msg.call;
  e->round = msg.round;
}

void Barrier::watch(uint32_t call, const std::string& what) {
  // Our predecessor on the node's ring in a barrier as this call: it
  // waits for us (or we for it) there; some process in another call has a
  // barrier process before it on the ring, so this is seen at once.
  if (p_.meet != nullptr && p_.meet->active()) {
    const NodeMeet& m = *p_.meet;
    const size_t n = m.members().size(), pred = (m.local() + n - 1) % n;
    if ((m.head(pred).barrier_call.load(std::memory_order_acquire) >> 2) == uint64_t{call} + 1)
      mismatch(m.members()[pred], call, what, call);
  }
  inbox_->drain();
  for (int s = 0; s < p_.size; ++s) {
    for (PeerInbox::Round& e : inbox_->rounds_from(s)) {
      peek(s, &e);
      if (e.call <= call) mismatch(s, static_cast<uint32_t>(e.call), what, call);
    }
  }
}

BarrierForm Barrier::form_of_round(uint32_t round) {
  if (round >= kNodeRound) return BarrierForm::kNode;
  if (round >= kCentralUp) return BarrierForm::kCentral;
  return BarrierForm::kDissemination;
}

const char* Barrier::form_name(BarrierForm form) {
  switch (form) {
    case BarrierForm::kNode: return "node";
    case BarrierForm::kDissemination: return "dissemination";
    case BarrierForm::kCentral: return "central";
  }
  return "?";
}

void Barrier::forms_differ(int first, BarrierForm first_form, int second, BarrierForm second_form) const {
  fatal("mismatched barriers: rank %d uses the %s barrier and rank %d the %s one; select the same on every process "
        "(SCOPEDSM_BARRIER, jia_config(BROADCAST, ...))",
        first, form_name(first_form), second, form_name(second_form));
}

void Barrier::send_round(int to, BarrierMsg& out, uint32_t round) {
  Transport& t = *p_.transport;
  out.round = round;
  t.send(to, kTagPeer, encode(out, t.next_seq()));
}

void Barrier::between_polls(BarrierForm form, uint32_t call, uint32_t epoch, uint64_t start, bool* stall_told) {
  Transport& t = *p_.transport;
  inbox_->drain();
  if (form == BarrierForm::kNode) {
    // Only leaders send rounds in the node form, and only node-form ones;
    // a round of another form for this call is a process in another form.
    // (One for the next call is not: its sender may have left this barrier
    // and switched forms, jia_config(BROADCAST, ...).)
    if (inbox_->rounds_received() != rounds_checked_) {
      rounds_checked_ = inbox_->rounds_received();
      for (int s = 0; s < p_.size; ++s) {
        for (PeerInbox::Round& e : inbox_->rounds_from(s)) {
          peek(s, &e);
          if (e.call == call && form_of_round(e.round) != BarrierForm::kNode)
            forms_differ(s, form_of_round(e.round), p_.rank, form);
        }
      }
    }
  } else if (p_.meet != nullptr && p_.meet->active()) {
    const NodeMeet& m = *p_.meet;
    for (size_t i = 0; i < m.members().size(); ++i) {
      const uint64_t w = m.head(i).barrier_call.load(std::memory_order_acquire);
      if (i != m.local() && (w >> 2) == uint64_t{call} + 1 && static_cast<BarrierForm>(w & 3) != form)
        forms_differ(p_.rank, form, m.members()[i], static_cast<BarrierForm>(w & 3));
    }
  }
  waits_->poll();
  if (stall_after_ns_ != 0 && !*stall_told && now_ns() - start >= stall_after_ns_) {
    t.send(0, kTagRequest, encode(BarrierStallMsg{epoch, now_ns() - start}, t.next_seq()));
    *stall_told = true;
  }
}

void Barrier::take_round(ApiCall api, uint32_t epoch, uint32_t call, int from, uint32_t round, uint64_t start,
                         bool* stall_told, BarrierMsg* into, bool last) {
  Transport& t = *p_.transport;
  auto& queue = inbox_->rounds_from(from);
  char what[96];  // for a timeout report only: no allocation per round
  std::snprintf(what, sizeof what, "rank %d's round %u of barrier %u (BARR)", from, round, epoch);
  const BarrierForm ours = form_of_round(round);
  t.wait_until(
      WakeRole::kApp,
      [&] {
        inbox_->drain();
        if (!queue.empty()) return true;
        between_polls(ours, call, epoch, start, stall_told);
        return !queue.empty();
      },
      what, from, /*watched=*/stall_after_ns_ != 0);
  Incoming in = std::move(queue.front().in);
  queue.pop_front();
  auto msg = decode_or_fatal<BarrierMsg>(in.bytes, from, p_.limits());
  if (msg.call != call) mismatch(from, msg.call, api.name, call);
  if (form_of_round(msg.round) != ours) forms_differ(from, form_of_round(msg.round), p_.rank, ours);
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

void Barrier::rounds_among(ApiCall api, uint32_t epoch, uint32_t call, const std::vector<int>& group, uint32_t base,
                           uint64_t start, bool* stall_told, BarrierMsg* out) {
  const int n = static_cast<int>(group.size());
  const int me = static_cast<int>(std::lower_bound(group.begin(), group.end(), p_.rank) - group.begin());
  const int r = rounds(n);
  for (int k = 0; k < r; ++k) {
    const int to = group[static_cast<size_t>(target(me, n, k))], from = group[static_cast<size_t>(source(me, n, k))];
    send_round(to, *out, base + static_cast<uint32_t>(k));
    take_round(api, epoch, call, from, base + static_cast<uint32_t>(k), start, stall_told, out, k == r - 1);
  }
}

void Barrier::wait_node(const std::function<bool()>& ready, const char* what, int from, uint32_t epoch,
                        uint32_t call, uint64_t start, bool* stall_told) {
  // The checks between polls cost an MPI probe: a wait that ends within
  // microseconds (the common case on a node) makes none.
  uint64_t checked = now_ns();
  p_.transport->wait_until(
      WakeRole::kApp,
      [&] {
        // A short burst on the word before the waiter's own step (its MPI
        // progress and the service's idle work, ~0.2 µs each): a store by a
        // peer on another core is seen within nanoseconds.
        for (int i = 0; i < kBurstPolls; ++i) {
          if (ready()) return true;
          cpu_relax();
        }
        const uint64_t now = now_ns();
        if (now - checked < kChecksEveryNs) return false;
        checked = now;
        between_polls(BarrierForm::kNode, call, epoch, start, stall_told);
        return ready();
      },
      what, from, /*watched=*/stall_after_ns_ != 0);
}

void Barrier::gather_node(ApiCall api, uint32_t epoch, uint32_t call, uint64_t start, bool* stall_told,
                          BarrierMsg* out) {
  const NodeMeet& m = *p_.meet;
  const size_t peers = m.members().size();
  char what[96];
  for (size_t i = 1; i < peers; ++i) {
    NodeMeet::Head& h = m.head(i);
    const int from = m.members()[i];
    std::snprintf(what, sizeof what, "rank %d's arrival at barrier %u (on the node)", from, epoch);
    wait_node([&] { return h.arrived.load(std::memory_order_acquire) == epoch + 1; }, what, from, epoch, call, start,
              stall_told);
    if (h.call != call) mismatch(from, h.call, api.name, call);
    if (h.count > m.capacity())
      fatal("protocol error: rank %d's arrival at barrier %u names %" PRIu64 " notices, more than the %" PRIu64
            " pages of the region",
            from, epoch, h.count, m.capacity());
    // Negative controls: a node peer's notices are lost.
    if (p_.test_fault(TestFault::kSkipNotices)) continue;
    if (i == peers - 1 && p_.test_fault(TestFault::kSkipBarrierRound)) continue;
    m.read_notices(i, h.count, &theirs_);
    if (!sorted_by_page(theirs_))
      fatal("protocol error: rank %d's notices at barrier %u are out of page order", from, epoch);
    merge_sorted(&out->notices, theirs_, p_.test_fault(TestFault::kNextTouchStale));
  }
}

void Barrier::publish_node(uint32_t epoch, const BarrierMsg& out) {
  const NodeMeet& m = *p_.meet;
  NodeMeet::Head& h = m.own();
  if (out.notices.size() > m.capacity())
    fatal("internal error: barrier %u merged %zu notices, more than the %" PRIu64 " pages of the region", epoch,
          out.notices.size(), m.capacity());
  if (out.broadcast.size() > NodeMeet::kMaxBroadcast)
    fatal("internal error: a barrier broadcast of %zu bytes is more than the %zu a node's meeting place holds",
          out.broadcast.size(), NodeMeet::kMaxBroadcast);
  m.write_notices(out.notices);
  h.merged = out.notices.size();
  if (!out.broadcast.empty()) std::memcpy(m.broadcast_area(m.local()), out.broadcast.data(), out.broadcast.size());
  h.broadcast = out.broadcast.size();
  h.released.store(epoch + 1, std::memory_order_release);
  for (size_t i = 1; i < m.members().size(); ++i) p_.transport->wakeup().notify(m.members()[i], WakeRole::kApp);
}

void Barrier::meet_leader(ApiCall api, uint32_t epoch, uint32_t call, uint64_t start, bool* stall_told,
                          BarrierMsg* out) {
  const NodeMeet& m = *p_.meet;
  if (m.is_leader()) {
    if (m.active()) gather_node(api, epoch, call, start, stall_told, out);
    rounds_among(api, epoch, call, m.leaders(), kNodeRound, start, stall_told, out);
    if (m.active()) publish_node(epoch, *out);
    return;
  }
  // A peer: hand in our notices, then take the leader's merge.
  NodeMeet::Head& mine = m.own();
  m.write_notices(out->notices);
  mine.call = call;
  mine.count = out->notices.size();
  mine.arrived.store(epoch + 1, std::memory_order_release);
  p_.transport->wakeup().notify(m.leader(), WakeRole::kApp);
  NodeMeet::Head& lead = m.head(0);
  char what[96];
  std::snprintf(what, sizeof what, "the end of barrier %u from rank %d, the node's leader", epoch, m.leader());
  wait_node([&] { return lead.released.load(std::memory_order_acquire) == epoch + 1; }, what, m.leader(), epoch,
            call, start, stall_told);
  if (lead.merged > m.capacity())
    fatal("protocol error: rank %d's merge of barrier %u names %" PRIu64 " notices, more than the %" PRIu64
          " pages of the region",
          m.leader(), epoch, lead.merged, m.capacity());
  if (lead.broadcast > NodeMeet::kMaxBroadcast)
    fatal("protocol error: rank %d's broadcast with barrier %u is %" PRIu64 " bytes", m.leader(), epoch,
          lead.broadcast);
  const std::byte* b = m.broadcast_area(0);
  out->broadcast.assign(b, b + lead.broadcast);
  // Negative controls: the merge the leader hands out is lost.
  if (p_.test_fault(TestFault::kSkipNotices) || p_.test_fault(TestFault::kSkipBarrierRound)) return;
  m.read_notices(0, lead.merged, &out->notices);
  if (!sorted_by_page(out->notices))
    fatal("protocol error: rank %d's merge of barrier %u is out of page order", m.leader(), epoch);
}

std::vector<WriteNotice> Barrier::run(ApiCall api, uint32_t epoch, uint32_t call, std::vector<WriteNotice> mine,
                                      BarrierForm form, std::vector<std::byte>* broadcast) {
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
  NodeMeet* meet = p_.meet != nullptr && p_.meet->active() ? p_.meet : nullptr;
  // Node peers see which barrier we are in (checks, above).
  if (meet != nullptr) meet->own().barrier_call.store(NodeMeet::barrier_word(call, form), std::memory_order_release);
  if (form == BarrierForm::kCentral) {
    if (p_.rank != 0) {
      send_round(0, out, kCentralUp);
      take_round(api, epoch, call, 0, kCentralDown, start, &stall_told, &out, true);
    } else {
      for (int s = 1; s < p_.size; ++s)
        take_round(api, epoch, call, s, kCentralUp, start, &stall_told, &out, s == p_.size - 1);
      for (int s = 1; s < p_.size; ++s) send_round(s, out, kCentralDown);
    }
  } else if (form == BarrierForm::kNode && p_.meet != nullptr && !p_.meet->leaders().empty()) {
    meet_leader(api, epoch, call, start, &stall_told, &out);
  } else {
    if (all_ranks_.size() != static_cast<size_t>(p_.size)) {
      all_ranks_.resize(static_cast<size_t>(p_.size));
      for (int r = 0; r < p_.size; ++r) all_ranks_[static_cast<size_t>(r)] = r;
    }
    // (The node form without a meeting place, as in unit tests, is this
    // one, numbered as the node form's rounds.)
    rounds_among(api, epoch, call, all_ranks_, form == BarrierForm::kNode ? kNodeRound : 0, start, &stall_told, &out);
  }
  if (meet != nullptr) meet->own().barrier_call.store(0, std::memory_order_release);
  if (broadcast != nullptr && p_.rank != 0) *broadcast = std::move(out.broadcast);
  return std::move(out.notices);
}

}  // namespace scopedsm
