// The lock manager: the home side of every lock homed at this process
// (lock l is homed at rank l % size). Runs on the service thread.
//
// Per lock it keeps the holder, a FIFO queue of waiting requesters, and the
// lock's write notices: for each page, the last releaser that wrote it and
// the lock's version (incarnation) at that release. A grant carries only
// the notices newer than the version the acquirer saw last, so a process
// that takes the same lock again is not told about writes it already saw.
// Notices made before the latest barrier are dropped: the barrier covered
// them.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "runtime/state.h"
#include "transport/transport.h"

namespace scopedsm {

class LockManager {
 public:
  explicit LockManager(RuntimeState* state) : s_(state) {}

  void on_acquire(const Incoming& in, Reader* r);
  void on_release(const Incoming& in, Reader* r);

  static int home_of(int lock, int size) { return lock % size; }

 private:
  struct Waiter {
    int rank;
    uint64_t seen;
  };
  struct NoticeEntry {
    int32_t writer;
    uint64_t version;
  };
  struct LockState {
    int holder = -1;
    std::deque<Waiter> waiters;
    std::unordered_map<uint32_t, NoticeEntry> notices;
    uint64_t version = 0;
    uint32_t epoch = 0;
  };

  LockState& lock_state(int lock, const char* what, int source);
  void refresh_epoch(LockState* l, uint32_t epoch);
  void grant(int lock, LockState* l, const Waiter& w);

  RuntimeState* s_;
  std::unordered_map<int, LockState> locks_;
};

}  // namespace scopedsm
