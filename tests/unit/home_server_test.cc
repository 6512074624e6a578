// The requests a home answers (protocol/home_server.h), as far as they can
// be served without MPI and without a shared region: the first-touch
// directory, and the checks and deferral of requests for pages homed
// elsewhere. Serving a page, a diff or an atomic reads the Region, which
// only an MPI job can reserve (Region::reserve is collective); those run
// in tests/mpi.
//
// The server runs as rank 1 of 2. Its Transport is never initialized: it is
// rank 0 of 1, and what it sends to rank 0 waits in its mailbox, where the
// test reads it as rank 0 would.
#include "protocol/home_server.h"

#include <gtest/gtest.h>

#include <atomic>

namespace scopedsm {
namespace {

constexpr int kSelf = 1;
constexpr int kPeer = 0;
constexpr uint64_t kPages = 16;

class HomeServerTest : public ::testing::Test {
 protected:
  HomeServerTest() {
    EXPECT_TRUE(pages_.init(kPages).ok());
    pages_.set_allocated(kPages);
    for (uint64_t p = 0; p < kPages; ++p) pages_[p].home.store(static_cast<int32_t>(p % 2));
  }

  uint64_t sent() { return transport_.sent().self_messages.load(); }
  template <typename M>
  M reply() {
    Incoming in;
    EXPECT_TRUE(transport_.try_receive(kTagReply, &in));
    return decode_or_fatal<M>(in.bytes, in.source, Limits{kPages, 2, 0});
  }
  static Incoming from_peer(const GetPageMsg& msg) { return Incoming{kPeer, encode(msg, 0)}; }

  Transport transport_;
  PageTable pages_;
  std::atomic<bool> in_barrier_{false};
  ServiceCounters stats_;
  HomeServer server_{kSelf, 2, &transport_, nullptr, &pages_, &in_barrier_, &stats_};
};

TEST_F(HomeServerTest, TheDirectoryNamesTheFirstClaimant) {
  server_.on(Incoming{kPeer, {}}, HomeClaimMsg{5});
  ASSERT_EQ(sent(), 1u);
  const HomeIsMsg first = reply<HomeIsMsg>();
  EXPECT_EQ(first.page, 5u);
  EXPECT_EQ(first.home, kPeer) << "the first claim wins";
  server_.on(Incoming{kPeer, {}}, HomeClaimMsg{5});
  EXPECT_EQ(reply<HomeIsMsg>().home, kPeer) << "and is remembered";
  EXPECT_EXIT(server_.on(Incoming{kPeer, {}}, HomeClaimMsg{4}), ::testing::ExitedWithCode(1),
              "malformed HOMECLAIM from rank 0: page 4 has no directory entry here");
}

TEST_F(HomeServerTest, ARequestForAPageHomedElsewhereIsAProtocolError) {
  const GetPageMsg getp{4, 0, 1, 0};
  EXPECT_EXIT(server_.on(from_peer(getp), getp), ::testing::ExitedWithCode(1),
              "malformed GETP from rank 0: page 4 is homed at rank 0");
  GetPageVecMsg getpv;
  getpv.page = 3;
  getpv.count = 2;
  getpv.versions.resize(8);
  EXPECT_EXIT(server_.on(Incoming{kPeer, {}}, getpv), ::testing::ExitedWithCode(1),
              "malformed GETPV from rank 0: 8 bytes of versions for 2 page\\(s\\)");
}

TEST_F(HomeServerTest, DuringABarrierSuchARequestWaitsForTheHomesToMove) {
  in_barrier_.store(true);
  const GetPageMsg getp{4, 0, 1, 0};
  server_.on(from_peer(getp), getp);
  EXPECT_EQ(stats_.requests_deferred.load(), 1u);
  EXPECT_EQ(sent(), 0u) << "deferred, not answered";
  EXPECT_EQ(stats_.pages_served.load(), 0u);
  // The barrier did not move page 4 here after all: an error now.
  in_barrier_.store(false);
  EXPECT_EXIT(server_.serve_deferred(), ::testing::ExitedWithCode(1),
              "malformed GETP from rank 0: page 4 is homed at rank 0");
}

}  // namespace
}  // namespace scopedsm
