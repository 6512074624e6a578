// The home side of the locks (sync/lock_manager.h), without MPI.
//
// The manager runs as rank 1 of 2, so that the odd locks are homed here.
// Its Transport is never initialized: it is rank 0 of 1, and what it sends
// to rank 0 (the peer's grants) waits in its mailbox, where the test reads
// it as the peer would. What would go to another process through MPI is
// out of reach here: a HANDOFF to a remote holder (tag kTagPeer) and a grant
// to this rank by message; those paths run in tests/mpi (Locks.*).
#include "sync/lock_manager.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/clock.h"
#include "protocol/messages.h"

namespace scopedsm {
namespace {

constexpr int kSelf = 1;
constexpr int kPeer = 0;

class LockManagerTest : public ::testing::Test {
 protected:
  LockManagerTest() { pages_.set_allocated(1000); }  // what a notice may name, for decoding the grants

  // The manager keeps a copy: complete before it is constructed.
  SyncParts parts_of() {
    SyncParts p;
    p.rank = kSelf;
    p.size = 2;
    p.transport = &transport_;
    p.pages = &pages_;
    return p;
  }

  // The grants the peer has been sent so far.
  uint64_t sent() { return transport_.sent().self_messages.load(); }
  AcquireGrantMsg peer_grant() {
    Incoming in;
    EXPECT_TRUE(transport_.try_receive(kTagReply, &in));
    return decode_or_fatal<AcquireGrantMsg>(in.bytes, in.source, parts_.limits());
  }
  static std::vector<uint32_t> pages_of(const std::vector<WriteNotice>& notices) {
    std::vector<uint32_t> out;
    for (const WriteNotice& n : notices) out.push_back(n.page);
    return out;
  }
  static ReleaseMsg release_of(uint32_t lock, std::vector<uint32_t> pages, int writer = kSelf, uint32_t epoch = 0) {
    ReleaseMsg rel{lock, epoch, {}};
    for (uint32_t p : pages) rel.notices.push_back({p, writer});
    return rel;
  }

  Transport transport_;
  PageTable pages_;
  SyncParts parts_ = parts_of();
  ServiceCounters stats_;
  LockManager locks_{parts_, &stats_};
};

TEST_F(LockManagerTest, AFreeLockIsGrantedHereWithTheNoticesNotSeen) {
  AcquireGrantMsg g;
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 0}, &g));
  EXPECT_EQ(g.lock, 1u);
  EXPECT_EQ(g.version, 0u);
  EXPECT_TRUE(g.notices.empty());
  locks_.release_here(release_of(1, {5, 6}));
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 0}, &g));
  EXPECT_EQ(g.version, 1u) << "one release since";
  EXPECT_EQ(pages_of(g.notices), (std::vector<uint32_t>{5, 6}));
  locks_.release_here(release_of(1, {7}));
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 1}, &g));
  EXPECT_EQ(g.version, 2u);
  EXPECT_EQ(pages_of(g.notices), std::vector<uint32_t>{7}) << "version 1 was seen: only the newer release's";
  EXPECT_EQ(sent(), 0u) << "a lock homed here is taken with no message";
}

TEST_F(LockManagerTest, APeerQueuedBehindUsIsGrantedAtOurRelease) {
  AcquireGrantMsg g;
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{3, 0, 0}, &g));
  locks_.on(Incoming{kPeer, {}}, AcquireMsg{3, 0, 0});
  EXPECT_EQ(sent(), 0u) << "held: the peer waits";
  locks_.release_here(release_of(3, {9}));
  ASSERT_EQ(sent(), 1u);
  const AcquireGrantMsg peer = peer_grant();
  EXPECT_EQ(peer.lock, 3u);
  EXPECT_EQ(peer.version, 1u);
  EXPECT_EQ(pages_of(peer.notices), std::vector<uint32_t>{9});
}

TEST_F(LockManagerTest, AFreeLockIsGrantedToAPeerByMessage) {
  locks_.on(Incoming{kPeer, {}}, AcquireMsg{5, 0, 0});
  ASSERT_EQ(sent(), 1u);
  EXPECT_EQ(peer_grant().lock, 5u);
  locks_.on(Incoming{kPeer, {}}, release_of(5, {1}, kPeer));
  AcquireGrantMsg g;
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{5, 0, 0}, &g)) << "released by the peer: free";
  EXPECT_EQ(g.notices.size(), 1u);
  EXPECT_EQ(g.notices[0].writer, kPeer);
}

