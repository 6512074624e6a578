#include "common/options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace bench {

Options::Options(int argc, char** argv, const std::vector<std::string>& accepted) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      error_ = "unexpected argument '" + arg + "' (options are --name=value)";
      return;
    }
    std::string body = arg.substr(2);
    size_t eq = body.find('=');
    std::string name = eq == std::string::npos ? body : body.substr(0, eq);
    std::string value = eq == std::string::npos ? "1" : body.substr(eq + 1);
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      error_ = "unknown option --" + name;
      return;
    }
    values_[name] = value;
  }
}

long Options::integer(const std::string& name, long fallback) {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(it->second.c_str(), &end, 10);
  if (errno != 0 || end == it->second.c_str() || *end != '\0' || v < 0) {
    if (error_.empty()) error_ = "--" + name + "=" + it->second + " is not a non-negative integer";
    return fallback;
  }
  return v;
}

std::string Options::text(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

}  // namespace bench
