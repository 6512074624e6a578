// Atomics at the home (protocol/home_atomics.h) without MPI: at our own
// home the operation runs in our memory and notes the written blocks; at a
// node peer's home in the peer's memory; elsewhere as an ATOMIC request.
// Our copy (and a writable copy's twin) gets the new value, and the page is
// noted as written, only when the word changed. A first-touch page is
// touched first, and a copy in flight arrives before the new value is
// written into it.
#include "protocol/home_atomics.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "memory/region.h"
#include "protocol/prefetcher.h"
#include "protocol/releaser.h"
#include "support/policy_fixture.h"

namespace scopedsm {
namespace {

constexpr int kPeer = 2;    // a node peer: its memory is mapped here
constexpr int kRemote = 1;  // another node: an ATOMIC request

// Every home's source: node peer kPeer's memory is `peer`; runs in flight
// finish when the test says their answer has come.
class FakeSource final : public PageSource {
 public:
  explicit FakeSource(std::vector<std::byte>* peer) : peer_(peer) {}
  const char* name() const override { return "fake"; }
  void start(PendingFetch*) override { ++started; }
  bool done(PendingFetch*) override { return arrived; }
  uint32_t finish(PendingFetch* f) override {
    ++finished;
    if (on_finish) on_finish(*f);
    return 0;
  }
  std::byte* home_memory(int home, uint64_t page) const override {
    return home == kPeer ? peer_->data() + page * PolicyFixture::kPageSize : nullptr;
  }
  int started = 0;
  int finished = 0;
  bool arrived = false;
  std::function<void(const PendingFetch&)> on_finish;

 private:
  std::vector<std::byte>* peer_;
};

struct AtomicsFixture : PolicyFixture {
  AtomicsFixture()
      : PolicyFixture(0, 3),
        release(with_region(), this),
        prefetcher(ctx, this, &release, nullptr),  // hints' runs left in flight
        atomics(ctx, this, &prefetcher) {
    wvec.set_tracking(true);
  }
  const EngineContext& with_region() {
    ctx.region = &region;  // empty: the prefetcher's runs' buffers only
    return ctx;
  }
  // EngineOps.
  PageSource* source_for(int) override { return &source; }
  std::byte* memory(uint64_t page) override { return ours.data() + page * kPageSize; }
  uint64_t atomic_at_home(int home, const AtomicMsg& msg) override {
    requests.push_back(home);
    request = msg;
    return remote_old;
  }
  void prepare(uint64_t first, uint64_t count, Access access, const char* call) override {
    prepared.push_back(first);
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(access, Access::kRead);
    prepared_call = call;
    pages[first].home.store(rank(), std::memory_order_relaxed);  // the first touch made it ours
    pages[first].state = PageState::kHomeClean;
  }
  void claim_run(uint64_t first, uint32_t count, int) override { attach_slots(first, count); }
  void count_fetch(const PageSource*, const PendingFetch&, uint32_t) override {}
  int rank() const { return ctx.rank; }

  template <typename T>
  T word(const std::vector<std::byte>& mem, uint64_t page, uint32_t offset) const {
    T v{};
    std::memcpy(&v, mem.data() + page * kPageSize + offset, sizeof v);
    return v;
  }
  template <typename T>
  void set_word(std::vector<std::byte>* mem, uint64_t page, uint32_t offset, T v) {
    std::memcpy(mem->data() + page * kPageSize + offset, &v, sizeof v);
  }
  uint64_t add(uint64_t page, uint32_t offset, uint64_t operand) {
    return atomics.atomic(page, offset, AtomicOp::kFetchAdd, AtomicType::kUint64, operand, 0, "scopedsm_atomic_add");
  }
  bool noted(uint32_t page) {
    for (uint32_t p : stack.top_pages())
      if (p == page) return true;
    return false;
  }

