#include "sync/rendezvous.h"

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
  } else if (kind != kind_ || call != call_) {
    fatal("mismatched collective calls: rank %d called %s but rank %d called %s; every process must make the same "
          "collective calls (%s, allocations, %s, %s) in the same order with the same arguments",
          first_rank_, call_.c_str(), rank, call.c_str(), p_.surface->barrier, p_.surface->wait, p_.surface->finalize);
  }
  arrived_from_[static_cast<size_t>(rank)] = true;
  ++arrived_;
}

void RendezvousManager::check_stalls(uint64_t now, const StallLimit& stall) {
  if (arrived_ == 0) return;
  const StallLimit::Verdict v = stall.judge(StallLimit::age(now, first_arrival_ns_), &warned_);
  if (v == StallLimit::kQuiet) return;
  std::string missing, present;
  for (int r = 0; r < p_.size; ++r) {
    std::string& list = arrived_from_[static_cast<size_t>(r)] ? present : missing;
    if (!list.empty()) list += ", ";
    list += std::to_string(r);
  }
  const std::string waited = stall.waited(StallLimit::age(now, first_arrival_ns_), v);
  const char* plural = missing.find(',') == std::string::npos ? "" : "s";
  if (v == StallLimit::kWarn) {
    SCOPEDSM_LOG(LogLevel::kWarn, "%s %s for rank%s %s (arrived: %s); %s unless %s", call_.c_str(), waited.c_str(),
                 plural, missing.c_str(), present.c_str(), stall.ends().c_str(),
                 *plural ? "they arrive" : "it arrives");
    return;
  }
  fatal("timed out: %s %s for rank%s %s (arrived: %s); are those processes alive and making the same collective calls?",
        call_.c_str(), waited.c_str(), plural, missing.c_str(), present.c_str());
}

void RendezvousManager::on(const Incoming& in, const BarrierMsg& msg) {
  arrive(in.source, RendezvousKind::kBarrier, p_.surface->barrier);
  if (msg.epoch != barrier_epoch_)
    fatal("protocol error: rank %d arrived at barrier %u while the job is at barrier %u", in.source, msg.epoch,
          barrier_epoch_);
  if (!p_.test_fault(TestFault::kSkipNotices)) merge_.add_all(msg.notices);
  if (arrived_ == p_.size) complete();
}

void RendezvousManager::on(const Incoming& in, const WaitMsg&) {
  arrive(in.source, RendezvousKind::kWait, p_.surface->wait);
  if (arrived_ == p_.size) complete();
}

void RendezvousManager::on(const Incoming& in, CollectiveMsg&& msg) {
  arrive(in.source, RendezvousKind::kCollective, msg.call);
  blobs_[static_cast<size_t>(in.source)] = std::move(msg.blob);
  if (arrived_ == p_.size) complete();
}

void RendezvousManager::complete() {
  Transport& t = *p_.transport;
  if (kind_ == RendezvousKind::kBarrier) {
    auto msg = std::make_shared<const Bytes>(encode(BarrierGrantMsg{barrier_epoch_, merge_.take()}, t.next_seq()));
    for (int p = 0; p < p_.size; ++p) t.send_shared(p, kTagReply, msg);
    ++barrier_epoch_;
  } else if (kind_ == RendezvousKind::kWait) {
    auto msg = std::make_shared<const Bytes>(encode(WaitGrantMsg{}, t.next_seq()));
    for (int p = 0; p < p_.size; ++p) t.send_shared(p, kTagReply, msg);
  } else {
    // Rank 0 gets every rank's payload back (it prints the statistics);
    // everyone else gets an empty grant.
    t.send(0, kTagReply, encode(CollectiveDoneMsg{std::move(blobs_)}, t.next_seq()));
    auto empty = std::make_shared<const Bytes>(encode(CollectiveDoneMsg{}, t.next_seq()));
    for (int p = 1; p < p_.size; ++p) t.send_shared(p, kTagReply, empty);
  }
  arrived_ = 0;
  first_rank_ = -1;
  blobs_.clear();
}

}  // namespace scopedsm
