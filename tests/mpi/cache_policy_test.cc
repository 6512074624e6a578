// Remote-aware replacement (SCOPEDSM_CACHE_POLICY=remote, docs/PROTOCOL.md
// §1): with pages homed near (on this node) and far (on another node) and a
// cache smaller than the working set, the far copies stay while the near
// ones are fetched again; under FIFO both are fetched again.
//
// Run by mpi.cache_policy.{fifo,remote}.np4 with SCOPEDSM_NODE_PROCS=2 (ranks
// 0 and 1 one node, 2 and 3 another), a 16-page cache and single-page
// fetches; elsewhere it has no near and far peer or not that cache, and skips.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

TEST(CachePolicy, FarCopiesOutliveNearOnesUnderRemote) {
  if (!env_is("SCOPEDSM_CACHE_PAGES", "16") || !env_is("SCOPEDSM_FETCH_PAGES", "1"))
    GTEST_SKIP() << "needs SCOPEDSM_CACHE_PAGES=16 and SCOPEDSM_FETCH_PAGES=1";
  // Rank 0 reads; a near home shares its node, a far home does not.
  const int my_node = static_cast<int>(counter("node"));
  std::vector<int> node_of(static_cast<size_t>(nprocs()));
  MPI_Allgather(&my_node, 1, MPI_INT, node_of.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int near = -1, far = -1;
  for (int r = 1; r < nprocs(); ++r) {
    if (node_of[static_cast<size_t>(r)] == node_of[0] && near < 0) near = r;
    if (node_of[static_cast<size_t>(r)] != node_of[0] && far < 0) far = r;
  }
  if (near < 0 || far < 0) GTEST_SKIP() << "needs a home on rank 0's node and one on another node";

  // 6 far pages and 16 near ones: 22 pages through 16 slots.
  const size_t kFar = 6, kNear = 16, kPasses = 4;
  auto* f = static_cast<unsigned char*>(scopedsm_alloc_on(kFar * page(), far));
  auto* n = static_cast<unsigned char*>(scopedsm_alloc_on(kNear * page(), near));
  if (rank() == far)
    for (size_t p = 0; p < kFar; ++p) f[p * page()] = static_cast<unsigned char>(p + 1);
  if (rank() == near)
    for (size_t p = 0; p < kNear; ++p) n[p * page()] = static_cast<unsigned char>(p + 101);
  scopedsm_barrier();
  if (rank() == 0) {
    uint64_t fetched = 0, node = 0;
    for (size_t pass = 0; pass < kPasses; ++pass) {
      if (pass == 1) fetched = counter("remote_fetches"), node = counter("node_fetches");
      for (size_t p = 0; p < kFar; ++p) ASSERT_EQ(f[p * page()], p + 1) << "far page " << p;
      for (size_t p = 0; p < kNear; ++p) ASSERT_EQ(n[p * page()], p + 101) << "near page " << p;
    }
    const uint64_t near_again = counter("node_fetches") - node;
    const uint64_t far_again = counter("remote_fetches") - fetched - near_again;
    // The near pages cycle through fewer slots than there are of them, so
    // every read of one fetches it again, under either policy.
    EXPECT_EQ(near_again, (kPasses - 1) * kNear);
    if (env_is("SCOPEDSM_CACHE_POLICY", "remote")) {
      EXPECT_EQ(far_again, 0u) << "the far copies were evicted before near ones";
      EXPECT_GT(counter("evictions"), counter("evictions_far"));
    } else {
      EXPECT_EQ(far_again, (kPasses - 1) * kFar) << "FIFO: 22 pages cycling through 16 slots all miss";
    }
  }
  scopedsm_barrier();
}

}  // namespace
