// A fake of the application view's protections (memory/page_protection.h)
// for unit tests of the page state machine and the coherence policies: one
// protection per page, counting boundaries as Region does, with any budget.
#pragma once

#include <cstdint>
#include <vector>

#include "memory/page_protection.h"

namespace scopedsm {

// The app view's protections, one per page, and the boundaries between them.
class FakeProtection final : public PageProtection {
 public:
  explicit FakeProtection(uint64_t pages) : prots_(pages, Prot::kNone) {}
  Status protect(uint64_t first, uint64_t count, Prot prot) override {
    if (refuse) return Status::Error("mprotect failed: refused by the test");
    ++changes;
    for (uint64_t p = first; p < first + count; ++p) prots_[p] = prot;
    return Status::Ok();
  }
  Prot prot(uint64_t page) const override { return prots_[page]; }
  bool fits_budget(uint64_t first, uint64_t count, Prot prot) const override {
    std::vector<Prot> after = prots_;
    for (uint64_t p = first; p < first + count; ++p) after[p] = prot;
    const uint64_t next = count_boundaries(after);
    return next <= budget || next <= boundaries();
  }
  uint64_t boundaries() const override { return count_boundaries(prots_); }
  uint64_t boundary_budget() const override { return budget; }
  const void* address(uint64_t page) const override { return reinterpret_cast<const void*>(0x10000 + page * 4096); }

  uint64_t budget = UINT64_MAX;
  bool refuse = false;
  int changes = 0;  // protect() calls that changed something

 private:
  static uint64_t count_boundaries(const std::vector<Prot>& prots) {
    uint64_t n = 0;
    for (size_t i = 0; i + 1 < prots.size(); ++i) n += prots[i] != prots[i + 1];
    return n;
  }
  std::vector<Prot> prots_;
};

}  // namespace scopedsm
