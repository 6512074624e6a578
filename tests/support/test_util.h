// Helpers shared by the multi-process tests.
#pragma once

#include <cstdint>

#include "scopedsm.h"

namespace scopedsm_test {

inline int rank() { return scopedsm_rank(); }
inline int nprocs() { return scopedsm_size(); }
inline size_t page() { return scopedsm_page_size(); }

// A deterministic value for (who, index), so readers can check what they see.
inline uint64_t pattern(uint64_t who, uint64_t index) { return (who + 1) * 0x9e3779b97f4a7c15ull ^ (index * 2654435761ull); }

}  // namespace scopedsm_test
