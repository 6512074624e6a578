// What other processes record at a page's home when they take a copy of it:
// the adaptive-write-detection word of every page, and the queue of pages
// the home must start trapping again.
//
// It lives in the home's memfd, after the pages (Region), so that it is
// updated the same way whoever takes the copy: the home's own service thread
// answering a GETP, or a process on the same node copying the page straight
// from the home's memory (no message, no home CPU).
//
// The share word of a page, updated only with compare-and-swap:
//   bit 31  kShareUntrapped  the home does not trap writes to the page
//   bit 30  kShareRetrap     a copy was taken while untrapped; the home must
//                            trap again and notice the page
//   bit 29  kSharePushed     the page is in the retrap queue (set by the
//                            copier that set kShareRetrap, once it queued it)
//   bits 0-28  (epoch + 1) of the latest copy taken, 0 = never
//
// The contract that makes untrapped home writes safe: record_copies() runs
// BEFORE the copy is read, and the home drains the retrap queue at the start
// of every release (Coherence::close_interval). A home write the copy missed
// happened after record_copies(), hence is either before the drain (then the
// drain sees the page and notices it) or after it (then it belongs to the
// next interval, which the drain has re-trapped).
//
// Every copier of an untrapped page waits until the page is queued
// (kSharePushed) before it reads the page, not only the one that queued it:
// otherwise a second copier could read while the first, descheduled between
// setting kShareRetrap and queueing, had queued nothing yet, and the home's
// drain would miss both copies (a lost update seen by litmus mixed_home at
// 6 processes on 2 cores).
//
// The retrap queue is a multi-producer, single-consumer ring with one entry
// per page of the region: a page enters it only by the compare-and-swap that
// sets kShareRetrap, and leaves it only when the home drains it and clears
// the bit, so it can never hold more entries than pages and never overflows.
//
// Copies read one-sided (MPI_Get from another node, protocol/page_source.h)
// cannot run record_copies(): MPI's atomics need the home's CPU. Such a reader
// first writes the page's `seen` byte (MPI_Put, flushed), then reads the
// share word and the page. The home, whenever it untraps, sets
// kShareUntrapped first and reads `seen` after a full fence, and undoes the
// untrap if the byte is set. Either the reader sees the untrap or the home
// sees the byte (and keeps trapping). A copy whose word said untrapped is
// the reader's to drop at its next acquire (PageMeta::unrecorded), and its
// RECORD message makes the home's service thread call record_copies() for
// it later; no copy of a page the home writes untrapped survives an
// acquire unless it was recorded. A set `seen` byte stays set until the page
// is allocated again or its home moves away (home migration resets the old
// home's word and byte, docs/PROTOCOL.md §6a), so a page read one-sided
// stays trapped (JIAJIA's rule).
//
// Layout in the memfd (offsets from the HomeShare's start, for one-sided
// access by other processes): the share words (word_offset), the ring, the
// seen bytes (seen_offset), and one probe word (probe_offset) that the
// start-up check of one-sided progress writes (transport/rma.h).
//
// Thread ownership: record_copies() by any thread of any process of the node;
// `seen` bytes written by any process (one-sided); drain(), try_untrap*(),
// trap_settled() and reset() by the home's application thread only.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace scopedsm {

constexpr uint32_t kShareUntrapped = 1u << 31;
constexpr uint32_t kShareRetrap = 1u << 30;
constexpr uint32_t kSharePushed = 1u << 29;
constexpr uint32_t kShareEpochMask = (1u << 29) - 1;

class HomeShare {
 public:
  // Bytes needed after the pages for a region of `num_pages` (page aligned).
  static uint64_t bytes_for(uint64_t num_pages, size_t page_size);

  HomeShare() = default;
  // `base` is zero-filled memory of bytes_for() bytes (a fresh memfd range).
  HomeShare(std::byte* base, uint64_t num_pages);

  bool valid() const { return words_ != nullptr; }
  std::atomic<uint32_t>& word(uint64_t page) const { return words_[page]; }

  // Records that copies of pages [first, first + count) are being taken by
  // a process at barrier epoch `epoch`, then fences once. Call before
  // reading the pages. Pages the home was not trapping are queued for
  // re-trapping (once each). `queue_pause_ns` is for a test only
  // (SCOPEDSM_TEST_FAULT=slow-retrap-queue): the pause between claiming a
  // page's queueing and queueing it, which widens the race trap_settled closes.
  void record_copies(uint32_t first, uint32_t count, uint32_t epoch, uint64_t queue_pause_ns = 0) const;

  // Home only: the pages queued since the last drain; clears their retrap bit.
  void drain(std::vector<uint32_t>* out) const;

  // Home only: stops trapping writes unless a copy was taken in epoch
  // `since_epoch` or later, or the page is queued, or it was ever read
  // one-sided (`seen`). Returns whether it did.
  bool try_untrap(uint32_t page, uint32_t since_epoch) const;
  // Home only: untrapped unless anyone ever took a copy (first touch).
  bool try_untrap_fresh(uint32_t page) const;
  // Home only: traps writes to the page again (clears kShareUntrapped, keeps
  // the rest: a copier that queued it meanwhile is still drained), then
  // waits until a copier that found the page untrapped before the trap has
  // queued it (it claims the queueing in the same atomic step as it sees
  // the page untrapped, and queues a few instructions later), so that the
  // next drain() returns the page: a next-touch point's drain must see
  // every copy taken while the page was untrapped (docs/PROTOCOL.md §6c).
  // The caller write-protects the page before it writes it again.
  void trap_settled(uint32_t page) const;
  // Home only: a new allocation's page, with no copy anywhere.
  void reset(uint32_t page, bool untrapped) const;
  // Whether a one-sided reader has marked the page.
  bool seen(uint64_t page) const { return seen_[page].load(std::memory_order_seq_cst) != 0; }

  // Offsets, in bytes from the HomeShare's start, of a page's share word and
  // seen byte and of the probe word, for a region of `num_pages`.
  static uint64_t word_offset(uint64_t page) { return page * 4; }
  static uint64_t seen_offset(uint64_t num_pages, uint64_t page);
  static uint64_t probe_offset(uint64_t num_pages);
  std::atomic<uint32_t>& probe_word() const { return *probe_; }

 private:
  struct alignas(64) RingHeader {
    std::atomic<uint64_t> tail;  // next entry a producer claims
    uint64_t head;               // next entry the home reads (home only)
  };
  std::atomic<uint32_t>* words_ = nullptr;
  RingHeader* ring_ = nullptr;
  // record_copies() for one page, without the fence.
  void mark_copied(uint32_t page, uint32_t epoch, uint64_t queue_pause_ns) const;
  // Undoes an untrap whose page turned out to be read one-sided.
  bool keep_untrapped_unless_seen(uint32_t page) const;

  std::atomic<uint32_t>* entries_ = nullptr;  // page + 1; 0 = not yet written
  std::atomic<uint8_t>* seen_ = nullptr;      // one per page
  std::atomic<uint32_t>* probe_ = nullptr;
  uint64_t capacity_ = 0;
};

}  // namespace scopedsm
