/* Misuse cases for the death tests: `misuse <case>` makes one mistake.
 * Every case must end the job with a non-zero status and a clear message
 * (checked by death_test.cc). Plain C, the way JIAJIA programs are written;
 * the c_* cases make the mistakes of surface_case through the C API. */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jia.h"
#include "scopedsm.h"
#ifndef SCOPEDSM_MISUSE_SEQ /* libscopedsm_seq has no MPI and no scopedsm_init_comm */
#include "scopedsm_mpi.h"
#endif

static void app_handler(int sig) {
  (void)sig;
  static const char msg[] = "application SIGSEGV handler ran\n";
  ssize_t n = write(2, msg, sizeof msg - 1);
  (void)n;
  _exit(3);
}

/* The calls of one API surface, so that the mistakes both surfaces can
 * make are written once: a case named c_<name> makes mistake <name> through
 * the C API, and every message must then name scopedsm_* calls, never
 * JIAJIA's (and the reverse). */
struct surface {
  void (*init)(int *argc, char ***argv);
  void (*finalize)(void);
  void (*lock)(int id);
  void (*barrier)(void);
  void (*wait)(void);
  void (*cv_set)(int cv);
  void (*cv_wait)(int cv);
  void *(*alloc)(size_t size);
  int (*rank)(void);
  int (*size)(void);
  int (*num_locks)(void);
  int (*num_condvars)(void);
};

static void jia_init_(int *argc, char ***argv) { jia_init(*argc, *argv); }
static void *jia_alloc_(size_t size) { return (void *)jia_alloc((int)size); }
static int jia_rank_(void) { return jiapid; }
static int jia_size_(void) { return jiahosts; }
static int jia_locks_(void) { return Maxlocks; }
static int jia_condvars_(void) { return Maxcondvs; }
static const struct surface jiajia = {jia_init_, jia_exit, jia_lock, jia_barrier, jia_wait, jia_setcv, jia_waitcv,
                                      jia_alloc_, jia_rank_, jia_size_, jia_locks_, jia_condvars_};
static const struct surface c_api = {scopedsm_init, scopedsm_finalize, scopedsm_lock, scopedsm_barrier,
                                     scopedsm_wait, scopedsm_cv_set, scopedsm_cv_wait, scopedsm_alloc, scopedsm_rank,
                                     scopedsm_size, scopedsm_num_locks, scopedsm_num_condvars};

/* The mistakes every surface can make; returns -1 if `c` is none of them,
 * else what main returns (the case was not detected). */
static int surface_case(const struct surface *api, const char *c) {
  /* (the second name: the same under SCOPEDSM_LOCKS, a test of its own) */
  if (!strcmp(c, "lock_out_of_range") || !strcmp(c, "lock_past_scopedsm_locks")) api->lock(api->num_locks());
  else if (!strcmp(c, "cv_out_of_range")) api->cv_set(api->num_condvars());
  else if (!strcmp(c, "barrier_in_cs")) {
    api->lock(1);
    api->barrier();
  } else if (!strcmp(c, "touch_unallocated")) {
    char *a = (char *)api->alloc(4096);
    a[40 * 4096] = 1;
  } else if (!strcmp(c, "barrier_vs_alloc")) {
    if (api->rank() == 0) api->barrier();
    else api->alloc(4096);
  } else if (!strcmp(c, "barrier_forms_differ")) {
    if (api->rank() == 1) jia_config(BROADCAST, OFF);
    api->barrier();
  } else if (!strcmp(c, "locks_held_at_exit")) {
    api->lock(5);
    api->finalize();
    return 0;
  } else if (!strcmp(c, "return_early")) {
    /* The last process returns from main while the others wait for it at a
     * barrier. (Every process returning is a clean end, tests/compat.) */
    if (api->rank() == api->size() - 1) return 0;
    api->barrier();
  } else if (!strcmp(c, "return_before_wait")) {
    /* The same while the others wait in the rendezvous at rank 0. */
    if (api->rank() == api->size() - 1) return 0;
    api->wait();
  } else if (!strcmp(c, "return_in_lock")) {
    api->lock(5);
    return 0;
  } else if (!strcmp(c, "after_exit")) {
    api->finalize();
    api->lock(0);
  } else if (!strcmp(c, "deadlock")) {
    /* Rank 0 holds lock 0 in a second wait; rank 1 waits for lock 0 instead
     * of arriving: neither can ever proceed (found without a limit). */
    if (api->rank() == 0) {
      api->lock(0);
      api->wait(); /* now the others know lock 0 is taken */
      api->wait();
    } else {
      api->wait();
      api->lock(0);
    }
  } else if (!strcmp(c, "cv_deadlock")) {
    /* Rank 1 waits for condition variable 3, which only another process
     * could set, while rank 0 waits for rank 1 at a barrier. */
    if (api->rank() == 1) api->cv_wait(3);
    api->barrier();
  } else if (!strcmp(c, "timeout")) {
    /* Rank 0 takes lock 0 and never lets go; the others wait for it. */
    if (api->rank() == 0) {
      api->lock(0);
      api->wait(); /* now the others know lock 0 is taken */
      sleep(60);
    } else {
      api->wait();
      api->lock(0);
    }
  } else {
    return -1;
  }
  api->finalize();
  fprintf(stderr, "misuse case '%s' was not detected\n", c);
  return 0;
}

