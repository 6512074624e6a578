// Message transport over MPI: the facade the rest of the runtime talks to.
//
// The runtime talks on its own duplicate of the communicator it runs on
// (MPI_COMM_WORLD, or the one the program gave scopedsm_init_comm) so that
// nothing it sends can match an application's receives. Both the application thread
// and the service thread send; each thread receives only its own tag
// (requests for the service thread, replies and pages for the application
// thread), so receives never race. Transport itself only routes; each
// concern is a part of its own, with its contract and thread owner in its
// header:
//
//   Outbox         (outbox.h)          non-blocking sends in flight and the buffers they read
//   Mailbox        (mailbox.h)         messages a process sends to itself, never through MPI
//   Waiter         (waiter.h)          poll, spin, then sleep on the Wakeup word; timeouts and their reports
//   AckLedger      (ack_ledger.h)      acknowledgements owed to this process, and waiting for them
//   Traffic        (traffic.h)         messages and bytes by type and direction
//   DelayInjector  (delay_injector.h)  test-only random delays (SCOPEDSM_TEST_DELAY_US)
//   NetModel       (net_model.h)       communication costs injected between nodes (SCOPEDSM_NET)
//
// A send checks the message's size (message_size.h), counts it, waits the
// injected delay, hands it to the mailbox (to ourselves) or the outbox (at
// the departure time the cost model gives, when it is on), and wakes the
// receiving thread (wakeup.h). A message received from MPI, a page
// answering a GETP (received_page) and a one-sided read (read_one_sided)
// pass through the cost model when it is on.
//
// Thread owner: built by the application thread at init; afterwards every
// member is safe for both threads except await_reply() and acks(), which
// belong to the application thread.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "common/config.h"
#include "transport/ack_ledger.h"
#include "transport/bytes.h"
#include "transport/delay_injector.h"
#include "transport/mailbox.h"
#include "transport/net_model.h"
#include "transport/node.h"
#include "transport/outbox.h"
#include "transport/spin_policy.h"
#include "transport/traffic.h"
#include "transport/waiter.h"
#include "transport/wakeup.h"
#include "transport/wire.h"

namespace scopedsm {

// A received message.
struct Incoming {
  int source = -1;
  Bytes bytes;
};

class Transport {
 public:
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Collective. Duplicates `world` and sets up the wake-up channel between
  // the processes `node` says share a node. `node` must outlive the transport.
  // `duplicate` false (test fault program-comm only) talks on `world` itself.
  Status init(MPI_Comm world, const NodeTopology& node, const Config& config, bool duplicate = true);
  // Hands to MPI every send the cost model still holds for its departure
  // (SCOPEDSM_NET), without waiting for any to complete. Shutdown calls it
  // once the service thread has stopped: that thread no longer progresses
  // the outbox, and a held message (a peer's SHUTDOWN, say) would otherwise
  // never leave while this process waits in a collective MPI call.
  void release_held_sends();
  // Completes every send in flight, then frees the communicator.
  void finalize();

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm comm() const { return comm_; }
  Wakeup& wakeup() { return wakeup_; }
  // How long an idle thread may sleep before it polls again.
  uint64_t idle_sleep_ns() const { return waiter_.idle_sleep_ns(); }

  // Tuning of waits, shared with the service thread's loop.
  static constexpr int kPollsBeforeSleep = Waiter::kPollsBeforeSleep;
  static constexpr uint64_t kSpinAfterWakeNs = Waiter::kSpinAfterWakeNs;
  static constexpr uint64_t kNapWithSendsNs = Waiter::kNapWithSendsNs;

  // Sends a finished message (Writer::finish) to `dest` on `tag`.
  void send(int dest, Tag tag, Bytes bytes);
  void send_shared(int dest, Tag tag, const SharedBytes& bytes);
  // Sends `n` raw bytes that stay valid for the life of the runtime (a page
  // of the shared region), without copying them, on reply lane `lane`
  // (page_tag, transport/wire.h).
  void send_page(int dest, const void* data, size_t n, uint32_t lane);

