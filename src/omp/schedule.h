// The arithmetic of OpenMP's loop schedules (OpenMP 5.1 §2.11.4), apart from
// the runtime: pure functions of their arguments, unit-tested in
// tests/unit/omp_schedule_test.cc.
//
// A loop is its iteration space as the program wrote it (start, end,
// increment, signed or unsigned) and is shared out in iteration numbers
// [0, n): number i is start + i * increment.
#pragma once

#include <cstdint>
#include <string>

namespace scopedsm::omp {

struct LoopSpec {
  bool ull = false;     // unsigned long long loop (GOMP_loop_ull_*)
  bool up = true;       // ull loops: counting up (else incr holds a negative step's bits)
  int64_t start = 0;    // ull loops keep their bits in these
  int64_t end = 0;
  int64_t incr = 1;
  int kind = 1;         // omp_sched_t: 1 static, 2 dynamic, 3 guided, 4 auto
  uint64_t chunk = 0;   // 0: the schedule's default
  bool ordered = false;
};

// The loop's iteration count (0 for an empty loop; a zero step is empty).
uint64_t iteration_count(const LoopSpec& s);

// A static schedule: the k-th chunk (k = 0, 1, ...) thread t of `threads`
// runs, as [lo, hi). Without a chunk size, one block per thread, the first
// n % threads blocks one iteration longer. False when the thread has no
// k-th chunk.
bool static_chunk(uint64_t n, uint64_t chunk, int t, int threads, uint64_t k, uint64_t* lo, uint64_t* hi);

// A guided schedule's next chunk when `remaining` iterations are left:
// remaining / threads rounded up, at least `chunk` (1 if 0), at most what is left.
uint64_t guided_chunk(uint64_t remaining, int threads, uint64_t chunk);

// The program's bounds of iterations [lo, hi): *first = start + lo * incr,
// *last = start + hi * incr, or the loop's end when hi is the last.
void program_bounds(const LoopSpec& s, uint64_t n, uint64_t lo, uint64_t hi, int64_t* first, int64_t* last);

// OMP_SCHEDULE's form, "[monotonic:|nonmonotonic:]kind[,chunk]" with kind
// static, dynamic, guided or auto (any case, spaces around). False, with
// `error` saying why, for anything else.
bool parse_schedule(const std::string& text, int* kind, int* chunk, bool* monotonic, std::string* error);

}  // namespace scopedsm::omp