#ifndef SCOPEDSM_MISUSE_SEQ
/* The mistakes of a program that runs MPI itself (scopedsm_mpi.h). */
static int comm_case(const char *c, int argc, char **argv) {
  int provided = 0;
  if (!strcmp(c, "comm_before_mpi_init")) {
    scopedsm_init_comm(MPI_COMM_WORLD);
  } else if (!strcmp(c, "comm_after_mpi_finalize")) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Finalize();
    scopedsm_init_comm(MPI_COMM_WORLD);
  } else if (!strcmp(c, "comm_null")) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    scopedsm_init_comm(MPI_COMM_NULL);
  } else if (!strcmp(c, "comm_twice")) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    scopedsm_init_comm(MPI_COMM_WORLD);
    scopedsm_init_comm(MPI_COMM_WORLD);
  } else if (!strcmp(c, "comm_thread_single")) {
    MPI_Init(&argc, &argv);
    scopedsm_init_comm(MPI_COMM_WORLD);
  } else if (!strcmp(c, "comm_mpi_finalize_first")) {
    /* MPI_Finalize while ScopeDSM runs: the program forgot scopedsm_finalize. */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    scopedsm_init_comm(MPI_COMM_WORLD);
    scopedsm_barrier();
    MPI_Finalize();
  } else {
    fprintf(stderr, "misuse: unknown case '%s'\n", c);
    return 2;
  }
  fprintf(stderr, "misuse case '%s' was not detected\n", c);
  return 0;
}
#endif

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
#ifndef SCOPEDSM_MISUSE_SEQ
  if (!strncmp(c, "comm_", 5)) return comm_case(c, argc, argv);
