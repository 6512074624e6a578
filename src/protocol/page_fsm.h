// The page state machine: the only writer of a page's coherence state, of
// its protection in the application's view, of its cache slot, and of the
// PageMeta fields that belong to a state. docs/PROTOCOL.md §2.0 is its
// table; the coherence engine (protocol/coherence.h) decides which
// transition a page makes and when, and this class makes it.
//
// Transitions. kTransitions lists every legal (from, to, cause). A
// transition of one page, of a range or of a sorted list of pages is
// checked whole before anything changes: every page's move must be in the
// table, and a page entering a cached state (read-only, read-write,
// prefetched, in-flight) from invalid must hold a cache slot, as must a page
// that is in one. A move that is not ends the job with a protocol error
// naming the page, both states and the cause. Then the protection of each
// maximal run changes (one mprotect; none where it already is the new
// state's), and each page's state with the fields that go with it:
//
//   leaving a cached state for one that is not (invalid, or home-clean by
//     home migration): the cache slot is freed, and the copy's flags go
//     with it (PageMeta::demanded, PageMeta::unrecorded)
//   entering prefetched: the run it is the tripwire of (run_pages,
//     run_source; to_prefetched); leaving it: both reset
//   leaving in-flight: only for fetch-finished (the run's memory is MPI's
//     until its fetch is finished)
//
// A page takes its slot while invalid (attach_slot), before the fetch into
// it; allocate() starts a new allocation's page afresh.
//
// Map pressure (docs/PROTOCOL.md §7). A transition never stops half way
// for the protection-boundary budget: its protections are applied whole
// (the budget keeps a margin below vm.max_map_count for that), and a
// transition that leaves the boundaries over the budget queues the relief.
// The relief (set_relief: the engine drops every clean cached copy that
// relievable() allows) runs when the outermost operation ends: never inside
// a transition, so it never frees the slot of a page that a transition is
// changing. An operation is a transition, or a scope of several that the
// engine opens (operation()): a fault, a drop of copies, a next-touch
// point. If the boundaries are still over the budget after the relief, the
// job ends naming the remedies. The pages scopedsm_prepare pins (pin()) are
// not relievable: the kernel is about to use them.
//
// Negative controls (test faults): relief-in-transition runs the relief
// inside the transition that meets the budget, after its check and before
// its change, over pinned pages too, so that the transition then applies
// what it checked to a page the relief has changed (a read-write copy with
// no slot, a slot freed twice); stale-home-offer lets a page in any state
// become home-clean by home migration.
//
// Thread owner: the application thread, for every method and field.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/status.h"
#include "memory/page_cache.h"
#include "memory/page_protection.h"
#include "memory/page_table.h"

