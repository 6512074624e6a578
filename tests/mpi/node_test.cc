// Node-shared homes (SCOPEDSM_NODE_SHARING): a page homed on this node is
// copied straight from the home's memory and a release merges its diffs
// straight into it, with no message; with sharing off both go through
// messages. Then the three races the correctness argument of
// docs/MEMORY_MODEL.md ("Copies taken while others write") relies on:
// the home writing a page while peers copy it, several peers merging diffs
// into one home page at once, and a diff merged while a peer copies.
//
// Every test checks values, so each runs unchanged with sharing on or off.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

bool sharing_requested() {
  const char* v = std::getenv("SCOPEDSM_NODE_SHARING");
  return v == nullptr || std::strcmp(v, "off") != 0;  // on or off: anything else ends jia_init
}

// SCOPEDSM_NODE_PROCS: at most this many processes per node (0: all of a host).
uint64_t node_procs_requested() {
  const char* v = std::getenv("SCOPEDSM_NODE_PROCS");
  return v == nullptr || std::strcmp(v, "all") == 0 ? 0 : std::strtoull(v, nullptr, 10);
}

// The layout of the job by MPI's processor names, with hosts split into
// nodes of at most `k` consecutive ranks (0: a node per host).
struct Layout {
  uint64_t nodes = 0;  // in the job
  uint64_t here = 0;   // processes on this process's node
};
Layout host_layout(uint64_t k) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<size_t>(nprocs()) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  std::map<std::string, uint64_t> per_host;
  uint64_t index = 0;  // this process's place among its host's processes, by rank
  for (int r = 0; r < nprocs(); ++r) {
    const std::string host(&all[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    if (r == rank()) index = per_host[host];
    ++per_host[host];
  }
  Layout out;
  const uint64_t on_host = per_host[name];
  if (k == 0) k = static_cast<uint64_t>(nprocs());
  for (const auto& [host, n] : per_host) out.nodes += (n + k - 1) / k;
  out.here = std::min(k, on_host - index / k * k);
  return out;
}

TEST(Node, LayoutIsReported) {
  // A node per host (one machine, or the network-namespace hosts of
  // scopedsm run --hosts, each with its own hostname), or one per process;
  // hosts split in nodes of SCOPEDSM_NODE_PROCS processes.
  const uint64_t p = static_cast<uint64_t>(nprocs());
  const Layout layout = host_layout(node_procs_requested());
  if (sharing_requested()) {
    EXPECT_EQ(counter("nodes"), layout.nodes);
    EXPECT_EQ(counter("node_procs"), layout.here);
    EXPECT_EQ(counter("node_shared"), layout.here > 1 ? 1u : 0u);
  } else {
    EXPECT_EQ(counter("nodes"), p);
    EXPECT_EQ(counter("node_procs"), 1u);
    EXPECT_EQ(counter("node_shared"), 0u);
  }
  EXPECT_LT(counter("node"), counter("nodes"));
}

TEST(Node, SameNodePagesAndDiffsTravelWithoutMessages) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a home and another process";
  const int home = 0;
  const size_t pages = 16;
  auto* a = static_cast<unsigned char*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), home));
  if (rank() == home)
    for (size_t p = 0; p < pages; ++p) a[p * page()] = static_cast<unsigned char>(p + 1);
  scopedsm_barrier();
  const uint64_t getp0 = counter("msgs_sent_GETP"), diff0 = counter("msgs_sent_DIFF");
  const uint64_t node_fetches0 = counter("node_fetches"), node_diffs0 = counter("node_diffs");
  const uint64_t fetched0 = counter("remote_fetches") + counter("prefetched");
  if (rank() != home) {
    for (size_t p = 0; p < pages; ++p) ASSERT_EQ(a[p * page()], p + 1) << "page " << p;
    // Each writer its own byte of one word of every page.
    for (size_t p = 0; p < pages; ++p) a[p * page() + 8 + static_cast<size_t>(rank())] = static_cast<unsigned char>(rank());
  }
  scopedsm_barrier();
  if (rank() != home) {
    const uint64_t getp = counter("msgs_sent_GETP") - getp0, diffs = counter("msgs_sent_DIFF") - diff0;
    const uint64_t node_fetches = counter("node_fetches") - node_fetches0, node_diffs = counter("node_diffs") - node_diffs0;
    // Nodes are numbered by their lowest rank: the home's is node 0. Under
    // scopedsm run --hosts the processes of other hosts are on other nodes.
    if (sharing_requested() && counter("node") == 0) {
      EXPECT_EQ(getp, 0u);
      EXPECT_EQ(diffs, 0u);
      // At least: with a small cache the write pass fetches evicted pages again.
      EXPECT_GE(node_fetches, pages);
      EXPECT_GE(node_diffs, pages);
    } else {
      // By message or one-sided (tests/mpi/rma_test.cc), perhaps in runs
      // (tests/mpi/runs_test.cc): every page fetched, none copied.
      EXPECT_GE(counter("remote_fetches") + counter("prefetched") - fetched0, pages);
      EXPECT_GE(getp + counter("rma_fetches"), 1u);
      EXPECT_GE(diffs, 1u);
      EXPECT_EQ(node_fetches, 0u);
      EXPECT_EQ(node_diffs, 0u);
    }
  }
  for (size_t p = 0; p < pages; ++p)
    for (int r = 1; r < nprocs(); ++r)
      ASSERT_EQ(a[p * page() + 8 + static_cast<size_t>(r)], r) << "page " << p << " byte of rank " << r;
  scopedsm_barrier();
}

