// The coherence engine: the application thread's side of the protocol.
//
// It turns page faults into protocol actions (fetch a page from its home,
// make a twin, note a write), ends intervals at synchronization points
// (diff written pages, write-protect them again), sends diffs home, applies
// write notices (invalidate stale copies) and takes a barrier's steps.
// docs/PROTOCOL.md lists every state transition; PageFsm
// (protocol/page_fsm.h) makes them: the engine and its policies decide which
// transition a page makes and when.
//
// Policies, each a module of its own with its contract in its header, get
// the engine's events and decide the rest (docs/ARCHITECTURE.md, "The
// coherence engine and its policies"):
//   WriteDetection  (write_detection.h)  adaptive write detection: untraps, retraps
//   HomeMigration   (home_migration.h)   homes offered and moved at barriers
//   NextTouch       (next_touch.h)       next-touch points and touch offers
//   Prefetcher      (prefetcher.h)       fault runs, prefetch hints, runs in flight
//   AutoHinter      (auto_hinter.h)      the engine's own hints from the fault streams
//   Releaser        (releaser.h)         release hints, out-of-core home memory
//   HomeAtomics     (home_atomics.h)     atomics at the home
// They see the engine only through EngineContext and EngineOps
// (engine_ops.h). Where a page comes from is a PageSource; the engine asks
// it for capabilities (page_source.h), never which source it is.
//
// Thread owner: the application thread, for every method and every field;
// handle_fault runs inside the SIGSEGV handler (runtime/fault_handler.h
// states what that allows). The only state it shares with other threads is
// the region's memory and HomeShare and PageMeta::home, which the service
// thread reads. The homes move under the service's serve mutex (move_homes
// REQUIRES it; serve_mutex() names it to the analysis, docs/ARCHITECTURE.md
// "Thread contracts the compiler checks"); no field of the engine is
// guarded by it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "common/config.h"
#include "common/surface.h"
#include "common/thread_annotations.h"
#include "memory/atomic_word.h"
#include "memory/page_cache.h"
#include "memory/page_table.h"
#include "memory/region.h"
#include "protocol/auto_hinter.h"
#include "protocol/engine_ops.h"
#include "protocol/home_atomics.h"
#include "protocol/home_migration.h"
#include "protocol/lock_stack.h"
#include "protocol/messages.h"
#include "protocol/next_touch.h"
#include "protocol/notices.h"
#include "protocol/page_fsm.h"
#include "protocol/page_source.h"
#include "protocol/prefetcher.h"
#include "protocol/releaser.h"
#include "protocol/write_detection.h"
#include "stats/stats.h"
#include "transport/node.h"
#include "transport/transport.h"

namespace scopedsm {

// Pages [first, first + count) that the kernel or a library is about to
// read (kRead) or write (kWrite) on the program's behalf.
struct PrepareRange {
  uint64_t first = 0;
  uint64_t count = 0;
  Access access = Access::kRead;
};

// What the coherence engine works with. The runtime owns every part and
// keeps it alive as long as the engine.
struct CoherenceParts {
  int rank = 0;
  int size = 1;
  // The runtime's settings, read in place: a new setting is read from here,
  // with no field below and no copy (docs/ARCHITECTURE.md, "How to add a
  // setting"). jia_config switches some of them on the application thread.
  const Config* config = nullptr;
  bool write_vector = false;      // SCOPEDSM_WRITE_VECTOR: refetches by message bring only written blocks
  WriteVectors* wvec = nullptr;   // this home's write vectors (required)
  uint64_t test_faults = 0;       // TestFault bits (negative controls only)
  bool node_shared = false;       // the region has mapped the node peers' memory
  const NodeTopology* node = nullptr;
  const RmaWindows* rma = nullptr;  // non-null: pages homed on other nodes are read one-sided
  Transport* transport = nullptr;
  Region* region = nullptr;
  PageTable* pages = nullptr;
  PageCache* cache = nullptr;
  LockStack* stack = nullptr;
  AppCounters* stats = nullptr;
  const Surface* surface = &kCSurface;  // the process's, for messages that concern no call
  // The service's serve mutex (runtime/service.h), held by whichever thread
  // serves requests: move_homes runs under it.
  Mutex* serve_mutex = nullptr;
};

class Coherence final : private EngineOps {
 public:
  // With parts.node_shared, pages homed on this node are copied from the
  // home's memory and diffs merged into it.
  explicit Coherence(const CoherenceParts& parts);

