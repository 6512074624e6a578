// System calls, stdio, C++ streams and MPI calls on shared memory, made by
// an unchanged program (src/interpose): the kernel and the MPI library must
// see the process's view of the pages, never a protected page. Run with a
// cache much smaller than the arrays (SCOPEDSM_CACHE_PAGES=16 in
// tests/CMakeLists.txt), so that every call's shared buffer has pages that
// are invalid or read-only here, and has to be cut into pieces or copied.
//
// Each array is written by every process (a block each), then rank 0 hands
// it to the kernel or MPI, and every process checks what arrived after a
// barrier: data that reached shared memory through a system call must be
// at its home like any write. Counts are checked exactly where the kernel
// promises them (regular files, blocking writes, MSG_WAITALL).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/test_util.h"

extern "C" {
ssize_t __read_chk(int fd, void* buf, size_t nbytes, size_t buflen);
size_t __fread_chk(void* ptr, size_t ptrlen, size_t size, size_t n, FILE* stream);
}

using namespace scopedsm_test;

namespace {

constexpr size_t kN = 262144;  // doubles: 2 MiB, 512 pages of 4 KiB
constexpr size_t kBytes = kN * sizeof(double);

double value(size_t i) { return static_cast<double>(i) * 0.5 + 1; }

// A helper writing to a pipe whose reader has gone gets EPIPE, not a signal.
const bool kSigpipeIgnored = signal(SIGPIPE, SIG_IGN) != SIG_ERR;

// A shared array of n doubles, each process writing its block of value(i)
// (or zeros), then a barrier.
double* shared_array(size_t n, bool fill) {
  auto* a = static_cast<double*>(scopedsm_alloc(n * sizeof(double)));
  const size_t per = (n + nprocs() - 1) / nprocs();
  for (size_t i = rank() * per; i < std::min(n, (rank() + 1) * per); ++i) a[i] = fill ? value(i) : 0.0;
  scopedsm_barrier();
  return a;
}

// At rank 0, before the kernel writes into `dst`: some of its pages read
// here (read-only copies, unless evicted again), the others left invalid.
void read_some(const double* dst, size_t n) {
  const size_t step = page() / sizeof(double);
  volatile double sink = 0;
  for (size_t i = 0; i < n; i += 3 * step) sink = sink + dst[i];
}

// Every process: after a barrier, dst[from, to) holds value(i + shift).
void expect_values(const double* dst, size_t from, size_t to, size_t shift = 0) {
  scopedsm_barrier();
  size_t bad = 0, first = to;
  for (size_t i = from; i < to; ++i)
    if (dst[i] != value(i + shift)) {
      if (bad++ == 0) first = i;
    }
  EXPECT_EQ(bad, 0u) << "rank " << rank() << ": first wrong element " << first;
  scopedsm_barrier();
}

std::string temp_path(const char* what) {
  return "/tmp/scopedsm-syscalls-" + std::to_string(getpid()) + "-" + what;
}

// The expected bytes of the whole array, privately.
std::vector<double> expected() {
  std::vector<double> v(kN);
  for (size_t i = 0; i < kN; ++i) v[i] = value(i);
  return v;
}

// ---------------------------------------------------------------------------
// File descriptors

TEST(SystemCalls, WriteAndReadAWholeArrayInOneCall) {
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    const std::string path = temp_path("rw");
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    EXPECT_GE(fd, 0);
    errno = 0;
    EXPECT_EQ(write(fd, src, kBytes), static_cast<ssize_t>(kBytes)) << std::strerror(errno);
    EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
    read_some(dst, kN);
    errno = 0;
    EXPECT_EQ(read(fd, dst, kBytes), static_cast<ssize_t>(kBytes)) << std::strerror(errno);
    // End of file: nothing more, and no error.
    EXPECT_EQ(read(fd, dst, kBytes), 0);
    close(fd);
    unlink(path.c_str());
  }
  expect_values(dst, 0, kN);
}

