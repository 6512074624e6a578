// The run-time layer behind scopedsm_release hints (the out-of-core thesis's
// filtering layer, docs/PROTOCOL.md §2.6): pure bookkeeping, no page states.
//
//   ReleaseLag     the tag lag-by-one filter: a release names what the loop
//                  iteration that issued it has finished with, but a page
//                  can still be in use by the next iteration (its data
//                  cross the page boundary), so the range a call site (its
//                  tag) names is held until that site releases again, and
//                  only then passed on.
//   ReleaseBuffer  releases waiting, ordered by priority (the program's
//                  guess of how soon it will use the page again: lowest
//                  first), then by age (oldest first). A page is in it once.
//   NamedRanges    the ranges the program's own prefetch hints named, and
//                  fetched whole, in the current interval (the last kSize
//                  of them): with automatic hints on as well, the engine
//                  leaves the faults in them to the program, whose hints
//                  take precedence.
//
// The coherence engine decides what giving a page back means (a cache slot
// freed, a dirty page's diff sent home first, a home page's memory handed
// to the kernel) and when (at once, or only when room is needed).
//
// Thread owner: the application thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace scopedsm {

struct PageRange {
  uint64_t first = 0;
  uint64_t count = 0;
  uint32_t priority = 0;
};

class ReleaseLag {
 public:
  // Holds `range` for `tag`; returns the range that tag held before, if any.
  std::optional<PageRange> pass(uint64_t tag, const PageRange& range);
  size_t held() const { return held_.size(); }
  void clear() { held_.clear(); }

 private:
  std::unordered_map<uint64_t, PageRange> held_;
};

class NamedRanges {
 public:
  static constexpr size_t kSize = 32;
  // Notes [first, first + count), named in interval `epoch`; the oldest of
  // a full ring goes.
  void add(uint64_t first, uint64_t count, uint32_t epoch);
  // Whether a range named in interval `epoch` holds `page`. Called at every
  // fault with automatic hints on: an interval in which nothing was named
  // (a program that gives no hints) answers without a scan.
  bool contains(uint64_t page, uint32_t epoch) const;

 private:
  struct Entry {
    uint64_t first = 0;
    uint64_t end = 0;  // 0: unused
    uint32_t epoch = 0;
  };
  std::array<Entry, kSize> ring_{};
  size_t next_ = 0;
  bool named_ = false;      // any range ever
  uint32_t last_epoch_ = 0;  // the interval of the newest range (intervals only grow)
};

class ReleaseBuffer {
 public:
  // Adds `page`, or moves it to `priority` as the newest of that priority.
  void add(uint32_t page, uint32_t priority);
  // Takes the lowest-priority, oldest page; false when empty.
  bool take(uint32_t* page);
  void remove(uint32_t page);
  bool contains(uint32_t page) const { return where_.count(page) != 0; }
  size_t size() const { return where_.size(); }
  void clear();

 private:
  using Key = std::tuple<uint32_t, uint64_t, uint32_t>;  // priority, sequence, page
  std::set<Key> order_;
  std::unordered_map<uint32_t, Key> where_;
  uint64_t next_seq_ = 0;
};

}  // namespace scopedsm
