#include "protocol/home_server.h"

#include <algorithm>

#include "common/clock.h"
#include "common/log.h"
#include "protocol/diff.h"
#include "protocol/messages.h"

namespace scopedsm {

namespace {
[[noreturn]] void bad_request(const char* what, int source, const std::string& why) {
  fatal("protocol error: malformed %s from rank %d: %s", what, source, why.c_str());
}
}  // namespace

bool HomeServer::homed_here(uint32_t page) const {
  const int32_t home = (*pages_)[page].home.load(std::memory_order_acquire);
  // kHomeUnknown is legal under first touch: the directory named us, the
  // requester heard first, and our application thread has not yet.
  return home == rank_ || home == kHomeUnknown;
}

void HomeServer::not_homed(const Incoming& in, MsgType type, uint32_t page) {
  if (in_barrier_ != nullptr && in_barrier_->load(std::memory_order_seq_cst)) {
    deferred_.push_back({type, in});
    stats_->requests_deferred.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  bad_request(msg_type_name(type), in.source,
              "page " + std::to_string(page) + " is homed at rank " +
                  std::to_string((*pages_)[page].home.load(std::memory_order_acquire)));
}

void HomeServer::serve_deferred() {
  std::vector<Deferred> now;
  now.swap(deferred_);
  const Limits limits{pages_->allocated(), size_};
  for (const Deferred& d : now) {
    if (d.type == MsgType::kGetPage) {
      GetPageMsg msg;
      if (Status st = decode_message(d.in.bytes, limits, &msg); !st.ok()) bad_request("GETP", d.in.source, st.message());
      on(d.in, msg);
    } else {
      DiffMsg msg;
      if (Status st = decode_message(d.in.bytes, limits, &msg); !st.ok()) bad_request("DIFF", d.in.source, st.message());
      on(d.in, msg);
    }
  }
}

void HomeServer::on(const Incoming& in, const GetPageMsg& msg) {
  // A request deferred while another of its sender's waits would overtake
  // it: once one waits, later ones from anyone wait behind it.
  if (!deferred_.empty() && in_barrier_ != nullptr && in_barrier_->load(std::memory_order_seq_cst))
    return not_homed(in, MsgType::kGetPage, msg.page);
  for (uint32_t p = msg.page; p < msg.page + msg.count; ++p)
    if (!homed_here(p)) return not_homed(in, MsgType::kGetPage, p);
  // Record that the copies go out in this epoch (adaptive write detection),
  // before they are read.
  region_->share().record_copies(msg.page, msg.count, msg.epoch);
  // The run is contiguous in our memory: one message.
  transport_->send_page(in.source, region_->alias(msg.page), region_->page_size() * msg.count);
  stats_->pages_served.fetch_add(msg.count, std::memory_order_relaxed);
}

std::byte* HomeServer::locate_home_page(void* self, uint32_t page) {
  auto* hs = static_cast<HomeServer*>(self);
  if (page >= hs->pages_->allocated()) return nullptr;
  int32_t home = (*hs->pages_)[page].home.load(std::memory_order_acquire);
  if (home != hs->rank_ && home != kHomeUnknown) return nullptr;
  return hs->region_->alias(page);
}

void HomeServer::on(const Incoming& in, const DiffMsg& msg) {
  if (!deferred_.empty() && in_barrier_ != nullptr && in_barrier_->load(std::memory_order_seq_cst))
    return not_homed(in, MsgType::kDiff, 0);
  {
    // Every record's page first: a DIFF is applied whole or deferred whole.
    // (A malformed record is apply_diff's to report, below.)
    Reader r(msg.records.data(), msg.records.size());
    uint32_t page = 0, body = 0;
    const std::byte* skip = nullptr;
    while (r.get(&page).ok() && r.get(&body).ok() && page < pages_->allocated()) {
      if (!homed_here(page)) return not_homed(in, MsgType::kDiff, page);
      if (!r.get_bytes(body, &skip).ok()) break;
    }
  }
  const uint64_t t0 = now_ns();
  uint64_t bytes = 0;
  Reader r(msg.records.data(), msg.records.size());
  while (r.remaining() > 0) {
    uint32_t page = 0;
    size_t changed = 0;
    Status st = apply_diff(&r, region_->page_size(), &HomeServer::locate_home_page, this, &page, &changed);
    if (!st.ok()) bad_request("DIFF", in.source, st.message());
    stats_->diffs_applied.fetch_add(1, std::memory_order_relaxed);
    stats_->diff_bytes_applied.fetch_add(changed, std::memory_order_relaxed);
    bytes += changed;
  }
  const uint64_t t1 = now_ns();
  stats_->t_diff_apply_ns.fetch_add(t1 - t0, std::memory_order_relaxed);
  if (stats_->trace != nullptr)
    stats_->trace->add(TraceKind::kDiffApply, stats_->serving_thread, t0, t1, static_cast<uint32_t>(in.source),
                       static_cast<uint32_t>(bytes));
  transport_->send(in.source, kTagReply, encode(DiffAckMsg{}, transport_->next_seq()));
}

void HomeServer::on(const Incoming& in, const HomeClaimMsg& msg) {
  if (msg.page % static_cast<uint32_t>(size_) != static_cast<uint32_t>(rank_))
    bad_request("HOMECLAIM", in.source, "page " + std::to_string(msg.page) + " has no directory entry here");
  auto it = directory_.find(msg.page);
  int32_t home = kHomeUnknown;
  if (it != directory_.end()) {
    home = it->second;
  } else {  // the first claim wins
    home = in.source;
    directory_.emplace(msg.page, home);
  }
  transport_->send(in.source, kTagReply, encode(HomeIsMsg{msg.page, home}, transport_->next_seq()));
}

}  // namespace scopedsm