TEST(SystemCalls, PwriteAndPreadAtOffsets) {
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    const std::string path = temp_path("p");
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    // The second half first, at its place, then the first half.
    const off_t half = kBytes / 2;
    EXPECT_EQ(pwrite(fd, src + kN / 2, kBytes / 2, 4096 + half), static_cast<ssize_t>(kBytes / 2));
    EXPECT_EQ(pwrite(fd, src, kBytes / 2, 4096), static_cast<ssize_t>(kBytes / 2));
    EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0) << "pwrite moved the file position";
    read_some(dst, kN);
    EXPECT_EQ(pread(fd, dst, kBytes, 4096), static_cast<ssize_t>(kBytes));
    close(fd);
    unlink(path.c_str());
  }
  expect_values(dst, 0, kN);
}

TEST(SystemCalls, WritevAndReadvMixPrivateAndSharedBuffers) {
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    const std::string path = temp_path("v");
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    std::string head(100, 'h'), middle(3000, 'm'), empty;
    struct iovec out[] = {{head.data(), head.size()},
                          {src, kN / 3 * sizeof(double)},
                          {empty.data(), 0},
                          {middle.data(), middle.size()},
                          {src + kN / 3, kBytes - kN / 3 * sizeof(double)}};
    const ssize_t total = static_cast<ssize_t>(head.size() + middle.size() + kBytes);
    EXPECT_EQ(writev(fd, out, 5), total);
    // Read back with the shared part cut differently; pwritev/preadv at an
    // offset as well.
    EXPECT_EQ(pwritev(fd, out, 5, total), total);
    std::string head2(100, 0), middle2(3000, 0);
    struct iovec in[] = {{head2.data(), head2.size()},
                         {dst, kN / 3 * sizeof(double)},
                         {middle2.data(), middle2.size()},
                         {dst + kN / 3, kBytes - kN / 3 * sizeof(double)}};
    EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
    read_some(dst, kN);
    EXPECT_EQ(readv(fd, in, 4), total);
    EXPECT_EQ(head2, head);
    EXPECT_EQ(middle2, middle);
    std::vector<double> again(kN);
    std::string head3(100, 0), middle3(3000, 0);
    struct iovec in2[] = {{head3.data(), head3.size()},
                          {again.data(), kN / 3 * sizeof(double)},
                          {middle3.data(), middle3.size()},
                          {again.data() + kN / 3, kBytes - kN / 3 * sizeof(double)}};
    EXPECT_EQ(preadv(fd, in2, 4, total), total);
    EXPECT_EQ(head3, head);
    EXPECT_TRUE(again == expected());
    close(fd);
    unlink(path.c_str());
  }
  expect_values(dst, 0, kN);
}

TEST(SystemCalls, FortifiedReadGoesThroughTheSameWay) {
  // _FORTIFY_SOURCE turns read and fread into __read_chk and __fread_chk.
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    const std::string path = temp_path("chk");
    FILE* f = fopen(path.c_str(), "wb");
    EXPECT_EQ(fwrite(src, sizeof(double), kN, f), kN);
    EXPECT_EQ(fclose(f), 0);
    read_some(dst, kN);
    f = fopen(path.c_str(), "rb");
    EXPECT_EQ(__fread_chk(dst, kBytes, sizeof(double), kN / 2, f), kN / 2);
    fclose(f);
    const int fd = open(path.c_str(), O_RDONLY);
    EXPECT_EQ(lseek(fd, kBytes / 2, SEEK_SET), static_cast<off_t>(kBytes / 2));
    EXPECT_EQ(__read_chk(fd, dst + kN / 2, kBytes / 2, kBytes / 2), static_cast<ssize_t>(kBytes / 2));
    close(fd);
    unlink(path.c_str());
  }
  expect_values(dst, 0, kN);
}

// Reads `len` bytes from `fd` into private memory, looping (a helper
// thread's work); stops at the end of the data.
void read_fully(int fd, void* to, size_t len) {
  size_t at = 0;
  while (at < len) {
    const ssize_t r = read(fd, static_cast<char*>(to) + at, len - at);
    if (r <= 0) break;
    at += static_cast<size_t>(r);
  }
}

