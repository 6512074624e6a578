// What a coherence policy (protocol/*.h, the engine's policies) needs to run
// in a unit test without MPI: real page table, cache, PageFsm (over a fake
// of the app view's protections), lock stack, write vectors, statistics
// and a HomeShare in anonymous memory, with a fake engine (EngineOps) that
// records what the policy asks of it.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/config.h"
#include "memory/home_share.h"
#include "memory/page_cache.h"
#include "memory/page_table.h"
#include "memory/write_vectors.h"
#include "protocol/engine_ops.h"
#include "protocol/lock_stack.h"
#include "protocol/page_fsm.h"
#include "stats/stats.h"
#include "support/fake_protection.h"

namespace scopedsm {

class PolicyFixture : public EngineOps {
 public:
  static constexpr uint64_t kPages = 16;
  static constexpr uint32_t kCachePages = 8;
  static constexpr size_t kPageSize = 4096;

  // This process is `rank` of `size`; `test_faults`: TestFault bits.
  explicit PolicyFixture(int rank = 0, int size = 2, uint64_t test_faults = 0)
      : fsm(&pages, &cache, &prot, test_faults, "larger blocks"), stack(&pages) {
    EXPECT_TRUE(pages.init(kPages).ok());
    EXPECT_TRUE(cache.init(kCachePages, kPageSize).ok());
    pages.set_allocated(kPages);
    wvec.init(kPageSize, kPageSize / 8, false);
    share_bytes_ = HomeShare::bytes_for(kPages, kPageSize);
    void* mem = mmap(nullptr, share_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(mem, MAP_FAILED);
    share_mem_ = static_cast<std::byte*>(mem);
    share = HomeShare(share_mem_, kPages);
    ctx = EngineContext{.rank = rank,
                        .size = size,
                        .config = &config,
                        .test_faults = test_faults,
                        .pages = &pages,
                        .cache = &cache,
                        .region = nullptr,  // no policy under test touches the region's memory
                        .share = &share,
                        .fsm = &fsm,
                        .stack = &stack,
                        .stats = &stats,
                        .wvec = &wvec};
  }
  virtual ~PolicyFixture() { munmap(share_mem_, share_bytes_); }
  PolicyFixture(const PolicyFixture&) = delete;
  PolicyFixture& operator=(const PolicyFixture&) = delete;

  // What the engine's claim_run does to the pages (without diffs): each
  // takes a free cache slot.
  void attach_slots(uint64_t first, uint32_t count) {
    for (uint64_t p = first; p < first + count; ++p) {
      const uint32_t slot = cache.take_free();
      ASSERT_NE(slot, kNoSlot);
      fsm.attach_slot(p, slot, false);
    }
  }

  // Puts `page`, homed at `home`, in `state` as the engine would have: its
  // protection, and a cache slot when the state is a cached one.
  void place(uint64_t page, PageState state, int home) {
    PageMeta& m = pages[page];
    m.state = state;
    m.slot = kNoSlot;
    m.home.store(home, std::memory_order_relaxed);
    if (state == PageState::kReadOnly || state == PageState::kReadWrite || state == PageState::kPrefetched ||
        state == PageState::kInFlight) {
      const uint32_t slot = cache.take_free();
      ASSERT_NE(slot, kNoSlot);
      cache.occupy(slot, page);
      m.slot = slot;
    }
    ASSERT_TRUE(prot.protect(page, 1, prot_for(state)).ok());
  }

  // EngineOps: drop_copies and mark_dirty do what the engine does to the
  // pages and record the call; the rest are not for the policies tested
  // here and fail the test if called.
  uint32_t epoch() const override { return epoch_now; }
  PageSource* source_for(int) override { return unexpected<PageSource*>("source_for", nullptr); }
  void make_writable(uint64_t) override { unexpected("make_writable"); }
  void mark_dirty(uint64_t page) override { dirtied.push_back(page); }
  void drop_copies(std::vector<uint32_t>& sorted, Cause cause) override {
    drops.emplace_back(sorted, cause);
    fsm.to_pages(sorted, PageState::kInvalid, cause);
  }
  void evict(uint32_t, Cause) override { unexpected("evict"); }
  void list_stale(uint32_t page) override { stale.push_back(page); }
  void fetch_run(uint64_t, uint32_t, int, RunSource) override { unexpected("fetch_run"); }
  void claim_run(uint64_t, uint32_t, int) override { unexpected("claim_run"); }
  void count_fetch(const PageSource*, const PendingFetch&, uint32_t) override { unexpected("count_fetch"); }
  void make_diff(uint64_t) override { unexpected("make_diff"); }
  void send_pending(int) override { unexpected("send_pending"); }
  bool owes_ack(int) const override { return unexpected("owes_ack", false); }
  void prepare(uint64_t, uint64_t, Access, const char*) override { unexpected("prepare"); }
  std::byte* memory(uint64_t) override { return unexpected<std::byte*>("memory", nullptr); }
  uint64_t atomic_at_home(int, const AtomicMsg&) override { return unexpected<uint64_t>("atomic_at_home", 0); }

  Config config;
  PageTable pages;
  PageCache cache;
  FakeProtection prot{kPages};
  PageFsm fsm;
  LockStack stack;
  WriteVectors wvec;
  AppCounters stats;
  HomeShare share;
  EngineContext ctx;
  uint32_t epoch_now = 0;
  std::vector<std::pair<std::vector<uint32_t>, Cause>> drops;  // drop_copies calls
  std::vector<uint64_t> dirtied;                               // mark_dirty calls
  std::vector<uint32_t> stale;                                 // list_stale calls

 private:
  template <typename T = int>
  static T unexpected(const char* what, T value = T{}) {
    ADD_FAILURE() << "the policy called EngineOps::" << what << ", which this test does not expect";
    return value;
  }
  std::byte* share_mem_ = nullptr;
  uint64_t share_bytes_ = 0;
};

}  // namespace scopedsm
