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
// The contract that makes untrapped home writes safe: record_copy() runs
// BEFORE the copy is read, and the home drains the retrap queue at the start
// of every release (Coherence::close_interval). A home write the copy missed
// happened after record_copy(), hence is either before the drain (then the
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
// Thread ownership: record_copy() by any thread of any process of the node;
// drain() and set_untrapped() by the home's application thread only.
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

  // Records that a copy of `page` is being taken by a process at barrier
  // epoch `epoch`. Call before reading the page. If the home was not
  // trapping writes, queues the page for re-trapping (once).
  void record_copy(uint32_t page, uint32_t epoch) const;

  // Home only: the pages queued since the last drain; clears their retrap bit.
  void drain(std::vector<uint32_t>* out) const;

  // Home only: stops trapping writes unless a copy was taken at or after
  // epoch `after_epoch` + 1, or the page is queued. Returns whether it did.
  bool try_untrap(uint32_t page, uint32_t after_epoch) const;
  // Home only: untrapped unless anyone ever took a copy (first touch).
  bool try_untrap_fresh(uint32_t page) const;
  // Home only: a new allocation's page, with no copy anywhere.
  void reset(uint32_t page, bool untrapped) const;

 private:
  struct alignas(64) RingHeader {
    std::atomic<uint64_t> tail;  // next entry a producer claims
    uint64_t head;               // next entry the home reads (home only)
  };
  std::atomic<uint32_t>* words_ = nullptr;
  RingHeader* ring_ = nullptr;
  std::atomic<uint32_t>* entries_ = nullptr;  // page + 1; 0 = not yet written
  uint64_t capacity_ = 0;
};

}  // namespace scopedsm
