// libFuzzer target: the arithmetic of the allocation API, driven with
// arbitrary 64-bit sizes, blocks, counts, ranks and ranges.
//
// Covers what an application's numbers reach before any page is placed:
// runtime/alloc_plan.h (bytes -> pages, block bytes -> block pages, the
// room left, the home of each page, the pages of a byte range),
// common/checked.h, and scopedsm.hpp's byte count of alloc_array<T>(n).
// Each result is compared with an independent computation in 128-bit
// integers, which cannot wrap: an accepted request must be exactly what was
// asked for (pages * page_size >= bytes, no zero-page result for a nonzero
// size, homes in [0, ranks)), and a refused one must really be impossible.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>

#include "check.h"
#include "common/checked.h"
#include "runtime/alloc_plan.h"
#include "scopedsm.hpp"

namespace scopedsm::fuzz {

namespace {

using u128 = unsigned __int128;
constexpr u128 kTwo64 = u128{1} << 64;

// A 64-bit value, often near an edge where arithmetic wraps: small, just
// below 2^64, around a power of two, around INT64_MAX (negative numbers
// converted to unsigned), or anything at all.
uint64_t edgy(FuzzedDataProvider& in) {
  const uint64_t small = in.ConsumeIntegralInRange<uint64_t>(0, 70000);
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return small;
    case 1: return UINT64_MAX - small;
    case 2: return (uint64_t{1} << in.ConsumeIntegralInRange<int>(0, 63)) + small;
    case 3: return (uint64_t{1} << in.ConsumeIntegralInRange<int>(0, 63)) - small;
    case 4: return static_cast<uint64_t>(INT64_MAX) + small;
    default: return in.ConsumeIntegral<uint64_t>();
  }
}

uint64_t pick_page_size(FuzzedDataProvider& in) {
  static constexpr uint64_t kSizes[] = {4096, 8, 64, 16384, 65536, 1, 3, 0};
  const size_t i = in.ConsumeIntegralInRange<size_t>(0, sizeof kSizes / sizeof kSizes[0]);
  return i < sizeof kSizes / sizeof kSizes[0] ? kSizes[i] : edgy(in);
}

int pick_ranks(FuzzedDataProvider& in) {
  static constexpr int kRanks[] = {1, 2, 3, 4, 7, 1024, 65536, INT32_MAX, 0, -1};
  const size_t i = in.ConsumeIntegralInRange<size_t>(0, sizeof kRanks / sizeof kRanks[0]);
  return i < sizeof kRanks / sizeof kRanks[0] ? kRanks[i] : in.ConsumeIntegral<int>();
}

// Pages of page_size bytes needed for bytes, if they span at most 2^64 - 1
// bytes; in 128 bits, so the oracle itself cannot wrap.
std::optional<uint64_t> pages_oracle(uint64_t bytes, uint64_t page_size) {
  if (page_size == 0) return std::nullopt;
  const u128 pages = (u128{bytes} + page_size - 1) / page_size;
  if (pages * page_size >= kTwo64) return std::nullopt;
  return static_cast<uint64_t>(pages);
}

void check_round_up(uint64_t bytes, uint64_t page_size) {
  const std::optional<uint64_t> got = round_up_pages(bytes, page_size);
  const std::optional<uint64_t> want = pages_oracle(bytes, page_size);
  FUZZ_CHECK(got.has_value() == want.has_value());
  if (!got) return;
  FUZZ_CHECK(*got == *want);
  FUZZ_CHECK(u128{*got} * page_size >= bytes);
  FUZZ_CHECK(bytes == 0 || *got > 0);
}

void check_arithmetic(FuzzedDataProvider& in) {
  const uint64_t a = edgy(in), b = edgy(in);
  const std::optional<uint64_t> sum = checked_add(a, b), diff = checked_sub(a, b), product = checked_mul(a, b);
  FUZZ_CHECK(sum.has_value() == (u128{a} + b < kTwo64));
  if (sum) FUZZ_CHECK(u128{*sum} == u128{a} + b);
  FUZZ_CHECK(diff.has_value() == (a >= b));
  if (diff) FUZZ_CHECK(*diff + b == a);
  FUZZ_CHECK(product.has_value() == (u128{a} * b < kTwo64));
  if (product) FUZZ_CHECK(u128{*product} == u128{a} * b);
  const auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  const __int128 exact = __int128{sa} * sb;
  const std::optional<int64_t> sproduct = checked_mul(sa, sb);
  FUZZ_CHECK(sproduct.has_value() == (exact >= INT64_MIN && exact <= INT64_MAX));
  if (sproduct) FUZZ_CHECK(*sproduct == exact);
  const std::optional<int> as_int = checked_cast<int>(a);
  FUZZ_CHECK(as_int.has_value() == (a <= static_cast<uint64_t>(INT32_MAX)));
  const std::optional<uint32_t> as_u32 = checked_cast<uint32_t>(sa);
  FUZZ_CHECK(as_u32.has_value() == (sa >= 0 && sa <= static_cast<int64_t>(UINT32_MAX)));
  check_round_up(a, b);
}

// What plan_allocation must decide, worked out independently.
bool plan_oracle(uint64_t bytes, const Placement& p, const AllocSpace& s) {
  if (bytes == 0) return false;
  const std::optional<uint64_t> pages = pages_oracle(bytes, s.page_size);
  if (!pages) return false;
  const u128 end = u128{s.next_page} + *pages;
  if (end > s.region_pages || end > kMaxPages) return false;
  if (p.kind == Placement::kFirstTouch) return true;
  if (p.start_rank < 0 || p.start_rank >= s.ranks) return false;
  return p.block_bytes != 0 && pages_oracle(p.block_bytes, s.page_size).has_value();
}

void check_plan(FuzzedDataProvider& in) {
  AllocSpace s;
  s.page_size = pick_page_size(in);
  s.ranks = pick_ranks(in);
  s.next_page = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 1 << 20) : edgy(in);
  s.region_pages = in.ConsumeBool() ? (uint64_t{16} << 30) / 4096 : edgy(in);
  Placement p;
  p.kind = in.ConsumeBool() ? Placement::kFirstTouch : Placement::kCyclic;
  p.block_bytes = edgy(in);
  p.start_rank = in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(-1, 8) : in.ConsumeIntegral<int>();
  const uint64_t bytes = edgy(in);

