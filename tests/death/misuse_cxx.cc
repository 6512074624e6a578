// Misuse cases of the C++ API (scopedsm.hpp) for the death tests:
// `misuse_cxx <case>` makes one mistake, as misuse.c does for the C API.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "scopedsm.hpp"

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  scopedsm::Runtime dsm(argc, argv);
  // n = -1 through size_t: n * 8 wraps to 2^64 - 8, which used to round down
  // to zero pages and alias the next allocation.
  if (!std::strcmp(c, "alloc_array_minus_one")) {
    double* a = scopedsm::alloc_array<double>(static_cast<std::size_t>(-1));
    double* b = scopedsm::alloc_array<double>(512);
    if (a == b)
      std::fprintf(stderr, "alloc_array<double>(-1) and the next allocation alias at %p\n", static_cast<void*>(a));
  }
  // 2^61 + 1 doubles: n * 8 wraps to 8 bytes, one page for an enormous array.
  if (!std::strcmp(c, "alloc_array_wraps")) scopedsm::alloc_array<double>((std::size_t{1} << 61) + 1);
  if (!std::strcmp(c, "alloc_array_cyclic_minus_one"))
    scopedsm::alloc_array<int>(static_cast<std::size_t>(-1), scopedsm::Cyclic{4096, 0});
  if (!std::strcmp(c, "alloc_array_first_touch_wraps"))
    scopedsm::alloc_array<std::uint64_t>(std::size_t{1} << 62, scopedsm::FirstTouch{});
  // A good size with a block that does not round up to whole pages: the
  // block used to round to zero pages and divide by zero.
  if (!std::strcmp(c, "alloc_array_block_max")) scopedsm::alloc_array<double>(1024, scopedsm::Cyclic{SIZE_MAX, 0});
  scopedsm::barrier();
  std::fprintf(stderr, "misuse case '%s' was not detected\n", c);
  return 0;
}
