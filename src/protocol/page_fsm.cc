#include "protocol/page_fsm.h"

#include <array>
#include <cinttypes>
#include <string>

#include "common/config.h"
#include "common/log.h"

namespace scopedsm {

namespace {

constexpr size_t kNumStates = 9;

// legal[from][to]: the causes (cause_bit) for which `from` may become `to`.
using LegalTable = std::array<std::array<uint32_t, kNumStates>, kNumStates>;
constexpr LegalTable make_legal() {
  LegalTable t{};
  for (const TransitionRule& r : kTransitions) t[static_cast<size_t>(r.from)][static_cast<size_t>(r.to)] |= r.causes;
  return t;
}
constexpr LegalTable kLegal = make_legal();

}  // namespace

const char* cause_name(Cause cause) {
  switch (cause) {
    case Cause::kAllocation: return "allocation";
    case Cause::kFirstTouch: return "first touch";
    case Cause::kFault: return "page fault";
    case Cause::kFetch: return "fetch";
    case Cause::kPrefetchHint: return "prefetch hint";
    case Cause::kFetchFinished: return "fetch finished";
    case Cause::kInvalidation: return "invalidation";
    case Cause::kEviction: return "eviction";
    case Cause::kRelease: return "release hint";
    case Cause::kRelief: return "map-pressure relief";
    case Cause::kNextTouch: return "next-touch point";
    case Cause::kEndOfInterval: return "end of interval";
    case Cause::kRetrap: return "retrap";
    case Cause::kWriteDetectAll: return "jia_config";
    case Cause::kUntrap: return "untrap";
    case Cause::kHomeMigration: return "home migration";
  }
  return "?";
}

PageFsm::PageFsm(PageTable* pages, PageCache* cache, PageProtection* protection, uint64_t test_faults,
                 const char* larger_blocks)
    : pages_(pages),
      cache_(cache),
      protection_(protection),
      relief_in_transition_((test_faults & static_cast<uint64_t>(TestFault::kReliefInTransition)) != 0),
      stale_home_offer_((test_faults & static_cast<uint64_t>(TestFault::kStaleHomeOffer)) != 0),
      larger_blocks_(larger_blocks) {}

bool PageFsm::legal(PageState from, PageState to, Cause cause) {
  return (kLegal[static_cast<size_t>(from)][static_cast<size_t>(to)] & cause_bit(cause)) != 0;
}

Status PageFsm::check(uint64_t page, PageState to, Cause cause) const {
  const PageMeta& m = (*pages_)[page];
  const PageState from = m.state;
  // The negative control stale-home-offer makes the home of a page whatever
  // its state: that is its breakage.
  const bool stale_offer = stale_home_offer_ && cause == Cause::kHomeMigration && to == PageState::kHomeClean;
  if (!legal(from, to, cause) && !stale_offer)
    return Status::Error("page " + std::to_string(page) + " cannot go from " + page_state_name(from) + " to " +
                         page_state_name(to) + " (" + cause_name(cause) + ")");
  // A copy holds its slot from the fetch into it (attach_slot, while
  // invalid) until it goes.
  if (cached(from) && m.slot == kNoSlot)
    return Status::Error("page " + std::to_string(page) + " is " + page_state_name(from) +
                         " without a cache slot (going to " + page_state_name(to) + ", " + cause_name(cause) + ")");
  if (from == PageState::kInvalid && cached(to) && m.slot == kNoSlot)
    return Status::Error("page " + std::to_string(page) + " cannot become " + page_state_name(to) + " (" +
                         cause_name(cause) + ") without a cache slot");
  if (from == PageState::kInvalid && !cached(to) && m.slot != kNoSlot)
    return Status::Error("page " + std::to_string(page) + " holds cache slot " + std::to_string(m.slot) +
                         " and cannot become " + page_state_name(to) + " (" + cause_name(cause) + ")");
  return Status::Ok();
}

void PageFsm::require(uint64_t page, PageState to, Cause cause) const {
  if (Status st = check(page, to, cause); !st.ok()) fatal("protocol error: %s", st.message().c_str());
}

void PageFsm::allocate(uint64_t page, int32_t home) {
  PageMeta& m = (*pages_)[page];
  if (m.state != PageState::kUnallocated)
    fatal("protocol error: page %" PRIu64 " is allocated again while %s", page, page_state_name(m.state));
  m.home.store(home, std::memory_order_relaxed);
  m.in_dirty_list = false;
  m.pending_diff = false;
  m.stale_listed = false;
  m.seen_marked = false;
  m.seen_trapped = false;
  m.unrecorded = false;
  m.run_pages = 0;
  m.run_source = RunSource::kFault;
  m.demanded = false;
  m.nt_pending = false;
  m.nt_touched = false;
  m.slot = kNoSlot;
  m.noted_serial = 0;
  m.noted_epoch = 0;
  m.wvec_version = 0;
  m.home_pinned = false;
  m.ckpt_changed = true;
}

void PageFsm::attach_slot(uint64_t page, uint32_t slot, bool far) {
  PageMeta& m = (*pages_)[page];
  if (m.state != PageState::kInvalid || m.slot != kNoSlot)
    fatal("protocol error: page %" PRIu64 " takes cache slot %u while %s%s", page, slot, page_state_name(m.state),
          m.slot != kNoSlot ? " with a slot already" : "");
  cache_->occupy(slot, page, far);
  m.slot = slot;
}

void PageFsm::to(uint64_t page, PageState to, Cause cause, const char* call) {
  Operation op(this);
  require(page, to, cause);
  const PageState from = (*pages_)[page].state;
  apply(page, 1, &from, to, cause, call);
}

void PageFsm::to_range(uint64_t first, uint64_t count, PageState to, Cause cause, const char* call) {
  if (count == 0) return;
  Operation op(this);
  std::vector<PageState> from(count);
  for (uint64_t i = 0; i < count; ++i) {
    require(first + i, to, cause);
    from[i] = (*pages_)[first + i].state;
  }
  apply(first, count, from.data(), to, cause, call);
}

void PageFsm::to_pages(const std::vector<uint32_t>& sorted, PageState to, Cause cause, const char* call) {
  if (sorted.empty()) return;
  Operation op(this);
  std::vector<PageState> from(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    require(sorted[i], to, cause);
    from[i] = (*pages_)[sorted[i]].state;
  }
  // One protection change per maximal run of consecutive pages.
  size_t i = 0;
  while (i < sorted.size()) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j] == sorted[j - 1] + 1) ++j;
    apply(sorted[i], j - i, from.data() + i, to, cause, call);
    i = j;
  }
}

