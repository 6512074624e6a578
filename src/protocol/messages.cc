#include "protocol/messages.h"

#include "common/checked.h"

namespace scopedsm {

namespace {

Status end(Reader* r) {
  return r->remaining() == 0 ? Status::Ok() : Status::Error("trailing bytes after the payload");
}

Status check_lock(uint32_t lock, const Limits& l) {
  return lock < static_cast<uint32_t>(l.locks) ? Status::Ok() : Status::Error("lock id " + std::to_string(lock) + " out of range");
}

Status check_cv(uint32_t cv, const Limits& l) {
  return cv < static_cast<uint32_t>(l.condvars) ? Status::Ok()
                                                 : Status::Error("condition variable " + std::to_string(cv) + " out of range");
}

Status check_page(uint32_t page, const Limits& l) {
  return page < l.pages ? Status::Ok() : Status::Error("page " + std::to_string(page) + " is not allocated");
}

#define TRY(expr)                    \
  do {                               \
    Status try_status_ = (expr);     \
    if (!try_status_.ok()) return try_status_; \
  } while (0)

}  // namespace

std::vector<std::byte> encode(const GetPageMsg& m, uint32_t seq) {
  Writer w(MsgType::kGetPage);
  w.put(m.page);
  w.put(m.epoch);
  return w.finish(seq);
}

std::vector<std::byte> encode(const AcquireMsg& m, uint32_t seq) {
  Writer w(MsgType::kAcquire);
  w.put(m.lock);
  w.put(m.epoch);
  w.put(m.seen);
  return w.finish(seq);
}

std::vector<std::byte> encode(const AcquireGrantMsg& m, uint32_t seq) {
  Writer w(MsgType::kAcquireGrant);
  w.put(m.lock);
  w.put(m.version);
  put_notices(&w, m.notices);
  return w.finish(seq);
}

std::vector<std::byte> encode(const ReleaseMsg& m, uint32_t seq) {
  Writer w(MsgType::kRelease);
  w.put(m.lock);
  w.put(m.epoch);
  put_notices(&w, m.notices);
  return w.finish(seq);
}

std::vector<std::byte> encode(const BarrierMsg& m, uint32_t seq) {
  Writer w(MsgType::kBarrier);
  w.put(m.epoch);
  put_notices(&w, m.notices);
  return w.finish(seq);
}

std::vector<std::byte> encode(const BarrierGrantMsg& m, uint32_t seq) {
  Writer w(MsgType::kBarrierGrant);
  w.put(m.epoch);
  put_notices(&w, m.notices);
  return w.finish(seq);
}

std::vector<std::byte> encode(const CvSetMsg& m, uint32_t seq) {
  Writer w(MsgType::kCvSet);
  w.put(m.cv);
  w.put(m.epoch);
  put_notices(&w, m.notices);
  return w.finish(seq);
}

std::vector<std::byte> encode_cv(MsgType type, const CvMsg& m, uint32_t seq) {
  Writer w(type);
  w.put(m.cv);
  w.put(m.epoch);
  return w.finish(seq);
}

std::vector<std::byte> encode(const CvGrantMsg& m, uint32_t seq) {
  Writer w(MsgType::kCvGrant);
  w.put(m.cv);
  put_notices(&w, m.notices);
  return w.finish(seq);
}

std::vector<std::byte> encode(const CollectiveMsg& m, uint32_t seq) {
  Writer w(MsgType::kCollective);
  w.put(static_cast<uint32_t>(m.call.size()));
  w.put_bytes(m.call.data(), m.call.size());
  w.put(static_cast<uint32_t>(m.blob.size()));
  w.put_bytes(m.blob.data(), m.blob.size());
  return w.finish(seq);
}

std::vector<std::byte> encode(const CollectiveDoneMsg& m, uint32_t seq) {
  Writer w(MsgType::kCollectiveDone);
  w.put(static_cast<uint32_t>(m.blobs.size()));
  for (const auto& b : m.blobs) {
    w.put(static_cast<uint32_t>(b.size()));
    w.put_bytes(b.data(), b.size());
  }
  return w.finish(seq);
}

std::vector<std::byte> encode(const HomeClaimMsg& m, uint32_t seq) {
  Writer w(MsgType::kHomeClaim);
  w.put(m.page);
  return w.finish(seq);
}

std::vector<std::byte> encode(const HomeIsMsg& m, uint32_t seq) {
  Writer w(MsgType::kHomeIs);
  w.put(m.page);
  w.put(m.home);
  return w.finish(seq);
}

std::vector<std::byte> encode_empty(MsgType type, uint32_t seq) { return Writer(type).finish(seq); }

Status decode(Reader* r, const Limits& l, GetPageMsg* m) {
  TRY(r->get(&m->page));
  TRY(r->get(&m->epoch));
  TRY(check_page(m->page, l));
  return end(r);
}

Status decode(Reader* r, const Limits& l, AcquireMsg* m) {
  TRY(r->get(&m->lock));
  TRY(r->get(&m->epoch));
  TRY(r->get(&m->seen));
  TRY(check_lock(m->lock, l));
  return end(r);
}

Status decode(Reader* r, const Limits& l, AcquireGrantMsg* m) {
  TRY(r->get(&m->lock));
  TRY(r->get(&m->version));
  TRY(check_lock(m->lock, l));
  TRY(get_notices(r, l.pages, l.ranks, &m->notices));
  return end(r);
}

Status decode(Reader* r, const Limits& l, ReleaseMsg* m) {
  TRY(r->get(&m->lock));
  TRY(r->get(&m->epoch));
  TRY(check_lock(m->lock, l));
  TRY(get_notices(r, l.pages, l.ranks, &m->notices));
  return end(r);
}

Status decode(Reader* r, const Limits& l, BarrierMsg* m) {
  TRY(r->get(&m->epoch));
  TRY(get_notices(r, l.pages, l.ranks, &m->notices));
  return end(r);
}

Status decode(Reader* r, const Limits& l, BarrierGrantMsg* m) {
  TRY(r->get(&m->epoch));
  TRY(get_notices(r, l.pages, l.ranks, &m->notices));
  return end(r);
}

Status decode(Reader* r, const Limits& l, CvSetMsg* m) {
  TRY(r->get(&m->cv));
  TRY(r->get(&m->epoch));
  TRY(check_cv(m->cv, l));
  TRY(get_notices(r, l.pages, l.ranks, &m->notices));
  return end(r);
}

Status decode(Reader* r, const Limits& l, CvMsg* m) {
  TRY(r->get(&m->cv));
  TRY(r->get(&m->epoch));
  TRY(check_cv(m->cv, l));
  return end(r);
}

Status decode(Reader* r, const Limits& l, CvGrantMsg* m) {
  TRY(r->get(&m->cv));
  TRY(check_cv(m->cv, l));
  TRY(get_notices(r, l.pages, l.ranks, &m->notices));
  return end(r);
}

Status decode(Reader* r, const Limits&, CollectiveMsg* m) {
  uint32_t n = 0;
  const std::byte* p = nullptr;
  TRY(r->get(&n));
  if (n > 4096) return Status::Error("collective call text too long");
  TRY(r->get_bytes(n, &p));
  m->call.assign(reinterpret_cast<const char*>(p), n);
  TRY(r->get(&n));
  TRY(r->get_bytes(n, &p));
  m->blob.assign(p, p + n);
  return end(r);
}

Status decode(Reader* r, const Limits& l, CollectiveDoneMsg* m) {
  uint32_t count = 0;
  TRY(r->get(&count));
  if (count > static_cast<uint32_t>(l.ranks)) return Status::Error("more payloads than ranks");
  const std::optional<uint64_t> need = checked_mul<uint64_t>(count, 4);  // a u32 length per payload at least
  if (!need || *need > r->remaining()) return Status::Error("payload count exceeds the message");
  m->blobs.assign(count, {});
  for (auto& b : m->blobs) {
    uint32_t n = 0;
    const std::byte* p = nullptr;
    TRY(r->get(&n));
    TRY(r->get_bytes(n, &p));
    b.assign(p, p + n);
  }
  return end(r);
}

Status decode(Reader* r, const Limits& l, HomeClaimMsg* m) {
  TRY(r->get(&m->page));
  TRY(check_page(m->page, l));
  return end(r);
}

Status decode(Reader* r, const Limits& l, HomeIsMsg* m) {
  TRY(r->get(&m->page));
  TRY(r->get(&m->home));
  TRY(check_page(m->page, l));
  // Every claim names its claimant, so the directory always answers with a rank.
  if (m->home < 0 || m->home >= l.ranks) return Status::Error("home " + std::to_string(m->home) + " is not a rank");
  return end(r);
}

Status decode_empty(Reader* r) { return end(r); }

}  // namespace scopedsm
