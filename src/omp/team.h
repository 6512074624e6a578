// The OpenMP runtime of ScopeDSM: one team of P threads, one per process
// (docs/OPENMP.md). Thread t of a team is rank t; the master is rank 0.
//
// A program built with `scopedsm-cc -fopenmp` calls libgomp's entry points
// (GOMP_parallel, GOMP_loop_dynamic_start, omp_get_thread_num, ...), which
// omp/gomp_abi.cc defines on this class. Its contract:
//
// * Start-up (boot, from a constructor that runs before the program's own):
//   the runtime starts with the shared region placed over the program's
//   globals (omp/image.h), and sets up, in this order, pages [0, g) for the
//   globals (homed at the master, holding the values the program image
//   gave them), the master's stack (pinned at the master: never trapped
//   there, so the master and the kernel may write it at any time), this
//   runtime's control block and the heap (first-touch homes, one arena per
//   process). Only the master runs main (run_main), on the shared stack;
//   the others wait in work_loop for parallel regions.
// * A parallel region: the master meets the others at a barrier, which
//   releases its writes and makes every process acquire them (scope
//   consistency's barrier) and carries the region's record (outlined
//   function, its data on the master's stack, the team's size and ICVs) to
//   every process as the master's broadcast; the master also keeps the
//   record in the control block for the processes outside a smaller team. Each team thread runs the function; a barrier ends the
//   region. Processes outside a smaller team take part in every barrier of
//   the region (each one is global) until the master marks it done.
//   Nested regions run serialized (a team of one), as OpenMP allows.
// * Worksharing: static schedules are computed locally; dynamic and guided
//   ones take chunks from a counter in the control block with atomics at
//   the counter's home; ordered loops pass a turn word in chunk order.
//   single is executed by the master (thread 0); copyprivate's data (its
//   address) is the master's broadcast with the barrier that ends single.
// * Mutual exclusion (critical, atomic without a CPU instruction, the lock
//   routines) is ScopeDSM's locks, each acquire followed by an acquire of
//   everything (every cached copy dropped): OpenMP's lock flushes order all
//   variables, not a lock's scope (docs/MEMORY_MODEL.md, "OpenMP").
// * End: when the master's program ends (exit status s, exit handlers done)
//   it tells the others, and every process shuts the runtime down; the
//   others exit with status s, without running the program's exit handlers.
//
// Thread owner: each process's application thread (the one OpenMP thread of
// the process); every method runs there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/surface.h"
#include "memory/atomic_word.h"
#include "omp/heap.h"
#include "omp/schedule.h"

namespace scopedsm {
class Runtime;
}

namespace scopedsm::omp {

// OpenMP's omp_sched_t values.
enum SchedKind : int { kSchedStatic = 1, kSchedDynamic = 2, kSchedGuided = 3, kSchedAuto = 4 };

// The internal control variables of one task's data environment (the ones
// that mean something with one thread per process).
struct Icvs {
  int nthreads = 1;          // nthreads-var (OMP_NUM_THREADS, omp_set_num_threads)
  bool dynamic = false;      // dyn-var (OMP_DYNAMIC, omp_set_dynamic)
  int run_sched = kSchedDynamic;  // run-sched-var (OMP_SCHEDULE, omp_set_schedule); chunk 0 = default
  int run_chunk = 0;
  bool run_monotonic = false;
  int max_active_levels = 1;  // OMP_MAX_ACTIVE_LEVELS (nested regions run serialized whatever it says)
  int thread_limit = 1;       // the job's processes
};

// One loop being shared out, in the iteration space [0, n): iteration i is
// start + i * incr of the loop as the program wrote it.
struct LoopState {
  bool active = false;
  bool ull = false;
  bool ordered = false;
  int kind = kSchedStatic;
  LoopSpec spec;
  uint64_t n = 0;
  uint64_t chunk = 0;           // 0: the schedule's default
  uint32_t gen = 0;             // the worksharing construct's tag in its counter slot
  uint32_t slot = 0;
  uint64_t static_next = 0;     // static: this thread's next chunk number
  uint64_t seen = 0;            // dynamic, guided: the counter as we last saw it
  uint64_t lo = 0, hi = 0;      // the chunk being run, [lo, hi)
  bool has_chunk = false;
  bool owns_turn = false;       // ordered: this chunk has the turn
};

// The program's code, [start, end) (omp/start.c passes the executable's
// text): C++ allocations called from there, or from libstdc++ while the
// runtime is not running on this thread, are the program's.
void set_program_text(const void* start, const void* end);
bool allocates_for_program(const void* caller);

class Team {
 public:
  // The process's team runtime, created by boot.
  static Team& get();
  static bool booted();

  // Starts ScopeDSM for an OpenMP program whose shared globals are [start,
  // end): initialized in [start, data_end), zeros after.
  static void boot(int argc, char** argv, std::byte* start, std::byte* data_end, std::byte* end);
  // Called instead of main: the master runs `main` on the shared stack and
  // returns its status; the others never return.
  int run_main(int argc, char** argv, char** envp, int (*main)(int, char**, char**));

  // The heap (omp/heap.h): whether the program's allocations come here now.
  SharedHeap* heap() { return heap_ready_ ? &heap_ : nullptr; }
  bool contains(const void* p) const;

