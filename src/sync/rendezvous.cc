#include "sync/rendezvous.h"

#include "common/log.h"

namespace scopedsm {

void RendezvousManager::arrive(int rank, RendezvousKind kind, const std::string& call) {
  if (arrived_ == 0) {
    kind_ = kind;
    call_ = call;
    first_rank_ = rank;
    blobs_.assign(static_cast<size_t>(s_->size), {});
  } else if (kind != kind_ || call != call_) {
    fatal("mismatched collective calls: rank %d called %s but rank %d called %s; every process must make the same "
          "collective calls (barriers, allocations, jia_wait, jia_exit) in the same order with the same arguments",
          first_rank_, call_.c_str(), rank, call.c_str());
  }
  ++arrived_;
}

void RendezvousManager::on_barrier(const Incoming& in, Reader* r) {
  uint32_t epoch = 0;
  std::vector<WriteNotice> notices;
  if (!r->get(&epoch).ok()) fatal("protocol error: malformed BARR from rank %d", in.source);
  Status st = get_notices(r, s_->pages.allocated(), s_->size, &notices);
  if (!st.ok()) fatal("protocol error: malformed BARR from rank %d: %s", in.source, st.message().c_str());
  arrive(in.source, RendezvousKind::kBarrier, "jia_barrier");
  if (epoch != barrier_epoch_)
    fatal("protocol error: rank %d arrived at barrier %u while the job is at barrier %u", in.source, epoch,
          barrier_epoch_);
  if (!s_->test_fault("skip-notices")) merge_.add_all(notices);
  if (arrived_ == s_->size) complete();
}

void RendezvousManager::on_wait(const Incoming& in, Reader*) {
  arrive(in.source, RendezvousKind::kWait, "jia_wait");
  if (arrived_ == s_->size) complete();
}

void RendezvousManager::on_collective(const Incoming& in, Reader* r) {
  uint32_t call_len = 0, blob_len = 0;
  const std::byte* call = nullptr;
  const std::byte* blob = nullptr;
  if (!r->get(&call_len).ok() || !r->get_bytes(call_len, &call).ok() || !r->get(&blob_len).ok() ||
      !r->get_bytes(blob_len, &blob).ok() || r->remaining() != 0)
    fatal("protocol error: malformed COLL from rank %d", in.source);
  arrive(in.source, RendezvousKind::kCollective, std::string(reinterpret_cast<const char*>(call), call_len));
  blobs_[static_cast<size_t>(in.source)].assign(blob, blob + blob_len);
  if (arrived_ == s_->size) complete();
}

void RendezvousManager::complete() {
  Transport& t = s_->transport;
  if (kind_ == RendezvousKind::kBarrier) {
    Writer w(MsgType::kBarrierGrant);
    w.put<uint32_t>(barrier_epoch_);
    put_notices(&w, merge_.take());
    auto msg = std::make_shared<const Bytes>(w.finish(t.next_seq()));
    for (int p = 0; p < s_->size; ++p) t.send_shared(p, kTagReply, msg);
    ++barrier_epoch_;
  } else if (kind_ == RendezvousKind::kWait) {
    Writer w(MsgType::kWaitGrant);
    auto msg = std::make_shared<const Bytes>(w.finish(t.next_seq()));
    for (int p = 0; p < s_->size; ++p) t.send_shared(p, kTagReply, msg);
  } else {
    // Rank 0 gets every rank's payload back (it prints the statistics);
    // everyone else gets an empty grant.
    for (int p = 0; p < s_->size; ++p) {
      Writer w(MsgType::kCollectiveDone);
      if (p == 0) {
        w.put<uint32_t>(static_cast<uint32_t>(blobs_.size()));
        for (const auto& b : blobs_) {
          w.put<uint32_t>(static_cast<uint32_t>(b.size()));
          w.put_bytes(b.data(), b.size());
        }
      } else {
        w.put<uint32_t>(0);
      }
      t.send(p, kTagReply, w.finish(t.next_seq()));
    }
  }
  arrived_ = 0;
  first_rank_ = -1;
  blobs_.clear();
}

}  // namespace scopedsm
