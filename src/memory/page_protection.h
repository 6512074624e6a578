// The protections of the application's view of the shared region, one per
// page, and the budget of protection boundaries they may use.
//
// Each run of pages of one protection is one kernel mapping (VMA), and
// vm.max_map_count caps the mappings of a process (docs/PROTOCOL.md §7). A
// boundary is a pair of neighbouring pages whose protections differ; the
// budget is how many the process allows itself before it relieves the
// pressure by dropping clean cached copies. protect() never refuses a change
// for the budget: the page state machine (protocol/page_fsm.h) applies every
// transition whole, then relieves the pressure between transitions.
//
// Region implements it; the page state machine's unit tests use a fake.
// Thread owner: the application thread.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "memory/page_table.h"

namespace scopedsm {

class PageProtection {
 public:
  virtual ~PageProtection() = default;
  // Sets the protection of pages [first, first + count). Fails, changing
  // nothing, only if the kernel refuses (mprotect; ENOMEM at its limit).
  virtual Status protect(uint64_t first, uint64_t count, Prot prot) = 0;
  virtual Prot prot(uint64_t page) const = 0;
  // Whether protect(first, count, prot) would leave the boundaries within
  // the budget (or not add any).
  virtual bool fits_budget(uint64_t first, uint64_t count, Prot prot) const = 0;
  // Boundaries in use, and the most the budget allows.
  virtual uint64_t boundaries() const = 0;
  virtual uint64_t boundary_budget() const = 0;
  bool over_budget() const { return boundaries() > boundary_budget(); }
  // The application's address of `page`, for messages.
  virtual const void* address(uint64_t page) const = 0;
};

}  // namespace scopedsm