TEST(SystemCalls, PipeWriteAndRead) {
  // A pipe holds 64 KiB: the other end is a helper thread, which only
  // touches private memory. Reads loop, as reads of pipes must. Each
  // direction has its own pipe, closed when done, so that a helper never
  // waits for ever.
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    int out[2], in[2];
    EXPECT_EQ(pipe(out), 0);
    EXPECT_EQ(pipe(in), 0);
    std::vector<double> got(kN);
    std::thread drain([&] { read_fully(out[0], got.data(), kBytes); });
    // A blocking write to a pipe writes everything.
    errno = 0;
    EXPECT_EQ(write(out[1], src, kBytes), static_cast<ssize_t>(kBytes)) << std::strerror(errno);
    close(out[1]);
    drain.join();
    close(out[0]);
    EXPECT_TRUE(got == expected());
    const std::vector<double> want = expected();
    std::thread feed([&] {
      (void)!write(in[1], want.data(), kBytes);  // a blocking write: all of it, or the reader is gone
      close(in[1]);
    });
    read_some(dst, kN);
    size_t at = 0;
    auto* d = reinterpret_cast<char*>(dst);
    while (at < kBytes) {
      errno = 0;
      const ssize_t r = read(in[0], d + at, kBytes - at);
      EXPECT_GT(r, 0) << std::strerror(errno);
      if (r <= 0) break;
      at += static_cast<size_t>(r);
    }
    close(in[0]);  // a feed still writing gets EPIPE (SIGPIPE is ignored here)
    feed.join();
  }
  expect_values(dst, 0, kN);
}

TEST(SystemCalls, StreamSocketSendAndRecv) {
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    int s[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
    std::vector<double> got(kN);
    std::thread drain([&] { EXPECT_EQ(recv(s[1], got.data(), kBytes, MSG_WAITALL), static_cast<ssize_t>(kBytes)); });
    errno = 0;
    EXPECT_EQ(send(s[0], src, kBytes, 0), static_cast<ssize_t>(kBytes)) << std::strerror(errno);
    shutdown(s[0], SHUT_WR);  // the helper's receive ends even after a failed send
    drain.join();
    EXPECT_TRUE(got == expected());
    const std::vector<double> want = expected();
    std::thread feed([&] {
      (void)!send(s[1], want.data(), kBytes, MSG_NOSIGNAL);
      shutdown(s[1], SHUT_WR);
    });
    read_some(dst, kN);
    // All of it in one call: MSG_WAITALL waits for every byte.
    errno = 0;
    EXPECT_EQ(recv(s[0], dst, kBytes, MSG_WAITALL), static_cast<ssize_t>(kBytes)) << std::strerror(errno);
    shutdown(s[0], SHUT_RDWR);  // a feed still sending gets EPIPE
    feed.join();
    close(s[0]);
    close(s[1]);
  }
  expect_values(dst, 0, kN);
}

TEST(SystemCalls, MessagesStayWholeThroughSendmsgAndRecvmsg) {
  // A datagram cannot be cut into pieces: one larger than the cache goes
  // through a private copy, its private and shared parts in order.
  constexpr size_t kMsg = 128 * 1024;  // 32 pages; bigger than half of a 16-page cache
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    int s[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, s), 0);
    const int sndbuf = 1 << 20;
    setsockopt(s[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    std::string tag(64, 't'), tag2(64, 0);
    struct iovec out[] = {{tag.data(), tag.size()}, {src, kMsg}};
    struct msghdr m = {};
    m.msg_iov = out;
    m.msg_iovlen = 2;
    errno = 0;
    EXPECT_EQ(sendmsg(s[0], &m, 0), static_cast<ssize_t>(tag.size() + kMsg)) << std::strerror(errno);
    // And a plain send of the next part.
    EXPECT_EQ(send(s[0], src + kMsg / sizeof(double), kMsg, 0), static_cast<ssize_t>(kMsg));
    read_some(dst, kN);
    struct iovec in[] = {{tag2.data(), tag2.size()}, {dst, kMsg}};
    struct msghdr r = {};
    r.msg_iov = in;
    r.msg_iovlen = 2;
    // The messages are queued already (nothing waits if a send failed).
    EXPECT_EQ(recvmsg(s[1], &r, MSG_DONTWAIT), static_cast<ssize_t>(tag.size() + kMsg));
    EXPECT_EQ(r.msg_flags & MSG_TRUNC, 0);
    EXPECT_EQ(tag2, tag);
    EXPECT_EQ(recv(s[1], dst + kMsg / sizeof(double), kMsg, MSG_DONTWAIT), static_cast<ssize_t>(kMsg));
    close(s[0]);
    close(s[1]);
  }
  expect_values(dst, 0, 2 * kMsg / sizeof(double));
}

