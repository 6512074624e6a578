// The lock stack: one level per open critical section, innermost on top.
//
// The bottom level stands for the barrier (JIAJIA's "hide lock"): it is
// always present and collects every page this process wrote since the last
// barrier. Each level lists the pages written while it was the top; when a
// critical section ends its pages are merged into the level below, because
// writes inside an inner critical section are also writes of the enclosing
// one. Release sends the top level's pages as write notices; a barrier sends
// the bottom level's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory/page_table.h"

namespace scopedsm {

constexpr int kBarrierLevel = -1;

struct LockLevel {
  int lock = kBarrierLevel;
  uint32_t serial = 0;
  std::vector<uint32_t> pages;
};

class LockStack {
 public:
  explicit LockStack(PageTable* pages);

  void push(int lock);
  // Removes the top level, merges its pages into the new top and returns
  // the removed level's pages (deduplicated).
  std::vector<uint32_t> pop();

  // Records that `page` was written while the current top level was open.
  void note(uint32_t page);
  // Records `page` in every open level: a write may have happened in any of
  // them (used when a home page stops being untrapped).
  void note_everywhere(uint32_t page);

  size_t depth() const { return levels_.size(); }  // 1 = no lock held
  bool holds(int lock) const;
  int top_lock() const { return levels_.back().lock; }
  const std::vector<uint32_t>& top_pages();
  // The bottom level's pages, then clears them (a barrier completed).
  std::vector<uint32_t> take_bottom();
  const std::vector<uint32_t>& bottom_pages() const { return levels_.front().pages; }

  // Every page noted in any level (deduplicated), for condition-variable sets.
  std::vector<uint32_t> all_pages();

  // The barrier epoch tags bottom-level membership; call after each barrier.
  void set_epoch(uint32_t epoch) { epoch_tag_ = epoch + 1; }

  // The locks held, outermost first.
  std::vector<int> held() const;
  // "lock 3 (outermost), lock 7" for diagnostics.
  std::string describe() const;

 private:
  void add_to(size_t level, uint32_t page);
  static void dedupe(std::vector<uint32_t>* pages);

  PageTable* pages_;
  std::vector<LockLevel> levels_;
  uint32_t next_serial_ = 1;
  uint32_t epoch_tag_ = 1;
};

}  // namespace scopedsm