  // Barriers this process has completed. Messages that carry write notices
  // carry it too, so a lock or condition-variable home can tell notices
  // made before the latest barrier (already covered by it) from newer ones.
  uint32_t epoch() const override { return epoch_; }
  // This process's notices for a barrier: `pages` (sorted) written by us,
  // each offering to take the page's home if home migration is on (or the
  // page is next-touch pending) and we still hold our cached copy of it
  // (HomeMigration::offers); and, in touch mode, a touch-only notice with
  // an offer for each pending page we fetched by a fault since the last
  // barrier, still hold, and did not write (NextTouch, docs/PROTOCOL.md §6c).
  std::vector<WriteNotice> barrier_notices(const std::vector<uint32_t>& pages);
  // A barrier completed with the merged `notices`, in two steps. First
  // move_homes: starts the next epoch and moves the homes that were offered
  // (HomeMigration; every process decides the same from the same notices);
  // the caller holds the service's serve mutex, since the service thread
  // reads PageMeta::home. Homes move before anything else changes a page:
  // the relief of map pressure that may follow any operation drops clean
  // copies (PageFsm), and the copies taken over as home pages must not be
  // among them. Then finish_barrier: invalidates, untraps the home pages
  // nobody holds a copy of any more (WriteDetection), and runs the
  // automatic next-touch points (NextTouch).
  void move_homes(const std::vector<WriteNotice>& notices) REQUIRES(serve_mutex_);
  void finish_barrier(const std::vector<WriteNotice>& notices);

  // Checkpoints (runtime/checkpoint.h): which home pages may have changed
  // since the last checkpoint. visit_home_pages calls visit(page, changed)
  // for every allocated page homed here, in page order. Call it only right
  // after a barrier, when every write made anywhere before it is in the
  // home's memory.
  //
  // Where "changed" comes from, and why it is the cheapest source that is
  // correct. The home's memory of a page changes in four ways only:
  //   1. the home writes it with a trap: the page goes home-clean ->
  //      home-dirty (PageFsm marks PageMeta::ckpt_changed);
  //   2. the home writes it untrapped (adaptive write detection), which
  //      nothing observes: a page untrapped now counts as changed, and so
  //      does one that entered or left the untrapped state since the last
  //      checkpoint (PageFsm marks both transitions);
  //   3. another process's diff, merged by the home server or by a node
  //      peer straight into the home's memory, or an atomic at the home:
  //      the writer notes the page in its lock stack like any write, so the
  //      page is in the write notices of the next barrier, which every
  //      process receives; finish_barrier marks the noticed pages;
  //   4. the page becomes ours (allocation, first touch, home migration):
  //      PageFsm marks every entry into a home state from another.
  // A checkpoint is itself a barrier, so every write made before it has
  // passed through one of those by then. Comparing contents instead (a hash
  // of every home page) would read every page, from disk for out-of-core
  // homes; the notices and transitions cost one flag per page.
  // checkpoint_saved: every home page is as saved from now on (the flags
  // are cleared). restored: pages [first, first + count) hold what the
  // restart loaded, which the checkpoint being continued has already.
  void visit_home_pages(const std::function<void(uint64_t page, bool changed)>& visit) const;
  void checkpoint_saved();
  void restored(uint64_t first, uint64_t count);

  // The serve mutex (CoherenceParts::serve_mutex), for the callers of
  // move_homes: locking it through this name is what the analysis checks.
  Mutex* serve_mutex() const RETURN_CAPABILITY(serve_mutex_) { return serve_mutex_; }

  // jia_config(ADWD) has switched Config::write_detect_all (the policies
  // read it there): trapping every write again traps the pages untrapped
  // now (noting them as written). jia_config(HMIG) needs no call: the
  // HomeMigration reads Config::home_migration at each barrier.
  void write_detect_switched() { detect_.switched(); }

  // A next-touch point (scopedsm_next_touch): NextTouch::mark.
  void mark_next_touch(uint64_t first, uint64_t count) { next_touch_.mark(first, count); }
  // jia_config(WVEC): whether our fetches by message ask for written blocks
  // only (the home side's tracking is WriteVectors::set_tracking).
  void set_write_vector(bool on) { message_source_.set_write_vector(on); }

  // The source pages homed at `home` are fetched from.
  PageSource* source_for(int home) override { return sources_[static_cast<size_t>(home)]; }

  // A fault on `page` of the shared region.
  void handle_fault(uint64_t page, Access access);

