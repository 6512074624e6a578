// Command-line options of the micro-benchmarks: --name=value or --name.
// An option not in the accepted list, or a malformed number, is an error.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace bench {

class Options {
 public:
  // `accepted` names the options (without the leading dashes).
  Options(int argc, char** argv, const std::vector<std::string>& accepted);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  long integer(const std::string& name, long fallback);
  std::string text(const std::string& name, const std::string& fallback) const;
  bool flag(const std::string& name) const { return values_.count(name) != 0; }

 private:
  std::map<std::string, std::string> values_;
  std::string error_;
};

}  // namespace bench
