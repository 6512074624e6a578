#include "common/json.h"

#include "common/report.h"
#include "scopedsm.h"

namespace bench {

Json summary_json(const Summary& s) {
  return Json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"count", static_cast<long long>(s.count)}};
}

std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

Json runtime_record() {
  std::string text(scopedsm_stats_json(nullptr, 0) + 1, '\0');
  text.resize(scopedsm_stats_json(text.data(), text.size()));
  return Json::parse(text);
}

uint64_t runtime_counter(const char* program, const char* name) {
  const Json record = runtime_record();
  const auto& counters = record.at("counters");
  const auto it = counters.find(name);
  if (it == counters.end() || !it->is_number_unsigned())
    die(program, std::string("the statistics record has no counter ") + name);
  return it->get<uint64_t>();
}

}  // namespace bench
