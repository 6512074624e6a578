#include "transport/delay_injector.h"

#include <ctime>
#include <random>

namespace scopedsm {

uint64_t DelayInjector::next_delay_ns() const {
  if (max_ns_ == 0) return 0;
  thread_local std::mt19937_64 rng(std::random_device{}());
  return rng() % max_ns_;
}

void DelayInjector::inject() const {
  if (max_ns_ == 0) return;
  const uint64_t ns = next_delay_ns();
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  nanosleep(&ts, nullptr);
}

}  // namespace scopedsm
