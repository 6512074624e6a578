// PageSource: where a faulting process gets a page homed elsewhere. The
// seam between the coherence engine (which decides that a page must be
// fetched) and the ways a page can travel:
//
//   NodeCopySource  the home is on this node: copy the page straight from
//                   the home's memory. No message, no wait for the home's
//                   threads, whatever they are doing.
//   RmaSource       a home on another node, when one-sided reads progress
//                   without the target (transport/rma.h): MPI_Get of the
//                   page from the home's memory. No home CPU either.
//   MessageSource   any home: GETP to the home's service thread (or its
//                   application thread, when that one is waiting), which
//                   answers with the page. The fallback that always works.
//
// Adaptive write detection must know of every copy of a page its home writes
// untrapped. NodeCopySource and MessageSource record the copy at the home
// (HomeShare::record_copies) before the page is read. RmaSource cannot (MPI's
// atomics need the home's CPU): it marks the page `seen` at the home, so the
// home never untraps it again. A page it finds untrapped is kept all the
// same, marked `unrecorded` (PageMeta): the engine drops such a copy at its
// next acquire, and RECORD asks the home, without waiting for it, to trap
// the page again (memory/home_share.h says why that suffices).
// Coherence::source_for chooses the source per home.
//
// Capabilities. The engine and its policies never ask which source a page
// comes from; they ask what it can do (the queries below), so that a new
// source (shared memory across nodes, say) says what it is once, here:
//
//   is_local()         the home's memory is mapped in this process (a node
//                      peer's): a fetch is a copy that waits for nobody,
//                      and a copy is near (cheap to fetch again, so cache
//                      replacement keeps far ones longer). NodeCopySource.
//   home_memory(h, p)  where page p of home h is in that mapping, for an
//                      atomic at the home; null unless is_local().
//   merges_diffs()     a diff of a page homed there is merged by the writer
//                      straight into home_memory(), at once: never pending,
//                      never acknowledged. NodeCopySource.
//   reads_one_sided()  fetches read the home's memory with one-sided MPI,
//                      without its CPU: start() waits for the home's
//                      acknowledgement of our DIFFs, and a copy may be
//                      unrecorded. RmaSource.
//
// A fetch is started, then finished (PendingFetch): start() posts it and
// returns, finish() waits for it and completes it. fetch() does both, for a
// fault, which waits anyway; a prefetch hint starts its runs on reply lanes
// of their own and leaves them in flight (docs/PROTOCOL.md §2.6). Between
// the two, the caller must not touch `dst` or send the home anything that
// its fetch's answer must come after. NodeCopySource copies in start(): a
// copy from this node's memory waits for nobody.
//
// Contract: every method runs on the application thread, usually inside the
// SIGSEGV handler. It may call MPI and allocate, because a fault in the
// region is always raised by application code, never inside MPI or malloc
// (runtime/fault_handler.h says why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "common/config.h"
#include "common/limits.h"
#include "memory/page_table.h"
#include "memory/region.h"
#include "memory/write_vectors.h"
#include "stats/stats.h"
#include "transport/node.h"
#include "transport/rma.h"
#include "transport/transport.h"

namespace scopedsm {

// One fetch: pages [first, first + count), all homed at `home`, into `dst`
// (this process's memory of the first page, not the application's view;
// the others follow it). `epoch` is the caller's barrier epoch; `lane` the
// reply lane its answer comes on (transport/wire.h): 0 for a fetch finished
// before the next one starts, 1..kMaxAsyncFetches for one left in flight,
// each lane used by one fetch at a time. The rest is the source's.
struct PendingFetch {
  uint64_t first = 0;
  uint32_t count = 0;
  int home = -1;
  uint32_t epoch = 0;
  uint32_t lane = 0;
  std::byte* dst = nullptr;
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  uint32_t words[kMaxFetchPages] = {};  // RmaSource: the pages' share records
  std::vector<std::byte> reply;         // MessageSource, write vectors on: the GETPV answer
};

class PageSource {
 public:
  virtual ~PageSource() = default;
  virtual const char* name() const = 0;
  // Posts the fetch `f` describes. `f` must stay where it is until finish().
  virtual void start(PendingFetch* f) = 0;
  // Whether finish() would return without waiting. Never blocks.
  virtual bool done(PendingFetch* f) = 0;
  // Waits for the fetch and completes it: the pages are in `dst`. Returns
  // how many of them are unrecorded copies (PageMeta::unrecorded, set
  // here): pages a one-sided read found untrapped; 0 for the other sources.
  virtual uint32_t finish(PendingFetch* f) = 0;
  // Capabilities (above).
  virtual bool is_local() const { return false; }
  virtual std::byte* home_memory(int /*home*/, uint64_t /*page*/) const { return nullptr; }
  virtual bool merges_diffs() const { return false; }
  virtual bool reads_one_sided() const { return false; }
  // The fetch fetch() did last.
  const PendingFetch& last_fetch() const { return now_; }
  // start() and finish() at once, on lane 0.
  uint32_t fetch(uint64_t first, uint32_t count, int home, uint32_t epoch, std::byte* dst) {
    now_.first = first;
    now_.count = count;
    now_.home = home;
    now_.epoch = epoch;
    now_.lane = 0;
    now_.dst = dst;
    start(&now_);
    return finish(&now_);
  }

