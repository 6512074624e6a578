#include "runtime/service.h"

#include <algorithm>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

Service::Service(const SyncParts& parts, Region* region, const PageTable* pages, ServiceCounters* stats,
                 double timeout_s, uint64_t spin_us)
    : p_(parts),
      stats_(stats),
      timeout_s_(timeout_s),
      spin_us_(spin_us),
      home_(parts.rank, parts.size, parts.transport, region, pages, stats),
      locks_(parts),
      rendezvous_(parts),
      condvars_(parts) {}

Service::~Service() {
  if (thread_.joinable()) thread_.join();
}

void Service::start() { thread_ = std::thread([this] { run(); }); }

void Service::join() {
  if (thread_.joinable()) thread_.join();
}

void Service::dispatch(const Incoming& in) {
  p_.transport->inject_delay();
  Reader r(in.bytes.data(), in.bytes.size());
  MsgType type;
  Status st = r.open(&type);
  if (!st.ok()) fatal("protocol error: malformed request from rank %d: %s", in.source, st.message().c_str());
  switch (type) {
    case MsgType::kGetPage: home_.on_get_page(in, &r); break;
    case MsgType::kDiff: home_.on_diff(in, &r); break;
    case MsgType::kHomeClaim: home_.on_home_claim(in, &r); break;
    case MsgType::kAcquire: locks_.on_acquire(in, &r); break;
    case MsgType::kRelease: locks_.on_release(in, &r); break;
    case MsgType::kBarrier: rendezvous_.on_barrier(in, &r); break;
    case MsgType::kWait: rendezvous_.on_wait(in, &r); break;
    case MsgType::kCollective: rendezvous_.on_collective(in, &r); break;
    case MsgType::kCvSet: condvars_.on_set(in, &r); break;
    case MsgType::kCvReset: condvars_.on_reset(in, &r); break;
    case MsgType::kCvWait: condvars_.on_wait(in, &r); break;
    case MsgType::kShutdown:
      if (Status e = decode_empty(&r); !e.ok())
        fatal("protocol error: malformed SHUTDOWN from rank %d: %s", in.source, e.message().c_str());
      // MPI keeps each sender's messages in order, so once every process's
      // shutdown is here, nothing else addressed to us is still on its way.
      shutdowns_.fetch_add(1, std::memory_order_acq_rel);
      return;
    default:
      fatal("protocol error: rank %d sent %s as a request", in.source, msg_type_name(type));
  }
  stats_->requests_served.fetch_add(1, std::memory_order_relaxed);
}

bool Service::serve_pending() {
  std::unique_lock<std::mutex> lock(serve_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  Transport& t = *p_.transport;
  bool did = false;
  Incoming in;
  while (!finished() && t.try_receive(kTagRequest, &in)) {
    const uint64_t t0 = now_ns();
    dispatch(in);
    stats_->t_server_ns.fetch_add(now_ns() - t0, std::memory_order_relaxed);
    did = true;
  }
  return did;
}

void Service::check_stalls() {
  if (timeout_s_ <= 0) return;
  const uint64_t now = now_ns();
  if (now < next_stall_check_ns_) return;
  next_stall_check_ns_ = now + 100000000;  // ten times a second is plenty
  std::unique_lock<std::mutex> lock(serve_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  // Earlier than the waiters' own timeout, so the more precise report wins.
  const auto limit = static_cast<uint64_t>(timeout_s_ * 0.8e9);
  rendezvous_.check_stalls(now, limit);
  locks_.check_stalls(now, limit);
}

void Service::run() {
  Transport& t = *p_.transport;
  const uint64_t spin_ns = std::max<uint64_t>(spin_us_ * 1000, Transport::kSpinAfterWakeNs);
  uint64_t last_activity = now_ns();
  uint64_t last_poll = 0;  // 0 unless the previous step was an empty poll
  int idle_polls = 0;
  while (!finished()) {
    uint32_t seen = t.wakeup().snapshot(WakeRole::kService);
    bool did = serve_pending();
    if (t.progress_sends()) did = true;
    check_stalls();
    const uint64_t now = now_ns();
    if (did) {
      last_activity = now;
      last_poll = 0;
      idle_polls = 0;
      continue;
    }
    // Poll on only within the spin window, when the application thread is
    // not already polling for both of us, and when we have a core to
    // ourselves (SpinPolicy); sleep after enough empty polls.
    const bool spin = now - last_activity < spin_ns && !t.app_polling() && t.spin_policy().may_spin(&last_poll, now);
    if (spin || ++idle_polls < Transport::kPollsBeforeSleep) continue;
    idle_polls = 0;
    if (t.wakeup().sleep(WakeRole::kService, seen, t.sends_pending() ? Transport::kNapWithSendsNs : t.idle_sleep_ns()))
      last_activity = now_ns();
    last_poll = 0;
  }
}

}  // namespace scopedsm
