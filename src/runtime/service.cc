#include "runtime/service.h"

#include <sched.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <type_traits>
#include <utility>

#include "common/clock.h"
#include "common/log.h"
#include "common/thread_slice.h"

namespace scopedsm {

Service::Service(const SyncParts& parts, Region* region, const PageTable* pages, ServiceCounters* stats,
                 uint64_t spin_us, WriteVectors* wvec)
    : p_(parts),
      stats_(stats),
      spin_us_(spin_us),
      home_(parts.rank, parts.size, parts.transport, region, pages, parts.in_barrier, stats,
            parts.test_fault(TestFault::kAtomicTorn), wvec, parts.test_fault(TestFault::kWvecDropBlock),
            parts.test_fault(TestFault::kWholeWordApply)),
      locks_(parts, stats),
      rendezvous_(parts),
      condvars_(parts),
      deadlocks_(parts, &condvars_) {}

Service::~Service() {
  if (thread_.joinable()) thread_.join();
}

void Service::start(uint64_t slice_ns) {
  thread_ = std::thread([this, slice_ns] {
    if (slice_ns > 0) {
      if (const int err = request_thread_slice(slice_ns); err != 0)
        SCOPEDSM_LOG(LogLevel::kWarn,
                     "SCOPEDSM_SERVICE_SLICE_US: the kernel refused a %" PRIu64 " us slice for the service thread (%s); "
                     "it keeps the kernel's own (custom slices need Linux 6.12 or later)",
                     slice_ns / 1000, std::strerror(err));
    }
    run();
  });
}

void Service::join() {
  if (thread_.joinable()) thread_.join();
}

namespace {

// A server takes message M if it has an on() overload for M's struct (by
// const reference, or by rvalue reference to keep parts of it).
template <typename Server, typename M>
concept Serves = requires(Server& s, const Incoming& in, M&& m) { s.on(in, std::move(m)); };

template <typename M>
constexpr int servers_of = Serves<HomeServer, M> + Serves<LockManager, M> + Serves<RendezvousManager, M> +
                           Serves<CondvarManager, M> + Serves<DeadlockWatch, M>;

// Every request but SHUTDOWN (the service's own) goes to exactly one server,
// and no server has a handler for a reply, which would never be called: a
// request added to the message table without its handler does not build.
static_assert([] {
  bool ok = true;
  for_each_message([&]<typename M>(std::type_identity<M>) {
    const bool request = MessageInfo<M>::tag == kTagRequest && !std::is_same_v<M, ShutdownMsg>;
    ok = ok && servers_of<M> == (request ? 1 : 0);
  });
  return ok;
}(), "every request of the message table needs exactly one on() handler (HomeServer or a manager), a reply none");

}  // namespace

template <typename M>
void Service::serve(const Incoming& in, Reader* r) {
  M msg;
  if (Status st = decode(r, p_.limits(), &msg); !st.ok())
    fatal("protocol error: malformed %s from rank %d: %s", MessageInfo<M>::name, in.source, st.message().c_str());
  if constexpr (std::is_same_v<M, ShutdownMsg>) {
    // MPI keeps each sender's messages in order, so once every process's
    // shutdown is here, nothing else addressed to us is still on its way.
    if (peers_ != nullptr) peers_->finished(in.source);
    shutdowns_.fetch_add(1, std::memory_order_acq_rel);
    return;  // not a request served
  } else if constexpr (Serves<HomeServer, M>) {
    home_.on(in, std::move(msg));
  } else if constexpr (Serves<LockManager, M>) {
    locks_.on(in, std::move(msg));
  } else if constexpr (Serves<RendezvousManager, M>) {
    rendezvous_.on(in, std::move(msg));
  } else if constexpr (Serves<CondvarManager, M>) {
    condvars_.on(in, std::move(msg));
  } else {
    deadlocks_.on(in, std::move(msg));
  }
  stats_->requests_served.fetch_add(1, std::memory_order_relaxed);
}

MsgType Service::dispatch(const Incoming& in) {
  p_.transport->inject_delay();
  Reader r(in.bytes.data(), in.bytes.size());
  MsgType type;
  Status st = r.open(&type);
  if (!st.ok()) fatal("protocol error: malformed request from rank %d: %s", in.source, st.message().c_str());
  if (msg_type_tag(type) != kTagRequest)
    fatal("protocol error: rank %d sent %s as a request", in.source, msg_type_name(type));
  // The analysis takes a lambda on its own, not as part of dispatch: this
  // one runs inside visit_message's call, under dispatch's serve_mu_.
  visit_message(type, [&]<typename M>(std::type_identity<M>) NO_THREAD_SAFETY_ANALYSIS {
    if constexpr (MessageInfo<M>::tag == kTagRequest) serve<M>(in, &r);
  });
  return type;
}

bool Service::serve_pending() { return serve_pending_as(TraceThread::kApp); }

bool Service::serve_pending_as(TraceThread who) {
  if (held_.load(std::memory_order_acquire)) return false;
  if (!serve_mu_.try_lock()) return false;
  MutexLock lock(&serve_mu_, MutexLock::Adopt{});
  Transport& t = *p_.transport;
  bool did = false;
  Incoming in;
  stats_->serving_thread = who;
  while (!finished() && t.try_receive(kTagRequest, &in)) {
    const uint64_t t0 = now_ns();
    const MsgType type = dispatch(in);
    const uint64_t t1 = now_ns();
    stats_->t_server_ns.fetch_add(t1 - t0, std::memory_order_relaxed);
    if (stats_->trace != nullptr)
      stats_->trace->add(TraceKind::kServe, who, t0, t1, static_cast<uint32_t>(type), static_cast<uint32_t>(in.source));
    did = true;
  }
  return did;
}

void Service::check_stalls() {
  if (p_.timeout_s <= 0) return;
  const uint64_t now = now_ns();
  if (now < next_stall_check_ns_) return;
  next_stall_check_ns_ = now + 100000000;  // ten times a second is plenty
  if (!serve_mu_.try_lock()) return;
  MutexLock lock(&serve_mu_, MutexLock::Adopt{});
  // The waiters' own timeout comes Waiter::kWatchedGraceNs later, so the
  // managers' more precise report ends the job. The time is read again
  // under the serve mutex: whoever held it may have recorded an arrival or
  // a request after `now` above, and a stall's age must not go negative.
  const StallLimit stall{p_.timeout_s};
  const uint64_t at = now_ns();
  rendezvous_.check_stalls(at, stall);
  locks_.check_stalls(at, stall);
}

void Service::check_peers(uint64_t now) {
  if (peers_ == nullptr || now < next_peer_check_ns_) return;
  next_peer_check_ns_ = now + 250'000'000;
  const int dead = peers_->dead_peer(now, kPeerDeathGraceNs);
  if (dead < 0) return;
  fatal("rank %d (pid %ld, on this machine) has ended without finishing the job (killed, crashed or lost), and the "
        "launcher has not ended the job %.0f s later; ScopeDSM ends it (under srun with MPICH, --kill-on-bad-exit=1 "
        "ends such a job at once)",
        dead, peers_->pid_of(dead), static_cast<double>(kPeerDeathGraceNs) / 1e9);
}

void Service::run() {
  Transport& t = *p_.transport;
  const uint64_t spin_ns = std::max<uint64_t>(spin_us_ * 1000, Transport::kSpinAfterWakeNs);
  uint64_t last_activity = now_ns();
  uint64_t last_poll = 0;  // 0 unless the previous step was an empty poll
  int idle_polls = 0;
  while (!finished()) {
    uint32_t seen = t.wakeup().snapshot(WakeRole::kService);
    bool did = serve_pending_as(TraceThread::kService);
    if (t.progress_sends()) did = true;
    check_stalls();
    const uint64_t now = now_ns();
    check_peers(now);
    if (did) {
      last_activity = now;
      last_poll = 0;
      idle_polls = 0;
      continue;
    }
    // Poll on only within the spin window, when the application thread is
    // not already polling for both of us, and when we have a core to
    // ourselves (SpinPolicy); sleep after enough empty polls.
    const uint64_t window = spin_ns + t.net().spin_extension_ns().load(std::memory_order_relaxed);
    const bool spin = now - last_activity < window && !t.app_polling() && t.spin_policy().may_spin(&last_poll, now);
    // A send held for its modelled departure (SCOPEDSM_NET) must leave on
    // time, even while the application thread computes: this thread plays
    // the network interface and polls until it has.
    if (spin || ++idle_polls < Transport::kPollsBeforeSleep) continue;
    if (t.delaying_sends()) {  // yielding, so that a thread sharing the core runs meanwhile
      idle_polls = 0;
      sched_yield();
      continue;
    }
    idle_polls = 0;
    if (t.wakeup().sleep(WakeRole::kService, seen, t.sends_pending() ? Transport::kNapWithSendsNs : t.idle_sleep_ns()))
      last_activity = now_ns();
    last_poll = 0;
  }
}

}  // namespace scopedsm
