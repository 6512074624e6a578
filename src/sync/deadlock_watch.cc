#include "sync/deadlock_watch.h"

#include <cstring>
#include <string>
#include <utility>

#include "common/clock.h"
#include "common/limits.h"
#include "common/log.h"

namespace scopedsm {

WaitReporter::Scope::Scope(WaitReporter* r, WaitKind kind, uint32_t id, uint32_t calls, ApiCall call,
                           const char* text)
    : r_(r) {
  r->active_ = true;
  r->kind_ = kind;
  r->id_ = id;
  r->calls_ = calls;
  r->call_ = call;
  r->text_ = text;
  r->start_ns_ = now_ns();
  r->reported_ = false;
  r->reported_owing_ = false;
  r->p_.wait_seq->store(++r->last_seq_, std::memory_order_seq_cst);
}

void WaitReporter::end() {
  // Before anything this process does after the wait can reach another
  // process (the probes' answers rely on it): seq_cst, and every send
  // after it takes the outbox's mutex.
  p_.wait_seq->store(0, std::memory_order_seq_cst);
  active_ = false;
  if (reported_) {
    Transport& t = *p_.transport;
    t.send(0, kTagRequest, encode(SyncDoneMsg{last_seq_}, t.next_seq()));
  }
}

void WaitReporter::poll() {
  if (!active_ || p_.test_fault(TestFault::kNoWaitReports)) return;
  if (reported_) {
    // The acknowledgements owed have come (they are read while this wait
    // reads replies): a condition-variable wait elsewhere may now be proved.
    if (reported_owing_ && p_.transport->acks().owing_except(-1) < 0) send_report(false);
    return;
  }
  if (now_ns() - start_ns_ < kReportAfterNs) return;
  send_report(p_.transport->acks().owing_except(-1) >= 0);
}

void WaitReporter::send_report(bool owes) {
  SyncWaitMsg msg;
  msg.seq = last_seq_;
  msg.kind = static_cast<uint32_t>(kind_);
  msg.id = id_;
  msg.calls = calls_;
  msg.owes = owes;
  const std::string id = std::to_string(id_);
  if (text_ != nullptr)
    msg.call = text_;
  else if (kind_ == WaitKind::kLock && static_cast<int>(id_) >= p_.locks)
    msg.call = std::string(call_.name) + " (the runtime's own lock " + id + ")";
  else
    msg.call = std::string(call_.name) + "(" + id + ")";
  if (msg.call.size() > SyncWaitMsg::kMaxCall) msg.call.resize(SyncWaitMsg::kMaxCall);
  msg.held = DeadlockWatch::pack_locks(stack_->held());
  Transport& t = *p_.transport;
  t.send(0, kTagRequest, encode(msg, t.next_seq()));
  reported_ = true;
  reported_owing_ = owes;
}

std::vector<std::byte> DeadlockWatch::pack_locks(const std::vector<int>& locks) {
  std::vector<std::byte> out(locks.size() * sizeof(uint32_t));
  for (size_t i = 0; i < locks.size(); ++i) {
    const auto l = static_cast<uint32_t>(locks[i]);
    std::memcpy(out.data() + i * sizeof l, &l, sizeof l);
  }
  return out;
}

bool DeadlockWatch::unpack_locks(const std::vector<std::byte>& blob, const Limits& limits,
                                 std::vector<uint32_t>* out) {
  if (blob.size() % sizeof(uint32_t) != 0) return false;
  out->resize(blob.size() / sizeof(uint32_t));
  for (size_t i = 0; i < out->size(); ++i) {
    std::memcpy(&(*out)[i], blob.data() + i * sizeof(uint32_t), sizeof(uint32_t));
    if ((*out)[i] >= static_cast<uint32_t>(limits.locks)) return false;
  }
  return true;
}

std::vector<std::byte> DeadlockWatch::pack_queued(const std::vector<CvQueued>& queued) {
  constexpr size_t kPair = sizeof(uint32_t) + sizeof(int32_t);
  std::vector<std::byte> out(queued.size() * kPair);
  for (size_t i = 0; i < queued.size(); ++i) {
    const int32_t rank = queued[i].rank;
    std::memcpy(out.data() + i * kPair, &queued[i].cv, sizeof(uint32_t));
    std::memcpy(out.data() + i * kPair + sizeof(uint32_t), &rank, sizeof rank);
  }
  return out;
}

bool DeadlockWatch::unpack_queued(const std::vector<std::byte>& blob, const Limits& limits,
                                  std::vector<CvQueued>* out) {
  constexpr size_t kPair = sizeof(uint32_t) + sizeof(int32_t);
  if (blob.size() % kPair != 0) return false;
  out->resize(blob.size() / kPair);
  for (size_t i = 0; i < out->size(); ++i) {
    int32_t rank = 0;
    std::memcpy(&(*out)[i].cv, blob.data() + i * kPair, sizeof(uint32_t));
    std::memcpy(&rank, blob.data() + i * kPair + sizeof(uint32_t), sizeof rank);
    if ((*out)[i].cv >= static_cast<uint32_t>(limits.condvars) || rank < 0 || rank >= limits.ranks) return false;
    (*out)[i].rank = rank;
  }
  return true;
}

void DeadlockWatch::rank0_only(const char* what, int source) const {
  if (p_.rank != 0) fatal("protocol error: %s from rank %d, but only rank 0 watches for deadlocks", what, source);
}

void DeadlockWatch::on(const Incoming& in, SyncWaitMsg&& msg) {
  rank0_only("SYNCWAIT", in.source);
  const Limits limits = p_.limits();
  WaitReport w;
  w.seq = msg.seq;
  w.kind = static_cast<WaitKind>(msg.kind);
  w.id = msg.id;
  w.calls = msg.calls;
  w.owes = msg.owes;
  w.call = std::move(msg.call);
  bool ok = msg.seq != 0 && unpack_locks(msg.held, limits, &w.held);
  switch (msg.kind) {
    case static_cast<uint32_t>(WaitKind::kLock): ok = ok && msg.id < static_cast<uint32_t>(limits.locks); break;
    case static_cast<uint32_t>(WaitKind::kCondvar): ok = ok && msg.id < static_cast<uint32_t>(limits.condvars); break;
    case static_cast<uint32_t>(WaitKind::kCollective): ok = ok && msg.calls == msg.id + 1 && msg.id != UINT32_MAX; break;
    default: ok = false;
  }
  if (!ok)
    fatal("protocol error: malformed SYNCWAIT from rank %d (wait %llu, kind %u, id %u, %u collective calls, %zu "
          "bytes of locks held)",
          in.source, static_cast<unsigned long long>(msg.seq), msg.kind, msg.id, msg.calls, msg.held.size());
  if (log_enabled(LogLevel::kDebug))
    log_message(LogLevel::kDebug, "deadlock detector: rank %d has waited a second in %s (wait %llu)", in.source,
                w.call.c_str(), static_cast<unsigned long long>(w.seq));
  detector_.report(in.source, std::move(w));
  probe_if_due();
}

void DeadlockWatch::on(const Incoming& in, const SyncDoneMsg& msg) {
  rank0_only("SYNCDONE", in.source);
  detector_.done(in.source, msg.seq);
}

void DeadlockWatch::on(const Incoming& in, const SyncProbeMsg& msg) {
  if (in.source != 0) fatal("protocol error: SYNCPROBE from rank %d, but only rank 0 probes", in.source);
  SyncStateMsg state;
  state.round = msg.round;
  state.seq = p_.wait_seq->load(std::memory_order_seq_cst);
  state.queued = pack_queued(condvars_->queued());
  Transport& t = *p_.transport;
  t.send(0, kTagRequest, encode(state, t.next_seq()));
}

void DeadlockWatch::on(const Incoming& in, const SyncStateMsg& msg) {
  rank0_only("SYNCSTATE", in.source);
  std::vector<CvQueued> queued;
  bool ok = unpack_queued(msg.queued, p_.limits(), &queued);
  for (const CvQueued& q : queued) ok = ok && CondvarManager::home_of(static_cast<int>(q.cv), p_.size) == in.source;
  if (!ok)
    fatal("protocol error: malformed SYNCSTATE from rank %d (%zu bytes of queued waiters)", in.source,
          msg.queued.size());
  if (!detector_.answer(in.source, msg.round, msg.seq, std::move(queued))) return;
  if (std::optional<std::string> line = detector_.finish_round()) fatal("%s", line->c_str());
  if (log_enabled(LogLevel::kDebug))
    log_message(LogLevel::kDebug, "deadlock detector: probe round %llu found no deadlock",
                static_cast<unsigned long long>(msg.round));
  probe_if_due();
}

void DeadlockWatch::probe_if_due() {
  if (detector_.probing() || !detector_.candidate()) return;
  const uint64_t round = detector_.start_round();
  if (log_enabled(LogLevel::kDebug))
    log_message(LogLevel::kDebug, "deadlock detector: the reports show a deadlock; probe round %llu",
                static_cast<unsigned long long>(round));
  Transport& t = *p_.transport;
  auto probe = std::make_shared<const Bytes>(encode(SyncProbeMsg{round}, t.next_seq()));
  for (int p = 0; p < p_.size; ++p) t.send_shared(p, kTagRequest, probe);
}

}  // namespace scopedsm
