#include "protocol/home_server.h"

#include <algorithm>
#include <cstring>

#include "common/clock.h"
#include "common/log.h"
#include "memory/atomic_word.h"
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

bool HomeServer::in_barrier() const { return in_barrier_ != nullptr && in_barrier_->load(std::memory_order_seq_cst); }

std::string HomeServer::homed_elsewhere(uint32_t page) const {
  return "page " + std::to_string(page) + " is homed at rank " +
         std::to_string((*pages_)[page].home.load(std::memory_order_acquire));
}

void HomeServer::serve_deferred() {
  // Every page a DIFF reached early must have become ours.
  for (const EarlyDiff& d : early_diffs_)
    if (!homed_here(d.page))
      bad_request("DIFF", d.source, homed_elsewhere(d.page) + " (it was not among the pages the barrier moved here)");
  early_diffs_.clear();
  std::vector<Incoming> now;
  now.swap(deferred_);
  const Limits limits{pages_->allocated(), size_};
  // A page still not homed here is an error now.
  for (const Incoming& in : now) {
    Reader r(in.bytes.data(), in.bytes.size());
    MsgType type = MsgType::kGetPage;
    if (Status st = r.open(&type); st.ok() && type == MsgType::kAtomic)
      on(in, decode_or_fatal<AtomicMsg>(in.bytes, in.source, limits));
    else if (type == MsgType::kGetPageVec)
      on(in, decode_or_fatal<GetPageVecMsg>(in.bytes, in.source, limits));
    else
      on(in, decode_or_fatal<GetPageMsg>(in.bytes, in.source, limits));
  }
}

