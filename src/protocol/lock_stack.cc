#include "protocol/lock_stack.h"

#include "common/surface.h"

#include <algorithm>

namespace scopedsm {

LockStack::LockStack(PageTable* pages) : pages_(pages) { levels_.push_back(LockLevel{kBarrierLevel, 0, {}}); }

void LockStack::push(int lock) { levels_.push_back(LockLevel{lock, next_serial_++, {}}); }

void LockStack::dedupe(std::vector<uint32_t>* pages) {
  std::sort(pages->begin(), pages->end());
  pages->erase(std::unique(pages->begin(), pages->end()), pages->end());
}

void LockStack::add_to(size_t level, uint32_t page) {
  PageMeta& m = (*pages_)[page];
  LockLevel& l = levels_[level];
  if (level == 0) {
    // The bottom level lives for a whole barrier epoch; its membership mark
    // keeps it free of duplicates however many critical sections merge in.
    if (m.noted_epoch == epoch_tag_) return;
    m.noted_epoch = epoch_tag_;
    l.pages.push_back(page);
    return;
  }
  if (m.noted_serial == l.serial) return;
  m.noted_serial = l.serial;
  l.pages.push_back(page);
}

void LockStack::note(uint32_t page) { add_to(levels_.size() - 1, page); }

void LockStack::note_everywhere(uint32_t page) {
  for (size_t i = 0; i < levels_.size(); ++i) {
    // add_to's duplicate check only knows one inner serial; a repeat here is
    // harmless because levels are deduplicated before they are sent.
    if (i == 0) {
      add_to(0, page);
    } else {
      levels_[i].pages.push_back(page);
    }
  }
}

std::vector<uint32_t> LockStack::pop() {
  LockLevel top = std::move(levels_.back());
  levels_.pop_back();
  dedupe(&top.pages);
  size_t below = levels_.size() - 1;
  for (uint32_t p : top.pages) add_to(below, p);
  return std::move(top.pages);
}

bool LockStack::holds(int lock) const {
  for (size_t i = 1; i < levels_.size(); ++i)
    if (levels_[i].lock == lock) return true;
  return false;
}

const std::vector<uint32_t>& LockStack::top_pages() {
  if (levels_.size() > 1) dedupe(&levels_.back().pages);
  return levels_.back().pages;
}

std::vector<uint32_t> LockStack::take_bottom() {
  std::vector<uint32_t> out = std::move(levels_.front().pages);
  levels_.front().pages.clear();
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint32_t> LockStack::all_pages() {
  std::vector<uint32_t> out;
  for (const auto& l : levels_) out.insert(out.end(), l.pages.begin(), l.pages.end());
  dedupe(&out);
  return out;
}

std::vector<int> LockStack::held() const {
  std::vector<int> out;
  for (size_t i = 1; i < levels_.size(); ++i) out.push_back(levels_[i].lock);
  return out;
}

std::string LockStack::describe() const { return describe_locks_held(held()); }

}  // namespace scopedsm
