// Re-homing on next touch (docs/PROTOCOL.md §6c): which pages are
// next-touch pending, and which of them this process offers to take home at
// the next barrier because it touched them.
//
// Decides: which pages a next-touch point marks (allocated pages with a
// home, not pinned), which of our copies it drops so that our next touch
// faults (touch mode only), which of our home pages it traps again; which
// allocations still have automatic next-touch points (SCOPEDSM_NEXT_TOUCH=
// barrier:N); which pending pages we fetched by a fault and only read (a
// touch-only offer at the barrier). The move itself is HomeMigration's.
//
// Events: a next-touch point (mark), an allocation (on_allocation), a fault
// that fetched a page (on_fetch_fault), a barrier's notices being built
// (add_touch_offers) and a completed barrier (on_barrier).
//
// Thread owner: the application thread.
#pragma once

#include <cstdint>
#include <vector>

#include "protocol/engine_ops.h"
#include "protocol/notices.h"

namespace scopedsm {

class WriteDetection;

class NextTouch {
 public:
  NextTouch(const EngineContext& c, EngineOps* ops, WriteDetection* detect) : c_(c), ops_(ops), detect_(detect) {}

  // A next-touch point (scopedsm_next_touch): pages [first, first+count)
  // become pending. Call right after a barrier, on every process alike. In
  // touch mode our cached copies of them are dropped (in runs), so that our
  // next touch faults. Pages with no home yet (first touch) are left alone.
  void mark(uint64_t first, uint64_t count);
  // A new allocation: with SCOPEDSM_NEXT_TOUCH=barrier:N its first N
  // barriers are next-touch points for it.
  void on_allocation(uint64_t first, uint64_t count);
  // A barrier completed (after its invalidations): the automatic points.
  void on_barrier();
  // A fault fetched `page`: a pending page's touch, offered at the next
  // barrier (touch mode).
  void on_fetch_fault(uint64_t page);
  // Adds to `notices` (sorted, this process's for a barrier, for `written`
  // pages, sorted) a touch-only offer for each pending page we fetched by a
  // fault since the last barrier, still hold, and did not write.
  void add_touch_offers(const std::vector<uint32_t>& written, std::vector<WriteNotice>* notices);

  // Allocations with automatic next-touch points left.
  size_t automatic_ranges() const { return auto_.size(); }

 private:
  // mark() without its drain of the retrap queue. Returns whether it
  // trapped any of our home pages.
  bool mark_pending(uint64_t first, uint64_t count);

  struct AutoNextTouch {
    uint64_t first, count;
    uint32_t left;  // barriers still to act as next-touch points
  };
  EngineContext c_;
  EngineOps* ops_;
  WriteDetection* detect_;
  std::vector<AutoNextTouch> auto_;
  std::vector<uint32_t> touched_;  // pending pages we fetched by a fault since the last barrier
};

}  // namespace scopedsm
