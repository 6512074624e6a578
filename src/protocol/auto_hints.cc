#include "protocol/auto_hints.h"

#include <algorithm>

namespace scopedsm {

StreamTable::Stream& StreamTable::victim() {
  Stream* v = &streams_[0];
  for (Stream& s : streams_) {
    if (!s.used) return s;
    if (s.age < v->age) v = &s;
  }
  return *v;
}

StreamAdvice StreamTable::on_fault(uint64_t page, bool demand, uint64_t limit) {
  StreamAdvice a;
  ++clock_;
  Stream* s = nullptr;
  // A confirmed stream: a fault on its stride, past its last page and at
  // most one step beyond what was prefetched.
  for (Stream& c : streams_) {
    if (!c.used || !c.confirmed || page <= c.last || page > c.ahead + c.stride || (page - c.last) % c.stride != 0)
      continue;
    s = &c;
    if (demand) {
      // The program fetched a step itself: no prefetch had reached it
      // (late), or the prefetched copy is gone (counted wasted when it
      // went); either way what lies past it must be fetched again.
      if (page > c.ahead) {
        a.late = true;
        distance_.late();
      }
      c.ahead = page;
    }
    c.swept += (page - c.last) / c.stride;
    c.last = page;
    break;
  }
  if (s == nullptr) {
    // A stream in training: the one this fault continues at its stride,
    // else the nearest below it (a new stride).
    Stream* near = nullptr;
    for (Stream& c : streams_) {
      if (!c.used || c.confirmed || page <= c.last || page - c.last > kMaxStride) continue;
      if (c.stride != 0 && page == c.last + c.stride && !broken_) {
        near = &c;
        break;
      }
      if (near == nullptr || c.last > near->last) near = &c;
    }
    if (near == nullptr) {
      Stream& n = victim();
      n = Stream{};
      n.used = true;
      n.last = page;
      n.age = clock_;
      return a;
    }
    const uint64_t stride = page - near->last;
    if (near->stride == stride && !broken_) {
      ++near->hits;
    } else {
      near->stride = stride;
      near->hits = 1;
    }
    near->last = page;
    near->age = clock_;
    if (near->hits < 2) return a;
    // The third fault at one stride: a stream.
    s = near;
    s->confirmed = true;
    s->ahead = page;
    s->swept = 2;
    s->released = 0;
    a.confirmed = true;
  }
  s->age = clock_;
  a.on_stream = true;
  a.stream = static_cast<uint32_t>(s - streams_.data());
  a.stride = s->stride;
  // Prefetch when fewer than half the distance's steps remain ahead.
  const uint64_t d = std::min<uint64_t>(distance_.value(), max_steps_);
  const uint64_t have = (s->ahead - s->last) / s->stride;
  const uint64_t first = s->ahead + s->stride;
  if (have * 2 < d && first < limit) {
    const uint64_t steps = std::min<uint64_t>(d - have, (limit - 1 - first) / s->stride + 1);
    a.prefetch_first = first;
    a.prefetch_steps = static_cast<uint32_t>(steps);
    s->ahead = first + (steps - 1) * s->stride;
  }
  // Release behind a stream that has swept more than the threshold: the
  // steps swept since it crossed it, up to the one before this fault.
  if (release_after_ != 0 && s->swept > release_after_) {
    if (s->released == 0) {
      s->released = s->last;  // the sweep's first steps stay
    } else if (s->released < s->last) {
      a.release_first = s->released;
      a.release_end = s->last;
      s->released = s->last;
    }
  }
  return a;
}

}  // namespace scopedsm
