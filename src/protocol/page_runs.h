// Runs of consecutive pages in a sorted list of page numbers: one system
// call per run instead of one per page. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scopedsm {

// Calls fn(first, count) for each maximal run of consecutive pages in `sorted`.
template <typename Fn>
void for_each_run(const std::vector<uint32_t>& sorted, Fn fn) {
  size_t i = 0;
  while (i < sorted.size()) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j] == sorted[j - 1] + 1) ++j;
    fn(sorted[i], j - i);
    i = j;
  }
}

}  // namespace scopedsm
