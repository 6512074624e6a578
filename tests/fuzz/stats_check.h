// Statistics-record properties (stats/stats.h) for the fuzz target. At
// jia_exit every process sends its StatsRecord as a collective blob; rank 0
// deserializes each blob of the COLLGRANT and formats the summary and JSON.
#pragma once

#include <cstddef>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

namespace scopedsm::fuzz {

// Deserializes each blob as rank 0 does; an accepted record serializes back
// to the same bytes, and the accepted records can be formatted.
void check_stats_blobs(const std::vector<std::vector<std::byte>>& blobs);

// Any record serializes into bytes that deserialize to the same record.
void check_stats_accepted(FuzzedDataProvider* in);

}  // namespace scopedsm::fuzz
