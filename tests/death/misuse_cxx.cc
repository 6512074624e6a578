// Misuse cases of the C++ API (scopedsm.hpp) for the death tests:
// `misuse_cxx <case>` makes one mistake, as misuse.c does for the C API.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

#include "jia.h"
#include "scopedsm.hpp"
#ifndef SCOPEDSM_MISUSE_SEQ
#include "scopedsm_mpi.h"
#endif

namespace {
bool is(const char* c, const char* name) { return std::strcmp(c, name) == 0; }
}  // namespace

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  if (is(c, "before_init")) {
    scopedsm::barrier();
    return 0;
  }
#ifndef SCOPEDSM_MISUSE_SEQ
  // Inside an MPI program: MPI_Finalize before scopedsm::finalize, and
  // scopedsm::init twice.
  if (is(c, "comm_mpi_finalize_first") || is(c, "comm_twice")) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    scopedsm::init(MPI_COMM_WORLD);
    if (is(c, "comm_twice")) scopedsm::init(MPI_COMM_WORLD);
    scopedsm::barrier();
    MPI_Finalize();
    std::fprintf(stderr, "misuse case '%s' was not detected\n", c);
    return 0;
  }
#endif
  {
    scopedsm::Runtime dsm(argc, argv);
    // n = -1 through size_t: n * 8 wraps to 2^64 - 8, which used to round down
    // to zero pages and alias the next allocation.
    if (is(c, "alloc_array_minus_one")) {
      double* a = scopedsm::alloc_array<double>(static_cast<std::size_t>(-1));
      double* b = scopedsm::alloc_array<double>(512);
      if (a == b)
        std::fprintf(stderr, "alloc_array<double>(-1) and the next allocation alias at %p\n", static_cast<void*>(a));
    }
    // 2^61 + 1 doubles: n * 8 wraps to 8 bytes, one page for an enormous array.
    if (is(c, "alloc_array_wraps")) scopedsm::alloc_array<double>((std::size_t{1} << 61) + 1);
    if (is(c, "alloc_array_cyclic_minus_one"))
      scopedsm::alloc_array<int>(static_cast<std::size_t>(-1), scopedsm::Cyclic{4096, 0});
    if (is(c, "alloc_array_first_touch_wraps"))
      scopedsm::alloc_array<std::uint64_t>(std::size_t{1} << 62, scopedsm::FirstTouch{});
    // A good size with a block that does not round up to whole pages: the
    // block used to round to zero pages and divide by zero.
    if (is(c, "alloc_array_block_max")) scopedsm::alloc_array<double>(1024, scopedsm::Cyclic{SIZE_MAX, 0});
    // A next-touch point on memory past the allocations: named in C++ words.
    if (is(c, "next_touch_past_end")) scopedsm::next_touch(scopedsm::alloc_array<double>(512), 8192);
    // The mistakes misuse.c makes through the JIAJIA and the C API: every
    // message must name the C++ calls.
    if (is(c, "lock_out_of_range")) scopedsm::LockGuard guard(scopedsm::num_locks());
    // JIAJIA's allocation from C++: a size_t that does not fit its int.
    if (is(c, "jia_alloc_size_t")) jia_alloc(std::size_t{600000000} * sizeof(double));
    if (is(c, "barrier_in_cs")) {
      scopedsm::LockGuard guard(1);
      scopedsm::barrier();
    }
    if (is(c, "double_init")) scopedsm::Runtime again(argc, argv);
    if (is(c, "touch_unallocated")) {
      char* a = scopedsm::alloc_array<char>(4096);
      a[40 * 4096] = 1;
    }
    if (is(c, "barrier_vs_alloc")) {
      if (scopedsm::rank() == 0) scopedsm::barrier();
      else scopedsm::alloc_array<char>(4096);
    }
    // A guard that outlives the Runtime: its lock is still held at the end.
    if (is(c, "locks_held_at_exit")) static_cast<void>(new scopedsm::LockGuard(5));
    // The last process ends without destroying the Runtime while the others
    // wait for it at a barrier. (Every process doing so is a clean end.)
    if (is(c, "exit_early") && scopedsm::rank() == scopedsm::size() - 1) std::exit(0);
    if (is(c, "deadlock")) {
      // Rank 0 holds lock 0 in a second wait; rank 1 waits for lock 0
      // instead of arriving: neither can ever proceed.
      if (scopedsm::rank() == 0) {
        scopedsm::LockGuard guard(0);
        scopedsm::wait();  // now the others know lock 0 is taken
        scopedsm::wait();
      } else {
        scopedsm::wait();
        scopedsm::LockGuard guard(0);
      }
    }
    if (is(c, "timeout")) {
      // Rank 0 takes lock 0 and never lets go; the others wait for it.
      if (scopedsm::rank() == 0) {
        scopedsm::LockGuard guard(0);
        scopedsm::wait();  // now the others know lock 0 is taken
        sleep(60);
      } else {
        scopedsm::wait();
        scopedsm::LockGuard guard(0);
      }
    }
    // A system call on shared memory from a thread other than the one that
    // initialized ScopeDSM: it cannot be prepared there, and the kernel's
    // EFAULT (the first page is homed at rank 1, invalid here) is reported.
    if (is(c, "write_from_other_thread")) {
      const std::size_t page = scopedsm_page_size();
      char* a = scopedsm::alloc_array<char>(8 * page, scopedsm::Cyclic{page, 0});
      scopedsm::barrier();
      if (scopedsm::rank() == 0) {
        const int fd = open("/tmp", O_TMPFILE | O_WRONLY, 0600);
        std::thread other([&] {
          if (write(fd, a + page, 4 * page) < 0) std::perror("write");
        });
        other.join();
        close(fd);
      }
    }
    // config_bad: never reached, the Runtime rejects the environment.
    if (!is(c, "locks_held_at_exit")) scopedsm::barrier();
  }
  if (is(c, "after_exit")) scopedsm::barrier();
  std::fprintf(stderr, "misuse case '%s' was not detected\n", c);
  return 0;
}
