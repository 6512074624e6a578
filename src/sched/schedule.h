// Loop schedules: how the iterations of a DOALL loop are handed out in
// chunks, for every scheme of the JIAJIA dissertation's Tab 5.1 (digest
// seed-003 §5.7). Pure arithmetic on plain state: no MPI, no shared memory.
// runtime/loop.h keeps the same state in shared memory under DSM locks and
// calls these functions inside its critical sections; the unit tests call
// them directly (tests/unit/schedule_test.cc checks Tab 5.1).
//
// Iterations are half-open ranges [begin, end) of 64-bit integers. Every
// state here is trivially copyable, so it can live in the shared region.
#pragma once

#include <cstdint>
#include <vector>

#include "common/schedule_spec.h"

namespace scopedsm {

struct Chunk {
  int64_t begin = 0;
  int64_t end = 0;  // exclusive; empty when begin == end
  int64_t size() const { return end - begin; }
};

// Process `rank`'s block of [begin, end) under Static: ceil(N/p) each, in
// rank order (the last ones may be shorter or empty).
Chunk static_block(int64_t begin, int64_t end, int p, int rank);

// The central queue of SS, BSS, GSS, FS, TSS and SSS.
struct CentralQueue {
  int64_t next = 0, end = 0;  // iterations not yet handed out
  int64_t total = 0;          // N
  int64_t grabs = 0;          // chunks handed out
  int64_t batch_left = 0;     // FS, SSS: chunks left in the current batch
  int64_t batch_chunk = 0;    // FS, SSS: their size
  int64_t first = 0, last = 0;  // TSS: the resolved first and last chunk
  double step = 0;              // TSS: the decrease per chunk
};
// The queue of a loop over [begin, end) on p processes, parameters resolved.
CentralQueue central_start(const Schedule& s, int64_t begin, int64_t end, int p);
// Takes the next chunk; false (and an empty chunk) when none is left.
bool central_grab(const Schedule& s, int p, CentralQueue* q, Chunk* out);

// One process's segment of AFS, AAFS and ABS.
struct Segment {
  int64_t next = 0, end = 0;  // iterations left in it
  int64_t taken = 0;          // iterations its owner has taken (AAFS's s_i)
  int64_t remaining() const { return end - next; }
};
// The segments: `owner[i]` is the rank homing iteration begin+i's data (-1:
// unknown). When every rank's iterations form one run (or none), segment r
// is that run; otherwise (unknown homes, interleaved homes) the even
// Static blocks. Returns p segments.
std::vector<Segment> affinity_segments(int64_t begin, int64_t end, int p, const std::vector<int>& owner);
// The size of a local grab from `own` with p processes. `mean_taken`: the
// mean of every segment's `taken` (AAFS only).
int64_t local_chunk(const Schedule& s, int64_t n, int p, const Segment& own, double mean_taken);
// The size of a steal from a segment with `remaining` iterations left.
int64_t steal_chunk(const Schedule& s, int64_t n, int p, int64_t remaining);
// The segment with the largest remainder (lowest rank on ties), or -1 when
// all are empty.
int most_loaded(const Segment* segments, int p);
// Takes up to n iterations from the front (local grabs) or back (steals).
Chunk take_front(Segment* s, int64_t n);
Chunk take_back(Segment* s, int64_t n);

}  // namespace scopedsm
