// Random data-race-free SPMD programs for the differential test.
//
// A program is a list of phases separated by barriers. In every phase each
// cell (a 1-, 2-, 4- or 8-byte location of the shared region) has one mode:
//   OWNED(r)  only rank r reads or writes it;
//   READONLY  every rank may read it, nobody writes it;
//   LOCKED(L) it is read and written only while holding lock L (possibly
//             with other locks held around or inside).
// That makes every program data-race free by construction. Each rank's part
// of a phase is a sequence of reads, writes and critical sections; critical
// sections nest, always taking locks in increasing id order, so programs
// cannot deadlock. The last phase reads every cell on every rank.
//
// Everything is a function of (seed, np): every rank generates the same
// program and runs its own part.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace difftest {

enum class Mode : uint8_t { kOwned, kReadOnly, kLocked };
enum class OpKind : uint8_t { kRead, kWrite, kLock, kUnlock };

struct Cell {
  uint32_t offset;  // bytes from the start of the region
  uint32_t size;    // 1, 2, 4 or 8
};

struct Op {
  OpKind kind;
  uint32_t arg;    // cell index (read, write) or lock index (lock, unlock)
  uint64_t value;  // write: the value written
  uint32_t id;     // unique in the program; what shrinking drops
};

struct Phase {
  std::vector<Mode> mode;       // per cell
  std::vector<uint32_t> owner;  // per cell: the rank (kOwned) or lock index (kLocked)
  std::vector<std::vector<Op>> ops;  // per rank
};

struct Program {
  uint64_t seed = 0;
  int np = 0;
  uint32_t pages = 0;          // pages of the region the program uses
  uint32_t page_size = 4096;
  std::vector<Cell> cells;
  std::vector<int> locks;      // lock index -> lock id, increasing
  std::vector<Phase> phases;   // the last one is the verification phase
};

// Pages every program fits in (the region the test allocates).
constexpr uint32_t kRegionPages = 96;

Program generate(uint64_t seed, int np, uint32_t page_size);

// The program without the ops whose ids are in `drop`. Dropping a lock op
// drops its whole critical section; unlock ops cannot be dropped alone.
// `unwrap(id)` in `drop` removes only lock op `id` and its unlock, keeping
// what was inside (the shrinker does so only where no cell the lock guards
// is accessed inside, so the program stays data-race free).
Program without(const Program& p, const std::set<uint32_t>& drop);
constexpr uint32_t unwrap(uint32_t lock_op_id) { return lock_op_id | 0x80000000u; }

// Lock ops of `p` that can be unwrapped without creating a data race.
std::vector<uint32_t> unwrappable(const Program& p);

// Ids that can be dropped, coarse to fine: level 0 = every op of a phase
// (grouped per phase), level 1 = top-level blocks, level 2 = every op.
std::vector<std::vector<uint32_t>> drop_units(const Program& p, int level);

// Ids to drop to keep only the accesses to `cell` and the critical sections
// around them (with the barriers, which are never dropped).
std::set<uint32_t> slice_drop(const Program& p, uint32_t cell);

struct Counts {
  uint64_t reads = 0, writes = 0, locks = 0, barriers = 0;
};
Counts count(const Program& p);

// Human-readable listing (one line per rank and phase).
std::string describe(const Program& p);
std::string describe_op(const Program& p, const Op& op);
const char* mode_name(Mode m);

}  // namespace difftest