  // Parallel regions. `num_threads` 0: the nthreads ICV.
  void parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
  // GOMP_parallel_start/end (the pre-4.9 ABI): the master runs fn itself between them.
  void parallel_start(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
  void parallel_end();
  // A combined `parallel for` / `parallel sections`: the region starts with
  // the loop (or sections) already set up in every team thread.
  void parallel_loop(void (*fn)(void*), void* data, unsigned num_threads, const LoopSpec& loop, unsigned flags);
  void parallel_sections(void (*fn)(void*), void* data, unsigned num_threads, unsigned count, unsigned flags);

  // `broadcast`: the master's bytes reach the team with the barrier (in at
  // the master, out at the others; SyncClient::barrier).
  void barrier(const char* construct, std::vector<std::byte>* broadcast = nullptr);

  // Worksharing loops. start returns whether this thread got a first chunk.
  bool loop_start(const LoopSpec& spec, int64_t* istart, int64_t* iend);
  bool loop_next(int64_t* istart, int64_t* iend);
  void loop_end(bool nowait);
  void ordered_start();
  void ordered_end();

  // sections: the section number (1..count) this thread runs next, or 0.
  unsigned sections_start(unsigned count);
  unsigned sections_next();

  bool single_start();
  void* single_copy_start();
  void single_copy_end(void* data);

  // Mutual exclusion: critical (unnamed: `name` null), the atomic fallback,
  // and the lock routines (ids stored in the program's lock variables).
  void critical_start(void** name);
  void critical_end(void** name);
  void atomic_start();
  void atomic_end();
  void lock_init(uint32_t* word, const char* routine);
  void lock_destroy(uint32_t* word, const char* routine);
  void lock_set(uint32_t* word, const char* routine);
  void lock_unset(uint32_t* word, const char* routine);
  bool lock_test(uint32_t* word, const char* routine);
  // Nested locks: the id in the word, the count of this process's holds here.
  void nest_lock_set(uint32_t* word, const char* routine);
  void nest_lock_unset(uint32_t* word, const char* routine);
  int nest_lock_test(uint32_t* word, const char* routine);

  // flush (explicit, or implied by an atomic's memory order): a release and
  // an acquire of everything.
  void flush(bool release, bool acquire);

  // Atomics on the shared region, at the word's home (docs/MEMORY_MODEL.md).
  uint64_t atomic_word(void* addr, AtomicOp op, AtomicType type, uint64_t operand, uint64_t expected, int memorder);

  // What the omp_* routines read and set.
  int thread_num() const { return thread_num_; }
  int team_size() const { return team_size_; }
  int level() const { return level_; }
  int active_level() const { return active_level_; }
  int procs() const { return size_; }
  Icvs& icvs() { return icvs_; }
  int ancestor_thread_num(int level) const;
  int ancestor_team_size(int level) const;

  // Ends the job with one line naming `construct` (an unsupported construct
  // or misuse), in the program's words.
  [[noreturn]] static void unsupported(const char* construct, const char* why);

 private:
  Team() = default;
  // The end of the program on the master (on_exit): tells the others and
  // shuts down. `status` is the program's exit status.
  static void at_exit(int status, void*);
  void end_program(int status);
  [[noreturn]] void work_loop();
  // The team's size for a region asked for `requested` threads (0: the ICV).
  int choose_threads(unsigned requested) const;
  void begin_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags, const LoopSpec* loop,
                      unsigned sections);
  // Runs a region as thread `t` of `n`, a combined loop or sections set up first.
  void run_region(void (*fn)(void*), void* data, int t, int n, const LoopSpec* combined, bool sections);
  void begin_loop(const LoopSpec& spec);
  void begin_sections(unsigned count);
  void finish_ordered_chunk();
  bool try_take(uint32_t* word, const char* routine);
  // The counter slot and tag of the next worksharing construct of this region.
  void next_construct(uint32_t* slot, uint32_t* gen);
  // A chunk [lo, hi) of the current loop for this thread, or false.
  bool grab(uint64_t* lo, uint64_t* hi);
  void to_program(const LoopState& l, uint64_t lo, uint64_t hi, int64_t* istart, int64_t* iend) const;
  // The ordered turn: wait for ours, pass it on.
  void wait_turn(uint64_t index);
  void pass_turn(uint64_t next_index);
  uint64_t load(uint64_t* word, int memorder);
  uint64_t cas(uint64_t* word, uint64_t expected, uint64_t desired, int memorder);
  int lock_id(uint32_t* word, const char* routine);
  int new_lock_id();
  void lock_all(int id, ApiCall call);

  Runtime* rt_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  struct Control* ctl_ = nullptr;  // in the shared region (team.cc)
  std::byte* stack_ = nullptr;     // the master's stack
  uint64_t stack_bytes_ = 0;
  SharedHeap heap_;
  bool heap_ready_ = false;
  std::byte* region_begin_ = nullptr;
  std::byte* region_end_ = nullptr;

  // This thread's data environment.
  Icvs icvs_;
  int level_ = 0;         // enclosing parallel regions
  int active_level_ = 0;  // enclosing active (team > 1) ones
  int thread_num_ = 0;
  int team_size_ = 1;
  int level1_thread_ = 0;  // at level 1: our thread number and the team's size
  int level1_size_ = 1;
  uint64_t construct_base_ = 1;  // worksharing constructs the team met before this region
  uint32_t constructs_ = 0;      // worksharing constructs met in this region
  uint32_t region_barriers_ = 0; // barriers made in this region (the master's count)
  LoopState loop_;
  unsigned sections_count_ = 0;
  std::unordered_map<int, int> nest_holds_;  // nested locks we hold: id -> count
  bool in_region_ = false;  // an active region is running here (exit() then ends the job)
  int exit_status_ = 0;
};

}  // namespace scopedsm::omp
