#include "sync/rendezvous.h"

#include <algorithm>

#include "common/clock.h"
#include "common/log.h"
#include "protocol/messages.h"

namespace scopedsm {

void RendezvousManager::arrive(int rank, RendezvousKind kind, const std::string& call) {
  if (arrived_ == 0) {
    kind_ = kind;
    call_ = call;
    first_rank_ = rank;
    first_arrival_ns_ = now_ns();
    warned_ = false;
    arrived_from_.assign(static_cast<size_t>(p_.size), false);
    blobs_.assign(static_cast<size_t>(p_.size), {});
  } else if (kind != kind_ || !same_collective_call(call, call_)) {
    // A process that ended without shutting down, while another waits for
    // it in a different call: the ending is the mistake, not the call.
    if (is_implicit_exit(call))
      fatal("%s", exit_while_waited_error(*p_.surface, "rank " + std::to_string(rank), first_rank_, call_).c_str());
    if (is_implicit_exit(call_))
      fatal("%s", exit_while_waited_error(*p_.surface, "rank " + std::to_string(first_rank_), rank, call).c_str());
    fatal("mismatched collective calls: rank %d called %s but rank %d called %s; %s", first_rank_, call_.c_str(), rank,
          call.c_str(), same_collective_calls(*p_.surface).c_str());
  }
  arrived_from_[static_cast<size_t>(rank)] = true;
  ++arrived_;
}

namespace {

// "rank 3" or "ranks 1, 2" for the ranks whose `flags` are `value`; `count`: how many.
std::string ranks_where(const std::vector<bool>& flags, bool value, size_t* count) {
  std::string list;
  *count = 0;
  for (size_t r = 0; r < flags.size(); ++r) {
    if (flags[r] != value) continue;
    list += (*count == 0 ? "" : ", ") + std::to_string(r);
    ++*count;
  }
  return (*count == 1 ? "rank " : "ranks ") + list;
}

// Warns about, or (`v` is kFatal) ends the job for, `call` in which the
// ranks in `arrived` have waited `waited_ns` for the others: "jia_barrier:
// ranks 1, 2 have waited 2.4 s of the 3 s limit (SCOPEDSM_TIMEOUT) for rank
// 0, which has not arrived". (Printed by rank 0, which hosts the manager,
// whether or not it is among either.)
void report_stall(const char* call, uint64_t waited_ns, const std::vector<bool>& arrived, const StallLimit& stall,
                  StallLimit::Verdict v) {
  size_t waiting = 0, missing = 0;
  const std::string waiters = ranks_where(arrived, true, &waiting);
  const std::string awaited = ranks_where(arrived, false, &missing);
  const std::string waited = stall.waited(waited_ns, v, waiting > 1);
  if (missing == 0) {
    // Every rank says it waits, and yet the call has not completed.
    if (v == StallLimit::kWarn) {
      SCOPEDSM_LOG(LogLevel::kWarn, "%s: %s %s, every process having arrived; %s unless it completes", call,
                   waiters.c_str(), waited.c_str(), stall.ends().c_str());
      return;
    }
    fatal("%s timed out: %s %s, every process having arrived, but it has not completed; are those processes alive "
          "and making the same collective calls?",
          call, waiters.c_str(), waited.c_str());
  }
  const bool several = missing > 1;
  if (v == StallLimit::kWarn) {
    SCOPEDSM_LOG(LogLevel::kWarn, "%s: %s %s for %s, which %s not arrived; %s unless %s", call, waiters.c_str(),
                 waited.c_str(), awaited.c_str(), several ? "have" : "has", stall.ends().c_str(),
                 several ? "they arrive" : "it arrives");
    return;
  }
  fatal("%s timed out: %s %s for %s, which %s not arrived; %s alive and making the same collective calls?", call,
        waiters.c_str(), waited.c_str(), awaited.c_str(), several ? "have" : "has",
        several ? "are those processes" : "is that process");
}

}  // namespace

void RendezvousManager::check_stalls(uint64_t now, const StallLimit& stall) {
  if (arrived_ != 0) {
    const uint64_t age = StallLimit::age(now, first_arrival_ns_);
    const StallLimit::Verdict v = stall.judge(age, &warned_);
    if (v != StallLimit::kQuiet) report_stall(call_.c_str(), age, arrived_from_, stall, v);
  }
  // A barrier this process has completed was complete for everybody.
  if (!stalled_.empty() && stalled_epoch_ >= p_.barriers_done->load(std::memory_order_acquire)) {
    const uint64_t age = StallLimit::age(now, stalled_since_ns_);
    const StallLimit::Verdict v = stall.judge(age, &stall_warned_);
    if (v != StallLimit::kQuiet) report_stall(p_.surface->barrier, age, stalled_, stall, v);
  }
}

void RendezvousManager::on(const Incoming& in, const BarrierStallMsg& msg) {
  if (msg.epoch < p_.barriers_done->load(std::memory_order_acquire)) return;  // completed meanwhile
  const uint64_t now = now_ns();
  const uint64_t since = msg.waited_ns < now ? now - msg.waited_ns : 0;
  if (stalled_.empty() || msg.epoch > stalled_epoch_) {
    stalled_.assign(static_cast<size_t>(p_.size), false);
    stalled_epoch_ = msg.epoch;
    stalled_since_ns_ = since;
    stall_warned_ = false;
  } else if (msg.epoch < stalled_epoch_) {
    return;
  }
  stalled_since_ns_ = std::min(stalled_since_ns_, since);
  stalled_[static_cast<size_t>(in.source)] = true;
}

void RendezvousManager::on(const Incoming& in, const WaitMsg&) {
  arrive(in.source, RendezvousKind::kWait, p_.surface->wait);
  if (arrived_ == p_.size) complete();
}

void RendezvousManager::on(const Incoming& in, CollectiveMsg&& msg) {
  arrive(in.source, RendezvousKind::kCollective, msg.call);
  if (arrived_ == 1) to_all_ = msg.to_all;  // the same call text asks the same
  blobs_[static_cast<size_t>(in.source)] = std::move(msg.blob);
  if (arrived_ == p_.size) complete();
}

void RendezvousManager::complete() {
  Transport& t = *p_.transport;
  if (kind_ == RendezvousKind::kWait) {
    auto msg = std::make_shared<const Bytes>(encode(WaitGrantMsg{}, t.next_seq()));
    for (int p = 0; p < p_.size; ++p) t.send_shared(p, kTagReply, msg);
  } else {
    // Rank 0 gets every rank's payload back (it prints the statistics);
    // everyone else gets an empty grant, unless the call asked for all.
    if (to_all_) {
      auto all = std::make_shared<const Bytes>(encode(CollectiveDoneMsg{std::move(blobs_)}, t.next_seq()));
      for (int p = 0; p < p_.size; ++p) t.send_shared(p, kTagReply, all);
    } else {
      t.send(0, kTagReply, encode(CollectiveDoneMsg{std::move(blobs_)}, t.next_seq()));
      auto empty = std::make_shared<const Bytes>(encode(CollectiveDoneMsg{}, t.next_seq()));
      for (int p = 1; p < p_.size; ++p) t.send_shared(p, kTagReply, empty);
    }
  }
  arrived_ = 0;
  first_rank_ = -1;
  blobs_.clear();
}

}  // namespace scopedsm
