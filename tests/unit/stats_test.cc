// The statistics summary names the node layout the records carry.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "stats/stats_record.h"
#include "stats/trace.h"

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

// With the hosts, the summary's last line names each node's host and ranks
// (a launcher such as Slurm's puts ranks on nodes its own way); beyond
// kSummaryNodes nodes it says how many more.
TEST(StatsSummary, NamesEachNodesHostAndRanks) {
  auto on = [](int rank, uint64_t node) {
    StatsRecord r = record(rank, 2, 2, 1);
    r.values[1].second = node;
    return r;
  };
  const std::string two = format_summary({on(0, 0), on(1, 1), on(2, 0), on(3, 1)}, {"n1", "n2", "n1", "n2"});
  EXPECT_NE(two.find("\nnodes: n1 (ranks 0, 2), n2 (ranks 1, 3)\n"), std::string::npos) << two;
  const std::string block = format_summary({on(0, 0), on(1, 0), on(2, 0), on(3, 1)}, {"a", "a", "a", "b"});
  EXPECT_NE(block.find("\nnodes: a (ranks 0-2), b (rank 3)\n"), std::string::npos) << block;
  std::vector<StatsRecord> many;
  std::vector<std::string> hosts;
  for (int r = 0; r < 10; ++r) {
    many.push_back(on(r, static_cast<uint64_t>(r)));
    hosts.push_back("h" + std::to_string(r));
  }
  const std::string ten = format_summary(many, hosts);
  EXPECT_NE(ten.find("h7 (rank 7) and 2 more (the statistics file lists every node)\n"), std::string::npos) << ten;
  EXPECT_EQ(ten.find("h8"), std::string::npos) << ten;
  // Without hosts (the fuzzer's records, say) there is no such line.
  EXPECT_EQ(format_summary({on(0, 0)}).find("nodes:"), std::string::npos);
}

// One process is "1 process", not "1 processes".
TEST(StatsSummary, CountsProcessesInTheSingular) {
  std::string one = format_summary({record(0, 1, 1, 0)});
  EXPECT_NE(one.find("layout: 1 process on 1 node, at most 1 per node;"), std::string::npos) << one;
}

}  // namespace
}  // namespace scopedsm

namespace scopedsm {
namespace {

using Json = nlohmann::json;

TEST(StatsSummary, SaysTheMessageColumnsCountWhatWasSent) {
  const std::string table = format_summary({record(0, 1, 1, 0)});
  EXPECT_NE(table.find(" sentMsgs "), std::string::npos) << table;
  EXPECT_NE(table.find(" sentKB\n"), std::string::npos) << table;
}

RunInfo sample_run() {
  RunInfo run;
  run.program = "sor";
  run.argv = {"./apps/sor", "-n", "64"};
  run.started = "2025-01-02T03:04:05Z";
  run.hosts = {"alpha", "alpha", "beta\xff"};  // not UTF-8: written with a replacement character
  run.config = {{"log", "warn"}, {"region_size", "16G"}};
  return run;
}

TEST(StatsJson, CarriesTheRunAndAStructuredConfig) {
  StatsRecord r0 = record(0, 2, 2, 1), r1 = record(1, 2, 2, 1), r2 = record(2, 2, 1, 0);
  r2.values[1].second = 1;  // rank 2 is node 1
  r0.values.push_back({"msgs_sent_GETP", 3});
  const Json j = Json::parse(format_json({r0, r1, r2}, sample_run()));
  EXPECT_EQ(j["scopedsm_stats"], 2);
  EXPECT_EQ(j["program"], "sor");
  EXPECT_EQ(j["argv"], Json::array({"./apps/sor", "-n", "64"}));
  EXPECT_EQ(j["started"], "2025-01-02T03:04:05Z");
  EXPECT_EQ(j["processes"], 3);
  EXPECT_EQ(j["config"], Json::parse(R"({"log":"warn","region_size":"16G"})"));
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0], Json::parse(R"({"node":0,"host":"alpha","ranks":[0,1],"shared":true})"));
  EXPECT_EQ(j["nodes"][1]["ranks"], Json::array({2}));
  EXPECT_EQ(j["nodes"][1]["host"], "beta\xef\xbf\xbd");
  ASSERT_EQ(j["ranks"].size(), 3u);
  EXPECT_EQ(j["ranks"][1]["host"], "alpha");
  EXPECT_EQ(j["ranks"][0]["counters"]["msgs_sent_GETP"], 3);
  EXPECT_EQ(j["ranks"][0]["messages_sent"], 3);
  for (const char* key : {"elapsed_s", "segv_cost_ns", "time_s", "counters", "bytes_sent"})
    EXPECT_TRUE(j["ranks"][2].contains(key)) << key;
}

// Atomics and AMO calls have a time category of their own: the summary's
// atomic column, the JSON's time_s.atomic, the trace's atomic events; busy
// is what is left after it.
TEST(StatsTimes, AtomicsAreACategoryOfTheirOwn) {
  StatsRecord r = record(0, 1, 1, 0);
  r.elapsed_s = 10;
  r.values.push_back({"t_syn_ns", 1000000000});
  r.values.push_back({"t_atomic_ns", 3000000000});
  const std::string table = format_summary({r});
  EXPECT_NE(table.find("  syn   atomic   server "), std::string::npos) << table;
  EXPECT_NE(table.find("   0   10.000    6.000    0.000    0.000    1.000    3.000 "), std::string::npos) << table;
  const Json j = Json::parse(record_json(r));
  EXPECT_DOUBLE_EQ(j["time_s"]["atomic"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["time_s"]["busy"].get<double>(), 6.0);
  EXPECT_STREQ(trace_kind_info(TraceKind::kAtomic).category, "atomic");
  EXPECT_STREQ(trace_kind_info(TraceKind::kAtomic).name, "atomic");
}

TEST(StatsJson, OneRankAloneHasNoHost) {
  const Json j = Json::parse(record_json(record(3, 1, 1, 0)));
  EXPECT_EQ(j["rank"], 3);
  EXPECT_FALSE(j.contains("host"));
  EXPECT_EQ(j["counters"]["node_procs"], 1);
}

}  // namespace
}  // namespace scopedsm
