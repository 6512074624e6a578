#include "sched/schedule.h"

#include <algorithm>
#include <cmath>

namespace scopedsm {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t resolved_chunk(const Schedule& s, int64_t n, int p) {
  return s.chunk > 0 ? s.chunk : std::max<int64_t>(1, n / (4 * int64_t{p}));
}
int64_t resolved_divisor(const Schedule& s, int p) { return s.divisor > 0 ? s.divisor : p; }

}  // namespace

Chunk static_block(int64_t begin, int64_t end, int p, int rank) {
  const int64_t n = std::max<int64_t>(0, end - begin);
  const int64_t each = ceil_div(n, p);
  const int64_t first = std::min(end, begin + each * rank);
  return {first, std::min(end, first + each)};
}

CentralQueue central_start(const Schedule& s, int64_t begin, int64_t end, int p) {
  CentralQueue q;
  q.next = begin;
  q.end = std::max(begin, end);
  q.total = q.end - q.next;
  if (s.scheme == Scheme::kTSS) {
    // Tzen and Ni: C = ceil(2N / (first + last)) chunks, decreasing by
    // (first - last) / (C - 1). For TSS(N/2p, 1) this is about the
    // dissertation's N/8p^2 and gives the same Tab 5.1 row.
    q.first = s.tss_first > 0 ? s.tss_first : std::max<int64_t>(1, ceil_div(q.total, 2 * int64_t{p}));
    q.last = s.tss_last > 0 ? s.tss_last : 1;
    q.last = std::min(q.last, q.first);
    const int64_t chunks = std::max<int64_t>(1, ceil_div(2 * q.total, q.first + q.last));
    q.step = chunks > 1 ? static_cast<double>(q.first - q.last) / static_cast<double>(chunks - 1) : 0;
  }
  return q;
}

bool central_grab(const Schedule& s, int p, CentralQueue* q, Chunk* out) {
  const int64_t left = q->end - q->next;
  if (left <= 0) {
    *out = {q->end, q->end};
    return false;
  }
  int64_t size = 1;
  switch (s.scheme) {
    case Scheme::kSS: size = 1; break;
    case Scheme::kBSS: size = resolved_chunk(s, q->total, p); break;
    case Scheme::kGSS:  // R/p to nearest, never below the least chunk (but the last)
      size = std::max<int64_t>(std::max<int64_t>(1, s.min_chunk), (2 * left + p) / (2 * int64_t{p}));
      break;
    case Scheme::kFactoring:
    case Scheme::kSSS:
      if (q->batch_left == 0) {
        q->batch_left = p;
        q->batch_chunk = s.scheme == Scheme::kFactoring
                             ? ceil_div(left, 2 * int64_t{p})
                             : std::max<int64_t>(1, static_cast<int64_t>(s.alpha * static_cast<double>(left) / p));
      }
      --q->batch_left;
      size = q->batch_chunk;
      break;
    case Scheme::kTSS: {
      const double want = static_cast<double>(q->first) - static_cast<double>(q->grabs) * q->step;
      size = std::max(q->last, static_cast<int64_t>(std::ceil(want - 1e-9)));
      break;
    }
    default: size = left; break;  // not a central scheme: everything at once
  }
  size = std::min(size, left);
  *out = {q->next, q->next + size};
  q->next += size;
  ++q->grabs;
  return true;
}

std::vector<Segment> affinity_segments(int64_t begin, int64_t end, int p, const std::vector<int>& owner) {
  std::vector<Segment> segs(static_cast<size_t>(p));
  const int64_t n = std::max<int64_t>(0, end - begin);
  bool runs = static_cast<int64_t>(owner.size()) == n;
  std::vector<bool> seen(static_cast<size_t>(p), false);
  for (int64_t i = 0; runs && i < n;) {
    const int r = owner[static_cast<size_t>(i)];
    if (r < 0 || r >= p || seen[static_cast<size_t>(r)]) {
      runs = false;
      break;
    }
    seen[static_cast<size_t>(r)] = true;
    int64_t j = i;
    while (j < n && owner[static_cast<size_t>(j)] == r) ++j;
    segs[static_cast<size_t>(r)] = {begin + i, begin + j, 0};
    i = j;
  }
  if (runs) {
    for (int r = 0; r < p; ++r)
      if (!seen[static_cast<size_t>(r)]) segs[static_cast<size_t>(r)] = {end, end, 0};
    return segs;
  }
  for (int r = 0; r < p; ++r) {
    const Chunk c = static_block(begin, end, p, r);
    segs[static_cast<size_t>(r)] = {c.begin, c.end, 0};
  }
  return segs;
}

int64_t local_chunk(const Schedule& s, int64_t n, int p, const Segment& own, double mean_taken) {
  const int64_t r = own.remaining();
  if (r <= 0) return 0;
  if (s.scheme == Scheme::kABS && s.local_bss) return std::min(r, resolved_chunk(s, n, p));
  int64_t k = resolved_divisor(s, p);
  if (s.scheme == Scheme::kAAFS) {
    // Ahead of the mean (lightly loaded): larger chunks, to finish and help
    // sooner; behind it (heavily loaded): smaller, leaving work to steal.
    const double t = static_cast<double>(own.taken);
    if (t > mean_taken) k = std::max<int64_t>(1, k / 2);
    if (t < mean_taken) k = 2 * k;
  }
  return std::min(r, ceil_div(r, k));
}

int64_t steal_chunk(const Schedule& s, int64_t n, int p, int64_t remaining) {
  if (remaining <= 0) return 0;
  if (s.scheme == Scheme::kABS && s.local_bss) return std::min(remaining, resolved_chunk(s, n, p));
  return ceil_div(remaining, p);
}

int most_loaded(const Segment* segments, int p) {
  int best = -1;
  for (int r = 0; r < p; ++r)
    if (segments[r].remaining() > 0 && (best < 0 || segments[r].remaining() > segments[best].remaining())) best = r;
  return best;
}

Chunk take_front(Segment* s, int64_t n) {
  n = std::clamp<int64_t>(n, 0, s->remaining());
  const Chunk c{s->next, s->next + n};
  s->next += n;
  return c;
}

Chunk take_back(Segment* s, int64_t n) {
  n = std::clamp<int64_t>(n, 0, s->remaining());
  const Chunk c{s->end - n, s->end};
  s->end -= n;
  return c;
}

}  // namespace scopedsm
