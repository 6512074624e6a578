// The arithmetic of collective allocation, apart from the runtime: how many
// pages a request takes, in blocks of how many pages, where it starts, which
// rank is the home of each page, and which pages a byte range covers.
//
// These are pure functions of their arguments, which can be any 64-bit
// values: a size or block the application computed with a negative number
// or a wrapped product arrives here unchanged. They never wrap; a value they
// cannot honour is an error Status that names it and says why, and the
// caller prefixes the call the program made. Runtime::allocate, prepare and
// the sequential build go through them; tests/unit/alloc_plan_test.cc and the
// fuzz target tests/fuzz/alloc_fuzz.cc check their invariants. (The byte
// count of alloc_array<T>(n) is checked in scopedsm.hpp itself, before the
// call reaches C: scopedsm::detail::array_bytes.)
#pragma once

#include <cstdint>
#include <optional>

#include "common/status.h"

namespace scopedsm {

struct Placement {
  enum Kind { kCyclic, kFirstTouch } kind = kCyclic;
  uint64_t block_bytes = 0;  // cyclic: bytes per block (rounded up to pages)
  int start_rank = 0;        // cyclic: home of the first block
};

// Page numbers travel as 32 bits (write notices, GETP, HOMECLAIM, diff
// records), so an allocation must end at or below page 2^32: a higher page
// would alias page p - 2^32 on the wire.
constexpr uint64_t kMaxPages = 1ull << 32;

// Where a new allocation can go.
struct AllocSpace {
  uint64_t page_size = 4096;
  int ranks = 1;
  uint64_t next_page = 0;     // the first page no allocation holds yet
  uint64_t region_pages = 0;  // pages in the shared region
};

// Where it went.
struct AllocLayout {
  uint64_t first_page = 0;
  uint64_t pages = 0;        // > 0; first_page + pages <= min(region_pages, kMaxPages)
  bool first_touch = false;
  uint64_t block_pages = 0;  // cyclic: pages per block, > 0
  int start_rank = 0;        // cyclic: in [0, ranks)
};

// Pages that hold `bytes` (at least one byte, and pages * page_size must fit
// 64 bits). Errors: zero bytes, a size too large to round up.
Status pages_for_size(uint64_t bytes, uint64_t page_size, uint64_t* pages);
// Pages per cyclic block of `block_bytes` (positive, rounding up as above).
Status pages_for_block(uint64_t block_bytes, uint64_t page_size, uint64_t* pages);

// Checks a request against the space and lays it out after space.next_page.
// Every process computes the same layout from the same arguments.
Status plan_allocation(uint64_t bytes, const Placement& placement, const AllocSpace& space, AllocLayout* out);

// The home of `page` (layout.first_page <= page < layout.first_page +
// layout.pages) under a cyclic layout from plan_allocation: blocks of
// block_pages pages, dealt round-robin from start_rank. In [0, ranks).
int32_t cyclic_home(const AllocLayout& layout, int ranks, uint64_t page);

// The pages of the region [region_base, region_base + region_bytes) that
// [addr, addr + len) overlaps, or nullopt if none; the rest of the range is
// not shared memory. The end of the range saturates instead of wrapping.
struct PageSpan {
  uint64_t first = 0;
  uint64_t count = 0;  // > 0
};
std::optional<PageSpan> region_pages_of(uintptr_t region_base, uint64_t region_bytes, uint64_t page_size,
                                        uintptr_t addr, uint64_t len);

}  // namespace scopedsm
