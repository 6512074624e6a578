// JSON as the runtime writes it (the statistics file, the trace): one line,
// keys in the order they were set, and text that is not UTF-8 (program
// arguments, host names) written with replacement characters, not refused.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace scopedsm {

using Json = nlohmann::ordered_json;

inline std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace scopedsm
