// The communication-cost model (SCOPEDSM_NET, transport/net_model.h)
// charges each cost where it is designed to land. Counts, not times: the
// counters of injected time are exact multiples of the configured costs,
// whatever the machine's load.
//
// tests/CMakeLists.txt runs these at 2 processes with node sharing off (each
// process a node of its own) and the model on, once with pages fetched by
// message and once one-sided, one page per fault (SCOPEDSM_FETCH_PAGES=1); and once with the model off, where they must
// fail (the negative control: nothing charged). Elsewhere (the mpi.npN
// runs, no SCOPEDSM_NET) they skip.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

// The costs tests/CMakeLists.txt sets: latency and interrupt are what the
// counts below multiply.
constexpr uint64_t kLatencyNs = 1000;
constexpr uint64_t kInterruptNs = 500;

bool model_requested() {
  const char* v = std::getenv("SCOPEDSM_NET");
  return v != nullptr && std::strstr(v, "latency=1000") != nullptr;
}
bool control() {
  const char* v = std::getenv("NET_TEST_CONTROL");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

struct Counts {
  std::map<std::string, uint64_t> at;
  static Counts now() {
    Counts c;
    for (const char* name : {"net_msgs", "net_interrupts", "net_one_sided", "net_latency_ns", "net_interrupt_ns",
                             "net_overhead_ns", "msgs_recv_GETP", "msgs_sent_GETP", "rma_fetches", "rma_unrecorded",
                             "remote_fetches"})
      c.at[name] = counter(name);
    return c;
  }
  uint64_t since(const Counts& before, const char* name) const { return at.at(name) - before.at.at(name); }
};

// Rank 0 reads `pages` fresh pages homed at rank 1, one fault each, between
// barriers; each process returns the change in its counters.
Counts read_pages_of_rank1(int pages, Counts* before) {
  auto* a = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), 1));
  if (rank() == 1)
    for (int p = 0; p < pages; ++p) a[p * page() / sizeof(uint64_t)] = static_cast<uint64_t>(p) + 1;
  scopedsm_barrier();
  *before = Counts::now();
  scopedsm_barrier();
  if (rank() == 0) {
    for (int p = 0; p < pages; ++p) EXPECT_EQ(a[p * page() / sizeof(uint64_t)], static_cast<uint64_t>(p) + 1);
  }
  scopedsm_barrier();
  return Counts::now();
}

// Whether this run is one of tests/CMakeLists.txt's mpi.net.* runs.
bool configured() { return model_requested() || control(); }

TEST(NetModel, InterruptsOnlyForRequestsTheHomeServes) {
  if (!configured()) GTEST_SKIP() << "SCOPEDSM_NET is not set for this run";
  if (nprocs() != 2) GTEST_SKIP() << "a reader and a home";
  if (counter("rma") != 0) GTEST_SKIP() << "pages travel one-sided in this run (NetModel.OneSided* covers it)";
  constexpr int kPages = 6;
  Counts before;
  const Counts after = read_pages_of_rank1(kPages, &before);
  if (rank() == 1) {
    // Every GETP the home served paid one interrupt (issue + delivery), and
    // nothing else it received did (barrier rounds, the reader's replies).
    EXPECT_EQ(after.since(before, "msgs_recv_GETP"), static_cast<uint64_t>(kPages));
    EXPECT_EQ(after.since(before, "net_interrupts"), after.since(before, "msgs_recv_GETP"));
    EXPECT_EQ(after.since(before, "net_interrupt_ns"), after.since(before, "net_interrupts") * 2 * kInterruptNs);
  } else {
    // The requester polls for its pages: no interrupt, though it received
    // a page per fault and barrier rounds.
    EXPECT_GE(after.since(before, "remote_fetches"), static_cast<uint64_t>(kPages));
    EXPECT_EQ(after.since(before, "net_interrupts"), 0u);
  }
  // Every message between the two nodes paid the link's latency once, on its sender.
  EXPECT_GT(after.since(before, "net_msgs"), 0u);
  EXPECT_EQ(after.since(before, "net_latency_ns"), after.since(before, "net_msgs") * kLatencyNs);
}

TEST(NetModel, OneSidedReadsPayTheLinkButNoInterrupt) {
  if (!configured()) GTEST_SKIP() << "SCOPEDSM_NET is not set for this run";
  if (nprocs() != 2) GTEST_SKIP() << "a reader and a home";
  if (counter("rma") == 0) {
    std::printf("one-sided path not in use; nothing to check\n");
    GTEST_SKIP() << "one-sided path not in use";
  }
  constexpr int kPages = 6;
  Counts before;
  const Counts after = read_pages_of_rank1(kPages, &before);
  if (rank() == 1) {
    EXPECT_EQ(after.since(before, "msgs_recv_GETP"), 0u);
    EXPECT_EQ(after.since(before, "net_interrupts"), 0u) << "a one-sided read needs no CPU at the home";
  } else {
    const uint64_t reads = after.since(before, "rma_fetches");
    EXPECT_EQ(after.since(before, "rma_unrecorded"), 0u) << "SCOPEDSM_WRITE_DETECT=all keeps every page trapped: every copy is recorded";
    EXPECT_GE(reads, static_cast<uint64_t>(kPages));
    EXPECT_EQ(after.since(before, "net_one_sided"), reads);
    EXPECT_EQ(after.since(before, "net_interrupts"), 0u);
    // Each read: the request's and the reply's latency; each message
    // (barrier rounds only) one latency.
    EXPECT_EQ(after.since(before, "net_latency_ns"),
              (after.since(before, "net_msgs") + 2 * after.since(before, "net_one_sided")) * kLatencyNs);
  }
}

}  // namespace
