// Message transport over MPI.
//
// The runtime talks on its own duplicate of MPI_COMM_WORLD so that nothing
// it sends can match an application's receives. All sends are non-blocking:
// a send hands its buffer to the outbox, which keeps it alive until MPI is
// done with it, and then wakes the receiving thread (see wakeup.h). Both the
// application thread and the service thread send; each thread receives only
// its own tag (requests for the service thread, replies and pages for the
// application thread), so receives never race.
//
// Waiting never blocks inside MPI: wait_until() polls, spins for
// SCOPEDSM_SPIN_US, then sleeps on the wake-up word, and reports a timeout
// with a description of what was awaited.
#pragma once

#include <mpi.h>

#include <array>
#include <deque>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/config.h"
#include "transport/node.h"
#include "transport/spin_policy.h"
#include "transport/wakeup.h"
#include "transport/wire.h"

namespace scopedsm {

using Bytes = std::vector<std::byte>;
using SharedBytes = std::shared_ptr<const Bytes>;

// A received message.
struct Incoming {
  int source = -1;
  Bytes bytes;
};

// Messages and bytes by type, kept per direction.
struct TrafficCounters {
  std::array<std::atomic<uint64_t>, kMsgTypeCount> messages{};
  std::array<std::atomic<uint64_t>, kMsgTypeCount> bytes{};
  std::atomic<uint64_t> page_messages{0};  // raw GETP answers (kTagPage)
  std::atomic<uint64_t> page_bytes{0};
  // Sent only: of the above, those a rank addressed to itself (local
  // mailbox, no MPI); already counted by type, kept apart so reports can
  // tell network traffic.
  std::atomic<uint64_t> self_messages{0};
  std::atomic<uint64_t> self_bytes{0};
};

class Transport {
 public:
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Collective. Duplicates `world` and sets up the wake-up channel between
  // the processes `node` says share a node. `node` must outlive the transport.
  Status init(MPI_Comm world, const NodeTopology& node, const Config& config);
  void finalize();

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm comm() const { return comm_; }
  Wakeup& wakeup() { return wakeup_; }
  // How long an idle thread may sleep before it polls again.
  uint64_t idle_sleep_ns() const { return sleep_ns_; }

  // Tuning of waits, shared with the service thread's loop.
  static constexpr int kPollsBeforeSleep = 16;          // polls that must all find nothing
  static constexpr uint64_t kSpinAfterWakeNs = 20000;   // keep polling this long after a wake-up
  static constexpr uint64_t kNapWithSendsNs = 200000;   // sleep bound while our sends are in flight

  // Sends a finished message (Writer::finish) to `dest` on `tag`.
  void send(int dest, Tag tag, Bytes bytes);
  void send_shared(int dest, Tag tag, const SharedBytes& bytes);
  // Sends `n` raw bytes that stay valid for the life of the runtime (a page
  // of the shared region), without copying them.
  void send_page(int dest, const void* data, size_t n);

  // Receives one waiting message on `tag`, if any. Messages a process sends
  // itself never enter MPI: they wait in a local mailbox.
  bool try_receive(Tag tag, Incoming* out);
  // Completes finished sends; returns true if any finished.
  bool progress_sends();
  bool sends_pending();

  // Polls `done` until it returns true, progressing sends in between; spins
  // first, then sleeps on `role`'s wake-up word. `what` and `from` describe
  // the wait for the timeout report.
  void wait_until(WakeRole role, const std::function<bool()>& done, const char* what, int from);

  // Waits (as wait_until) for an MPI request of ours to complete.
  void wait_request(MPI_Request* request, const char* what, int from, MPI_Status* status = MPI_STATUS_IGNORE);

  // Application thread only: waits for the next reply, which must be of
  // type `expected` from `from` (-1: any rank). A different reply means the
  // protocol broke, which is reported and ends the job. Diff
  // acknowledgements that arrive meanwhile are counted (see expect_ack).
  Incoming await_reply(MsgType expected, int from, const char* what);

  // Acknowledgements of requests that change state at their destination
  // without a reply of their own: DIFF (answered by DIFFGRANT), SETCV and
  // RESETCV (answered by ACK). Each such request sent to `home` owes us one;
  // await_reply consumes them whenever they come. wait_acks returns once
  // every home except `except` (-1: none) has applied everything we sent:
  // requests we send to `except` itself are ordered after ours anyway,
  // because MPI keeps one sender's messages to one receiver in order.
  // Releases call it, so no request of ours is overtaken by what others do
  // after the release.
  void expect_ack(int home) { ++acks_owed_[static_cast<size_t>(home)]; }
  void wait_acks(int except);

  // True while the application thread polls inside wait_until (not while
  // it sleeps there): it serves requests itself then, so the service thread
  // need not poll.
  bool app_polling() const { return app_polling_.load(std::memory_order_relaxed); }
  SpinPolicy& spin_policy() { return spin_policy_; }

  // Test only (SCOPEDSM_TEST_DELAY_US): sleeps a random time up to the
  // configured bound; does nothing when the bound is 0.
  void inject_delay() const;

  // Next per-process sequence number for an outgoing header.
  uint32_t next_seq() { return seq_.fetch_add(1, std::memory_order_relaxed); }

  TrafficCounters& sent() { return sent_; }
  TrafficCounters& received() { return received_; }

  // Work the application thread does while it waits (serving requests).
  void set_idle_work(std::function<bool()> work) { idle_work_ = std::move(work); }

  // Extra text appended to timeout reports (the lock stack, set by the runtime).
  void set_wait_context(std::function<std::string()> context) { wait_context_ = std::move(context); }

 private:
  [[noreturn]] void report_timeout(const char* what, int from);
  bool take_local(Tag tag, Incoming* out);
  void count_received(const Bytes& bytes);
  void post(int dest, Tag tag, const void* data, size_t n, SharedBytes keep);
  void count_sent(Tag tag, const void* data, size_t n);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  Wakeup wakeup_;
  uint64_t spin_ns_ = 50000;
  uint64_t sleep_ns_ = 20000000;
  double timeout_s_ = 0;
  uint64_t test_delay_ns_ = 0;
  std::atomic<uint32_t> seq_{0};

  std::mutex outbox_mu_;
  std::vector<MPI_Request> outbox_requests_;
  std::vector<SharedBytes> outbox_buffers_;

  // Messages to ourselves, per tag (requests, replies).
  std::mutex local_mu_;
  std::deque<Bytes> local_[2];
  std::vector<int> acks_owed_;  // per home; application thread only
  std::atomic<bool> app_polling_{false};
  SpinPolicy spin_policy_;

  TrafficCounters sent_;
  TrafficCounters received_;
  std::function<std::string()> wait_context_;
  std::function<bool()> idle_work_;
};

}  // namespace scopedsm
