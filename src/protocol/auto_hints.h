// Automatic hints (SCOPEDSM_AUTO_HINTS=on, docs/PROTOCOL.md §2.6): the
// runtime's own prefetch and release hints for programs that give none, in
// the shape the out-of-core thesis's Chapter 5 asks of a compiler. Pure
// bookkeeping, no page states: the coherence engine reports the faults and
// what became of the prefetched pages, and turns the advice into the same
// prefetch and release hints a program makes.
//
//   StreamTable  a few fault streams, each keyed by its last page and its
//                stride (forward, 1 to kMaxStride pages). A stream is
//                confirmed by its third fault at one constant stride; from
//                then on a fault anywhere on its stride up to what was
//                prefetched (plus one step) continues it. Advice: prefetch
//                the steps up to `distance` ahead when fewer than half that
//                remain, and, once the stream has swept more than the
//                release threshold (half the cache), release the steps
//                behind it (MRU-like for cyclic sweeps: the sweep's start
//                stays cached, its later pages recycle the same slots).
//   Distance     the prefetch distance, in steps, 1 to kMax (and at most
//                the table's max_steps, half the cache): a late
//                page (the program faulted on a step of a confirmed stream
//                that no prefetch had reached) doubles it; a used run adds
//                one (with synchronous fetches a longer distance means fewer
//                requests per page); a wasted run (dropped untouched) halves it.
//
// Thread owner: the application thread.
#pragma once

#include <array>
#include <cstdint>

namespace scopedsm {

class PrefetchDistance {
 public:
  static constexpr uint32_t kMin = 1, kMax = 64, kStart = 4;
  uint32_t value() const { return d_; }
  void late() { d_ = d_ * 2 > kMax ? kMax : d_ * 2; }
  void used() { d_ = d_ + 1 > kMax ? kMax : d_ + 1; }
  void wasted() { d_ = d_ / 2 < kMin ? kMin : d_ / 2; }

 private:
  uint32_t d_ = kStart;
};

struct StreamAdvice {
  bool on_stream = false;   // the fault continued (or confirmed) a stream
  bool confirmed = false;   // a new stream was confirmed by this fault
  bool late = false;        // a step no prefetch had reached
  uint32_t stream = 0;      // its slot (a release tag)
  uint64_t stride = 0;
  // Prefetch the steps first, first + stride, ..., `prefetch_steps` of them.
  uint64_t prefetch_first = 0;
  uint32_t prefetch_steps = 0;
  // Release the steps from release_first below release_end.
  uint64_t release_first = 0;
  uint64_t release_end = 0;
};

class StreamTable {
 public:
  static constexpr uint32_t kStreams = 8;
  static constexpr uint64_t kMaxStride = 1024;
  // release_after: steps a stream sweeps before it releases behind itself
  // (0: never); max_steps: the most steps a stream is prefetched ahead
  // (the distance's bound besides kMax). `broken`:
  // negative control, strides never match.
  explicit StreamTable(uint64_t release_after = 0, uint64_t max_steps = PrefetchDistance::kMax, bool broken = false)
      : release_after_(release_after), max_steps_(max_steps < 1 ? 1 : max_steps), broken_(broken) {}

  // A fault on `page`; `demand` when it fetched the page (not the touch of
  // a prefetched page or a write to a readable one). The pages below
  // `limit` exist (prefetches stop there).
  StreamAdvice on_fault(uint64_t page, bool demand, uint64_t limit);
  PrefetchDistance& distance() { return distance_; }

 private:
  struct Stream {
    bool used = false;
    bool confirmed = false;
    uint64_t last = 0;      // the last page faulted on
    uint64_t stride = 0;    // 0: one fault seen so far
    uint32_t hits = 0;      // faults at `stride` in a row
    uint64_t ahead = 0;     // the furthest step prefetched (confirmed)
    uint64_t released = 0;  // steps below this are released
    uint64_t swept = 0;     // steps since confirmation
    uint64_t age = 0;       // for replacement: the least recent goes
  };
  Stream& victim();

  std::array<Stream, kStreams> streams_{};
  PrefetchDistance distance_;
  uint64_t clock_ = 0;
  const uint64_t release_after_;
  const uint64_t max_steps_;
  const bool broken_;
};

}  // namespace scopedsm