TEST(NodeRaces, HomeWritesWhilePeersCopy) {
  // Each round the home publishes the first part of a page at a barrier and
  // then, while the others fault and copy the page, keeps writing the rest.
  // The published words must arrive exactly; the rest is published by the
  // next barrier. A copy the home's later writes miss must also be dropped
  // at that barrier (with adaptive write detection the home does not trap
  // its writes until someone copies the page: the copy queues a retrap).
  const int home = nprocs() - 1;
  auto* w = static_cast<uint64_t*>(scopedsm_alloc_cyclic(page(), page(), home));
  const size_t words = page() / sizeof(uint64_t), published = words / 8;
  for (uint64_t round = 1; round <= 200; ++round) {
    if (rank() == home)
      for (size_t i = 0; i < published; ++i) w[i] = pattern(round, i);
    scopedsm_barrier();
    if (rank() == home) {
      for (size_t k = 0; k < 4000; ++k) w[published + k % (words - published)] = round * 100000 + k;
    } else {
      for (size_t i = 0; i < published; ++i) ASSERT_EQ(w[i], pattern(round, i)) << "round " << round << " word " << i;
    }
    scopedsm_barrier();
    for (size_t k = 4000 - (words - published); k < 4000; ++k)
      ASSERT_EQ(w[published + k % (words - published)], round * 100000 + k) << "round " << round;
  }
  scopedsm_barrier();
}

TEST(NodeRaces, PeersMergeDiffsIntoOneHomePageAtOnce) {
  // Every process writes its own bytes of every word of a page homed at
  // rank 0, in the same interval; the others' diffs merge into the home's
  // memory concurrently at the barrier. Merging a whole word instead of
  // the changed bytes would overwrite a neighbour's byte. (The scopedsm_wait,
  // which makes nothing coherent, has every process write before anyone
  // merges, so the home's own bytes are always in place before the merges.)
  auto* c = static_cast<unsigned char*>(scopedsm_alloc_cyclic(page(), page(), 0));
  const size_t n = page();
  const size_t p = static_cast<size_t>(nprocs());
  for (int round = 1; round <= 50; ++round) {
    for (size_t i = static_cast<size_t>(rank()); i < n; i += p) c[i] = static_cast<unsigned char>(round * 7 + rank());
    scopedsm_wait();
    scopedsm_barrier();
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(c[i], static_cast<unsigned char>(round * 7 + static_cast<int>(i % p))) << "round " << round << " byte " << i;
    scopedsm_barrier();
  }
}

TEST(NodeRaces, DiffMergedWhilePeerCopies) {
  if (nprocs() < 3) GTEST_SKIP() << "needs a home, a writer and a reader: 3 processes";
  // One page homed at rank 0. Rank 1 rewrites words [0, 64) under lock 1;
  // rank 2 reads them under lock 1 (each acquire after a release of rank 1
  // invalidates its copy, so it copies the page again). Meanwhile ranks 3+
  // merge diffs of other words of the page under their own locks and the
  // home writes yet other words without any lock: the reader's copies are
  // taken while other diffs land and the home writes. Every copy must show
  // a consistent [0, 64): the value rank 1 released last.
  const int rounds = 300;
  auto* w = static_cast<uint64_t*>(scopedsm_alloc_cyclic(page(), page(), 0));
  const size_t words = page() / sizeof(uint64_t);
  if (rank() == 1) {
    for (uint64_t k = 1; k <= rounds; ++k) {
      scopedsm_lock(1);
      w[0] = k;
      for (size_t i = 1; i < 64; ++i) w[i] = pattern(k, i);
      scopedsm_unlock(1);
    }
  } else if (rank() == 2) {
    uint64_t k = 0, copies = 0;
    while (k < static_cast<uint64_t>(rounds)) {
      scopedsm_lock(1);
      k = w[0];
      for (size_t i = 1; i < 64; ++i) ASSERT_EQ(w[i], k == 0 ? 0 : pattern(k, i)) << "release " << k << " word " << i;
      scopedsm_unlock(1);
      ++copies;
    }
    EXPECT_GE(copies, 1u);
  } else if (rank() >= 3) {
    const size_t mine = 128 + static_cast<size_t>(rank()) * 8;
    for (uint64_t k = 1; k <= rounds; ++k) {
      scopedsm_lock(10 + rank());
      w[mine + k % 8] = k;
      scopedsm_unlock(10 + rank());
    }
  } else {  // the home
    for (uint64_t k = 1; k <= 20 * static_cast<uint64_t>(rounds); ++k) w[words - 1 - k % 64] = k;
  }
  scopedsm_barrier();
  ASSERT_EQ(w[0], static_cast<uint64_t>(rounds));
  for (size_t i = 1; i < 64; ++i) ASSERT_EQ(w[i], pattern(rounds, i)) << i;
  for (int r = 3; r < nprocs(); ++r)
    for (uint64_t k = rounds - 7; k <= static_cast<uint64_t>(rounds); ++k)
      ASSERT_EQ(w[128 + static_cast<size_t>(r) * 8 + k % 8], k) << "rank " << r;
  scopedsm_barrier();
}

}  // namespace