namespace scopedsm {

// What makes a page change state. cause_name() is the word the protocol
// document's table and the error messages use.
enum class Cause : uint8_t {
  kAllocation = 0,   // an allocation placed the page
  kFirstTouch,       // a fault on a page with no home yet made us its home
  kFault,            // a read or write fault on the page itself
  kFetch,            // a fetch run or a prefetch hint's run brought the page (not the faulting one)
  kPrefetchHint,     // a prefetch hint's run from another node was left in flight
  kFetchFinished,    // a run in flight was waited for (a touch, a synchronization point, an eviction)
  kInvalidation,     // a write notice, or an acquire dropping unrecorded copies or (CO-WD) every copy
  kEviction,         // the cache's victim
  kRelease,          // a release hint passed on
  kRelief,           // map-pressure relief
  kNextTouch,        // a next-touch point
  kEndOfInterval,    // a synchronization point ends the interval
  kRetrap,           // a copy was taken of an untrapped home page (drained at a synchronization point)
  kWriteDetectAll,   // jia_config(ADWD, OFF): every home write is trapped from now on
  kUntrap,           // a barrier found nobody else holding a copy of a home page
  kHomeMigration,    // a barrier moved the page's home
};
inline constexpr uint32_t kNumCauses = 16;
const char* cause_name(Cause cause);

constexpr uint32_t cause_bit(Cause c) { return 1u << static_cast<uint32_t>(c); }
template <typename... C>
constexpr uint32_t causes(C... c) {
  return (cause_bit(c) | ...);
}

// One row of the transition table: `from` may become `to` for each cause in `causes` (cause_bit).
struct TransitionRule {
  PageState from;
  PageState to;
  uint32_t causes;
};

// Every legal transition, in the order of docs/PROTOCOL.md §2.0 (a unit
// test checks that the document's table says exactly this).
inline constexpr TransitionRule kTransitions[] = {
    {PageState::kUnallocated, PageState::kInvalid, causes(Cause::kAllocation)},
    {PageState::kUnallocated, PageState::kHomeUntrapped, causes(Cause::kAllocation)},
    {PageState::kUnallocated, PageState::kHomeClean, causes(Cause::kAllocation)},
    {PageState::kInvalid, PageState::kReadOnly, causes(Cause::kFault, Cause::kFetch)},
    {PageState::kInvalid, PageState::kReadWrite, causes(Cause::kFault)},
    {PageState::kInvalid, PageState::kPrefetched, causes(Cause::kFetch)},
    {PageState::kInvalid, PageState::kInFlight, causes(Cause::kPrefetchHint)},
    {PageState::kInvalid, PageState::kHomeUntrapped, causes(Cause::kFirstTouch)},
    {PageState::kInvalid, PageState::kHomeClean, causes(Cause::kFirstTouch)},
    {PageState::kReadOnly, PageState::kReadWrite, causes(Cause::kFault)},
    {PageState::kReadOnly, PageState::kInvalid,
     causes(Cause::kInvalidation, Cause::kEviction, Cause::kRelease, Cause::kRelief, Cause::kNextTouch)},
    {PageState::kReadOnly, PageState::kHomeClean, causes(Cause::kHomeMigration)},
    {PageState::kReadWrite, PageState::kReadOnly, causes(Cause::kEndOfInterval)},
    {PageState::kReadWrite, PageState::kInvalid, causes(Cause::kEviction, Cause::kRelease)},
    {PageState::kPrefetched, PageState::kReadOnly, causes(Cause::kFault)},
    {PageState::kPrefetched, PageState::kReadWrite, causes(Cause::kFault)},
    {PageState::kPrefetched, PageState::kInvalid,
     causes(Cause::kInvalidation, Cause::kEviction, Cause::kRelease, Cause::kRelief, Cause::kNextTouch)},
    {PageState::kInFlight, PageState::kReadOnly, causes(Cause::kFetchFinished)},
    {PageState::kInFlight, PageState::kPrefetched, causes(Cause::kFetchFinished)},
    {PageState::kHomeClean, PageState::kHomeDirty, causes(Cause::kFault)},
    {PageState::kHomeClean, PageState::kHomeUntrapped, causes(Cause::kUntrap)},
    {PageState::kHomeClean, PageState::kInvalid, causes(Cause::kHomeMigration)},
    {PageState::kHomeDirty, PageState::kHomeClean, causes(Cause::kEndOfInterval)},
    {PageState::kHomeUntrapped, PageState::kHomeDirty, causes(Cause::kRetrap, Cause::kWriteDetectAll)},
    {PageState::kHomeUntrapped, PageState::kHomeClean, causes(Cause::kNextTouch)},
    {PageState::kHomeUntrapped, PageState::kInvalid, causes(Cause::kHomeMigration)},
};

class PageFsm {
 public:
  // `larger_blocks`: how the program's surface says to place homes in
  // larger blocks, for the report when the budget cannot be kept.
  // `test_faults`: TestFault bits; only relief-in-transition and
  // stale-home-offer matter here.
  PageFsm(PageTable* pages, PageCache* cache, PageProtection* protection, uint64_t test_faults,
          const char* larger_blocks);
  PageFsm(const PageFsm&) = delete;
  PageFsm& operator=(const PageFsm&) = delete;

  // What relieves map pressure: drops clean cached copies that relievable()
  // allows, through this class's transitions.
  void set_relief(std::function<void()> relief) { relief_ = std::move(relief); }

  // Whether the table allows `from` to become `to` for `cause`.
  static bool legal(PageState from, PageState to, Cause cause);
  // Whether `page` may become `to` for `cause` now (the table, and its cache
  // slot); the error names page, both states and cause.
  Status check(uint64_t page, PageState to, Cause cause) const;
  // check(), ending the job with a protocol error if it fails.
  void require(uint64_t page, PageState to, Cause cause) const;

