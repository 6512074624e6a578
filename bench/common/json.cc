#include "common/json.h"

#include <cmath>
#include <cstdio>

namespace bench {

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5g", value);
  // %g may print "1e+03"; JSON accepts that form.
  return buf;
}

void Json::key(const char* name) {
  if (!body_.empty()) body_ += ",";
  body_ += json_quote(name);
  body_ += ":";
}

Json& Json::number(const char* name, double value) {
  key(name);
  body_ += json_number(value);
  return *this;
}

Json& Json::integer(const char* name, long long value) {
  key(name);
  body_ += std::to_string(value);
  return *this;
}

Json& Json::string(const char* name, const std::string& value) {
  key(name);
  body_ += json_quote(value);
  return *this;
}

Json& Json::boolean(const char* name, bool value) {
  key(name);
  body_ += value ? "true" : "false";
  return *this;
}

Json& Json::null(const char* name) {
  key(name);
  body_ += "null";
  return *this;
}

Json& Json::raw(const char* name, const std::string& json) {
  key(name);
  body_ += json;
  return *this;
}

Json& Json::summary(const char* name, const Summary& s) {
  Json j;
  j.number("median", s.median).number("min", s.min).number("max", s.max).integer("count", static_cast<long long>(s.count));
  return object(name, j);
}

}  // namespace bench