  // Brings pages [first, first+count) to a state where `access` succeeds
  // without a fault, for handing shared memory to the kernel, which cannot
  // take our faults (system calls see EFAULT). The range must fit the cache;
  // if not, the report names `call`.
  void prepare(uint64_t first, uint64_t count, Access access, const char* call) override;
  // The same for several ranges at once (the buffers of one system call or
  // MPI call), each with its own access: while any is being made valid,
  // none of their pages is evicted, so all are valid together on return.
  // Returns false, having changed nothing, if their pages homed elsewhere
  // (counted once per range they appear in) outnumber the cache's slots.
  // Pages must be allocated. Nothing but this thread's own later accesses
  // and synchronization calls changes their protections afterwards.
  bool try_prepare(const PrepareRange* ranges, size_t n);
  // The cache's capacity in pages (SCOPEDSM_CACHE_PAGES).
  uint64_t cache_capacity() const { return cache_->capacity(); }

  // Hints (scopedsm_prefetch, scopedsm_release; docs/PROTOCOL.md §2.6).
  // Non-binding: they never fault, never change a result, and are dropped
  // when they cannot be served cheaply. Pages must be allocated.
  // prefetch: Prefetcher::prefetch (runs of one home, into free or
  // released slots, left in flight or copied at once; out-of-core home
  // pages read ahead).
  void prefetch(uint64_t first, uint64_t count) { prefetcher_.prefetch(first, count, false); }
  // Waits for every prefetch run in flight and makes its pages valid.
  // close_interval calls it; so must anything that ends the process.
  void finish_prefetches() { prefetcher_.finish_all(); }
  // release: Releaser::release (the range `tag` named before, now or
  // buffered by `priority`).
  void release(uint64_t first, uint64_t count, uint32_t priority, uint64_t tag) {
    release_.release(first, count, priority, tag, false);
  }

  // Ends the current interval: diffs every written cached page (kept
  // pending), and write-protects every written page again, so the next
  // write is attributed to the next interval.
  void close_interval();
  // Sends every pending diff to its home and waits until every home except
  // `ordered_with` has applied them. Pass the rank the caller sends its
  // next request to (a lock home, rank 0's rendezvous): that request is
  // ordered after the diffs anyway. -1 waits for all.
  void flush_diffs(int ordered_with);
  // Drops cached copies named by `notices`, except pages this process alone
  // wrote (it already sees its own writes) and pages homed here, and every
  // unrecorded copy (read one-sided while its home did not trap it,
  // docs/PROTOCOL.md §2.3). With cache-only write detection, drops every
  // cached copy: home writes send no notices.
  void invalidate(const std::vector<WriteNotice>& notices);

  // An atomic operation at the page's home: HomeAtomics::atomic.
  uint64_t atomic(uint64_t page, uint32_t offset, AtomicOp op, AtomicType type, uint64_t operand, uint64_t expected,
                  const char* call) {
    return atomics_.atomic(page, offset, op, type, operand, expected, call);
  }
  // Drops every cached copy of a page homed elsewhere (an acquire-ordered
  // atomic's self-invalidation), unrecorded ones included. Call after close_interval and flush_diffs:
  // no copy may be being written, and our own writes must be home already.
  void invalidate_all_copies();

  // Sets up a new allocation's pages; home_of(page) gives each page's home
  // (or kHomeUnknown). `call` names the API call for error messages.
  // `home_pinned` pages (an OpenMP master's stack, which the master writes all the
  // time, system calls included) keep their home for good, are never
  // write-trapped there (so they need no fault at the home, ever), and every
  // copy of one elsewhere is unrecorded: dropped at the copier's next
  // acquire, as a one-sided copy of an untrapped page is (PROTOCOL.md §2.3).
  void place_pages(uint64_t first, uint64_t count, const std::function<int32_t(uint64_t)>& home_of,
                   const char* call, bool home_pinned = false);
  // Page `page`, which no allocation holds (Runtime::add_guard_page), is a
  // guard: touching it ends the job saying "`what`" (the page below an
  // OpenMP master's stack: "the master's stack overflowed ...").
  void note_guard(uint64_t page, const char* what);