TEST_F(LockManagerTest, ABarrierDropsTheNoticesBeforeIt) {
  AcquireGrantMsg g;
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 0}, &g));
  locks_.release_here(release_of(1, {4}, kSelf, 0));
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 1, 0}, &g));  // after barrier 1
  EXPECT_TRUE(g.notices.empty()) << "the barrier covered the notice of epoch 0";
  locks_.release_here(release_of(1, {8}, kSelf, 0));  // a release from before the barrier: nothing to log
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 1, 0}, &g));
  EXPECT_TRUE(g.notices.empty());
  locks_.release_here(release_of(1, {8}, kSelf, 1));
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 1, 0}, &g));
  EXPECT_EQ(pages_of(g.notices), std::vector<uint32_t>{8});
}

TEST_F(LockManagerTest, TheLogKeepsEachPagesNewestNotice) {
  // The same two pages noticed in 300 releases, each by a different
  // "writer" (the release's number; an inline grant is not decoded, so any
  // number will do): the log is compacted, and a grant that saw nothing
  // carries the last release's notices last (a later notice overrides an
  // earlier one).
  AcquireGrantMsg g;
  for (int k = 0; k < 300; ++k) {
    ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 0}, &g));
    locks_.release_here(release_of(1, {10, 11}, k));
  }
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 0}, &g));
  EXPECT_EQ(g.version, 300u);
  EXPECT_LE(g.notices.size(), 2u * 2 + 64) << "compacted";
  ASSERT_GE(g.notices.size(), 2u);
  const WriteNotice& last = g.notices.back();
  const WriteNotice& before = g.notices[g.notices.size() - 2];
  EXPECT_EQ(before.page, 10u);
  EXPECT_EQ(last.page, 11u);
  EXPECT_EQ(before.writer, 299) << "the last release's";
  EXPECT_EQ(last.writer, 299);
  for (size_t i = 1; i < g.notices.size(); ++i)
    EXPECT_LE(g.notices[i - 1].writer, g.notices[i].writer) << "release order, at " << i;
  // A grant to one who saw version 300 carries only release 301's.
  locks_.release_here(release_of(1, {12}, kPeer));
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 300}, &g));
  EXPECT_EQ(pages_of(g.notices), std::vector<uint32_t>{12});
}

TEST_F(LockManagerTest, MisusedLocksAreProtocolErrors) {
  EXPECT_EXIT(locks_.on(Incoming{kPeer, {}}, AcquireMsg{2, 0, 0}), ::testing::ExitedWithCode(1),
              "ACQ from rank 0 names lock 2, which is not homed here");
  EXPECT_EXIT(locks_.release_here(release_of(1, {})), ::testing::ExitedWithCode(1),
              "rank 1 released lock 1, which is held by rank -1");
  AcquireGrantMsg g;
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 0}, &g));
  EXPECT_EXIT(locks_.on(Incoming{kPeer, {}}, release_of(1, {}, kPeer)), ::testing::ExitedWithCode(1),
              "rank 0 released lock 1, which is held by rank 1");
}

TEST_F(LockManagerTest, AStalledWaiterIsWarnedAboutThenEndsTheJob) {
  AcquireGrantMsg g;
  ASSERT_TRUE(locks_.acquire_here(AcquireMsg{1, 0, 0}, &g));
  const uint64_t queued = now_ns();
  locks_.on(Incoming{kPeer, {}}, AcquireMsg{1, 0, 0});
  const StallLimit stall{10};
  ::testing::internal::CaptureStderr();
  locks_.check_stalls(queued, stall);
  locks_.check_stalls(queued + 9'000'000'000, stall);
  locks_.check_stalls(queued + 9'500'000'000, stall);
  const std::string warned = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find("scopedsm_lock(1): rank 0 has waited"), std::string::npos) << warned;
  EXPECT_EQ(warned.find("has waited", warned.find("has waited") + 1), std::string::npos) << "warned once: " << warned;
  EXPECT_EXIT(locks_.check_stalls(queued + 11'000'000'000, stall), ::testing::ExitedWithCode(1),
              "scopedsm_lock\\(1\\) timed out: rank 0 has waited .* for rank 1, which holds lock 1");
}

}  // namespace
}  // namespace scopedsm