  PageState state(uint64_t page) const { return (*pages_)[page].state; }

  // A page of a new allocation: every PageMeta field afresh (no slot, no
  // flags), homed at `home` (or kHomeUnknown). It must be unallocated and
  // stays so until its allocation transition.
  void allocate(uint64_t page, int32_t home);
  // Gives invalid `page` the free cache slot `slot` (PageCache::take_free),
  // which joins the back of its queue (`far`: PageCache::occupy). The fetch
  // into the slot follows, then a transition to a cached state.
  void attach_slot(uint64_t page, uint32_t slot, bool far);

  // Transitions. `call` names the API call in the error messages of an
  // allocation instead of the cause.
  void to(uint64_t page, PageState to, Cause cause, const char* call = nullptr);
  void to_range(uint64_t first, uint64_t count, PageState to, Cause cause, const char* call = nullptr);
  void to_pages(const std::vector<uint32_t>& sorted, PageState to, Cause cause, const char* call = nullptr);
  // To prefetched: the tripwire of a run that brought `run_pages` pages
  // besides it, from `source`.
  void to_prefetched(uint64_t page, uint32_t run_pages, RunSource source, Cause cause);

  // A scope of transitions that is one operation: relief queued inside it
  // runs when the outermost scope ends.
  class Operation {
   public:
    explicit Operation(PageFsm* fsm) : fsm_(fsm) { ++fsm_->depth_; }
    ~Operation() { fsm_->end_operation(); }
    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;

   private:
    PageFsm* fsm_;
  };
  [[nodiscard]] Operation operation() { return Operation(this); }

  // scopedsm_prepare: pages [first, end) are being made valid for the
  // kernel. Pinned pages are not relievable, and the engine does not evict
  // them meanwhile.
  void pin(uint64_t first, uint64_t end) {
    if (end > first) pins_.emplace_back(first, end);
  }
  void unpin() { pins_.clear(); }
  bool pinning() const { return !pins_.empty(); }
  bool pinned(uint64_t page) const {
    for (const auto& [first, end] : pins_)
      if (page >= first && page < end) return true;
    return false;
  }
  // Whether the relief may drop `page`: not pinned (under the control
  // relief-in-transition, any page).
  bool relievable(uint64_t page) const { return relief_in_transition_ || !pinned(page); }

  // Whether a relief is queued (for tests: it is, only inside an operation).
  bool relief_queued() const { return relief_queued_; }
  // Reliefs run so far.
  uint64_t reliefs() const { return reliefs_; }

 private:
  static bool cached(PageState s) {
    return s == PageState::kReadOnly || s == PageState::kReadWrite || s == PageState::kPrefetched ||
           s == PageState::kInFlight;
  }
  // Applies a checked transition of run [first, first + count), whose pages
  // were in states from[0..count) when it was checked.
  void apply(uint64_t first, uint64_t count, const PageState* from, PageState to, Cause cause, const char* call);
  // Sets the run's protection; queues the relief if it leaves the
  // boundaries over the budget.
  void protect(uint64_t first, uint64_t count, Prot prot, Cause cause, const char* call);
  void run_relief();
  void end_operation();
  [[noreturn]] void over_budget_fatal(const char* context, uint64_t first, uint64_t count, const char* why) const;

  PageTable* const pages_;
  PageCache* const cache_;
  PageProtection* const protection_;
  const bool relief_in_transition_;  // test fault relief-in-transition
  const bool stale_home_offer_;      // test fault stale-home-offer
  const char* const larger_blocks_;
  std::function<void()> relief_;
  uint32_t depth_ = 0;          // operations open
  bool relief_queued_ = false;  // the boundaries went over the budget in this operation
  bool relieving_ = false;      // the relief is running
  uint64_t reliefs_ = 0;
  // The transition that first went over the budget, for the report.
  const char* over_context_ = nullptr;
  uint64_t over_first_ = 0;
  uint64_t over_count_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> pins_;  // [first, end) ranges prepare() is making valid
};

}  // namespace scopedsm
