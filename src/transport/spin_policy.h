// When a waiting thread may busy-poll instead of sleeping.
//
// Polling is right when this thread has a core to itself: it answers in
// microseconds instead of paying a futex wake-up (~20 µs under load). It is
// wrong when the thread shares its core with a runnable thread (more
// threads than cores, or someone else's job): then every poll delays that
// thread, which may be the very one that would answer. A thread that finds
// a large gap between two of its own polls was descheduled, so the core is
// shared; then no thread of the process polls for a while and every wait
// goes straight to the futex, whose wake-up preempts.
#pragma once

#include <atomic>
#include <cstdint>

namespace scopedsm {

class SpinPolicy {
 public:
  static constexpr uint64_t kPreemptedGapNs = 20000;   // a poll gap this long means we were descheduled
  static constexpr uint64_t kBackoffNs = 10000000;     // then nobody in the process polls for this long

  // Records a poll at `now` by the thread whose previous poll was at
  // *last_poll (0: the previous step was not a poll). Returns whether it may
  // keep polling.
  bool may_spin(uint64_t* last_poll, uint64_t now) {
    if (*last_poll != 0 && now - *last_poll > kPreemptedGapNs)
      no_spin_until_.store(now + kBackoffNs, std::memory_order_relaxed);
    *last_poll = now;
    return now >= no_spin_until_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> no_spin_until_{0};
};

}  // namespace scopedsm
