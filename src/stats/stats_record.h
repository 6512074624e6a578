// StatsRecord: one process's statistics as plain numbers, the unit rank 0
// collects at exit, and the outputs made from all of them (the summary
// table and the JSON file). No MPI and no runtime state: the fuzz target
// feeds deserialize() arbitrary bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace scopedsm {

// One process's statistics as plain numbers: the unit sent to rank 0.
struct StatsRecord {
  int32_t rank = 0;
  double elapsed_s = 0;
  double segv_cost_ns = 0;  // calibrated per-fault kernel cost
  std::vector<std::pair<std::string, uint64_t>> values;  // counters, then messages by type

  uint64_t get(const std::string& name) const;
  std::vector<std::byte> serialize() const;
  static bool deserialize(const std::byte* data, size_t n, StatsRecord* out);
};

// What the statistics file says about the job besides the counters.
struct RunInfo {
  std::string program;                                      // base name of argv[0]
  std::vector<std::string> argv;                            // the whole command line
  std::string started;                                      // wall-clock start, ISO 8601 UTC
  std::vector<std::string> hosts;                           // by rank
  std::vector<std::pair<std::string, std::string>> config;  // config_settings()
};

// Rank 0's outputs from every rank's record. With `hosts` (by rank, as
// RunInfo::hosts), a last line names each node's host and ranks: the first
// kSummaryNodes nodes, then how many more (the statistics file lists all).
constexpr size_t kSummaryNodes = 8;
std::string format_summary(const std::vector<StatsRecord>& records, const std::vector<std::string>& hosts = {});
// The statistics file (SCOPEDSM_STATS_FILE); docs/CONFIG.md describes it.
std::string format_json(const std::vector<StatsRecord>& records, const RunInfo& run);
// One rank's object of the file's "ranks" list (scopedsm_stats_json).
std::string record_json(const StatsRecord& record);

}  // namespace scopedsm