void PageFsm::to_prefetched(uint64_t page, uint32_t run_pages, RunSource source, Cause cause) {
  Operation op(this);
  require(page, PageState::kPrefetched, cause);
  const PageState from = (*pages_)[page].state;
  apply(page, 1, &from, PageState::kPrefetched, cause, nullptr);
  PageMeta& m = (*pages_)[page];
  m.run_pages = static_cast<uint8_t>(run_pages);
  m.run_source = source;
}

void PageFsm::apply(uint64_t first, uint64_t count, const PageState* from, PageState to, Cause cause,
                    const char* call) {
  const Prot prot = prot_for(to);
  bool same = true;
  for (uint64_t i = 0; i < count && same; ++i) same = protection_->prot(first + i) == prot;
  if (!same) protect(first, count, prot, cause, call);
  for (uint64_t i = 0; i < count; ++i) {
    PageMeta& m = (*pages_)[first + i];
    if (cached(from[i]) && !cached(to)) {
      // The copy goes, and its slot and flags with it.
      cache_->free(m.slot);
      m.slot = kNoSlot;
      m.demanded = false;
      m.unrecorded = false;
    }
    if (from[i] == PageState::kPrefetched) {
      m.run_pages = 0;
      m.run_source = RunSource::kFault;
    }
    // The home's memory of it may change from here on without another
    // transition: it is being written (home-dirty), written untrapped, or
    // it has just become ours (allocation, first touch, home migration).
    // Leaving untrapped: writes made while untrapped went unobserved.
    if ((is_home_state(to) && (to != PageState::kHomeClean || !is_home_state(from[i]))) ||
        from[i] == PageState::kHomeUntrapped)
      m.ckpt_changed = true;
    m.state = to;
  }
}

void PageFsm::protect(uint64_t first, uint64_t count, Prot prot, Cause cause, const char* call) {
  const char* context = call != nullptr ? call : cause_name(cause);
  // The negative control: the relief inside the transition, before its change.
  if (relief_in_transition_ && !relieving_ && !protection_->fits_budget(first, count, prot)) run_relief();
  if (Status st = protection_->protect(first, count, prot); !st.ok())
    over_budget_fatal(context, first, count, st.message().c_str());
  if (!relief_queued_ && protection_->over_budget()) {
    relief_queued_ = true;
    over_context_ = context;
    over_first_ = first;
    over_count_ = count;
  }
}

void PageFsm::run_relief() {
  ++depth_;  // its own transitions end no outermost operation: no relief inside the relief
  relieving_ = true;
  ++reliefs_;
  if (relief_) relief_();
  relieving_ = false;
  --depth_;
}

void PageFsm::end_operation() {
  if (--depth_ != 0 || !relief_queued_) return;
  relief_queued_ = false;
  // Later transitions of the operation may have made room already.
  if (!protection_->over_budget()) return;
  run_relief();
  relief_queued_ = false;
  if (protection_->over_budget())
    over_budget_fatal(over_context_, over_first_, over_count_,
                      "protection boundaries would exceed the vm.max_map_count budget");
}

void PageFsm::over_budget_fatal(const char* context, uint64_t first, uint64_t count, const char* why) const {
  fatal("%s: cannot change the protection of %" PRIu64 " page(s) at %p: %s. The shared region has %" PRIu64
        " protection boundaries and this machine's vm.max_map_count leaves room for about %" PRIu64
        ". Place homes in larger blocks (%s), use a smaller SCOPEDSM_CACHE_PAGES, or raise vm.max_map_count.",
        context, count, protection_->address(first), why, protection_->boundaries(), protection_->boundary_budget(),
        larger_blocks_);
}

}  // namespace scopedsm
