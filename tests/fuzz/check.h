// Property checks of the fuzz target. A violated property aborts, which
// libFuzzer reports as a crash and saves the input (crash-<sha1>).
#pragma once

#include <cstdio>
#include <cstdlib>

namespace scopedsm::fuzz {

[[noreturn]] inline void property_failed(const char* what, const char* file, int line) {
  std::fprintf(stderr, "fuzz property violated at %s:%d: %s\n", file, line, what);
  std::abort();
}

}  // namespace scopedsm::fuzz

#define FUZZ_CHECK(cond)                                                          \
  do {                                                                            \
    if (!(cond)) ::scopedsm::fuzz::property_failed(#cond, __FILE__, __LINE__);    \
  } while (0)
