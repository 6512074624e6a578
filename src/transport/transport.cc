#include "transport/transport.h"

#include <sched.h>

#include <algorithm>
#include <ctime>
#include <random>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

namespace {

WakeRole role_for(Tag tag) { return tag == kTagRequest ? WakeRole::kService : WakeRole::kApp; }

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

Status Transport::init(MPI_Comm world, const NodeTopology& node, const Config& config) {
  MPI_Comm_dup(world, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  Status s = wakeup_.init(node);
  if (!s.ok()) return s;
  spin_ns_ = config.spin_us * 1000;
  // With every peer on this node a sleeper is always woken by its sender;
  // the bound only guards against a lost wake-up. Off-node peers cannot
  // wake us, so we poll at SCOPEDSM_POLL_US.
  sleep_ns_ = wakeup_.has_remote_peers() ? config.poll_us * 1000 : 20000000;
  timeout_s_ = config.timeout_s;
  test_delay_ns_ = config.test_delay_us * 1000;
  acks_owed_.assign(static_cast<size_t>(size_), 0);
  return Status::Ok();
}

void Transport::finalize() {
  // Sends still in flight at shutdown have been received (every exchange is
  // acknowledged before jia_exit's final rendezvous), so this terminates.
  while (sends_pending()) {
    progress_sends();
    sched_yield();
  }
  wakeup_.shutdown();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Transport::count_sent(Tag tag, const void* data, size_t n) {
  if (tag == kTagPage) {
    sent_.page_messages.fetch_add(1, std::memory_order_relaxed);
    sent_.page_bytes.fetch_add(n, std::memory_order_relaxed);
    return;
  }
  MsgHeader h;
  std::memcpy(&h, data, sizeof h);
  sent_.messages[h.type].fetch_add(1, std::memory_order_relaxed);
  sent_.bytes[h.type].fetch_add(n, std::memory_order_relaxed);
}

void Transport::inject_delay() const {
  if (test_delay_ns_ == 0) return;
  thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t ns = rng() % test_delay_ns_;
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  nanosleep(&ts, nullptr);
}

void Transport::post(int dest, Tag tag, const void* data, size_t n, SharedBytes keep) {
  inject_delay();
  count_sent(tag, data, n);
  if (dest == rank_ && tag != kTagPage) {
    // To ourselves: no MPI, no copy through the network layer.
    sent_.self_messages.fetch_add(1, std::memory_order_relaxed);
    sent_.self_bytes.fetch_add(n, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(local_mu_);
      const auto* p = static_cast<const std::byte*>(data);
      local_[tag == kTagRequest ? 0 : 1].emplace_back(p, p + n);
    }
    wakeup_.notify(dest, role_for(tag));
    return;
  }
  MPI_Request req;
  {
    std::lock_guard<std::mutex> lock(outbox_mu_);
    int rc = MPI_Isend(data, static_cast<int>(n), MPI_BYTE, dest, tag, comm_, &req);
    if (rc != MPI_SUCCESS) fatal("MPI_Isend of %zu bytes to rank %d failed (code %d)", n, dest, rc);
    // Drive progress once now: MPI may only queue the message inside
    // Isend, and the receiver we are about to wake would find nothing.
    int done = 0;
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) {
      outbox_requests_.push_back(req);
      outbox_buffers_.push_back(std::move(keep));
    }
  }
  wakeup_.notify(dest, role_for(tag));
}

void Transport::send(int dest, Tag tag, Bytes bytes) {
  auto shared = std::make_shared<const Bytes>(std::move(bytes));
  post(dest, tag, shared->data(), shared->size(), shared);
}

void Transport::send_shared(int dest, Tag tag, const SharedBytes& bytes) {
  post(dest, tag, bytes->data(), bytes->size(), bytes);
}

void Transport::send_page(int dest, const void* data, size_t n) { post(dest, kTagPage, data, n, nullptr); }

bool Transport::sends_pending() {
  std::lock_guard<std::mutex> lock(outbox_mu_);
  return !outbox_requests_.empty();
}

bool Transport::progress_sends() {
  std::lock_guard<std::mutex> lock(outbox_mu_);
  if (outbox_requests_.empty()) return false;
  int n = static_cast<int>(outbox_requests_.size());
  int outcount = 0;
  std::vector<int> done(static_cast<size_t>(n));
  MPI_Testsome(n, outbox_requests_.data(), &outcount, done.data(), MPI_STATUSES_IGNORE);
  if (outcount <= 0 || outcount == MPI_UNDEFINED) return false;
  // Compact: drop the completed entries (their requests are MPI_REQUEST_NULL).
  size_t w = 0;
  for (size_t r = 0; r < outbox_requests_.size(); ++r) {
    if (outbox_requests_[r] == MPI_REQUEST_NULL) continue;
    outbox_requests_[w] = outbox_requests_[r];
    outbox_buffers_[w] = std::move(outbox_buffers_[r]);
    ++w;
  }
  outbox_requests_.resize(w);
  outbox_buffers_.resize(w);
  return true;
}

void Transport::count_received(const Bytes& bytes) {
  MsgHeader h;
  if (bytes.size() < sizeof h) return;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.type >= kMsgTypeCount) return;
  received_.messages[h.type].fetch_add(1, std::memory_order_relaxed);
  received_.bytes[h.type].fetch_add(bytes.size(), std::memory_order_relaxed);
}

bool Transport::take_local(Tag tag, Incoming* out) {
  std::lock_guard<std::mutex> lock(local_mu_);
  auto& q = local_[tag == kTagRequest ? 0 : 1];
  if (q.empty()) return false;
  out->source = rank_;
  out->bytes = std::move(q.front());
  q.pop_front();
  return true;
}

bool Transport::try_receive(Tag tag, Incoming* out) {
  if (!take_local(tag, out)) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    MPI_Improbe(MPI_ANY_SOURCE, tag, comm_, &flag, &msg, &st);
    if (!flag) return false;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    out->source = st.MPI_SOURCE;
    out->bytes.resize(static_cast<size_t>(count));
    MPI_Mrecv(out->bytes.data(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
  }
  count_received(out->bytes);
  return true;
}

void Transport::wait_until(WakeRole role, const std::function<bool()>& done, const char* what, int from) {
  if (done()) return;
  const bool app = role == WakeRole::kApp;
  if (app) app_polling_.store(true, std::memory_order_relaxed);
  const uint64_t start = now_ns();
  const uint64_t deadline = timeout_s_ > 0 ? start + static_cast<uint64_t>(timeout_s_ * 1e9) : UINT64_MAX;
  uint64_t spin_until = start + spin_ns_;
  uint64_t last_poll = 0;  // 0 unless the previous step was an empty poll
  for (;;) {
    uint32_t seen = wakeup_.snapshot(role);
    progress_sends();
    if (done()) break;
    if (app && idle_work_ && idle_work_()) {
      last_poll = 0;
      spin_until = std::max(spin_until, now_ns() + kSpinAfterWakeNs);
      continue;
    }
    const uint64_t now = now_ns();
    if (now < spin_until && spin_policy_.may_spin(&last_poll, now)) {
      for (int i = 0; i < 16; ++i) cpu_relax();
      continue;
    }
    if (now >= deadline) report_timeout(what, from);
    // Open MPI polls some channels only every few progress calls, so one
    // empty poll does not prove that nothing has arrived.
    bool found = false;
    for (int i = 0; i < kPollsBeforeSleep && !found; ++i) found = done();
    if (found) break;
    // Sleep less while sends are still in flight: they may need our progress.
    uint64_t nap = sends_pending() ? kNapWithSendsNs : sleep_ns_;
    if (deadline - now < nap) nap = deadline - now;
    // Asleep, the application thread no longer polls for the service
    // thread, which must then answer requests quickly itself.
    if (app) app_polling_.store(false, std::memory_order_relaxed);
    const bool woken = wakeup_.sleep(role, seen, nap);
    if (app) app_polling_.store(true, std::memory_order_relaxed);
    if (woken) spin_until = now_ns() + std::max(spin_ns_, kSpinAfterWakeNs);
    last_poll = 0;
  }
  if (app) app_polling_.store(false, std::memory_order_relaxed);
  const uint64_t waited = now_ns() - start;
  if (waited > 1000000 && log_enabled(LogLevel::kDebug))
    log_message(LogLevel::kDebug, "waited %.3f ms for %s from rank %d", static_cast<double>(waited) / 1e6, what, from);
}

void Transport::report_timeout(const char* what, int from) {
  std::string ctx = wait_context_ ? wait_context_() : std::string();
  if (from >= 0)
    fatal("timed out after %.1f s waiting for %s from rank %d%s%s (SCOPEDSM_TIMEOUT=%g); is that process alive and "
          "is every process making the same synchronization calls?",
          timeout_s_, what, from, ctx.empty() ? "" : "; ", ctx.c_str(), timeout_s_);
  fatal("timed out after %.1f s waiting for %s%s%s (SCOPEDSM_TIMEOUT=%g); is every process alive and making the "
        "same synchronization calls?",
        timeout_s_, what, ctx.empty() ? "" : "; ", ctx.c_str(), timeout_s_);
}

void Transport::wait_request(MPI_Request* request, const char* what, int from, MPI_Status* status) {
  wait_until(
      WakeRole::kApp,
      [request, status] {
        int done = 0;
        MPI_Test(request, &done, status);
        return done != 0;
      },
      what, from);
}

Incoming Transport::await_reply(MsgType expected, int from, const char* what) {
  Incoming in;
  for (;;) {
    wait_until(WakeRole::kApp, [&] { return try_receive(kTagReply, &in); }, what, from);
    Reader r(in.bytes.data(), in.bytes.size());
    MsgType type;
    Status s = r.open(&type);
    if (!s.ok())
      fatal("protocol error: malformed reply from rank %d while waiting for %s: %s", in.source, what, s.message().c_str());
    const bool ack = type == MsgType::kDiffAck || type == MsgType::kAck;
    if (ack && expected == MsgType::kAck) return in;
    if (ack) {
      int& owed = acks_owed_[static_cast<size_t>(in.source)];
      if (owed <= 0) fatal("protocol error: unexpected %s from rank %d", msg_type_name(type), in.source);
      --owed;
      continue;
    }
    if (type != expected || (from >= 0 && in.source != from))
      fatal("protocol error: waiting for %s from rank %d but received %s from rank %d", msg_type_name(expected), from,
            msg_type_name(type), in.source);
    return in;
  }
}

void Transport::wait_acks(int except) {
  for (int h = 0; h < size_; ++h) {
    if (h == except) continue;
    int& owed = acks_owed_[static_cast<size_t>(h)];
    while (owed > 0) {
      // An acknowledgement from anyone may come first; count it where it belongs.
      Incoming in = await_reply(MsgType::kAck, -1, "requests to be applied (DIFFGRANT or ACK)");
      int& from = acks_owed_[static_cast<size_t>(in.source)];
      if (from <= 0) fatal("protocol error: unexpected acknowledgement from rank %d", in.source);
      --from;
    }
  }
}

}  // namespace scopedsm