#endif
  const struct surface *api = &jiajia;
  if (!strncmp(c, "c_", 2)) {
    api = &c_api;
    c += 2;
  }
  if (!strcmp(c, "before_init")) {
    api->lock(0);
    return 0;
  }
  if (!strcmp(c, "chained_handler")) {
    signal(SIGSEGV, app_handler);
  }
  if (!strcmp(c, "unit_mismatch")) {
    /* Rank 0 asks for 1-page units, the others for 2-page ones: jia_init
     * must name both values instead of mixing page numbers. */
    int provided = 0, rank = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    setenv("SCOPEDSM_UNIT_PAGES", rank == 0 ? "1" : "2", 1);
  }
  api->init(&argc, &argv); /* config_bad: never returns, the environment is rejected */
  if (!strcmp(c, "double_init")) api->init(&argc, &argv);
  int done = surface_case(api, c);
  if (done >= 0) return done;
  if (!strcmp(c, "lock_negative")) jia_lock(-1);
  if (!strcmp(c, "unlock_not_held")) jia_unlock(3);
  if (!strcmp(c, "unlock_out_of_order")) {
    jia_lock(1);
    jia_lock(2);
    jia_unlock(1);
  }
  if (!strcmp(c, "lock_twice")) {
    jia_lock(1);
    jia_lock(1);
  }
  if (!strcmp(c, "alloc_zero")) jia_alloc(0);
  if (!strcmp(c, "alloc_beyond_region")) jia_alloc3(512 << 20, 4096, 0); /* region is set to 64M */
  /* Sizes and blocks that do not round up to whole pages in 64 bits. Before
   * the checks, the first rounded down to zero pages and returned the address
   * the next allocation then received as well. */
  if (!strcmp(c, "alloc_size_max")) {
    char *a = (char *)scopedsm_alloc(SIZE_MAX - 100);
    char *b = (char *)scopedsm_alloc(4096);
    if (a == b) fprintf(stderr, "scopedsm_alloc(SIZE_MAX - 100) and the next allocation alias at %p\n", (void *)a);
  }
  if (!strcmp(c, "alloc_first_touch_size_max")) {
    char *a = (char *)scopedsm_alloc_first_touch(SIZE_MAX);
    char *b = (char *)scopedsm_alloc_first_touch(4096);
    if (a == b)
      fprintf(stderr, "scopedsm_alloc_first_touch(SIZE_MAX) and the next allocation alias at %p\n", (void *)a);
  }
  if (!strcmp(c, "alloc_cyclic_block_max")) scopedsm_alloc_cyclic(8192, SIZE_MAX, 0);
  if (!strcmp(c, "alloc_on_bad_rank")) scopedsm_alloc_on(4096, 99);
  if (!strcmp(c, "jia_alloc3_bad_starthost")) jia_alloc3(4096, 4096, 99);
  /* Rounds up fine, but is a negative size converted to size_t. */
  if (!strcmp(c, "alloc_size_negative")) scopedsm_alloc((size_t)-5000);
  /* Page numbers travel as 32 bits: page 2^32 would alias page 0. The region
   * is set to 32T, 2^33 pages of 4 KiB. */
  if (!strcmp(c, "alloc_past_page_2_32")) scopedsm_alloc_first_touch(((size_t)1 << 44) + 4096);
  /* addr + len wraps: only the shared part counts, and it reaches pages no
   * allocation holds. */
  if (!strcmp(c, "prepare_huge_len")) scopedsm_prepare(scopedsm_alloc(4096), SIZE_MAX, 1);
  /* Next-touch points: a range reaching past the allocations, one outside
   * the shared space, and a call only one process makes. */
  if (!strcmp(c, "next_touch_past_end")) scopedsm_next_touch(scopedsm_alloc(4096), 8192);
  if (!strcmp(c, "next_touch_private")) scopedsm_next_touch(&argc, sizeof argc);
  if (!strcmp(c, "next_touch_not_collective")) {
    char *a = (char *)scopedsm_alloc(4096);
    if (scopedsm_rank() == 0) scopedsm_next_touch(a, 4096);
    else scopedsm_barrier();
  }
  /* The JIAJIA calls take int sizes and blocks. */
  if (!strcmp(c, "jia_alloc3_negative_size")) jia_alloc3(-1, 4096, 0);
  if (!strcmp(c, "jia_alloc3_int_max")) jia_alloc3(0x7fffffff, 0x7fffffff, 0); /* region is set to 1G */
  if (!strcmp(c, "jia_alloc2_negative_block")) jia_alloc2(8192, -2147483647 - 1);
  if (!strcmp(c, "jia_alloc2p_int_max")) jia_alloc2p(0x7fffffff, 0); /* region is set to 1G */
  if (!strcmp(c, "jia_alloc1_negative_size")) jia_alloc1(-2147483647 - 1);
  if (!strcmp(c, "jia_alloc_negative_size")) jia_alloc(-4096);
  /* Arguments that do not fit JIAJIA's int parameters: caught before they
   * become ints (600000000 doubles would otherwise be 505032704 bytes). */
  if (!strcmp(c, "jia_alloc_size_t")) jia_alloc(600000000 * sizeof(double));
  if (!strcmp(c, "jia_alloc3_block_long")) jia_alloc3(8192, 3000000000L, 0);
  if (!strcmp(c, "jia_alloc2p_proc_long")) jia_alloc2p(4096, -5000000000L);
  if (!strcmp(c, "jia_alloc1_int_max_plus_one")) jia_alloc1(2147483648UL);
  if (!strcmp(c, "alloc_mismatch")) jia_alloc3(4096 * (1 + jiapid), 4096, 0);
  if (!strcmp(c, "wait_vs_barrier")) {
    if (jiapid == 1) jia_wait();
    else jia_barrier();
  }
  if (!strcmp(c, "alloc_vs_barrier")) {
    if (jiapid == 0) jia_alloc(4096);
    else jia_barrier();
  }
  if (!strcmp(c, "alloc_in_cs")) {
    jia_lock(0);
    jia_alloc(4096);
  }
  /* DOALL loops: a chunk asked for before any loop, a bad schedule text,
   * and processes starting different loops. */
  if (!strcmp(c, "gettask_without_settask")) {
    int b, e;
    jia_gettask(&b, &e);
  }
  if (!strcmp(c, "loop_bad_schedule")) scopedsm_loop_init(0, 10, "runtime,4", NULL, 0);
  if (!strcmp(c, "loop_mismatch")) jia_settask(0, 10 + jiapid, "gss", NULL, 0);
  /* Task migration: a reversed range, setups that differ, parts that do not
   * follow each other, and jia_lbarrier on one process only. */
  if (!strcmp(c, "lbarrier_reversed")) {
    int b = 5, e = 2;
    jia_lbarrier(&b, &e);
  }
  if (!strcmp(c, "lbarrier_setup_mismatch")) jia_lbarrier_setup(100 + jiapid, 0, -1);
  if (!strcmp(c, "lbarrier_gap")) {
    int b = 10 * jiapid, e = b + 4; /* [0, 4], [10, 14]: a gap */
    jia_lbarrier_setup(10, 1, -1);
    jia_lbarrier(&b, &e);
  }
  if (!strcmp(c, "lbarrier_one_process")) {
    int b = 10 * jiapid, e = b + 9;
    jia_lbarrier_setup(10, 1, -1);
    if (jiapid == 0) jia_lbarrier(&b, &e);
    else jia_barrier();
  }
  if (!strcmp(c, "touch_after_exit")) {
    volatile char *a = (char *)jia_alloc(4096);
    jia_exit();
    return a[0];
  }
  if (!strcmp(c, "exit_early")) {
    if (jiapid == jiahosts - 1) exit(0);
    jia_barrier();
  }
  if (!strcmp(c, "recv_too_small")) {
    if (jiahosts > 1) {
      if (jiapid == 0) {
        char big[64] = {0};
        jia_send(big, sizeof big, 1, 0);
      } else if (jiapid == 1) {
        char small[8];
        jia_recv(small, sizeof small, 0, 0);
      }
    } else {
      char small[8];
      jia_recv(small, sizeof small, 7, 0);
    }
  }
  if (!strcmp(c, "send_bad_rank")) {
    char b[4] = {0};
    jia_send(b, 4, jiahosts + 3, 0);
  }
  if (!strcmp(c, "jia_error")) jia_error("the application gave up: %d", 42);
  /* Not a misuse: the program ends the job itself, with no ScopeDSM error
   * (`scopedsm run` must then show MPI's own account of the abort). */
  if (!strcmp(c, "mpi_abort")) {
    fprintf(stderr, "misuse: the program calls MPI_Abort itself\n");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (!strcmp(c, "segv_outside_region") || !strcmp(c, "chained_handler")) {
    /* The address is read through a volatile so the compiler cannot see it. */
    volatile uintptr_t outside = 16;
    (void)jia_alloc(8192); /* what the report names as the shared memory so far */
    volatile int *p = (volatile int *)outside;
    *p = 1;
  }
  jia_exit();
  fprintf(stderr, "misuse case '%s' was not detected\n", c);
  return 0;
}