bool HomeServer::defer_unless_homed(const char* what, const Incoming& in, uint32_t page) {
  if (homed_here(page)) return false;
  if (!in_barrier()) bad_request(what, in.source, homed_elsewhere(page));
  deferred_.push_back(in);  // the barrier may be moving the page here
  stats_->requests_deferred.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void HomeServer::on(const Incoming& in, const GetPageMsg& msg) {
  for (uint32_t p = msg.page; p < msg.page + msg.count; ++p)
    if (defer_unless_homed("GETP", in, p)) return;
  // Record that the copies go out in this epoch (adaptive write detection),
  // before they are read.
  region_->share().record_copies(msg.page, msg.count, msg.epoch);
  // The run is contiguous in our memory: one message.
  transport_->send_page(in.source, region_->alias(msg.page), region_->page_size() * msg.count, msg.lane);
  stats_->pages_served.fetch_add(msg.count, std::memory_order_relaxed);
}

void HomeServer::on(const Incoming&, const RecordCopiesMsg& msg) {
  // Copies another node read one-sided while we did not trap the pages: we
  // trap them again and note them at our next synchronization, so that the
  // reader's next copies are kept. Its copies do not depend on this (it
  // drops them at its next acquire), so a page that is not ours (any more,
  // or not yet, in a barrier that moves homes) is skipped, never deferred.
  for (uint32_t p = msg.page; p < msg.page + msg.count; ++p)
    if (homed_here(p)) region_->share().record_copies(p, 1, msg.epoch);
  stats_->copies_recorded.fetch_add(msg.count, std::memory_order_relaxed);
}

void HomeServer::on(const Incoming& in, const GetPageVecMsg& msg) {
  if (msg.versions.size() != sizeof(uint64_t) * msg.count)
    bad_request("GETPV", in.source,
                std::to_string(msg.versions.size()) + " bytes of versions for " + std::to_string(msg.count) + " page(s)");
  for (uint32_t p = msg.page; p < msg.page + msg.count; ++p)
    if (defer_unless_homed("GETPV", in, p)) return;
  region_->share().record_copies(msg.page, msg.count, msg.epoch);
  // Per page: the version, the mask of blocks that follow, the blocks; each
  // page's mask is taken before its blocks are read (memory/write_vectors.h).
  const size_t ps = region_->page_size();
  const size_t bs = wvec_ != nullptr ? wvec_->block_size() : ps;
  Bytes out;
  out.reserve((2 * sizeof(uint64_t) + ps) * msg.count);
  auto put = [&out](const void* data, size_t n) {
    const auto* b = static_cast<const std::byte*>(data);
    out.insert(out.end(), b, b + n);
  };
  for (uint32_t i = 0; i < msg.count; ++i) {
    uint64_t since = 0, version = 0;
    std::memcpy(&since, msg.versions.data() + sizeof(uint64_t) * i, sizeof since);
    uint64_t mask = 1;  // without write vectors: one block, the page
    if (wvec_ != nullptr) {
      mask = wvec_->changed_since(msg.page + i, since, &version);
      // Negative control: leave out the last block written since.
      if (drop_block_ && since != 0 && mask != wvec_->all_blocks() && mask != 0) mask &= ~(uint64_t{1} << (63 - __builtin_clzll(mask)));
    }
    put(&version, sizeof version);
    put(&mask, sizeof mask);
    const std::byte* page = region_->alias(msg.page + i);
    for (uint32_t b = 0; b < 64 && (mask >> b) != 0; ++b)
      if (mask & (uint64_t{1} << b)) put(page + bs * b, bs);
  }
  transport_->send(in.source, page_tag(msg.lane), std::move(out));
  stats_->pages_served.fetch_add(msg.count, std::memory_order_relaxed);
}

namespace {
// What locate_home_page needs: the server, and who sent the DIFF.
struct DiffTarget {
  HomeServer* server;
  int source;
};
}  // namespace

std::byte* HomeServer::locate_home_page(void* target, uint32_t page) {
  const DiffTarget& t = *static_cast<DiffTarget*>(target);
  HomeServer& hs = *t.server;
  if (page >= hs.pages_->allocated()) return nullptr;
  if (!hs.homed_here(page)) {
    // During a barrier, a page that barrier is moving here (checked when it
    // ends, serve_deferred): our memory of it is the writer's copy, which
    // becomes the home page. Applied now, not deferred, so that the DIFF
    // stays ahead of the sender's next request to us (a REL or SETCV that
    // lets others read the page).
    if (!hs.in_barrier()) return nullptr;
    hs.early_diffs_.push_back({t.source, page});
  }
  return hs.region_->alias(page);
}

void HomeServer::on(const Incoming& in, const DiffMsg& msg) {
  DiffTarget target{this, in.source};
  const uint64_t t0 = now_ns();
  uint64_t bytes = 0;
  Reader r(msg.records.data(), msg.records.size());
  while (r.remaining() > 0) {
    uint32_t page = 0;
    size_t changed = 0;
    uint64_t blocks = 0;
    Status st = apply_diff(&r, region_->page_size(), &HomeServer::locate_home_page, &target, &page, &changed,
                           wvec_ != nullptr ? &blocks : nullptr, wvec_ != nullptr ? wvec_->block_size() : 0,
                           whole_word_diffs_);
    if (!st.ok()) bad_request("DIFF", in.source, st.message());
    if (wvec_ != nullptr) wvec_->note_blocks(page, blocks);
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

void HomeServer::on(const Incoming& in, const AtomicMsg& msg) {
  if (const std::string why = atomic_request_error(msg.op, msg.type, msg.offset, region_->page_size()); !why.empty())
    bad_request("ATOMIC", in.source, why);
  if (defer_unless_homed("ATOMIC", in, msg.page)) return;
  const uint64_t old = apply_atomic(region_->alias(msg.page) + msg.offset, static_cast<AtomicOp>(msg.op),
                                    static_cast<AtomicType>(msg.type), msg.operand, msg.expected, torn_atomics_);
  if (wvec_ != nullptr) wvec_->note_blocks(msg.page, wvec_->mask_for(msg.offset, atomic_type_size(static_cast<AtomicType>(msg.type))));
  transport_->send(in.source, kTagReply, encode(AtomicResultMsg{old}, transport_->next_seq()));
}

}  // namespace scopedsm
