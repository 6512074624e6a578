// Status: the result of an operation that can fail, as a value.
//
// Decoders, configuration parsing and other code that can meet bad input
// return a Status instead of aborting, so the caller decides what the failure
// means (a fatal misuse report, a rejected message, a failed test).
#pragma once

#include <string>
#include <utility>

namespace scopedsm {

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}
  bool failed_ = false;
  std::string message_;
};

}  // namespace scopedsm
