// The shared space is the sum of the homes: a process holds its home pages
// and the pages it caches, not the whole allocation.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

// Resident shared memory of this process, in bytes (RssShmem).
size_t resident_shared_bytes() {
  std::ifstream f("/proc/self/status");
  std::string key;
  size_t kb = 0;
  while (f >> key) {
    if (key == "RssShmem:") {
      f >> kb;
      return kb * 1024;
    }
    f.ignore(1 << 20, '\n');
  }
  return 0;
}

TEST(Memory, EachProcessHoldsItsHomesNotTheWholeAllocation) {
  const size_t bytes = 48u << 20;
  const size_t block = bytes / static_cast<size_t>(nprocs());
  const size_t before = resident_shared_bytes();
  auto* a = static_cast<char*>(scopedsm_alloc_cyclic(bytes, block, 0));
  // Every rank fills its own block, then reads one page of every other block.
  for (size_t i = static_cast<size_t>(rank()) * block; i < static_cast<size_t>(rank() + 1) * block; i += page())
    a[i] = static_cast<char>(rank() + 1);
  scopedsm_barrier();
  for (int r = 0; r < nprocs(); ++r) EXPECT_EQ(a[static_cast<size_t>(r) * block], static_cast<char>(r + 1));
  const size_t grown = resident_shared_bytes() - before;
  // Its block plus one cached page per other block, plus slack for the
  // runtime's own shared segments.
  const size_t expected = block + static_cast<size_t>(nprocs()) * page();
  EXPECT_GE(grown, block / 2) << "the home block should be resident";
  EXPECT_LE(grown, expected + (2u << 20)) << "holds more than its homes: " << grown << " bytes";
  scopedsm_barrier();
}

}  // namespace