  AllocLayout l;
  const Status st = plan_allocation(bytes, p, s, &l);
  FUZZ_CHECK(st.ok() == plan_oracle(bytes, p, s));
  if (!st.ok()) {
    FUZZ_CHECK(!st.message().empty());
    return;
  }
  // Exactly the pages asked for, after the last allocation, inside the
  // region and below page 2^32.
  FUZZ_CHECK(l.pages > 0);
  FUZZ_CHECK(u128{l.pages} * s.page_size >= bytes);
  FUZZ_CHECK(u128{l.pages - 1} * s.page_size < bytes);
  FUZZ_CHECK(l.first_page == s.next_page);
  FUZZ_CHECK(u128{l.first_page} + l.pages <= s.region_pages);
  FUZZ_CHECK(u128{l.first_page} + l.pages <= kMaxPages);
  FUZZ_CHECK(l.first_touch == (p.kind == Placement::kFirstTouch));
  if (l.first_touch) return;
  FUZZ_CHECK(l.block_pages > 0);
  FUZZ_CHECK(u128{l.block_pages} * s.page_size >= p.block_bytes);
  FUZZ_CHECK(l.start_rank == p.start_rank);
  // Homes of the first and last page and of one in between: JIAJIA's
  // (start + block index) mod ranks, and a rank.
  const uint64_t pages[] = {l.first_page, l.first_page + l.pages - 1,
                            l.first_page + in.ConsumeIntegralInRange<uint64_t>(0, l.pages - 1)};
  for (uint64_t page : pages) {
    const int32_t h = cyclic_home(l, s.ranks, page);
    FUZZ_CHECK(h >= 0 && h < s.ranks);
    const u128 want = (u128{static_cast<uint64_t>(l.start_rank)} + (page - l.first_page) / l.block_pages) %
                      static_cast<uint64_t>(s.ranks);
    FUZZ_CHECK(static_cast<u128>(h) == want);
  }
}

void check_range(FuzzedDataProvider& in) {
  const uint64_t base = edgy(in), region_bytes = edgy(in), page_size = pick_page_size(in);
  const uint64_t addr = in.ConsumeBool() ? base + in.ConsumeIntegralInRange<uint64_t>(0, 1 << 20) - (1 << 19) : edgy(in);
  const uint64_t len = edgy(in);
  const std::optional<PageSpan> got = region_pages_of(base, region_bytes, page_size, addr, len);
  // A real region ends below 2^64; beyond that only "no crash" is asked.
  if (u128{base} + region_bytes >= kTwo64) return;
  const u128 lo = addr > base ? addr : base;
  const u128 end = u128{addr} + len, region_end = u128{base} + region_bytes;
  const u128 hi = end < region_end ? end : region_end;
  FUZZ_CHECK(got.has_value() == (page_size != 0 && lo < hi));
  if (!got) return;
  FUZZ_CHECK(got->count > 0);
  FUZZ_CHECK(got->first == (lo - base) / page_size);
  FUZZ_CHECK(u128{got->first} + got->count - 1 == (hi - 1 - base) / page_size);
  FUZZ_CHECK(u128{got->first} + got->count <= (u128{region_bytes} + page_size - 1) / page_size);
}

void check_array(FuzzedDataProvider& in) {
  const uint64_t n = edgy(in);
  const uint64_t elem = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(1, 4096) : edgy(in);
  std::size_t bytes = 12345;
  const bool ok = scopedsm::detail::array_bytes(n, elem, &bytes);
  const u128 exact = u128{n} * elem;
  FUZZ_CHECK(ok == (exact <= static_cast<u128>(PTRDIFF_MAX)));
  FUZZ_CHECK(ok ? bytes == exact : bytes == 12345);
  // What the header hands to scopedsm_alloc is then a size the runtime
  // either places in full or refuses; it never rounds to zero pages.
  if (ok && bytes > 0) FUZZ_CHECK(round_up_pages(bytes, 4096).value_or(0) > 0);
}

void check_signature(FuzzedDataProvider& in) {
  const std::string text = in.ConsumeRandomLengthString(200);
  const char* name = nullptr;
  int length = -1;
  scopedsm::detail::type_in_signature(text.c_str(), &name, &length);
  FUZZ_CHECK(length >= 0);
  const bool inside = name >= text.c_str() && name + length <= text.c_str() + std::strlen(text.c_str());
  FUZZ_CHECK(inside || (std::strcmp(name, "T") == 0 && length == 1));
}

}  // namespace

}  // namespace scopedsm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scopedsm::fuzz;
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: check_arithmetic(in); break;
    case 1: case 2: check_plan(in); break;
    case 3: check_range(in); break;
    case 4: check_array(in); break;
    default: check_signature(in); break;
  }
  return 0;
}
