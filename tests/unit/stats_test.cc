// The statistics summary names the node layout the records carry.
#include <gtest/gtest.h>

#include "stats/stats_record.h"

namespace scopedsm {
namespace {

StatsRecord record(int rank, uint64_t nodes, uint64_t node_procs, uint64_t shared, uint64_t rma = 0) {
  StatsRecord r;
  r.rank = rank;
  r.values = {{"nodes", nodes}, {"node", 0}, {"node_procs", node_procs}, {"node_shared", shared}, {"rma", rma}};
  return r;
}

TEST(StatsSummary, NamesTheNodeLayout) {
  std::string shared = format_summary({record(0, 1, 2, 1), record(1, 1, 2, 1)});
  EXPECT_NE(shared.find("layout: 2 processes on 1 node, at most 2 per node; node peers copy pages"), std::string::npos)
      << shared;
  std::string apart = format_summary({record(0, 2, 1, 0), record(1, 2, 1, 0)});
  EXPECT_NE(apart.find("layout: 2 processes on 2 nodes, at most 1 per node; pages of other nodes travel by message"),
            std::string::npos)
      << apart;
  std::string rma = format_summary({record(0, 2, 1, 0, 1), record(1, 2, 1, 0, 1)});
  EXPECT_NE(rma.find("at most 1 per node; pages of other nodes are read one-sided (MPI_Get)"), std::string::npos) << rma;
}

}  // namespace
}  // namespace scopedsm
