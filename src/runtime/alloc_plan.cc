#include "runtime/alloc_plan.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "common/checked.h"

namespace scopedsm {

namespace {

static_assert(sizeof(uintptr_t) <= sizeof(uint64_t), "addresses are computed in 64 bits");

// A value above INT64_MAX is most often a negative number that went through
// an unsigned size (alloc(n - m) with m > n, a size_t loop bound of -1);
// saying which number it was makes that mistake obvious.
std::string signed_hint(uint64_t v) {
  if (v <= static_cast<uint64_t>(INT64_MAX)) return "";
  return " (as a signed number it is -" + std::to_string(uint64_t{0} - v) +
         ": a negative value converted to an unsigned size?)";
}

// pages * page_size as text; only fuzzed spaces make it overflow.
std::string bytes_text(uint64_t pages, uint64_t page_size) {
  if (auto b = checked_mul(pages, page_size)) return std::to_string(*b);
  return "more than 2^64";
}

Status round_up(const char* what, uint64_t bytes, uint64_t page_size, uint64_t* pages) {
  if (page_size == 0) return Status::Error("internal error: page size of zero bytes");
  std::optional<uint64_t> p = round_up_pages(bytes, page_size);
  if (!p)
    return Status::Error(std::string(what) + " too large: " + std::to_string(bytes) +
                         " bytes cannot be rounded up to whole " + std::to_string(page_size) +
                         "-byte pages within 64 bits" + signed_hint(bytes));
  *pages = *p;
  return Status::Ok();
}

}  // namespace

Status pages_for_size(uint64_t bytes, uint64_t page_size, uint64_t* pages) {
  if (bytes == 0) return Status::Error("allocation of zero bytes; ask for at least one byte");
  return round_up("size", bytes, page_size, pages);
}

Status pages_for_block(uint64_t block_bytes, uint64_t page_size, uint64_t* pages) {
  if (block_bytes == 0) return Status::Error("block size of zero bytes; give a positive block size");
  return round_up("block size", block_bytes, page_size, pages);
}

Status plan_allocation(uint64_t bytes, const Placement& placement, const AllocSpace& space, AllocLayout* out) {
  uint64_t pages = 0;
  if (Status s = pages_for_size(bytes, space.page_size, &pages); !s.ok()) return s;

  // Room: the region's free pages, and no page number past 2^32. The
  // subtractions are guarded, so a next_page beyond either end means no room.
  const uint64_t region_free = space.next_page < space.region_pages ? space.region_pages - space.next_page : 0;
  const uint64_t nameable_free = space.next_page < kMaxPages ? kMaxPages - space.next_page : 0;
  if (pages > region_free)
    return Status::Error(std::to_string(bytes) + " bytes asked for but only " +
                         bytes_text(region_free, space.page_size) + " bytes of the shared region remain (SCOPEDSM_REGION_SIZE=" +
                         bytes_text(space.region_pages, space.page_size) +
                         "); allocate less or raise SCOPEDSM_REGION_SIZE" + signed_hint(bytes));
  if (pages > nameable_free)
    return Status::Error("size too large: the allocation would end past page " + std::to_string(kMaxPages) + " (" +
                         bytes_text(kMaxPages, space.page_size) +
                         " bytes into the region), the most that the protocol's 32-bit page numbers can name; "
                         "allocate less");

  AllocLayout l;
  l.first_page = space.next_page;
  l.pages = pages;
  if (placement.kind == Placement::kFirstTouch) {
    l.first_touch = true;
    *out = l;
    return Status::Ok();
  }
  if (space.ranks < 1) return Status::Error("internal error: no ranks to place pages on");
  if (placement.start_rank < 0 || placement.start_rank >= space.ranks)
    return Status::Error(std::to_string(placement.start_rank) + " is not a rank of this job: ranks are 0 to " +
                         std::to_string(space.ranks - 1));
  if (Status s = pages_for_block(placement.block_bytes, space.page_size, &l.block_pages); !s.ok()) return s;
  l.start_rank = placement.start_rank;
  *out = l;
  return Status::Ok();
}

int32_t cyclic_home(const AllocLayout& layout, int ranks, uint64_t page) {
  const uint64_t block = (page - layout.first_page) / layout.block_pages;
  const uint64_t n = static_cast<uint64_t>(ranks);
  // (start + block) % n, reduced first so that the sum stays below 2n.
  return static_cast<int32_t>((block % n + static_cast<uint64_t>(layout.start_rank)) % n);
}

std::optional<PageSpan> region_pages_of(uintptr_t region_base, uint64_t region_bytes, uint64_t page_size,
                                        uintptr_t addr, uint64_t len) {
  if (len == 0 || region_bytes == 0 || page_size == 0) return std::nullopt;
  // Ends saturate at 2^64 - 1: a range reaching past the top of the address
  // space covers everything above addr, and the region cannot end there.
  const uint64_t base = region_base;
  const uint64_t region_end = checked_add(base, region_bytes).value_or(UINT64_MAX);
  const uint64_t end = checked_add(static_cast<uint64_t>(addr), len).value_or(UINT64_MAX);
  const uint64_t lo = std::max(static_cast<uint64_t>(addr), base);
  const uint64_t hi = std::min(end, region_end);
  if (lo >= hi) return std::nullopt;
  const uint64_t first = (lo - base) / page_size;
  const uint64_t last = (hi - 1 - base) / page_size;
  return PageSpan{first, last - first + 1};
}

}  // namespace scopedsm
