// Per-page coherence metadata for every page of the shared region.
//
// The states, written out (docs/PROTOCOL.md has the transitions):
//
//   kUnallocated    not part of any allocation; touching it is an error
//   kInvalid        homed elsewhere; no valid copy here        (no access)
//   kReadOnly       homed elsewhere; clean cached copy         (read)
//   kReadWrite      homed elsewhere; written, has a twin       (read-write)
//   kPrefetched     homed elsewhere; clean copy brought by a fetch run and
//                   not touched yet: the run's last page, a tripwire (none)
//   kInFlight       homed elsewhere; a prefetch hint's fetch of it is on its
//                   way into its cache slot (none): the first touch, an
//                   eviction or the next synchronization point waits for it
//   kHomeClean      homed here; writes are trapped             (read)
//   kHomeDirty      homed here; written this interval, noted   (read-write)
//   kHomeUntrapped  homed here; no other process holds a copy,
//                   so writes need no notice                   (read-write)
//
// The application thread owns every field except `home`, which the service
// thread reads while serving page requests. What other processes record
// about our home pages (adaptive write detection) is not here but in the
// node-shared HomeShare (memory/home_share.h).
//
// Each state has exactly one protection (prot_for). The page state machine
// (PageFsm, protocol/page_fsm.h) is the only writer of `state` and of the
// fields marked "PageFsm" below, and it sets the protection with the state;
// its table of legal transitions is docs/PROTOCOL.md §2.0. The other fields
// belong to the parts named beside them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/status.h"

namespace scopedsm {

enum class PageState : uint8_t {
  kUnallocated = 0,
  kInvalid,
  kReadOnly,
  kReadWrite,
  kHomeClean,
  kHomeDirty,
  kHomeUntrapped,
  kPrefetched,
  kInFlight,
};
const char* page_state_name(PageState state);
inline bool is_home_state(PageState s) {
  return s == PageState::kHomeClean || s == PageState::kHomeDirty || s == PageState::kHomeUntrapped;
}

// The protection each state gives the application's view of the page.
enum class Prot : uint8_t { kNone = 0, kRead = 1, kReadWrite = 2 };
constexpr Prot prot_for(PageState s) {
  switch (s) {
    case PageState::kUnallocated:
    case PageState::kInvalid:
    case PageState::kPrefetched:
    case PageState::kInFlight: return Prot::kNone;
    case PageState::kReadOnly:
    case PageState::kHomeClean: return Prot::kRead;
    case PageState::kReadWrite:
    case PageState::kHomeDirty:
    case PageState::kHomeUntrapped: return Prot::kReadWrite;
  }
  return Prot::kNone;
}

constexpr uint32_t kNoSlot = UINT32_MAX;
constexpr int32_t kHomeUnknown = -1;

// What brought a kPrefetched page's run: a fault (a fetch run), the
// program's prefetch hint, or the engine's own (SCOPEDSM_AUTO_HINTS). Each
// counts its used and wasted pages apart. kFault is 0: zero-filled memory is
// a valid PageMeta array.
enum class RunSource : uint8_t { kFault = 0, kHint, kAuto };

struct PageMeta {
  std::atomic<int32_t> home;  // owning rank, or kHomeUnknown (first touch); set by PageFsm::allocate, then moved by the engine
  PageState state;            // PageFsm
  bool in_dirty_list;         // queued for the end of the interval (the engine's dirty list)
  bool pending_diff;          // a diff of it waits to be sent home (the engine's pending pool)
  bool stale_listed;          // invalid copy whose memory awaits discarding (the engine's stale list)
  bool seen_marked;           // we marked it `seen` at its home (one-sided reads, HomeShare; RmaSource)
  bool seen_trapped;          // seen_marked, and a one-sided read found it trapped: it stays trapped while marked
  bool unrecorded;            // our copy was read one-sided while its home did not trap it: dropped at our next acquire (set by RmaSource; PageFsm clears it when the copy goes)
  uint8_t run_pages;          // kPrefetched only: pages its fetch run brought besides the faulting one (PageFsm)
  RunSource run_source;       // kPrefetched only: what brought its run (PageFsm)
  bool demanded;              // fetched by a fault and named by no prefetch hint since (a later hint was late); PageFsm clears it when the copy goes
  bool nt_pending;            // marked by a next-touch point; its home moves at the barrier after its next touch
  bool nt_touched;            // nt_pending, and we fetched it by a fault since the last barrier (touch mode)
  bool home_pinned;           // its home never moves and never traps it; every copy is unrecorded (an OpenMP master's stack)
  bool ckpt_changed;          // its contents at its home may differ from the last checkpoint's (PageFsm and the engine set it, the checkpoint clears it; runtime/checkpoint.h)
  uint32_t slot;              // cache slot while cached, else kNoSlot (PageFsm)
  uint32_t noted_serial;      // serial of the inner lock-stack level that last noted it (LockStack)
  uint32_t noted_epoch;       // epoch + 1 in which the bottom level noted it (LockStack)
  uint64_t wvec_version;      // homed elsewhere: the home's write-vector version of our memory of it; 0 = none
};

class PageTable {
 public:
  PageTable() = default;
  ~PageTable();
  PageTable(const PageTable&) = delete;
  PageTable& operator=(const PageTable&) = delete;

  // Reserves metadata for `num_pages`; memory is committed only when touched.
  Status init(uint64_t num_pages);
  PageMeta& operator[](uint64_t page) { return meta_[page]; }
  const PageMeta& operator[](uint64_t page) const { return meta_[page]; }
  uint64_t num_pages() const { return num_pages_; }

  // Pages [0, allocated()) belong to some allocation. Written by the
  // application thread once an allocation is agreed, read by the service
  // thread to validate requests.
  uint64_t allocated() const { return allocated_.load(std::memory_order_acquire); }
  void set_allocated(uint64_t pages) { allocated_.store(pages, std::memory_order_release); }

 private:
  PageMeta* meta_ = nullptr;
  uint64_t num_pages_ = 0;
  std::atomic<uint64_t> allocated_{0};
};

}  // namespace scopedsm
