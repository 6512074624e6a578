// Shared memory handed to the kernel or a library: what the interposed calls
// (src/interpose: read, write, fwrite, MPI_Send, ...) ask of the runtime.
//
// The kernel does not fault on a protected page of the region: a system
// call returns EFAULT or a short count, and an MPI library's single-copy
// transfer (process_vm_readv) fails. The interposed calls make the shared
// part of their buffers valid first (Coherence::try_prepare), as an access
// by the application thread at the time of the call.
//
// Fast path (any thread, lock-free): may_reach() tests an address range
// against the allocated part of the application's view of the region; it
// is false for every range while no runtime runs, and for every range
// under the test fault interpose-direct (a negative control: interposed
// calls then go straight to the real functions).
//
// Slow path: a SlowPath object is usable only on the application thread of
// a running runtime (not in a child process it forked), outside another
// SlowPath (the interposed calls' own work, the MPI calls they make, and
// anything those call are not prepared again), and when no fatal error is
// ending the process. Elsewhere the caller makes the real call unchanged.
//
// Thread owner: the application thread for SlowPath and everything it
// does; the published range is written by the application thread (start,
// allocations, shutdown) and read by any.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace scopedsm {

class Runtime;

namespace shared_access {

// The allocated part of the application's view, [base, end); both 0 when
// there is none.
extern std::atomic<uintptr_t> g_base;
extern std::atomic<uintptr_t> g_end;

// Whether [p, p + len) may reach allocated shared memory: two loads and
// three comparisons, for every interposed call.
inline bool may_reach(const void* p, size_t len) {
  const uintptr_t end = g_end.load(std::memory_order_relaxed);
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (len == 0 || a >= end) return false;
  const uintptr_t base = g_base.load(std::memory_order_relaxed);
  return a >= base || base - a < len;
}

// Called by the runtime: publishes [base, end), or nothing (0, 0).
void publish(uintptr_t base, uintptr_t end);
// Called by the runtime on the thread that initializes it.
void set_application_thread();
// Whether the calling thread is the application thread (a thread-local flag).
bool on_application_thread();

// A range an interposed call hands to the kernel or MPI: read from memory
// (data going out) or written (data coming in, which also reads).
struct Range {
  const void* addr = nullptr;
  size_t len = 0;
  bool write = false;
};

class SlowPath {
 public:
  SlowPath();
  ~SlowPath();
  SlowPath(const SlowPath&) = delete;
  SlowPath& operator=(const SlowPath&) = delete;

  // Whether this thread may prepare shared memory now (see above).
  bool usable() const { return rt_ != nullptr; }
  // The coherence unit in bytes, and the longest transfer, in units, that
  // a call splits its shared buffers into: half the cache, at least 1.
  uint64_t page_size() const;
  uint64_t chunk_pages() const;
  // How many units of allocated shared memory [p, p + len) touches.
  uint64_t pages_of(const void* p, size_t len) const;
  // Makes the allocated shared parts of `ranges` valid together, for their
  // access; the rest of each range is left alone. Returns false, having
  // done nothing, if their units homed elsewhere outnumber the cache.
  // errno is kept.
  bool prepare(const Range* ranges, size_t n);
  // Counts for the statistics: an interposed call that prepared shared
  // memory (`chunks` real calls), or that moved `bytes` through a private
  // buffer instead.
  void count_prepared(uint64_t chunks);
  void count_bounced(uint64_t bytes);

 private:
  Runtime* rt_ = nullptr;
};

// An interposed call made on shared memory from a thread that cannot
// prepare it failed with EFAULT: ends the job with a report naming `call`.
// Does nothing if the range reaches no shared memory or no runtime runs.
void report_foreign_fault(const char* call, const void* addr, size_t len);

}  // namespace shared_access
}  // namespace scopedsm