// ---------------------------------------------------------------------------
// stdio and C++ streams

TEST(Stdio, FwriteAndFreadAWholeArray) {
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    const std::string path = temp_path("stdio");
    FILE* f = fopen(path.c_str(), "w+b");
    EXPECT_NE(f, nullptr);
    errno = 0;
    EXPECT_EQ(fwrite(src, sizeof(double), kN, f), kN) << std::strerror(errno);
    EXPECT_EQ(fflush(f), 0);
    EXPECT_EQ(ferror(f), 0);
    rewind(f);
    read_some(dst, kN);
    EXPECT_EQ(fread(dst, sizeof(double), kN, f), kN);
    EXPECT_EQ(ferror(f), 0);
    // The unlocked forms, by halves, at the end of the file.
    EXPECT_EQ(fseek(f, 0, SEEK_END), 0);
    EXPECT_EQ(fwrite_unlocked(src, sizeof(double), kN / 2, f), kN / 2);
    EXPECT_EQ(fwrite_unlocked(src + kN / 2, 1, kBytes / 2, f), kBytes / 2);
    EXPECT_EQ(fflush(f), 0);
    EXPECT_EQ(fseek(f, static_cast<long>(kBytes), SEEK_SET), 0);
    std::vector<double> again(kN);
    EXPECT_EQ(fread_unlocked(again.data(), sizeof(double), kN, f), kN);
    EXPECT_TRUE(again == expected());
    fclose(f);
    unlink(path.c_str());
  }
  expect_values(dst, 0, kN);
}

TEST(CxxStreams, OfstreamWriteAndIfstreamRead) {
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    const std::string path = temp_path("cxx");
    {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(src), static_cast<std::streamsize>(kBytes));
      out.close();
      EXPECT_TRUE(out.good()) << "std::ofstream::write of a shared array failed";
    }
    {
      read_some(dst, kN);
      std::ifstream in(path, std::ios::binary);
      in.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(kBytes));
      EXPECT_EQ(in.gcount(), static_cast<std::streamsize>(kBytes));
    }
    unlink(path.c_str());
  }
  expect_values(dst, 0, kN);
}

// ---------------------------------------------------------------------------
// MPI: large messages take the MPI library's single-copy path between
// processes of one node (Open MPI's vader with CMA: the receiver reads the
// sender's memory with process_vm_readv, into its own).