  std::vector<std::byte> ours = std::vector<std::byte>(kPages * kPageSize);
  std::vector<std::byte> peer = std::vector<std::byte>(kPages * kPageSize);
  FakeSource source{&peer};
  Region region;
  Releaser release;
  Prefetcher prefetcher;
  HomeAtomics atomics;
  std::vector<int> requests;
  AtomicMsg request;
  uint64_t remote_old = 0;
  std::vector<uint64_t> prepared;
  std::string prepared_call;
};

TEST(HomeAtomics, AtOurHomeTheWordChangesInOurMemoryAndItsBlocksAreNoted) {
  AtomicsFixture f;
  f.place(1, PageState::kHomeClean, 0);
  f.set_word<uint64_t>(&f.ours, 1, 1024, 40);
  uint64_t version = 0;
  f.wvec.changed_since(1, 0, &version);
  EXPECT_EQ(f.add(1, 1024, 2), 40u);
  EXPECT_EQ(f.word<uint64_t>(f.ours, 1, 1024), 42u);
  uint64_t now = 0;
  EXPECT_EQ(f.wvec.changed_since(1, version, &now), f.wvec.mask_for(1024, 8));
  EXPECT_TRUE(f.noted(1));
  EXPECT_EQ(f.stats.atomics, 1u);
  EXPECT_TRUE(f.requests.empty());
}

TEST(HomeAtomics, AtANodePeersHomeItRunsInThePeersMemoryAndOurCopiesGetTheResult) {
  AtomicsFixture f;
  f.place(2, PageState::kReadOnly, kPeer);
  f.place(3, PageState::kReadWrite, kPeer);
  f.place(4, PageState::kInvalid, kPeer);
  for (uint64_t p : {2, 3, 4}) f.set_word<uint32_t>(&f.peer, p, 8, 5);
  for (uint64_t p : {2, 3, 4}) {
    EXPECT_EQ(f.atomics.atomic(p, 8, AtomicOp::kFetchOr, AtomicType::kUint32, 0x30, 0, "jia_atomic"), 5u) << p;
    EXPECT_EQ(f.word<uint32_t>(f.peer, p, 8), 0x35u) << p;
    EXPECT_TRUE(f.noted(static_cast<uint32_t>(p))) << p;
  }
  // A read-only copy sees the value; a writable one's twin too, so its diff
  // leaves the word to the home; an invalid page's memory is left alone.
  EXPECT_EQ(f.word<uint32_t>(f.ours, 2, 8), 0x35u);
  EXPECT_EQ(f.word<uint32_t>(f.ours, 3, 8), 0x35u);
  uint32_t twin = 0;
  std::memcpy(&twin, f.cache.twin(f.pages[3].slot) + 8, sizeof twin);
  EXPECT_EQ(twin, 0x35u);
  EXPECT_EQ(f.word<uint32_t>(f.ours, 4, 8), 0u);
  EXPECT_TRUE(f.requests.empty());
  EXPECT_EQ(f.stats.atomics, 3u);
}

TEST(HomeAtomics, ElsewhereTheHomeServerRunsItAndOurCopyGetsTheResult) {
  AtomicsFixture f;
  f.place(5, PageState::kReadOnly, kRemote);
  f.remote_old = 10;
  EXPECT_EQ(f.atomics.atomic(5, 16, AtomicOp::kCompareExchange, AtomicType::kInt64, 14, 10, "jia_atomic"), 10u);
  EXPECT_EQ(f.requests, std::vector<int>{kRemote});
  EXPECT_EQ(f.request.page, 5u);
  EXPECT_EQ(f.request.offset, 16u);
  EXPECT_EQ(f.request.op, static_cast<uint32_t>(AtomicOp::kCompareExchange));
  EXPECT_EQ(f.request.type, static_cast<uint32_t>(AtomicType::kInt64));
  EXPECT_EQ(f.request.operand, 14u);
  EXPECT_EQ(f.request.expected, 10u);
  EXPECT_EQ(f.word<int64_t>(f.ours, 5, 16), 14);
  EXPECT_TRUE(f.noted(5));
}

TEST(HomeAtomics, AnOperationThatChangesNothingWritesAndNotesNothing) {
  AtomicsFixture f;
  f.place(6, PageState::kReadOnly, kPeer);
  f.set_word<uint64_t>(&f.peer, 6, 0, 5);
  f.set_word<uint64_t>(&f.ours, 6, 0, 99);  // what our copy holds (stale)
  // A compare_exchange that fails, and an addition of zero.
  EXPECT_EQ(f.atomics.atomic(6, 0, AtomicOp::kCompareExchange, AtomicType::kUint64, 7, 6, "jia_atomic"), 5u);
  EXPECT_EQ(f.add(6, 0, 0), 5u);
  EXPECT_EQ(f.word<uint64_t>(f.peer, 6, 0), 5u);
  EXPECT_EQ(f.word<uint64_t>(f.ours, 6, 0), 99u);
  EXPECT_FALSE(f.noted(6));
  EXPECT_EQ(f.stats.atomics, 2u);
}

TEST(HomeAtomics, AFirstTouchPageNobodyTouchedIsTouchedFirst) {
  AtomicsFixture f;
  f.place(7, PageState::kInvalid, kHomeUnknown);
  EXPECT_EQ(f.add(7, 0, 3), 0u);
  EXPECT_EQ(f.prepared, std::vector<uint64_t>{7});
  EXPECT_EQ(f.prepared_call, "scopedsm_atomic_add");
  EXPECT_EQ(f.word<uint64_t>(f.ours, 7, 0), 3u);  // ours now
  // A page with a home is not touched again.
  f.place(8, PageState::kReadOnly, kPeer);
  f.add(8, 0, 1);
  EXPECT_EQ(f.prepared.size(), 1u);
}

TEST(HomeAtomics, ACopyInFlightArrivesBeforeTheNewValueIsWrittenIntoIt) {
  AtomicsFixture f;
  f.place(0, PageState::kInvalid, kRemote);
  f.prefetcher.prefetch(0, 1, false);  // left in flight on a reply lane
  ASSERT_EQ(f.source.started, 1);
  ASSERT_EQ(f.pages[0].state, PageState::kInFlight);
  // The home's answer: the page as it was, word 0 holding 20.
  f.source.on_finish = [&f](const PendingFetch&) { f.set_word<uint64_t>(&f.ours, 0, 0, 20); };
  f.source.arrived = true;
  f.remote_old = 20;
  EXPECT_EQ(f.add(0, 0, 1), 20u);
  EXPECT_EQ(f.source.finished, 1);
  EXPECT_EQ(f.pages[0].state, PageState::kPrefetched);  // settled, still the hint's tripwire
  EXPECT_EQ(f.word<uint64_t>(f.ours, 0, 0), 21u);      // the copy, then the atomic's value
}

}  // namespace
}  // namespace scopedsm