 protected:
  // Both requests of `f` complete, without blocking and without freeing them.
  static bool requests_done(PendingFetch* f);

 private:
  PendingFetch now_;  // fetch()'s; its reply buffer is kept between fetches
};

class NodeCopySource final : public PageSource {
 public:
  // `skip_record` is a negative control only (SCOPEDSM_TEST_FAULT=skip-node-record);
  // `queue_pause_ns` a widened race for tests only (slow-retrap-queue, HomeShare::record_copies).
  NodeCopySource(const Region* region, const NodeTopology* node, bool skip_record, uint64_t queue_pause_ns = 0)
      : region_(region), node_(node), skip_record_(skip_record), queue_pause_ns_(queue_pause_ns) {}
  const char* name() const override { return "node-copy"; }
  void start(PendingFetch* f) override;  // copies
  bool done(PendingFetch*) override { return true; }
  uint32_t finish(PendingFetch*) override { return 0; }
  bool is_local() const override { return true; }
  std::byte* home_memory(int home, uint64_t page) const override {
    return region_->peer_page(node_->local_index(home), page);
  }
  bool merges_diffs() const override { return true; }

 private:
  const Region* region_;
  const NodeTopology* node_;
  const bool skip_record_;
  const uint64_t queue_pause_ns_;
};

// With write vectors on (set_write_vector), a fetch sends GETPV with the
// version of each page's stale copy (PageMeta::wvec_version, 0: none) and
// the home answers with only the blocks written since; the copy's other
// blocks stay as they are in `dst`. Without, GETP and whole pages.
class MessageSource final : public PageSource {
 public:
  MessageSource(Transport* transport, size_t page_size, PageTable* pages, const WriteVectors* wvec,
                AppCounters* stats)
      : t_(transport), page_size_(page_size), pages_(pages), wvec_(wvec), stats_(stats) {}
  const char* name() const override { return "message"; }
  void start(PendingFetch* f) override;
  bool done(PendingFetch* f) override { return requests_done(f); }
  uint32_t finish(PendingFetch* f) override;
  // Takes effect for fetches started from now on; one in flight keeps the
  // form it was started with (PendingFetch::reply non-empty: GETPV).
  void set_write_vector(bool on) { write_vector_ = on; }
  bool write_vector() const { return write_vector_; }

 private:
  // GETPV: only the blocks written since our copies' versions.
  void start_blocks(PendingFetch* f);
  void finish_blocks(PendingFetch* f, int got);
  Transport* t_;
  size_t page_size_;
  PageTable* pages_;  // only PageMeta::wvec_version
  const WriteVectors* wvec_;  // only the block size
  AppCounters* stats_;
  bool write_vector_ = false;
};

class RmaSource final : public PageSource {
 public:
  // `track_untrapped`: mark copies of untrapped pages unrecorded and send
  // RECORDs; false under cache-only write detection, where homes never trap
  // and every acquire drops every copy anyway (so that the control
  // cowd-keep-cache, which keeps copies no notice names, still breaks it).
  // `test_faults`: the negative controls skip-seen-mark and
  // rma-ignore-untrapped only.
  RmaSource(const RmaWindows* windows, const Region* region, PageTable* pages, Transport* transport,
            bool track_untrapped, uint64_t test_faults)
      : windows_(windows),
        region_(region),
        pages_(pages),
        t_(transport),
        track_untrapped_(track_untrapped),
        skip_seen_mark_((test_faults & static_cast<uint64_t>(TestFault::kSkipSeenMark)) != 0),
        skip_share_check_((test_faults & static_cast<uint64_t>(TestFault::kRmaIgnoreUntrapped)) != 0) {}
  const char* name() const override { return "rma"; }
  // start() waits for the home's acknowledgement of our DIFFs and, once per
  // page and allocation, for the `seen` mark's flush; then posts MPI_Rgets.
  void start(PendingFetch* f) override;
  bool done(PendingFetch* f) override { return requests_done(f); }
  // Returns the pages found untrapped: marked unrecorded, and named to the
  // home in a RECORD (one per stretch), never waited for.
  uint32_t finish(PendingFetch* f) override;
  bool reads_one_sided() const override { return true; }

 private:
  const RmaWindows* windows_;
  const Region* region_;
  PageTable* pages_;  // only PageMeta::seen_marked and PageMeta::unrecorded
  Transport* t_;
  const bool track_untrapped_;
  const bool skip_seen_mark_;
  const bool skip_share_check_;
};

}  // namespace scopedsm