TEST(SharedMpi, SendAndRecvLargeSharedBuffers) {
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  const int from = nprocs() - 1;
  if (rank() == 0) read_some(dst, kN);
  if (nprocs() == 1) {
    MPI_Request r;
    EXPECT_EQ(MPI_Isend(src, kN, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    EXPECT_EQ(MPI_Recv(dst, kN, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  } else if (rank() == from) {
    EXPECT_EQ(MPI_Send(src, kN, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD), MPI_SUCCESS);
  } else if (rank() == 0) {
    MPI_Status st;
    EXPECT_EQ(MPI_Recv(dst, kN, MPI_DOUBLE, from, 7, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    int count = 0;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    EXPECT_EQ(count, static_cast<int>(kN));
  }
  expect_values(dst, 0, kN);
}

TEST(SharedMpi, SendAndRecvABufferThatFitsTheCache) {
  // 6 pages each way: made valid in place (12 pages of a 16-page cache),
  // and above the eager limit.
  constexpr size_t kFew = 6 * 4096 / sizeof(double);
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  const int from = nprocs() - 1;
  if (nprocs() == 1) {
    EXPECT_EQ(MPI_Sendrecv(src + kN / 2, kFew, MPI_DOUBLE, 0, 8, dst + kN / 2, kFew, MPI_DOUBLE, 0, 8,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              MPI_SUCCESS);
  } else if (rank() == from) {
    EXPECT_EQ(MPI_Ssend(src + kN / 2, kFew, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD), MPI_SUCCESS);
  } else if (rank() == 0) {
    EXPECT_EQ(MPI_Recv(dst + kN / 2, kFew, MPI_DOUBLE, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
  }
  expect_values(dst, kN / 2, kN / 2 + kFew);
}

TEST(SharedMpi, NonblockingBuffersSurviveEvictionsBeforeTheWait) {
  // Between the post and the wait the program reads another array larger
  // than the cache: every page of the buffers is evicted meanwhile.
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  double* other = shared_array(kN, true);
  const int peer = nprocs() - 1;
  std::vector<MPI_Request> reqs;
  MPI_Request r;
  if (rank() == 0) {
    EXPECT_EQ(MPI_Irecv(dst, kN, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    reqs.push_back(r);
  }
  if (rank() == peer) {
    EXPECT_EQ(MPI_Isend(src, kN, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    reqs.push_back(r);
  }
  volatile double sink = 0;
  for (size_t i = 0; i < kN; i += 64) sink = sink + other[i];
  EXPECT_EQ(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
  expect_values(dst, 0, kN);
}

TEST(SharedMpi, CollectivesOnSharedBuffers) {
  // Each process receives into its own slice of a shared array.
  double* src = shared_array(kN, true);
  auto* slices = static_cast<double*>(scopedsm_alloc(nprocs() * kBytes));
  scopedsm_barrier();
  double* mine = slices + rank() * kN;

  // Bcast: rank 0 sends from the shared source; the others receive.
  double* buf = rank() == 0 ? src : mine;
  EXPECT_EQ(MPI_Bcast(buf, kN, MPI_DOUBLE, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  scopedsm_barrier();
  for (int r = 1; r < nprocs(); ++r) expect_values(slices + r * kN, 0, kN);

  // Allreduce of the shared source into each slice: nprocs() times it.
  EXPECT_EQ(MPI_Allreduce(src, mine, kN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  scopedsm_barrier();
  size_t bad = 0;
  for (int r = 0; r < nprocs(); ++r)
    for (size_t i = 0; i < kN; ++i) bad += slices[r * kN + i] != value(i) * nprocs();
  EXPECT_EQ(bad, 0u) << "after MPI_Allreduce";
  scopedsm_barrier();

  // In place: each slice once more, summed over the processes.
  EXPECT_EQ(MPI_Allreduce(MPI_IN_PLACE, mine, kN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  scopedsm_barrier();
  bad = 0;
  for (int r = 0; r < nprocs(); ++r)
    for (size_t i = 0; i < kN; ++i) bad += slices[r * kN + i] != value(i) * nprocs() * nprocs();
  EXPECT_EQ(bad, 0u) << "after MPI_Allreduce in place";
  scopedsm_barrier();

  // Gather: each process's block of the source, into rank 0's slice.
  const size_t per = kN / nprocs();
  EXPECT_EQ(MPI_Gather(src + rank() * per, per, MPI_DOUBLE, slices, per, MPI_DOUBLE, 0, MPI_COMM_WORLD),
            MPI_SUCCESS);
  expect_values(slices, 0, per * nprocs());

  // Sendrecv around a ring, from the source into the next one's slice.
  const int next = (rank() + 1) % nprocs(), prev = (rank() + nprocs() - 1) % nprocs();
  EXPECT_EQ(MPI_Sendrecv(src, kN, MPI_DOUBLE, next, 11, slices + prev * kN, kN, MPI_DOUBLE, prev, 11, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
            MPI_SUCCESS);
  scopedsm_barrier();
  for (int r = 0; r < nprocs(); ++r) expect_values(slices + r * kN, 0, kN);
}

TEST(SharedMpi, MoreCollectivesOnSharedBuffers) {
  double* src = shared_array(kN, true);
  auto* slices = static_cast<double*>(scopedsm_alloc(nprocs() * kBytes));
  scopedsm_barrier();
  double* mine = slices + rank() * kN;
  const size_t per = kN / nprocs();
  const int n = nprocs();
  auto expect_slices = [&](const char* what, auto want, size_t len) {
    scopedsm_barrier();
    size_t bad = 0;
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < len; ++i) bad += slices[r * kN + i] != want(r, i);
    EXPECT_EQ(bad, 0u) << "after " << what << " (rank " << rank() << ")";
    scopedsm_barrier();
  };

  // Scatter: rank 0's shared source, a block to each process's slice.
  EXPECT_EQ(MPI_Scatter(src, per, MPI_DOUBLE, mine, per, MPI_DOUBLE, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  expect_slices("MPI_Scatter", [&](int r, size_t i) { return value(r * per + i); }, per);

  // Alltoall: block j of the source to process j, placed by sender.
  EXPECT_EQ(MPI_Alltoall(src, per, MPI_DOUBLE, mine, per, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
  expect_slices("MPI_Alltoall", [&](int r, size_t i) { return value(r * per + i % per); }, per * n);

  // Allgather: each process's block of the source, into every slice.
  EXPECT_EQ(MPI_Allgather(src + rank() * per, per, MPI_DOUBLE, mine, per, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
  expect_slices("MPI_Allgather", [&](int, size_t i) { return value(i); }, per * n);

  // Gatherv with gaps: block r at 2 * r * (per / 2); the gaps keep what they held.
  std::vector<int> counts(n, static_cast<int>(per / 2)), displs(n);
  for (int r = 0; r < n; ++r) displs[r] = static_cast<int>(r * per);
  EXPECT_EQ(MPI_Gatherv(src + rank() * per, per / 2, MPI_DOUBLE, slices, counts.data(), displs.data(), MPI_DOUBLE, 0,
                        MPI_COMM_WORLD),
            MPI_SUCCESS);
  expect_slices("MPI_Gatherv", [&](int, size_t i) { return value(i); }, per * n);

  // Reduce to rank 0's slice.
  EXPECT_EQ(MPI_Reduce(src, slices, kN, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  scopedsm_barrier();
  size_t bad = 0;
  for (size_t i = 0; i < kN; ++i) bad += slices[i] != value(i) * n;
  EXPECT_EQ(bad, 0u) << "after MPI_Reduce";
  scopedsm_barrier();
}

TEST(SharedMpi, FileWriteAndReadOfSharedBuffers) {
  // MPI-IO: the library reads and writes the buffer itself, and with
  // system calls made inside MPI.
  double* src = shared_array(kN, true);
  double* dst = shared_array(kN, false);
  if (rank() == 0) {
    const std::string path = temp_path("mpiio");
    MPI_File f;
    EXPECT_EQ(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f),
              MPI_SUCCESS);
    MPI_Status st;
    EXPECT_EQ(MPI_File_write_at(f, 0, src, kN, MPI_DOUBLE, &st), MPI_SUCCESS);
    read_some(dst, kN);
    EXPECT_EQ(MPI_File_read_at(f, 0, dst, kN / 2, MPI_DOUBLE, &st), MPI_SUCCESS);
    int count = 0;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    EXPECT_EQ(count, static_cast<int>(kN / 2));
    MPI_Request r;
    EXPECT_EQ(MPI_File_iread_at(f, kBytes / 2, dst + kN / 2, kN / 2, MPI_DOUBLE, &r), MPI_SUCCESS);
    EXPECT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
    EXPECT_EQ(MPI_File_close(&f), MPI_SUCCESS);
    unlink(path.c_str());
  }
  expect_values(dst, 0, kN);
}

}  // namespace
