// The outbox: non-blocking sends in flight, and the buffers they read.
//
// Every runtime send is an MPI_Isend, so no thread ever blocks inside MPI
// (see wakeup.h for why). MPI reads a send's buffer until the send
// completes, so the outbox keeps each buffer alive (a SharedBytes reference,
// or nothing for a page of the shared region, which lives as long as the
// runtime) until MPI_Testsome reports the send done. Whoever waits calls
// progress() (Waiter does, on every poll) so that sends complete while the
// process waits for their answers.
//
// With the cost model on (net_model.h) a send between nodes may have to
// wait for its modelled departure: post() then queues it, in order, and
// progress() hands it to MPI once due. Sends posted later wait behind it,
// so each destination still receives messages in the order they were sent.
//
// post() takes any size up to kMaxMessageBytes (message_size.h); the caller
// checks, because it knows what the message is.
//
// Thread owner: none; both threads post and progress. A mutex guards the
// requests and buffers, and is held across MPI_Isend, so the two threads
// never call MPI on the same requests at once.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/thread_annotations.h"
#include "transport/bytes.h"
#include "transport/wire.h"

namespace scopedsm {

class Outbox {
 public:
  // The communicator every send goes to; set once before the first post.
  void init(MPI_Comm comm) { comm_ = comm; }

  // Starts sending the `n` bytes at `data` to `dest` on `tag`. `keep` owns
  // the bytes (or is null when they outlive the runtime) and is held until
  // the send completes. `due_ns`: not before this time (now_ns()); 0: at once.
  void post(int dest, Tag tag, const void* data, size_t n, SharedBytes keep, uint64_t due_ns = 0) EXCLUDES(mu_);
  // Hands due sends to MPI, completes finished sends and releases their
  // buffers; true if any was handed on or finished.
  bool progress() EXCLUDES(mu_);
  // True while some send has not completed.
  bool pending() EXCLUDES(mu_);
  // True while some send waits for its departure time: whoever would sleep
  // polls instead, so that it leaves on time. One relaxed load.
  bool delaying() const { return delayed_count_.load(std::memory_order_relaxed) != 0; }
  // Progresses until every send has completed. Only for shutdown: it
  // returns only once the receivers have taken every message.
  void drain();

 private:
  struct Delayed {
    uint64_t due_ns;
    int dest;
    Tag tag;
    const void* data;
    size_t n;
    SharedBytes keep;
  };
  // MPI_Isend under mu_.
  void start_locked(int dest, Tag tag, const void* data, size_t n, SharedBytes keep) REQUIRES(mu_);

  MPI_Comm comm_ = MPI_COMM_NULL;
  Mutex mu_;
  std::vector<MPI_Request> requests_ GUARDED_BY(mu_);
  std::vector<SharedBytes> buffers_ GUARDED_BY(mu_);  // buffers_[i] is read by requests_[i]
  std::deque<Delayed> delayed_ GUARDED_BY(mu_);       // not yet handed to MPI, in posting order
  std::atomic<size_t> delayed_count_{0};
};

}  // namespace scopedsm
