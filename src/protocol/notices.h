// Write notices: "page P was written by process W" records, the coherence
// information of scope consistency. A release carries its critical section's
// notices to the lock's home; an acquire brings back the notices the
// acquirer has not seen; a barrier exchanges everyone's.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "transport/wire.h"

namespace scopedsm {

// Writer id meaning "more than one process wrote the page".
constexpr int32_t kMultipleWriters = -2;
// On the wire, bit 30 of the writer field carries WriteNotice::offers_home,
// bit 29 WriteNotice::touch_only (always with bit 30).
constexpr int32_t kWireOffersHome = 1 << 30;
constexpr int32_t kWireTouchOnly = 1 << 29;

struct WriteNotice {
  uint32_t page;
  int32_t writer;
  // Barrier notices only (home migration, docs/PROTOCOL.md §6a): the writer
  // still holds its cached copy of the page, which is therefore the page's
  // current contents, and offers to become the page's home. Kept by a merge
  // only while the page has this one writer.
  bool offers_home = false;
  // Barrier notices only (re-homing on next touch, docs/PROTOCOL.md §6c):
  // not a write at all. `writer` touched the page, marked next-touch
  // pending, without writing it, still holds the copy it fetched since the
  // mark, and offers to become the page's home (offers_home is set too).
  // Invalidates nothing. A merge gives way to any write notice for the page
  // and, between touches, keeps the lowest rank.
  bool touch_only = false;
};

// The writer field as sent: the writer with kWireOffersHome and
// kWireTouchOnly added for its flags; and back.
int32_t pack_writer(const WriteNotice& n);
void unpack_writer(int32_t w, WriteNotice* n);

// u32 count, then count * (u32 page, i32 writer); a writer that offers to
// become the home has kWireOffersHome added.
void put_notices(Writer* out, const std::vector<WriteNotice>& notices);
// Rejects counts that do not fit the message, pages >= page_limit and writer
// ids that are neither a rank below `ranks` (with or without the offer bit,
// and the touch bit with it) nor kMultipleWriters.
Status get_notices(Reader* in, uint64_t page_limit, int ranks, std::vector<WriteNotice>* out);

// The merge of two notice lists, each sorted by page with one notice per
// page, into `into` (same form): a page in both keeps its writer (and its
// offer, if both make it) if they agree and becomes kMultipleWriters (with
// no offer) otherwise. A touch-only notice gives way to a write notice; of
// two touch-only notices the lower rank stays. Linear; idempotent,
// commutative and associative, so the barrier may merge one process's
// notices more than once and in any order. `touch_wins` (negative control
// next-touch-stale only): a touch-only notice beats a write notice instead.
void merge_sorted(std::vector<WriteNotice>* into, const std::vector<WriteNotice>& other, bool touch_wins = false);
// True if `notices` is sorted by page with one notice per page.
bool sorted_by_page(const std::vector<WriteNotice>& notices);

// The merge of the condition-variable manager: one entry per
// page; a second, different writer turns it into kMultipleWriters.
class NoticeMerge {
 public:
  void add(const WriteNotice& n);
  void add_all(const std::vector<WriteNotice>& ns) {
    for (const auto& n : ns) add(n);
  }
  // The merged notices in page order; sorted() keeps them, take() empties the merge.
  std::vector<WriteNotice> sorted() const;
  std::vector<WriteNotice> take();
  void clear() { writer_.clear(); }
  size_t size() const { return writer_.size(); }

 private:
  std::unordered_map<uint32_t, int32_t> writer_;
};

}  // namespace scopedsm
