// Helpers shared by the multi-process tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "scopedsm.h"

namespace scopedsm_test {

inline int rank() { return scopedsm_rank(); }
inline int nprocs() { return scopedsm_size(); }
inline size_t page() { return scopedsm_page_size(); }

// Whether environment variable `name` is set to exactly `value`.
inline bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}

// A deterministic value for (who, index), so readers can check what they see.
inline uint64_t pattern(uint64_t who, uint64_t index) { return (who + 1) * 0x9e3779b97f4a7c15ull ^ (index * 2654435761ull); }

// The value of counter `name` in this process's statistics JSON.
inline uint64_t counter(const std::string& name) {
  std::vector<char> buf(1 << 16);
  size_t need = scopedsm_stats_json(buf.data(), buf.size());
  EXPECT_LT(need, buf.size());
  const std::string json(buf.data());
  const std::string key = "\"" + name + "\":";
  size_t at = json.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no counter " << name << " in " << json.substr(0, 200);
    return 0;
  }
  return std::strtoull(json.c_str() + at + key.size(), nullptr, 10);
}

}  // namespace scopedsm_test