 private:
  bool test_fault(TestFault f) const { return ctx_.test_fault(f); }
  // The bytes of a page (a coherence unit) that its twin and diff cover:
  // all of them, or under the negative control unit-first-page-only just
  // its first OS page, so that writes to the rest of a unit are lost.
  size_t twin_bytes() const {
    return test_fault(TestFault::kUnitFirstPageOnly) ? region_->os_page_size() : region_->page_size();
  }
  // The fault on invalid `page` homed elsewhere: fetches it (with the run
  // the Prefetcher allows), then makes it readable or writable.
  void fetch(uint64_t page, bool for_write);
  // Fetches pages [first, first + count), all invalid and homed at `home`,
  // into cache slots (obtain_slot). The caller sets the first page's state;
  // the others become read-only, but the last: a tripwire (prefetched) of
  // a run from `source`.
  void fetch_run(uint64_t first, uint32_t count, int home, RunSource source) override;
  // Takes cache slots for fetch run [first, first + count) of `home` and
  // sends our pending diffs of its pages ahead of the fetch.
  void claim_run(uint64_t first, uint32_t count, int home) override;
  // Counts finished fetch `f` from `source`, `unrecorded` of whose pages
  // were read one-sided untrapped, and lists those for our next acquire.
  void count_fetch(const PageSource* source, const PendingFetch& f, uint32_t unrecorded) override;
  // Adds to `drop` the unrecorded copies still held (every acquire drops
  // them: docs/PROTOCOL.md §2.3) and empties the list.
  void take_unrecorded(std::vector<uint32_t>* drop);
  // Drops `drop` (unrecorded copies added, sorted and made unique here) as
  // invalidated.
  void invalidate_copies(std::vector<uint32_t>& drop);
  void make_writable(uint64_t page) override;
  void home_write(uint64_t page);
  void claim_home(uint64_t page, Access access);
  uint32_t obtain_slot(uint64_t page);
  // Drops the copy in `slot` (a dirty one's diff goes home first) for `cause`.
  void evict(uint32_t slot, Cause cause) override;
  // Drops cached copies (sorted; runs in flight are finished first) for `cause`.
  void drop_copies(std::vector<uint32_t>& sorted_pages, Cause cause) override;
  void discard_stale();
  void make_diff(uint64_t page) override;
  void send_pending(int home) override;
  bool owes_ack(int home) const override { return transport_->acks().owed(home) > 0; }
  // Keeps an invalid copy's memory until the next batch discard.
  void list_stale(uint32_t page) override;
  void mark_dirty(uint64_t page) override;
  std::byte* memory(uint64_t page) override { return region_->alias(page); }
  uint64_t atomic_at_home(int home, const AtomicMsg& msg) override;
  // PageFsm's relief: drops every clean cached copy it allows.
  void relieve_map_pressure();

  // Every field below is the application thread's only (no lock): the
  // service thread never reaches the engine. The parts they point to say
  // their own owners (the region's memory, HomeShare and PageMeta::home are
  // shared, as atomics or under their own rules).
  const int rank_;
  const int size_;
  const Config* const config_;  // the runtime's settings, read in place (CoherenceParts::config)
  Transport* const transport_;
  Region* const region_;
  PageTable* const pages_;
  PageCache* const cache_;
  LockStack* const stack_;
  AppCounters* const stats_;
  WriteVectors* const wvec_;
  const Surface* const surface_;
  Mutex* const serve_mutex_;  // the service's: the engine never takes it; move_homes' callers hold it
  PageFsm fsm_;  // every change of a page's state, protection and slot
  const EngineContext ctx_;  // the parts above, as the policies see them
  uint32_t epoch_ = 0;       // application thread only (move_homes advances it under the serve mutex too)
  MessageSource message_source_;
  NodeCopySource node_source_;
  std::unique_ptr<RmaSource> rma_source_;  // with parts.rma
  std::vector<PageSource*> sources_;  // per home rank
  std::vector<uint32_t> stale_;       // invalid copies whose memory is not yet discarded
  std::vector<uint32_t> unrecorded_;  // pages fetched unrecorded since our last acquire (may repeat)
  std::vector<uint32_t> dirty_;                       // pages written this interval
  std::vector<std::unique_ptr<Writer>> pending_;      // per home: DIFF being built
  std::vector<std::vector<uint32_t>> pending_pages_;  // per home: pages in it
  std::vector<std::pair<uint64_t, const char*>> guards_;  // note_guard
  // The policies (their headers state what each decides), application
  // thread only like the rest.
  WriteDetection detect_;
  Releaser release_;
  AutoHinter auto_hints_;
  Prefetcher prefetcher_;
  NextTouch next_touch_;
  HomeMigration migration_;
  HomeAtomics atomics_;
};

}  // namespace scopedsm
