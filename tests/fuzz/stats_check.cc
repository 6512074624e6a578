#include "stats_check.h"

#include <cstring>

#include "check.h"
#include "stats/stats_record.h"

namespace scopedsm::fuzz {

void check_stats_blobs(const std::vector<std::vector<std::byte>>& blobs) {
  std::vector<StatsRecord> records;
  for (const auto& blob : blobs) {
    StatsRecord r;
    if (!StatsRecord::deserialize(blob.data(), blob.size(), &r)) continue;
    FUZZ_CHECK(r.serialize() == blob);
    records.push_back(std::move(r));
  }
  if (records.empty()) return;
  FUZZ_CHECK(!format_summary(records).empty());
  RunInfo run;
  run.program = "fuzz";
  for (const StatsRecord& r : records) run.hosts.push_back(std::string(1, static_cast<char>(r.rank)));
  FUZZ_CHECK(!format_json(records, run).empty());
}

void check_stats_accepted(FuzzedDataProvider* in) {
  StatsRecord r;
  r.rank = in->ConsumeIntegral<int32_t>();
  r.elapsed_s = in->ConsumeFloatingPoint<double>();
  r.segv_cost_ns = in->ConsumeFloatingPoint<double>();
  const size_t count = in->ConsumeIntegralInRange<size_t>(0, 8);
  for (size_t i = 0; i < count; ++i) {
    std::string name = in->ConsumeRandomLengthString(64);
    r.values.push_back({std::move(name), in->ConsumeIntegral<uint64_t>()});
  }
  const std::vector<std::byte> bytes = r.serialize();
  StatsRecord back;
  FUZZ_CHECK(StatsRecord::deserialize(bytes.data(), bytes.size(), &back));
  FUZZ_CHECK(back.rank == r.rank && back.values == r.values);
  FUZZ_CHECK(std::memcmp(&back.elapsed_s, &r.elapsed_s, sizeof r.elapsed_s) == 0);
  FUZZ_CHECK(std::memcmp(&back.segv_cost_ns, &r.segv_cost_ns, sizeof r.segv_cost_ns) == 0);
}

}  // namespace scopedsm::fuzz