  // Receives one waiting message on `tag`, if any: first from the mailbox
  // (requests and replies), then from MPI.
  bool try_receive(Tag tag, Incoming* out);
  // Completes finished sends; returns true if any finished.
  bool progress_sends() { return outbox_.progress(); }
  bool sends_pending() { return outbox_.pending(); }
  // A send waits for its modelled departure (Outbox::delaying): do not sleep.
  bool delaying_sends() const { return outbox_.delaying(); }

  // The page (or run of pages) of `n` bytes answering our GETP to `source`
  // has arrived: counts it, and holds the caller for the cost model.
  void received_page(int source, size_t n);
  // A one-sided read of `n` bytes from `target` has completed, of which
  // `kept` are pages kept (the others are fetched again by message): counts
  // those, and holds the caller for the cost model of the whole read.
  void read_one_sided(int target, size_t n, size_t kept);
  // The communication-cost model (SCOPEDSM_NET), and its counters.
  NetModel& net() { return net_; }

  // Polls `done` until it returns true (Waiter::wait_until).
  void wait_until(WakeRole role, const std::function<bool()>& done, const char* what, int from,
                  bool watched = false) {
    waiter_.wait_until(role, done, what, from, watched);
  }
  // Waits (as wait_until) for an MPI request of ours to complete.
  void wait_request(MPI_Request* request, const char* what, int from, MPI_Status* status = MPI_STATUS_IGNORE);
  // Completes a one-sided request by polling MPI without sleeping
  // (Waiter::poll_until): its data moves during our own progress calls.
  void poll_request(MPI_Request* request, const char* what, int from);

  // Application thread only: waits for the next reply, which must be of
  // type `expected` from `from` (-1: any rank). A different reply means the
  // protocol broke, which is reported and ends the job. Acknowledgements
  // that arrive meanwhile go to the ledger. `watched`: a manager watches
  // this wait too (Waiter::kWatchedGraceNs).
  Incoming await_reply(MsgType expected, int from, const char* what, bool watched = false);
  // The same, calling `watch` at every poll (SyncClient watches for barrier
  // rounds that show another process in a different collective call).
  Incoming await_reply(MsgType expected, int from, const char* what, const std::function<void()>& watch,
                       bool watched = false);

  // Application thread only: acknowledgements owed to us (ack_ledger.h).
  AckLedger& acks() { return acks_; }

  bool app_polling() const { return waiter_.app_polling(); }
  SpinPolicy& spin_policy() { return waiter_.spin_policy(); }

  // Test only (SCOPEDSM_TEST_DELAY_US): sleeps a random time up to the
  // configured bound; does nothing when the bound is 0.
  void inject_delay() const { delay_.inject(); }

  // Next per-process sequence number for an outgoing header.
  uint32_t next_seq() { return seq_.fetch_add(1, std::memory_order_relaxed); }

  Traffic& traffic() { return traffic_; }
  TrafficCounters& sent() { return traffic_.sent(); }
  TrafficCounters& received() { return traffic_.received(); }

  // Work the application thread does while it waits (serving requests).
  void set_idle_work(std::function<bool()> work) { waiter_.set_idle_work(std::move(work)); }
  // Extra text appended to timeout reports (the lock stack, set by the runtime).
  void set_wait_context(std::function<std::string()> context) { waiter_.set_wait_context(std::move(context)); }

 private:
  void post(int dest, Tag tag, const void* data, size_t n, SharedBytes keep);
  // Waits for the next reply, whatever it is, and reads its type; a reply
  // without a valid header ends the job.
  Incoming next_reply(const char* what, int from, MsgType* type, bool watched,
                      const std::function<void()>* watch = nullptr);
  Incoming await_typed(MsgType expected, int from, const char* what, bool watched,
                       const std::function<void()>* watch);

  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owns_comm_ = true;
  int rank_ = 0;
  int size_ = 1;
  std::atomic<uint32_t> seq_{0};
  Wakeup wakeup_;
  Outbox outbox_;
  Mailbox mailbox_;
  Waiter waiter_{&wakeup_, &outbox_};
  AckLedger acks_;
  Traffic traffic_;
  DelayInjector delay_;
  NetModel net_;
};

}  // namespace scopedsm
