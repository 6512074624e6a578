// Test fault injection: random delays before sends and serves.
//
// SCOPEDSM_TEST_DELAY_US=N makes every send, and every request the service
// thread serves, wait a random time below N microseconds first. That
// reorders messages from different senders and stretches the windows in
// which the protocol's races would show, so the model and difftest suites
// meet interleavings an idle machine never produces. With N = 0 (the
// default) inject() returns at once.
//
// Thread owner: configured by the application thread at init, constant
// afterwards; inject() may be called by any thread (each has its own
// random generator).
#pragma once

#include <cstdint>

namespace scopedsm {

class DelayInjector {
 public:
  // Delays will be below `max_us` microseconds; 0 disables them.
  void configure(uint64_t max_us) { max_ns_ = max_us * 1000; }
  bool enabled() const { return max_ns_ != 0; }

  // The next delay, in [0, bound) nanoseconds; 0 when disabled.
  uint64_t next_delay_ns() const;
  // Sleeps for next_delay_ns().
  void inject() const;

 private:
  uint64_t max_ns_ = 0;
};

}  // namespace scopedsm
