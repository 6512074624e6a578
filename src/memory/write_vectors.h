// Write vectors (JIAJIA 2.1's WVEC; docs/PROTOCOL.md §6b): what a home knows
// about which blocks of its pages changed, so that a process refetching a
// stale copy by message gets only the blocks written since its last fetch.
//
// A page is divided into blocks of SCOPEDSM_WRITE_VECTOR bytes (2 to 64 of
// them). The home keeps a clock and, per page it has been asked about, the
// clock value at which each block was last written. A fetcher records the
// clock value the home answered with (its copy's version); on a refetch it
// sends it, and the home answers with the blocks written since then.
//
// Correctness rests on every change to a home page being noted here AFTER
// the bytes are written, under the same mutex the reader takes:
//   DIFF applied by the home server         note_blocks(changed blocks)
//   ATOMIC applied at the home              note_blocks(the word's block)
//   the home's own writes (home-dirty)      forget(page) at the interval's end
//   the home untraps a page (its writes     forget(page) when it untraps, so
//     are not observed from then on)          later fetches are whole until
//                                             a retrap makes it home-dirty
//   a home moves (migration, allocation)    forget(page) at both ends
// forget() drops the page's record: the next reader creates it with every
// block written "now", so every older version gets the whole page. A writer
// whose note comes before a reader's snapshot wrote its bytes before the
// reader copies them; one whose note comes after has a clock value above
// the version the reader hands out, so the next refetch brings the block
// again. Node peers write a home's memory without its knowledge (diff
// merges, atomics, docs/PROTOCOL.md §2.4), so a home with node peers that
// map its memory never tracks (Runtime decides; whole pages then).
//
// Thread owner: the home server (service thread, or the application thread
// while it serves) and the application thread both call it; a mutex.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/thread_annotations.h"

namespace scopedsm {

class WriteVectors {
 public:
  static constexpr uint32_t kMaxBlocks = 64;  // a block mask is one uint64_t

  // `block_size` divides `page_size` into 2 to kMaxBlocks blocks (checked
  // by the caller). `tracking`: whether this home keeps records at all.
  void init(size_t page_size, size_t block_size, bool tracking);
  size_t block_size() const { return block_size_; }
  uint32_t blocks() const { return blocks_; }
  uint64_t all_blocks() const { return blocks_ == 64 ? ~uint64_t{0} : (uint64_t{1} << blocks_) - 1; }
  // The blocks holding bytes [offset, offset + len) of a page; len > 0.
  uint64_t mask_for(size_t offset, size_t len) const;

  bool tracking() const { return tracking_.load(std::memory_order_relaxed); }
  // Off drops every record (and notes nothing until on again).
  void set_tracking(bool on) EXCLUDES(mu_);

  // Writers: blocks `mask` of `page` were written (call after writing them).
  void note_blocks(uint32_t page, uint64_t mask) EXCLUDES(mu_);
  // Writers: any block of `page` may have changed, unobserved.
  void forget(uint32_t page) EXCLUDES(mu_);

  // Reader (the home server, before it copies the blocks): the blocks of
  // `page` written after version `since` (0: no version, every block), and
  // in *version the version to hand out with them (0 when not tracking).
  uint64_t changed_since(uint32_t page, uint64_t since, uint64_t* version) EXCLUDES(mu_);

 private:
  size_t block_size_ = 0;
  uint32_t blocks_ = 0;
  std::atomic<bool> tracking_{false};
  Mutex mu_;
  uint64_t clock_ GUARDED_BY(mu_) = 0;  // monotonic for the whole run, across tracking off and on
  // Per page: per block, the clock when it was last written.
  std::unordered_map<uint32_t, std::vector<uint64_t>> written_ GUARDED_BY(mu_);
  std::vector<uint64_t>& record(uint32_t page) REQUIRES(mu_);  // created as "every block written now"
};

}  // namespace scopedsm
