// The condition-variable manager: the home side of every condition variable
// homed at this process (cv c is homed at rank c % size). Service thread.
//
// ScopeDSM's condition variables are flags with release/acquire meaning
// (docs/MEMORY_MODEL.md): jia_setcv sets the flag and deposits the setter's
// write notices; jia_waitcv returns once the flag is set, with the notices
// deposited since the last jia_resetcv; jia_resetcv clears both.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "protocol/notices.h"
#include "sync/deadlock.h"
#include "sync/parts.h"
#include "transport/transport.h"

namespace scopedsm {

class CondvarManager {
 public:
  explicit CondvarManager(const SyncParts& parts) : p_(parts) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, const CvSetMsg& msg);
  void on(const Incoming& in, const CvResetMsg& msg);
  void on(const Incoming& in, const CvWaitMsg& msg);

  static int home_of(int cv, int size) { return cv % size; }

  // The processes queued on condition variables homed here, which are then
  // unset: no grant has left for their waits (for the deadlock detector).
  std::vector<CvQueued> queued() const;

 private:
  struct CvState {
    bool set = false;
    std::vector<int> waiters;
    NoticeMerge notices;  // deposited since the last reset or barrier
    uint32_t epoch = 0;
  };
  CvState& cv_state(uint32_t cv, uint32_t epoch, const char* what, int source);
  void grant(uint32_t cv, const CvState& c, int rank);

  const SyncParts p_;
  std::unordered_map<uint32_t, CvState> cvs_;
};

}  // namespace scopedsm
