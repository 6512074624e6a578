// The benchmarks' JSON is nlohmann::ordered_json (Debian's nlohmann-json3-dev):
// keys appear in insertion order, and the library writes NaN and the
// infinities as null.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/timing.h"

namespace bench {

using Json = nlohmann::ordered_json;

// {"median":..,"min":..,"max":..,"count":..}
Json summary_json(const Summary& s);
// The text of `j` on one line; text that is not UTF-8 gets replacement characters.
std::string json_text(const Json& j);

// This process's statistics record (scopedsm_stats_json): the object the
// statistics file holds for each rank.
Json runtime_record();
// One counter of that record; ends the job if the record has no such counter.
uint64_t runtime_counter(const char* program, const char* name);

}  // namespace bench
