// Several writers of one page in the same interval: their diffs merge at the home.
#include <gtest/gtest.h>

#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(FalseSharing, InterleavedDoublesMerge) {
  const size_t n = 2 * page() / sizeof(double);
  auto* a = static_cast<double*>(scopedsm_alloc(n * sizeof(double)));
  for (int round = 0; round < 3; ++round) {
    for (size_t i = static_cast<size_t>(rank()); i < n; i += static_cast<size_t>(nprocs())) a[i] = round + i * 0.5;
    scopedsm_barrier();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], round + i * 0.5) << i;
    scopedsm_barrier();
  }
}

TEST(FalseSharing, AdjacentBytesOfOneWordMerge) {
  // char arrays split between processes: byte i belongs to rank i % nprocs.
  // A diff that carried whole words would overwrite the neighbours' bytes.
  const size_t n = page();
  auto* c = static_cast<unsigned char*>(scopedsm_alloc_cyclic(n, page(), nprocs() - 1));
  for (int round = 1; round <= 3; ++round) {
    for (size_t i = static_cast<size_t>(rank()); i < n; i += static_cast<size_t>(nprocs()))
      c[i] = static_cast<unsigned char>(round * 16 + rank());
    scopedsm_barrier();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], static_cast<unsigned char>(round * 16 + static_cast<int>(i % static_cast<size_t>(nprocs())))) << i;
    scopedsm_barrier();
  }
}

TEST(FalseSharing, ShortsUnderDifferentLocks) {
  // Each rank updates its own shorts under its own lock; a barrier then
  // publishes everything.
  const size_t n = page() / sizeof(short);
  auto* s = static_cast<short*>(scopedsm_alloc(n * sizeof(short)));
  for (int k = 0; k < 5; ++k) {
    scopedsm_lock(rank());
    for (size_t i = static_cast<size_t>(rank()); i < n; i += static_cast<size_t>(nprocs())) s[i] = static_cast<short>(s[i] + 1);
    scopedsm_unlock(rank());
  }
  scopedsm_barrier();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(s[i], 5) << i;
  scopedsm_barrier();
}

}  // namespace
