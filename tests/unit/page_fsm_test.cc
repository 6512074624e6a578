// The page state machine (protocol/page_fsm.h) without MPI: a real page
// table and cache, and a fake of the application view's protections that
// counts boundaries as Region does and takes any budget.
//
// Every legal transition and the protection it leaves; every illegal one
// refused (Status, and the job ending with a protocol error); the slot and
// the fields that go with a state; the relief of map pressure queued during
// an operation and run after it, never inside a transition, passing over
// pinned pages; and the control relief-in-transition, which runs it inside.
// Last, the table in docs/PROTOCOL.md §2.0 is the code's.
#include "protocol/page_fsm.h"

#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "common/config.h"
#include "support/fake_protection.h"

namespace scopedsm {
namespace {

constexpr uint64_t kPages = 16;

bool cached(PageState s) {
  return s == PageState::kReadOnly || s == PageState::kReadWrite || s == PageState::kPrefetched ||
         s == PageState::kInFlight;
}

const PageState kStates[] = {PageState::kUnallocated, PageState::kInvalid,    PageState::kReadOnly,
                             PageState::kReadWrite,   PageState::kHomeClean,  PageState::kHomeDirty,
                             PageState::kHomeUntrapped, PageState::kPrefetched, PageState::kInFlight};

struct Fixture {
  explicit Fixture(uint64_t test_faults = 0) : fsm(&pages, &cache, &prot, test_faults, "larger blocks") {
    EXPECT_TRUE(pages.init(kPages).ok());
    EXPECT_TRUE(cache.init(8, 4096).ok());
  }
  // Puts `page` in `state` as the engine would have: its protection, and a
  // cache slot when the state is a cached one (or `with_slot`: an invalid
  // page whose fetch is under way).
  void place(uint64_t page, PageState state, bool with_slot = false) {
    PageMeta& m = pages[page];
    m.state = state;
    m.slot = kNoSlot;
    if (cached(state) || with_slot) {
      const uint32_t slot = cache.take_free();
      ASSERT_NE(slot, kNoSlot);
      cache.occupy(slot, page);
      m.slot = slot;
    }
    if (prot.prot(page) != prot_for(state)) {
      ASSERT_TRUE(prot.protect(page, 1, prot_for(state)).ok());
    }
  }
  PageTable pages;
  PageCache cache;
  FakeProtection prot{kPages};
  PageFsm fsm;
};

void go(PageFsm& fsm, uint64_t page, PageState to, Cause cause) {
  if (to == PageState::kPrefetched) fsm.to_prefetched(page, 3, RunSource::kHint, cause);
  else fsm.to(page, to, cause);
}

// Every row of the table, for each of its causes: the page ends in the new
// state with that state's protection; a copy that goes frees its slot and
// its flags, one that stays keeps its slot; a tripwire gets its run.
TEST(PageFsm, EveryLegalTransitionLeavesTheNewStatesProtectionAndSlot) {
  int checked = 0, legal = 0;
  for (const TransitionRule& r : kTransitions) legal += std::popcount(r.causes);
  for (const TransitionRule& r : kTransitions) {
    for (uint32_t c = 0; c < kNumCauses; ++c) {
      if ((r.causes & (1u << c)) == 0) continue;
      const Cause cause = static_cast<Cause>(c);
      SCOPED_TRACE(std::string(page_state_name(r.from)) + " -> " + page_state_name(r.to) + " (" + cause_name(cause) + ")");
      Fixture f;
      const uint64_t page = 5;
      f.place(page, r.from, r.from == PageState::kInvalid && cached(r.to));
      PageMeta& m = f.pages[page];
      m.demanded = m.unrecorded = true;
      if (r.from == PageState::kPrefetched) {
        m.run_pages = 7;
        m.run_source = RunSource::kAuto;
      }
      const uint32_t slot = m.slot;
      const uint64_t used = f.cache.used();
      ASSERT_TRUE(f.fsm.check(page, r.to, cause).ok()) << f.fsm.check(page, r.to, cause).message();
      go(f.fsm, page, r.to, cause);
      EXPECT_EQ(m.state, r.to);
      EXPECT_EQ(f.prot.prot(page), prot_for(r.to));
      if (cached(r.to)) {
        EXPECT_EQ(m.slot, slot);
        EXPECT_NE(m.slot, kNoSlot);
        EXPECT_EQ(f.cache.used(), used);
      } else {
        EXPECT_EQ(m.slot, kNoSlot);
        EXPECT_EQ(f.cache.used(), used - (slot != kNoSlot ? 1 : 0));
        if (cached(r.from)) {
          EXPECT_FALSE(m.demanded);
          EXPECT_FALSE(m.unrecorded);
        }
      }
      if (r.to == PageState::kPrefetched) {
        EXPECT_EQ(m.run_pages, 3);
        EXPECT_EQ(m.run_source, RunSource::kHint);
      } else {
        EXPECT_EQ(m.run_pages, 0);
        EXPECT_EQ(m.run_source, RunSource::kFault);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, legal);
  EXPECT_EQ(legal, 37);
}

// Everything else is refused, naming the page, both states and the cause.
TEST(PageFsm, EveryIllegalTransitionIsRefused) {
  int refused = 0, legal = 0;
  for (const TransitionRule& r : kTransitions) legal += std::popcount(r.causes);
  for (PageState from : kStates)
    for (PageState to : kStates)
      for (uint32_t c = 0; c < kNumCauses; ++c) {
        const Cause cause = static_cast<Cause>(c);
        if (PageFsm::legal(from, to, cause)) continue;
        Fixture f;
        f.place(9, from, from == PageState::kInvalid && cached(to));
        const Status st = f.fsm.check(9, to, cause);
        ASSERT_FALSE(st.ok()) << page_state_name(from) << " -> " << page_state_name(to) << " (" << cause_name(cause) << ")";
        EXPECT_EQ(st.message(), std::string("page 9 cannot go from ") + page_state_name(from) + " to " +
                                    page_state_name(to) + " (" + cause_name(cause) + ")");
        ++refused;
      }
  EXPECT_EQ(refused, 9 * 9 * static_cast<int>(kNumCauses) - legal);
}

TEST(PageFsm, AnIllegalTransitionEndsTheJobWithAProtocolError) {
  Fixture f;
  f.place(3, PageState::kInFlight);
  // Leaving in-flight other than by finishing its fetch: the slot's memory is still MPI's.
  EXPECT_EXIT(f.fsm.to(3, PageState::kInvalid, Cause::kInvalidation), ::testing::ExitedWithCode(1),
              "protocol error: page 3 cannot go from in-flight to invalid \\(invalidation\\)");
  f.place(4, PageState::kReadOnly);
  EXPECT_EXIT(f.fsm.to(4, PageState::kReadOnly, Cause::kFault), ::testing::ExitedWithCode(1),
              "protocol error: page 4 cannot go from read-only to read-only \\(page fault\\)");
}

// A copy holds a cache slot from the fetch into it until it goes.
TEST(PageFsm, CopiesNeedTheirCacheSlot) {
  Fixture f;
  f.place(2, PageState::kInvalid);
  EXPECT_EQ(f.fsm.check(2, PageState::kReadOnly, Cause::kFault).message(),
            "page 2 cannot become read-only (page fault) without a cache slot");
  f.fsm.attach_slot(2, f.cache.take_free(), true);
  EXPECT_TRUE(f.fsm.check(2, PageState::kReadOnly, Cause::kFault).ok());
  EXPECT_EQ(f.fsm.check(2, PageState::kHomeClean, Cause::kFirstTouch).message(),
            "page 2 holds cache slot " + std::to_string(f.pages[2].slot) +
                " and cannot become home-clean (first touch)");
  f.fsm.to(2, PageState::kReadOnly, Cause::kFault);
  f.pages[2].slot = kNoSlot;  // as a relief inside a transition leaves it (the control relief-in-transition)
  EXPECT_EQ(f.fsm.check(2, PageState::kReadWrite, Cause::kFault).message(),
            "page 2 is read-only without a cache slot (going to read-write, page fault)");
  EXPECT_EXIT(f.fsm.attach_slot(3, 0, true), ::testing::ExitedWithCode(1), "page 3 takes cache slot 0 while unallocated");
}

TEST(PageFsm, AllocationStartsAPageAfresh) {
  Fixture f;
  PageMeta& m = f.pages[6];
  m.slot = 0;  // zero-filled memory: slot 0, not kNoSlot
  m.pending_diff = m.seen_marked = m.nt_pending = true;
  m.wvec_version = 12;
  f.fsm.allocate(6, 1);
  EXPECT_EQ(m.home.load(), 1);
  EXPECT_EQ(m.slot, kNoSlot);
  EXPECT_FALSE(m.pending_diff || m.seen_marked || m.nt_pending);
  EXPECT_EQ(m.wvec_version, 0u);
  EXPECT_EQ(m.state, PageState::kUnallocated);
  f.fsm.to(6, PageState::kInvalid, Cause::kAllocation, "scopedsm_alloc");
  EXPECT_EQ(f.prot.changes, 0);  // unallocated and invalid both allow no access
  EXPECT_EXIT(f.fsm.allocate(6, 0), ::testing::ExitedWithCode(1), "page 6 is allocated again while invalid");
}

// A list changes its protection once per run of consecutive pages, and not
// at all where the protection stays.
TEST(PageFsm, AListChangesEachRunOnce) {
  Fixture f;
  for (uint64_t p : {1, 2, 3, 7, 8}) f.place(p, PageState::kReadOnly);
  const int before = f.prot.changes;
  f.fsm.to_pages({1, 2, 3, 7, 8}, PageState::kInvalid, Cause::kInvalidation);
  EXPECT_EQ(f.prot.changes, before + 2);
  EXPECT_EQ(f.cache.used(), 0u);
  f.place(10, PageState::kReadOnly);
  const int again = f.prot.changes;
  f.fsm.to_pages({10}, PageState::kHomeClean, Cause::kHomeMigration);  // read stays read
  EXPECT_EQ(f.prot.changes, again);
  EXPECT_EQ(f.pages[10].slot, kNoSlot);
}

// The relief the engine gives the machine in these tests: drops every clean
// copy relievable() allows, and records what it saw.
struct Relief {
  Fixture* f;
  std::vector<PageState> seen;  // page 5's state at each relief
  // Installs itself as f's relief; with `pages`, also read-only pages 5
  // and 6 and a budget of exactly today's boundaries (the next boundary is
  // one over).
  Relief(const Relief&) = delete;  // the installed relief points at this object
  explicit Relief(Fixture* fixture, bool pages = true) : f(fixture) {
    f->fsm.set_relief([this] { (*this)(); });
    if (!pages) return;
    f->place(5, PageState::kReadOnly);
    f->place(6, PageState::kReadOnly);
    f->prot.budget = f->prot.boundaries();
  }
  void operator()() {
    seen.push_back(f->pages[5].state);
    std::vector<uint32_t> clean;
    for (uint64_t p = 0; p < kPages; ++p) {
      const PageState st = f->pages[p].state;
      if ((st == PageState::kReadOnly || st == PageState::kPrefetched) && f->fsm.relievable(p))
        clean.push_back(static_cast<uint32_t>(p));
    }
    f->fsm.to_pages(clean, PageState::kInvalid, Cause::kRelief);
  }
};

// The hazard, in the machine: a write fault makes read-only page 5 (next to
// read-only page 6) read-write, one boundary over the budget. The relief
// waits until the fault's operation ends, then drops page 6 and keeps page
// 5, read-write with its slot (the twin make_diff reads).
TEST(PageFsm, ReliefIsQueuedInsideAnOperationAndRunsAfterIt) {
  Fixture f;
  Relief relief(&f);
  const uint32_t slot = f.pages[5].slot;
  {
    const PageFsm::Operation op = f.fsm.operation();  // a fault
    f.fsm.to(5, PageState::kReadWrite, Cause::kFault);
    EXPECT_TRUE(f.fsm.relief_queued());
    EXPECT_EQ(f.fsm.reliefs(), 0u);
    EXPECT_GT(f.prot.boundaries(), f.prot.budget);  // over the budget until the operation ends
  }
  EXPECT_EQ(f.fsm.reliefs(), 1u);
  EXPECT_FALSE(f.fsm.relief_queued());
  ASSERT_EQ(relief.seen.size(), 1u);
  EXPECT_EQ(relief.seen[0], PageState::kReadWrite);  // the transition was complete
  EXPECT_EQ(f.pages[5].state, PageState::kReadWrite);
  EXPECT_EQ(f.pages[5].slot, slot);
  EXPECT_EQ(f.pages[6].state, PageState::kInvalid);
  EXPECT_LE(f.prot.boundaries(), f.prot.budget);
}

// Outside any operation a transition is its own: the relief runs right after it.
TEST(PageFsm, ATransitionAloneIsAnOperation) {
  Fixture f;
  Relief relief(&f);
  f.fsm.to(5, PageState::kReadWrite, Cause::kFault);
  EXPECT_EQ(f.fsm.reliefs(), 1u);
  ASSERT_EQ(relief.seen.size(), 1u);
  EXPECT_EQ(relief.seen[0], PageState::kReadWrite);
  EXPECT_EQ(f.pages[6].state, PageState::kInvalid);
}

// A later transition of the same operation that makes room again: no relief.
TEST(PageFsm, NoReliefWhenTheOperationEndsWithinTheBudget) {
  Fixture f;
  Relief relief(&f);
  {
    const PageFsm::Operation op = f.fsm.operation();
    f.fsm.to(5, PageState::kReadWrite, Cause::kFault);
    f.fsm.to(6, PageState::kInvalid, Cause::kEviction);
  }
  EXPECT_EQ(f.fsm.reliefs(), 0u);
}

// Pages scopedsm_prepare pins are not relievable: the relief drops the others.
TEST(PageFsm, ReliefPassesOverPinnedPages) {
  Fixture f;
  Relief relief(&f, false);
  f.place(2, PageState::kReadOnly);
  f.place(9, PageState::kReadOnly);
  f.place(4, PageState::kInvalid, true);
  f.prot.budget = f.prot.boundaries();
  f.fsm.pin(2, 6);
  EXPECT_TRUE(f.fsm.pinning());
  EXPECT_FALSE(f.fsm.relievable(2));
  EXPECT_TRUE(f.fsm.relievable(9));
  f.fsm.to(4, PageState::kReadOnly, Cause::kFault);  // +2 boundaries
  f.fsm.unpin();
  EXPECT_EQ(f.fsm.reliefs(), 1u);
  EXPECT_EQ(f.pages[2].state, PageState::kReadOnly);
  EXPECT_EQ(f.pages[4].state, PageState::kReadOnly);
  EXPECT_EQ(f.pages[9].state, PageState::kInvalid);
  EXPECT_LE(f.prot.boundaries(), f.prot.budget);
}

// When the relief cannot make room, the job ends naming the transition that
// went over and the remedies; so it does when the kernel refuses a change.
TEST(PageFsm, ABudgetTheReliefCannotKeepEndsTheJob) {
  Fixture f;
  f.fsm.set_relief([] {});
  f.place(5, PageState::kInvalid, true);
  f.prot.budget = f.prot.boundaries();
  EXPECT_EXIT(f.fsm.to(5, PageState::kReadOnly, Cause::kFault), ::testing::ExitedWithCode(1),
              "page fault: cannot change the protection of 1 page\\(s\\) at 0x15000: protection boundaries would "
              "exceed the vm.max_map_count budget. The shared region has 2 protection boundaries and this machine's "
              "vm.max_map_count leaves room for about 0. Place homes in larger blocks \\(larger blocks\\)");
  f.prot.refuse = true;
  f.prot.budget = UINT64_MAX;
  EXPECT_EXIT(f.fsm.to(5, PageState::kReadOnly, Cause::kFault), ::testing::ExitedWithCode(1),
              "page fault: cannot change the protection of 1 page\\(s\\) at 0x15000: mprotect failed: refused");
}

// The negative control: the relief runs inside the transition that meets the
// budget, after its check and before its change, and over pinned pages. It
// drops the page being made writable, which then becomes read-write with no
// slot: the corruption MapPressure.* catches across processes.
TEST(PageFsm, TheControlRunsTheReliefInsideTheTransition) {
  Fixture f(static_cast<uint64_t>(TestFault::kReliefInTransition));
  Relief relief(&f);
  f.fsm.pin(5, 6);
  EXPECT_TRUE(f.fsm.relievable(5));
  {
    const PageFsm::Operation op = f.fsm.operation();
    f.fsm.to(5, PageState::kReadWrite, Cause::kFault);
    EXPECT_EQ(f.fsm.reliefs(), 1u);  // already, inside the transition
  }
  f.fsm.unpin();
  ASSERT_EQ(relief.seen.size(), 1u);
  EXPECT_EQ(relief.seen[0], PageState::kReadOnly);  // the transition had not happened yet
  EXPECT_EQ(f.pages[5].state, PageState::kReadWrite);
  EXPECT_EQ(f.pages[5].slot, kNoSlot);
}

// Under the control stale-home-offer a page in any state may become the
// home (home-clean) by home migration; otherwise only a read-only copy.
TEST(PageFsm, StaleHomeOffersAreLegalOnlyUnderTheirControl) {
  Fixture plain;
  plain.place(3, PageState::kInvalid);
  EXPECT_FALSE(plain.fsm.check(3, PageState::kHomeClean, Cause::kHomeMigration).ok());
  Fixture control(static_cast<uint64_t>(TestFault::kStaleHomeOffer));
  control.place(3, PageState::kInvalid);
  control.place(4, PageState::kPrefetched);
  EXPECT_TRUE(control.fsm.check(3, PageState::kHomeClean, Cause::kHomeMigration).ok());
  control.fsm.to_pages({3, 4}, PageState::kHomeClean, Cause::kHomeMigration);
  EXPECT_EQ(control.pages[4].slot, kNoSlot);
  EXPECT_EQ(control.cache.used(), 0u);
  EXPECT_FALSE(control.fsm.check(3, PageState::kHomeDirty, Cause::kHomeMigration).ok());
}

// docs/PROTOCOL.md §2.0 states exactly the code's table: the same rows, in
// the same order, with the same causes.
TEST(PageFsm, TheProtocolDocumentStatesTheCodesTable) {
  std::ifstream f(SCOPEDSM_DOCS_DIR "/PROTOCOL.md");
  ASSERT_TRUE(f) << "docs/PROTOCOL.md missing";
  std::string line;
  bool in_section = false;
  std::vector<std::string> doc;
  const std::regex row(R"(^\| ([a-z-]+) \| ([a-z-]+) \| ([^|]+) \|$)");
  while (std::getline(f, line)) {
    if (line.rfind("### ", 0) == 0) in_section = line.rfind("### 2.0 ", 0) == 0;
    if (!in_section) continue;
    std::smatch m;
    if (std::regex_match(line, m, row)) doc.push_back(m[1].str() + " | " + m[2].str() + " | " + m[3].str());
  }
  std::vector<std::string> code;
  for (const TransitionRule& r : kTransitions) {
    std::string causes;
    for (uint32_t c = 0; c < kNumCauses; ++c)
      if (r.causes & (1u << c)) causes += (causes.empty() ? "" : ", ") + std::string(cause_name(static_cast<Cause>(c)));
    code.push_back(std::string(page_state_name(r.from)) + " | " + page_state_name(r.to) + " | " + causes);
  }
  ASSERT_FALSE(doc.empty()) << "no table under '### 2.0' in docs/PROTOCOL.md";
  EXPECT_EQ(doc, code);
}

}  // namespace
}  // namespace scopedsm
