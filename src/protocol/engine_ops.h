// What the coherence engine (protocol/coherence.h) hands its policies: the
// parts they read and write in place (EngineContext), and the few engine
// operations they may ask for (EngineOps). A policy sees nothing else of
// the engine, so that a unit test can run one with a fake EngineOps and a
// real page table, cache and PageFsm, without MPI.
//
// Thread owner: the application thread, as the engine's (every policy's
// methods run there, some inside the SIGSEGV handler).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/config.h"
#include "memory/home_share.h"
#include "memory/page_cache.h"
#include "memory/page_table.h"
#include "memory/region.h"
#include "memory/write_vectors.h"
#include "protocol/lock_stack.h"
#include "protocol/messages.h"
#include "protocol/page_fsm.h"
#include "protocol/page_source.h"
#include "stats/stats.h"

namespace scopedsm {

enum class Access { kRead, kWrite, kUnknown };

// The engine's parts, shared with every policy. The runtime owns them and
// keeps them alive as long as the engine; `fsm` is the engine's.
struct EngineContext {
  int rank = 0;
  int size = 1;
  const Config* config = nullptr;  // the runtime's settings, read in place
  uint64_t test_faults = 0;        // TestFault bits (negative controls only)
  PageTable* pages = nullptr;
  PageCache* cache = nullptr;
  Region* region = nullptr;
  const HomeShare* share = nullptr;  // the region's (Region::share()): what others record at our homes
  PageFsm* fsm = nullptr;  // every change of a page's state, protection and slot
  LockStack* stack = nullptr;
  AppCounters* stats = nullptr;
  WriteVectors* wvec = nullptr;

  bool test_fault(TestFault f) const { return (test_faults & static_cast<uint64_t>(f)) != 0; }
};

// The engine's operations a policy may call (Coherence implements them;
// coherence.h says what each does).
class EngineOps {
 public:
  // Barriers this process has completed.
  virtual uint32_t epoch() const = 0;
  // The source pages homed at `home` are fetched from.
  virtual PageSource* source_for(int home) = 0;
  // Makes a read-only (or prefetched) copy writable: twin, note, dirty list.
  virtual void make_writable(uint64_t page) = 0;
  // Lists a written page for the end of the interval.
  virtual void mark_dirty(uint64_t page) = 0;
  // Drops cached copies (sorted); a dirty copy must have gone home first.
  virtual void drop_copies(std::vector<uint32_t>& sorted_pages, Cause cause) = 0;
  // Drops the copy in `slot`, its diff sent home first if dirty.
  virtual void evict(uint32_t slot, Cause cause) = 0;
  // Keeps an invalid page's memory until the next batch discard.
  virtual void list_stale(uint32_t page) = 0;
  // Fetches run [first, first + count) of `home` (all invalid) now.
  virtual void fetch_run(uint64_t first, uint32_t count, int home, RunSource source) = 0;
  // Takes cache slots for a run and sends our pending diffs of it ahead.
  virtual void claim_run(uint64_t first, uint32_t count, int home) = 0;
  // Counts a finished fetch and lists its unrecorded copies.
  virtual void count_fetch(const PageSource* source, const PendingFetch& f, uint32_t unrecorded) = 0;
  // Diffs a read-write copy into its home's pending DIFF (or merges it).
  virtual void make_diff(uint64_t page) = 0;
  // Sends the pending DIFF to `home`.
  virtual void send_pending(int home) = 0;
  // Whether `home` still owes us an acknowledgement (of a DIFF, say).
  virtual bool owes_ack(int home) const = 0;
  // Brings pages to a state where `access` succeeds without a fault.
  virtual void prepare(uint64_t first, uint64_t count, Access access, const char* call) = 0;
  // This process's memory of `page` (the alias view): its home memory, or
  // our copy of it.
  virtual std::byte* memory(uint64_t page) = 0;
  // Runs `msg` at `home`'s home server (an ATOMIC request, answered by
  // ATOMICRES) and returns the word's bits before it.
  virtual uint64_t atomic_at_home(int home, const AtomicMsg& msg) = 0;

 protected:
  ~EngineOps() = default;
};

}  // namespace scopedsm
