// What a barrier sends, by form and layout, for the multi-process tests
// that count messages (they include src/api/test_hooks.h's hook).
#pragma once

#include <cstdint>

#include "api/test_hooks.h"
#include "support/test_util.h"

namespace scopedsm_test {

inline uint64_t log2_ceil(int n) {
  uint64_t r = 0;
  while ((1 << r) < n) ++r;
  return r;
}

// BARR messages this process sends per barrier (docs/PROTOCOL.md §4): in
// the node form (SCOPEDSM_BARRIER=node) ceil(log2 M) rounds among the M
// nodes' leaders if it leads its node, none otherwise; ceil(log2 N)
// dissemination rounds in the default form; with SCOPEDSM_BARRIER=central
// (JIAJIA's BROADCAST off) one to rank 0, which sends one back to each other.
inline uint64_t barrier_messages() {
  const int n = nprocs();
  if (env_is("SCOPEDSM_BARRIER", "central")) return n == 1 ? 0 : (rank() == 0 ? static_cast<uint64_t>(n - 1) : 1);
  if (!env_is("SCOPEDSM_BARRIER", "node")) return log2_ceil(n);
  int leader = 0;
  const int leaders = scopedsm_test_barrier_leaders(&leader);
  return leader != 0 ? log2_ceil(leaders) : 0;
}

}  // namespace scopedsm_test
