// The shared space is the sum of the homes: a process holds its home pages
// and the pages it caches, not the whole allocation.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

size_t os_page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// Pages (coherence units) of [addr, addr+bytes) that have memory behind
// them in this process (its own home pages and cached copies share one
// memfd per process). mincore reports OS pages, and the kernel backs only
// the OS pages of a unit that were touched: a unit counts if any of its
// OS pages is resident.
size_t resident_pages(const void* addr, size_t bytes) {
  const size_t per_unit = page() / os_page();
  std::vector<unsigned char> v(bytes / os_page());
  if (mincore(const_cast<void*>(addr), bytes, v.data()) != 0) return SIZE_MAX;
  size_t n = 0;
  for (size_t u = 0; u < v.size() / per_unit; ++u) {
    bool any = false;
    for (size_t k = 0; k < per_unit; ++k) any = any || (v[u * per_unit + k] & 1) != 0;
    n += any;
  }
  return n;
}

}  // namespace

namespace {

TEST(Memory, EachProcessHoldsItsHomesNotTheWholeAllocation) {
  const size_t bytes = 48u << 20;
  const size_t block = bytes / static_cast<size_t>(nprocs());
  auto* a = static_cast<char*>(scopedsm_alloc_cyclic(bytes, block, 0));
  // Every rank fills its own block, then reads one page of every other block.
  for (size_t i = static_cast<size_t>(rank()) * block; i < static_cast<size_t>(rank() + 1) * block; i += page())
    a[i] = static_cast<char>(rank() + 1);
  scopedsm_barrier();
  for (int r = 0; r < nprocs(); ++r) EXPECT_EQ(a[static_cast<size_t>(r) * block], static_cast<char>(r + 1));
  const size_t resident = resident_pages(a, bytes);
  // Its whole block plus one fetch per other block: the page read, or a run
  // of up to SCOPEDSM_FETCH_PAGES if the page before it was cached (a page
  // of an earlier test's allocation can be).
  const char* fp = std::getenv("SCOPEDSM_FETCH_PAGES");
  const size_t run = fp == nullptr ? 16 : std::strtoul(fp, nullptr, 10);
  EXPECT_GE(resident, block / page()) << "the home block should be resident";
  EXPECT_LE(resident, block / page() + static_cast<size_t>(nprocs()) * run) << "holds more than its homes and its cache";
  scopedsm_barrier();
}

}  // namespace
