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
  // A poll gap this long means we were descheduled. Gaps of 20-100 us come
  // from interrupts and the hypervisor too; taking them for contention
  // stopped polling for nothing (CG on 2 processes ran 3.6x slower).
  static constexpr uint64_t kPreemptedGapNs = 100000;
  // Then nobody in the process polls for this long. Short, because one
  // descheduling says little about the next millisecond.
  static constexpr uint64_t kBackoffNs = 1000000;

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
