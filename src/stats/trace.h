// The runtime's events for SCOPEDSM_TRACE: what each thread did, when, and
// for how long, in the categories of the statistics (fault, fetch, diff,
// lock, barrier, serve). Written at exit as Chrome/Perfetto trace-event JSON
// (TraceWriter); docs/CONFIG.md describes the file.
//
// Cost: with tracing off a site tests one pointer (TraceLog* null) and does
// nothing else. With it on, an event is six stores into a chunk of memory
// reserved in advance; a full chunk costs one allocation. No locks: each
// TraceLog has one writer at a time (the application thread's log only that
// thread; the serving log whichever thread holds the service's serve mutex).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace scopedsm {

// What an event is. Each kind has a name, a category and up to two
// arguments (trace_kind_info).
enum class TraceKind : uint8_t {
  kReadFault,   // fault: a read of an invalid page (arg page)
  kWriteFault,  // fault: a write to a page not writable (arg page)
  kFetch,       // fetch: a page or a run from a home on another node, by message or one-sided (arg first page, arg2 home)
  kNodeCopy,    // fetch: a page copied from a home on this node (arg page, arg2 home)
  kDiffMake,    // diff: a written page diffed against its twin (arg page, arg2 bytes changed)
  kDiffApply,   // diff: a DIFF message applied at its home (arg from rank, arg2 bytes changed)
  kLock,        // lock: acquiring a lock (arg lock)
  kUnlock,      // lock: releasing a lock (arg lock)
  kCvSet,       // lock: setting a condition variable (arg cv)
  kCvReset,     // lock: resetting a condition variable (arg cv)
  kCvWait,      // lock: waiting on a condition variable (arg cv)
  kBarrier,     // barrier: a barrier (arg barrier epoch)
  kWait,        // barrier: jia_wait's rendezvous
  kAtomic,      // atomic: an atomic at the home or an AMO call (arg page, arg2 offset)
  kServe,       // serve: one request served (arg message type, arg2 from rank)
};
inline constexpr int kTraceKindCount = static_cast<int>(TraceKind::kServe) + 1;

struct TraceKindInfo {
  const char* name;      // the event's name in the trace ("read fault"); kServe: the message's
  const char* category;  // fault, fetch, diff, lock, barrier, atomic or serve
  const char* arg;       // the arguments' names, nullptr if unused
  const char* arg2;
};
const TraceKindInfo& trace_kind_info(TraceKind kind);

// Which thread did it: the trace's tid.
enum class TraceThread : uint8_t { kApp = 0, kService = 1 };

struct TraceEvent {
  uint64_t start_ns = 0;  // now_ns() clock
  uint64_t end_ns = 0;
  uint32_t arg = 0;
  uint32_t arg2 = 0;
  TraceKind kind = TraceKind::kReadFault;
  TraceThread thread = TraceThread::kApp;
  uint16_t unused = 0;  // keeps the bytes sent at exit defined
  uint32_t unused2 = 0;
};

class TraceLog {
 public:
  static constexpr size_t kChunkEvents = size_t{1} << 15;  // 1 MiB of events
  static constexpr size_t kMaxEvents = size_t{1} << 22;    // 128 MiB; later events are dropped and counted

  // Reserves the first chunk; holds at most max_events (a multiple of kChunkEvents).
  explicit TraceLog(size_t max_events = kMaxEvents);

  void add(TraceKind kind, TraceThread thread, uint64_t start_ns, uint64_t end_ns, uint32_t arg = 0,
           uint32_t arg2 = 0) {
    if (used_ == kChunkEvents && !next_chunk()) [[unlikely]] {
      ++dropped_;
      return;
    }
    TraceEvent& e = chunks_.back()[used_++];
    e.start_ns = start_ns;
    e.end_ns = end_ns;
    e.arg = arg;
    e.arg2 = arg2;
    e.kind = kind;
    e.thread = thread;
  }
  size_t size() const { return (chunks_.size() - 1) * kChunkEvents + used_; }
  uint64_t dropped() const { return dropped_; }
  // Every event in the order recorded, appended to *out.
  void append_to(std::vector<TraceEvent>* out) const;

 private:
  bool next_chunk();
  const size_t max_events_;
  std::vector<std::unique_ptr<TraceEvent[]>> chunks_;
  size_t used_ = 0;
  uint64_t dropped_ = 0;
};

// Records one event of the application thread that lasts from construction
// to destruction if `log` is not null, and adds its duration to *sink_ns
// (a statistics time) if that is not null. The clock is read as the
// statistics need it anyway; with `log` null the trace costs one test.
class TraceSpan {
 public:
  TraceSpan(TraceLog* log, uint64_t* sink_ns, TraceKind kind, uint32_t arg = 0, uint32_t arg2 = 0)
      : log_(log), sink_(sink_ns), kind_(kind), arg_(arg), arg2_(arg2), start_(now_ns()) {}
  ~TraceSpan() {
    const uint64_t end = now_ns();
    if (sink_ != nullptr) *sink_ += end - start_;
    if (log_ != nullptr) log_->add(kind_, TraceThread::kApp, start_, end, arg_, arg2_);
  }
  void set_arg2(uint32_t v) { arg2_ = v; }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;

 private:
  TraceLog* log_;
  uint64_t* sink_;
  TraceKind kind_;
  uint32_t arg_;
  uint32_t arg2_;
  uint64_t start_;
};

// The trace file: every rank's events, one rank after the other, in the
// JSON object format of the trace-event format (traceEvents, otherData).
// pid is the rank, tid 0 the application thread and 1 the service thread;
// ts and dur are microseconds, ts counted from the end of jia_init.
class TraceWriter {
 public:
  TraceWriter() = default;
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  Status open(const std::string& path);
  // One rank's events; origin_ns is that rank's time zero (now_ns() clock).
  void add_rank(int rank, const std::string& host, uint64_t origin_ns, const std::vector<TraceEvent>& events,
                uint64_t dropped);
  // Writes otherData and closes the file; an error names the path and why.
  Status close(const std::string& program, int processes);

 private:
  void put(const std::string& text);
  void write(const std::string& text);
  std::FILE* f_ = nullptr;
  int write_errno_ = 0;  // the first failed write's reason
  std::string path_;
  bool first_ = true;
  uint64_t dropped_ = 0;
  // Each added rank and its origin on its own monotonic clock, written as
  // otherData.clock_origin_ns so that a reader can line up the ranks of one
  // host to the nanosecond (their clocks are the same clock).
  std::vector<std::pair<int, uint64_t>> origins_;
};

}  // namespace scopedsm
