// The arithmetic of allocation (runtime/alloc_plan.h) and the byte count of
// alloc_array<T>(n) (scopedsm.hpp), with the sizes of issue 13.
#include "runtime/alloc_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "scopedsm.hpp"

namespace scopedsm {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMax = UINT64_MAX;

AllocSpace space(int ranks = 4, uint64_t next_page = 0, uint64_t region_pages = 1ull << 22) {
  AllocSpace s;
  s.page_size = kPage;
  s.ranks = ranks;
  s.next_page = next_page;
  s.region_pages = region_pages;
  return s;
}

Placement cyclic(uint64_t block, int start = 0) {
  Placement p;
  p.block_bytes = block;
  p.start_rank = start;
  return p;
}

Placement first_touch() {
  Placement p;
  p.kind = Placement::kFirstTouch;
  return p;
}

// The error message, or "ok".
std::string plan(uint64_t bytes, const Placement& p, const AllocSpace& s, AllocLayout* out = nullptr) {
  AllocLayout l;
  Status st = plan_allocation(bytes, p, s, &l);
  if (out != nullptr) *out = l;
  return st.ok() ? "ok" : st.message();
}

TEST(AllocPlan, SizesRoundUpToWholePages) {
  uint64_t pages = 0;
  ASSERT_TRUE(pages_for_size(3 * kPage + 5, kPage, &pages).ok());
  EXPECT_EQ(pages, 4u);
  ASSERT_TRUE(pages_for_size(1, kPage, &pages).ok());
  EXPECT_EQ(pages, 1u);
  ASSERT_TRUE(pages_for_block(100, kPage, &pages).ok());
  EXPECT_EQ(pages, 1u);
  ASSERT_TRUE(pages_for_block(kMax - 4095, kPage, &pages).ok());  // 2^64 - 4096: whole pages
  EXPECT_EQ(pages, (1ull << 52) - 1);
}

TEST(AllocPlan, ZeroIsRefused) {
  uint64_t pages = 0;
  EXPECT_EQ(pages_for_size(0, kPage, &pages).message(), "allocation of zero bytes; ask for at least one byte");
  EXPECT_EQ(pages_for_block(0, kPage, &pages).message(), "block size of zero bytes; give a positive block size");
  EXPECT_EQ(plan(8192, cyclic(0), space()), "block size of zero bytes; give a positive block size");
}

// Issue 13: scopedsm_alloc(SIZE_MAX - 100) rounded to zero pages.
TEST(AllocPlan, SizeThatDoesNotRoundUpIsTooLarge) {
  EXPECT_EQ(plan(kMax - 100, cyclic(kPage), space()),
            "size too large: 18446744073709551515 bytes cannot be rounded up to whole 4096-byte pages within 64 bits "
            "(as a signed number it is -101: a negative value converted to an unsigned size?)");
  for (uint64_t below = 0; below < kPage - 1; ++below) {  // every size in (2^64 - 4096, 2^64)
    const uint64_t bytes = kMax - below;
    ASSERT_NE(plan(bytes, first_touch(), space()).find("size too large"), std::string::npos) << bytes;
  }
  EXPECT_NE(plan(kMax - (kPage - 1), first_touch(), space()).find("bytes asked for but only"), std::string::npos);
}

// What alloc_array<double>(-1) passed to scopedsm_alloc before the header
// checked it: 2^64 - 8 bytes.
TEST(AllocPlan, WrappedArrayByteCountIsTooLarge) {
  const uint64_t wrapped = static_cast<uint64_t>(-1) * sizeof(double);
  EXPECT_EQ(plan(wrapped, cyclic(kPage), space()),
            "size too large: 18446744073709551608 bytes cannot be rounded up to whole 4096-byte pages within 64 bits "
            "(as a signed number it is -8: a negative value converted to an unsigned size?)");
}

// Issue 13: scopedsm_alloc_cyclic(8192, SIZE_MAX, 0) divided by zero.
TEST(AllocPlan, BlockThatDoesNotRoundUpIsTooLarge) {
  EXPECT_EQ(plan(8192, cyclic(kMax), space()),
            "block size too large: 18446744073709551615 bytes cannot be rounded up to whole 4096-byte pages within 64 "
            "bits (as a signed number it is -1: a negative value converted to an unsigned size?)");
  // A block larger than the allocation (or the region) is fine: one block.
  AllocLayout l;
  ASSERT_EQ(plan(8192, cyclic(1ull << 62, 3), space(), &l), "ok");
  EXPECT_EQ(cyclic_home(l, 4, l.first_page), 3);
  EXPECT_EQ(cyclic_home(l, 4, l.first_page + 1), 3);
}

TEST(AllocPlan, NegativeSizesThatRoundUpAreNamedInTheRegionMessage) {
  EXPECT_EQ(plan(static_cast<uint64_t>(-5000), cyclic(kPage), space(1, 10, 256)),
            "18446744073709546616 bytes asked for but only 1007616 bytes of the shared region remain "
            "(SCOPEDSM_REGION_SIZE=1048576); allocate less or raise SCOPEDSM_REGION_SIZE (as a signed number it is "
            "-5000: a negative value converted to an unsigned size?)");
  EXPECT_EQ(plan(247 * kPage, cyclic(kPage), space(1, 10, 256)),
            "1011712 bytes asked for but only 1007616 bytes of the shared region remain (SCOPEDSM_REGION_SIZE=1048576); "
            "allocate less or raise SCOPEDSM_REGION_SIZE");
  EXPECT_EQ(plan(246 * kPage, cyclic(kPage), space(1, 10, 256)), "ok");  // exactly the rest
}

TEST(AllocPlan, NoPageNumberReaches2To32) {
  const uint64_t region = 1ull << 33;  // SCOPEDSM_REGION_SIZE=32T of 4 KiB pages
  AllocLayout l;
  EXPECT_EQ(plan((1ull << 32) * kPage, first_touch(), space(1, 0, region), &l), "ok");
  EXPECT_EQ(l.pages, 1ull << 32);
  EXPECT_EQ(plan(kPage, first_touch(), space(1, (1ull << 32) - 1, region)), "ok");  // the last nameable page
  std::string e = plan(2 * kPage, first_touch(), space(1, (1ull << 32) - 1, region));
  EXPECT_EQ(e, "size too large: the allocation would end past page 4294967296 (17592186044416 bytes into the region), "
               "the most that the protocol's 32-bit page numbers can name; allocate less");
  EXPECT_NE(plan(kPage, first_touch(), space(1, 1ull << 32, region)).find("32-bit page numbers"), std::string::npos);
  // A start beyond the region's end means no room, not a wrapped remainder.
  EXPECT_NE(plan(kPage, first_touch(), space(1, 300, 256)).find("only 0 bytes of the shared region remain"),
            std::string::npos);
}

TEST(AllocPlan, StartRankMustBeARank) {
  EXPECT_EQ(plan(kPage, cyclic(kPage, 4), space(4)), "4 is not a rank of this job: ranks are 0 to 3");
  EXPECT_EQ(plan(kPage, cyclic(kPage, -1), space(4)), "-1 is not a rank of this job: ranks are 0 to 3");
  EXPECT_EQ(plan(kPage, cyclic(kPage, 3), space(4)), "ok");
  // First touch has no start rank to check.
  EXPECT_EQ(plan(kPage, first_touch(), space(4)), "ok");
}

TEST(AllocPlan, LayoutStartsAtTheNextFreePage) {
  AllocLayout l;
  ASSERT_EQ(plan(5 * kPage + 1, cyclic(2 * kPage - 1, 1), space(4, 17), &l), "ok");
  EXPECT_EQ(l.first_page, 17u);
  EXPECT_EQ(l.pages, 6u);
  EXPECT_FALSE(l.first_touch);
  EXPECT_EQ(l.block_pages, 2u);
  EXPECT_EQ(l.start_rank, 1);
  ASSERT_EQ(plan(kPage, first_touch(), space(4, 23), &l), "ok");
  EXPECT_TRUE(l.first_touch);
  EXPECT_EQ(l.first_page, 23u);
}

// JIAJIA 2.1 placement: blocks dealt round-robin from the start rank.
TEST(AllocPlan, CyclicHomesFollowJiajia) {
  AllocLayout l;
  ASSERT_EQ(plan(8 * kPage, cyclic(2 * kPage, 1), space(3, 5), &l), "ok");
  std::vector<int32_t> homes;
  for (uint64_t p = l.first_page; p < l.first_page + l.pages; ++p) homes.push_back(cyclic_home(l, 3, p));
  EXPECT_EQ(homes, (std::vector<int32_t>{1, 1, 2, 2, 0, 0, 1, 1}));
}

TEST(AllocPlan, CyclicHomeStaysARankForFarPages) {
  AllocLayout l;
  l.first_page = 0;
  l.pages = kMax;
  l.block_pages = 1;
  l.start_rank = 1022;
  for (uint64_t p : std::vector<uint64_t>{0, 1, 1ull << 32, kMax - 1}) {
    int32_t h = cyclic_home(l, 1023, p);
    EXPECT_GE(h, 0);
    EXPECT_LT(h, 1023);
    const auto want = static_cast<uint64_t>((static_cast<unsigned __int128>(p) + 1022) % 1023);  // no wrap in 128 bits
    EXPECT_EQ(static_cast<uint64_t>(h), want) << p;
  }
}

TEST(AllocPlan, RegionPagesOfClipsToTheRegion) {
  const uintptr_t base = 0x7f0000000000;
  const uint64_t bytes = 16 * kPage;
  auto span = [&](uintptr_t addr, uint64_t len) { return region_pages_of(base, bytes, kPage, addr, len); };
  ASSERT_TRUE(span(base + 10, 1));
  EXPECT_EQ(span(base + 10, 1)->first, 0u);
  EXPECT_EQ(span(base + 10, 1)->count, 1u);
  EXPECT_EQ(span(base + kPage - 1, 2)->count, 2u);  // straddles a boundary
  EXPECT_FALSE(span(base + 10, 0));
  EXPECT_FALSE(span(base - 100, 100));              // ends just before
  EXPECT_FALSE(span(base + bytes, 1));              // starts just after
  EXPECT_EQ(span(base - 100, 101)->count, 1u);      // starts before, reaches in
  EXPECT_EQ(span(base - 100, 1ull << 40)->count, 16u);  // covers the whole region
  EXPECT_EQ(span(base + 3 * kPage, 1ull << 40)->first, 3u);
  EXPECT_EQ(span(base + 3 * kPage, 1ull << 40)->count, 13u);
  // addr + len wraps past 2^64: the range covers everything above addr.
  EXPECT_EQ(span(base + 5 * kPage, kMax)->first, 5u);
  EXPECT_EQ(span(base + 5 * kPage, kMax)->count, 11u);
  EXPECT_FALSE(span(UINTPTR_MAX - 10, kMax));
  EXPECT_FALSE(region_pages_of(base, 0, kPage, base, 10));
}

// scopedsm.hpp: alloc_array<T>(n) checks n * sizeof(T) before calling C.
TEST(AllocArray, ByteCountMustFitAnObject) {
  std::size_t b = 123;
  EXPECT_TRUE(scopedsm::detail::array_bytes(0, 8, &b));
  EXPECT_EQ(b, 0u);
  EXPECT_TRUE(scopedsm::detail::array_bytes(1000, 8, &b));
  EXPECT_EQ(b, 8000u);
  EXPECT_TRUE(scopedsm::detail::array_bytes(PTRDIFF_MAX, 1, &b));
  EXPECT_EQ(b, static_cast<std::size_t>(PTRDIFF_MAX));
  EXPECT_TRUE(scopedsm::detail::array_bytes((1ull << 60) - 1, 8, &b));
  b = 123;
  EXPECT_FALSE(scopedsm::detail::array_bytes(static_cast<std::size_t>(-1), 8, &b));  // alloc_array<double>(-1)
  EXPECT_FALSE(scopedsm::detail::array_bytes(static_cast<std::size_t>(-1), 1, &b));  // alloc_array<char>(-1)
  EXPECT_FALSE(scopedsm::detail::array_bytes((1ull << 61) + 1, 8, &b));              // wraps to 8
  EXPECT_FALSE(scopedsm::detail::array_bytes(1ull << 60, 8, &b));                    // 2^63 > PTRDIFF_MAX
  EXPECT_FALSE(scopedsm::detail::array_bytes(static_cast<std::size_t>(PTRDIFF_MAX) + 1, 1, &b));
  EXPECT_EQ(b, 123u);  // untouched on failure
}

template <typename T>
std::string type_name_of_this() {
  const char* name = nullptr;
  int length = 0;
  scopedsm::detail::type_in_signature(__PRETTY_FUNCTION__, &name, &length);
  return std::string(name, static_cast<size_t>(length));
}

TEST(AllocArray, MessagesNameTheElementType) {
  const char* name = nullptr;
  int length = 0;
  scopedsm::detail::type_in_signature("T* scopedsm::alloc_array(std::size_t) [with T = double; std::size_t = long "
                                      "unsigned int]",
                                      &name, &length);
  EXPECT_EQ(std::string(name, static_cast<size_t>(length)), "double");
  scopedsm::detail::type_in_signature("T *scopedsm::alloc_array(std::size_t, Cyclic) [T = Point<int, 3>]", &name,
                                      &length);
  EXPECT_EQ(std::string(name, static_cast<size_t>(length)), "Point<int, 3>");
  scopedsm::detail::type_in_signature("alloc_array", &name, &length);
  EXPECT_EQ(std::string(name, static_cast<size_t>(length)), "T");
  // And this compiler's own spelling.
  EXPECT_EQ(type_name_of_this<double>(), "double");
  EXPECT_EQ(type_name_of_this<int>(), "int");
}

}  // namespace
}  // namespace scopedsm
