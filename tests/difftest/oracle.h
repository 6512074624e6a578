// The reference model: what every read of a difftest program must return
// under docs/MEMORY_MODEL.md, given the synchronization order the run took.
//
// The programs are data-race free, so every read has one right answer:
//   OWNED(r) cell: r's latest write in the phase, else the value the cell
//     had at the phase's barrier (G1, G3);
//   READONLY cell: the value at the phase's barrier (G3);
//   LOCKED(L) cell: the latest write in the critical sections of L ordered
//     by the version each grant carried (recorded at run time with
//     scopedsm_test_lock_version), else the value at the barrier (G2, G5).
// Values at a barrier are the final values of the phase before (G3, G6).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program.h"

namespace difftest {

struct RankLog {
  std::vector<uint64_t> reads;     // value of every read, in program order
  std::vector<uint64_t> versions;  // version of every lock grant, in program order
};

struct Mismatch {
  size_t phase = 0;
  int rank = 0;
  uint32_t op_id = 0;
  uint32_t cell = 0;
  uint64_t expected = 0, seen = 0;
  int src_rank = -1;  // who wrote the expected value (-1: the value at the start)
  size_t src_phase = 0;
  uint32_t src_op = 0;
};

struct CheckResult {
  std::vector<Mismatch> mismatches;
  std::string report;  // empty if no mismatch
};

// Checks a run of `p`. `state` holds the value of every cell at the start
// and is updated to the values at the end (the next program starts there).
// `use_versions` = false orders critical sections by rank instead of by the
// recorded versions: a deliberately wrong oracle, which must then object to
// correct runs (a control showing that the recorded order matters).
CheckResult check(const Program& p, const std::vector<RankLog>& logs, std::vector<uint64_t>* state,
                  bool use_versions = true);

}  // namespace difftest
