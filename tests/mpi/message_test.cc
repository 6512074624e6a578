// jia_send / jia_recv / jia_bcast / jia_reduce.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

TEST(Messages, RingOfSendsAndReceives) {
  if (nprocs() == 1) GTEST_SKIP() << "needs two processes";
  int next = (rank() + 1) % nprocs(), prev = (rank() + nprocs() - 1) % nprocs();
  std::vector<int> out(1000), in(1000);
  std::iota(out.begin(), out.end(), rank() * 1000);
  if (rank() == 0) {
    jia_send(out.data(), static_cast<int>(out.size() * sizeof(int)), next, 5);
    int got = jia_recv(in.data(), static_cast<int>(in.size() * sizeof(int)), prev, 5);
    EXPECT_EQ(got, static_cast<int>(in.size() * sizeof(int)));
  } else {
    int got = jia_recv(in.data(), static_cast<int>(in.size() * sizeof(int)), MSG_PROC_ALL, MSG_TAG_ALL);
    EXPECT_EQ(got, static_cast<int>(in.size() * sizeof(int)));
    jia_send(out.data(), static_cast<int>(out.size() * sizeof(int)), next, 5);
  }
  EXPECT_EQ(in[0], prev * 1000);
  EXPECT_EQ(in[999], prev * 1000 + 999);
  jia_barrier();
}

TEST(Messages, SendFromAndReceiveIntoSharedMemory) {
  // Shared buffers whose pages are not valid here: the runtime must make
  // them accessible before MPI touches them.
  if (nprocs() == 1) GTEST_SKIP() << "needs two processes";
  const size_t n = 3 * page();
  auto* shared = static_cast<unsigned char*>(scopedsm_alloc_cyclic(2 * n, n, 1));  // homed at 1, then 0
  if (rank() == 1) {
    for (size_t i = 0; i < n; ++i) shared[i] = static_cast<unsigned char>(i * 7);
  }
  jia_barrier();
  if (rank() == 0) {
    // Source pages homed at rank 1 and not cached here yet.
    jia_send(shared, static_cast<int>(n), 1, 1);
  } else if (rank() == 1) {
    std::vector<unsigned char> got(n);
    jia_recv(got.data(), static_cast<int>(n), 0, 1);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], static_cast<unsigned char>(i * 7)) << i;
    // Receive into shared pages homed at rank 0 this time.
    std::vector<unsigned char> out(n, 0x5a);
    jia_send(out.data(), static_cast<int>(n), 0, 2);
  }
  if (rank() == 0) {
    jia_recv(shared + n, static_cast<int>(n), 1, 2);
  }
  jia_barrier();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(shared[n + i], 0x5a) << i;
  jia_barrier();
}

TEST(Messages, BroadcastFromEveryRoot) {
  for (int root = 0; root < nprocs(); ++root) {
    double v[4] = {0, 0, 0, 0};
    if (rank() == root)
      for (int i = 0; i < 4; ++i) v[i] = root * 10.0 + i;
    jia_bcast(v, sizeof v, root);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], root * 10.0 + i);
  }
  jia_barrier();
}

TEST(Messages, ReduceEveryOperation) {
  int root = nprocs() - 1;
  int ints[2] = {rank() + 1, -rank()};
  int isum[2] = {0, 0};
  jia_reduce(ints, isum, 2, SUM_INT, root);
  double d = 1.5 * (rank() + 1), dmax = 0, dmin = 0;
  jia_reduce(&d, &dmax, 1, MAX_DOUBLE, root);
  jia_reduce(&d, &dmin, 1, MIN_DOUBLE, root);
  float f = 2.0f, fsum = 0;
  jia_reduce(&f, &fsum, 1, SUM_FLOAT, root);
  if (rank() == root) {
    EXPECT_EQ(isum[0], nprocs() * (nprocs() + 1) / 2);
    EXPECT_EQ(isum[1], -(nprocs() - 1) * nprocs() / 2);
    EXPECT_EQ(dmax, 1.5 * nprocs());
    EXPECT_EQ(dmin, 1.5);
    EXPECT_EQ(fsum, 2.0f * static_cast<float>(nprocs()));
  }
  jia_barrier();
}

}  // namespace
