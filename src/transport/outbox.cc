#include "transport/outbox.h"

#include <sched.h>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

void Outbox::post(int dest, Tag tag, const void* data, size_t n, SharedBytes keep, uint64_t due_ns) {
  MutexLock lock(&mu_);
  // Behind a held send, every send waits its turn (even one the model no
  // longer delays: a test may switch it off), so none overtakes another.
  if (!delayed_.empty() || (due_ns != 0 && now_ns() < due_ns)) {
    delayed_.push_back({due_ns, dest, tag, data, n, std::move(keep)});
    delayed_count_.store(delayed_.size(), std::memory_order_relaxed);
    return;
  }
  start_locked(dest, tag, data, n, std::move(keep));
}

void Outbox::start_locked(int dest, Tag tag, const void* data, size_t n, SharedBytes keep) {
  MPI_Request req;
  int rc = MPI_Isend(data, static_cast<int>(n), MPI_BYTE, dest, tag, comm_, &req);
  if (rc != MPI_SUCCESS) fatal("MPI_Isend of %zu bytes to rank %d failed (code %d)", n, dest, rc);
  // Drive progress once now: MPI may only queue the message inside Isend,
  // and the receiver about to be woken would find nothing.
  int done = 0;
  MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  if (!done) {
    requests_.push_back(req);
    buffers_.push_back(std::move(keep));
  }
}

bool Outbox::pending() {
  MutexLock lock(&mu_);
  return !requests_.empty() || !delayed_.empty();
}

bool Outbox::progress() {
  MutexLock lock(&mu_);
  bool started = false;
  if (!delayed_.empty()) {
    const uint64_t now = now_ns();
    while (!delayed_.empty() && delayed_.front().due_ns <= now) {
      Delayed& d = delayed_.front();
      start_locked(d.dest, d.tag, d.data, d.n, std::move(d.keep));
      delayed_.pop_front();
      started = true;
    }
    delayed_count_.store(delayed_.size(), std::memory_order_relaxed);
  }
  if (requests_.empty()) return started;
  int n = static_cast<int>(requests_.size());
  int outcount = 0;
  std::vector<int> done(static_cast<size_t>(n));
  MPI_Testsome(n, requests_.data(), &outcount, done.data(), MPI_STATUSES_IGNORE);
  if (outcount <= 0 || outcount == MPI_UNDEFINED) return started;
  // Compact: drop the completed entries (their requests are MPI_REQUEST_NULL).
  size_t w = 0;
  for (size_t r = 0; r < requests_.size(); ++r) {
    if (requests_[r] == MPI_REQUEST_NULL) continue;
    requests_[w] = requests_[r];
    buffers_[w] = std::move(buffers_[r]);
    ++w;
  }
  requests_.resize(w);
  buffers_.resize(w);
  return true;
}

void Outbox::drain() {
  while (pending()) {
    progress();
    sched_yield();
  }
}

}  // namespace scopedsm
