#include "common/json.h"

#include "common/report.h"
#include "scopedsm.h"

namespace bench {

Json summary_json(const Summary& s) {
  return Json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"count", static_cast<long long>(s.count)}};
}

std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

Json runtime_record() {
  // The record changes between calls (times, counters the service thread
  // bumps), so it may need more room the second time: ask until it fits.
  std::string text(scopedsm_stats_json(nullptr, 0) + 256, '\0');
  for (;;) {
    const size_t need = scopedsm_stats_json(text.data(), text.size());
    if (need < text.size()) {
      text.resize(need);
      return Json::parse(text);
    }
    text.resize(need + 256);
  }
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
