// A minimal writer of one flat-or-nested JSON object, enough for benchmark
// reports. Keys appear in insertion order; non-finite numbers become null.
#pragma once

#include <string>

#include "common/timing.h"

namespace bench {

class Json {
 public:
  Json& number(const char* key, double value);
  Json& integer(const char* key, long long value);
  Json& string(const char* key, const std::string& value);
  Json& boolean(const char* key, bool value);
  Json& null(const char* key);
  // `json` must already be valid JSON text (an object, array or value).
  Json& raw(const char* key, const std::string& json);
  Json& object(const char* key, const Json& value) { return raw(key, value.text()); }
  // {"median":..,"min":..,"max":..,"count":..}
  Json& summary(const char* key, const Summary& s);
  bool empty() const { return body_.empty(); }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  void key(const char* name);
  std::string body_;
};

std::string json_quote(const std::string& text);
std::string json_number(double value);

}  // namespace bench
