#include "transport/transport.h"

#include <sched.h>

#include "common/log.h"
#include "transport/message_size.h"

namespace scopedsm {

namespace {

WakeRole role_for(Tag tag) { return tag == kTagRequest ? WakeRole::kService : WakeRole::kApp; }

}  // namespace

Status Transport::init(MPI_Comm world, const NodeTopology& node, const Config& config, bool duplicate) {
  owns_comm_ = duplicate;
  if (duplicate) MPI_Comm_dup(world, &comm_);
  else comm_ = world;
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  Status s = wakeup_.init(node);
  if (!s.ok()) return s;
  outbox_.init(comm_);
  WaitTuning tuning;
  tuning.spin_ns = config.spin_us * 1000;
  // With every peer on this node a sleeper is always woken by its sender;
  // the bound only guards against a lost wake-up. Off-node peers cannot
  // wake us, so we poll at SCOPEDSM_POLL_US.
  tuning.sleep_ns = wakeup_.has_remote_peers() ? config.poll_us * 1000 : 20000000;
  tuning.timeout_s = config.timeout_s;
  waiter_.configure(tuning);
  waiter_.set_spin_extension(&net_.spin_extension_ns());
  acks_.init(size_, [this](const char* what) {
    MsgType type;
    Incoming in = next_reply(what, -1, &type, false);
    return AckLedger::Reply{type, in.source, in.bytes.size() - sizeof(MsgHeader)};
  });
  delay_.configure(config.test_delay_us);
  return net_.init(config.net, node);
}

void Transport::release_held_sends() {
  while (outbox_.delaying()) {
    outbox_.progress();
    sched_yield();
  }
}

void Transport::finalize() {
  // Sends still in flight at shutdown have been received (every exchange is
  // acknowledged before jia_exit's final rendezvous), so this terminates.
  outbox_.drain();
  wakeup_.shutdown();
  if (comm_ != MPI_COMM_NULL && owns_comm_) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

void Transport::post(int dest, Tag tag, const void* data, size_t n, SharedBytes keep) {
  delay_.inject();
  // Checked whichever way the message travels, so that a program does not
  // work on one process and fail on two.
  if (Status s = check_message_size(posted_message_name(tag, data, n), n); !s.ok())
    fatal("cannot send to rank %d: %s", dest, s.message().c_str());
  const bool to_self = dest == rank_ && !is_page_tag(tag);
  traffic_.count_sent(tag, data, n, to_self);
  if (to_self)
    mailbox_.put(tag, data, n);  // no MPI, no copy through the network layer
  else
    outbox_.post(dest, tag, data, n, std::move(keep), net_.enabled() ? net_.on_send(dest, n) : 0);
  wakeup_.notify(dest, role_for(tag));
}

void Transport::send(int dest, Tag tag, Bytes bytes) {
  auto shared = std::make_shared<const Bytes>(std::move(bytes));
  post(dest, tag, shared->data(), shared->size(), shared);
}

void Transport::send_shared(int dest, Tag tag, const SharedBytes& bytes) {
  post(dest, tag, bytes->data(), bytes->size(), bytes);
}

void Transport::send_page(int dest, const void* data, size_t n, uint32_t lane) {
  post(dest, page_tag(lane), data, n, nullptr);
}

bool Transport::try_receive(Tag tag, Incoming* out) {
  if ((tag == kTagRequest || tag == kTagReply) && mailbox_.take(tag, &out->bytes)) {
    out->source = rank_;
  } else {
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
    if (net_.enabled()) net_.on_receive(out->source, tag, out->bytes.size());
  }
  traffic_.count_received(out->bytes, out->source == rank_);
  return true;
}

void Transport::received_page(int source, size_t n) {
  traffic_.count_received_page(n);
  if (net_.enabled()) net_.on_receive(source, kTagPage, n);
}

void Transport::read_one_sided(int target, size_t n, size_t kept) {
  traffic_.count_received_page(kept);
  if (net_.enabled()) net_.on_one_sided(target, n);
}

void Transport::poll_request(MPI_Request* request, const char* what, int from) {
  waiter_.poll_until(
      [request] {
        int done = 0;
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
        return done != 0;
      },
      what, from);
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

Incoming Transport::next_reply(const char* what, int from, MsgType* type, bool watched,
                               const std::function<void()>* watch) {
  Incoming in;
  wait_until(
      WakeRole::kApp,
      [&] {
        if (watch != nullptr) (*watch)();
        return try_receive(kTagReply, &in);
      },
      what, from, watched);
  Reader r(in.bytes.data(), in.bytes.size());
  Status s = r.open(type);
  if (!s.ok())
    fatal("protocol error: malformed reply from rank %d while waiting for %s: %s", in.source, what,
          s.message().c_str());
  return in;
}

Incoming Transport::await_reply(MsgType expected, int from, const char* what, bool watched) {
  return await_typed(expected, from, what, watched, nullptr);
}

Incoming Transport::await_reply(MsgType expected, int from, const char* what, const std::function<void()>& watch,
                                bool watched) {
  return await_typed(expected, from, what, watched, &watch);
}

Incoming Transport::await_typed(MsgType expected, int from, const char* what, bool watched,
                                const std::function<void()>* watch) {
  if (AckLedger::is_ack(expected))
    fatal("internal error: awaiting %s; acknowledgements are collected by the ledger (AckLedger::wait_except)",
          msg_type_name(expected));
  for (;;) {
    MsgType type;
    Incoming in = next_reply(what, from, &type, watched, watch);
    if (acks_.absorb(type, in.source, in.bytes.size() - sizeof(MsgHeader))) continue;
    if (type != expected || (from >= 0 && in.source != from))
      fatal("protocol error: waiting for %s from rank %d but received %s from rank %d", msg_type_name(expected), from,
            msg_type_name(type), in.source);
    return in;
  }
}

}  // namespace scopedsm
