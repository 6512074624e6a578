/* Misuse cases for the death tests: `misuse <case>` makes one mistake.
 * Every case must end the job with a non-zero status and a clear message
 * (checked by death_test.cc). Plain C, the way JIAJIA programs are written;
 * the c_* cases make the same mistakes through the C API. */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jia.h"
#include "scopedsm.h"

static void app_handler(int sig) {
  (void)sig;
  static const char msg[] = "application SIGSEGV handler ran\n";
  ssize_t n = write(2, msg, sizeof msg - 1);
  (void)n;
  _exit(3);
}

/* The same mistakes through the C API (cases named c_*): every message must
 * name scopedsm_* calls, never JIAJIA's. */
static int c_api_case(const char *c, int argc, char **argv) {
  if (!strcmp(c, "c_before_init")) {
    scopedsm_lock(0);
    return 0;
  }
  scopedsm_init(&argc, &argv);
  if (!strcmp(c, "c_lock_out_of_range")) scopedsm_lock(scopedsm_num_locks());
  if (!strcmp(c, "c_cv_out_of_range")) scopedsm_cv_set(scopedsm_num_condvars());
  if (!strcmp(c, "c_barrier_in_cs")) {
    scopedsm_lock(1);
    scopedsm_barrier();
  }
  if (!strcmp(c, "c_double_init")) scopedsm_init(&argc, &argv);
  if (!strcmp(c, "c_touch_unallocated")) {
    char *a = (char *)scopedsm_alloc(4096);
    a[40 * 4096] = 1;
  }
  if (!strcmp(c, "c_barrier_vs_alloc")) {
    if (scopedsm_rank() == 0) scopedsm_barrier();
    else scopedsm_alloc(4096);
  }
  if (!strcmp(c, "c_locks_held_at_exit")) {
    scopedsm_lock(5);
    scopedsm_finalize();
    return 0;
  }
  if (!strcmp(c, "c_return_without_exit")) return 0;
  if (!strcmp(c, "c_after_exit")) {
    scopedsm_finalize();
    scopedsm_lock(0);
  }
  if (!strcmp(c, "c_timeout")) {
    /* Rank 0 takes lock 0 and never lets go; the others wait for it. */
    if (scopedsm_rank() == 0) {
      scopedsm_lock(0);
      scopedsm_wait(); /* now the others know lock 0 is taken */
      sleep(60);
    } else {
      scopedsm_wait();
      scopedsm_lock(0);
    }
  }
  /* c_config_bad: never reached, scopedsm_init rejects the environment */
  scopedsm_finalize();
  fprintf(stderr, "misuse case '%s' was not detected\n", c);
  return 0;
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  if (!strncmp(c, "c_", 2)) return c_api_case(c, argc, argv);
  if (!strcmp(c, "before_init")) {
    jia_lock(0);
    return 0;
  }
  if (!strcmp(c, "chained_handler")) {
    signal(SIGSEGV, app_handler);
  }
  jia_init(argc, argv);
  if (!strcmp(c, "lock_out_of_range")) jia_lock(Maxlocks);
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
  if (!strcmp(c, "barrier_in_cs")) {
    jia_lock(1);
    jia_barrier();
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
  /* Rounds up fine, but is a negative size converted to size_t. */
  if (!strcmp(c, "alloc_size_negative")) scopedsm_alloc((size_t)-5000);
  /* Page numbers travel as 32 bits: page 2^32 would alias page 0. The region
   * is set to 32T, 2^33 pages of 4 KiB. */
  if (!strcmp(c, "alloc_past_page_2_32")) scopedsm_alloc_first_touch(((size_t)1 << 44) + 4096);
  /* addr + len wraps: only the shared part counts, and it reaches pages no
   * allocation holds. */
  if (!strcmp(c, "prepare_huge_len")) scopedsm_prepare(scopedsm_alloc(4096), SIZE_MAX, 1);
  /* The JIAJIA calls take int sizes and blocks. */
  if (!strcmp(c, "jia_alloc3_negative_size")) jia_alloc3(-1, 4096, 0);
  if (!strcmp(c, "jia_alloc3_int_max")) jia_alloc3(0x7fffffff, 0x7fffffff, 0); /* region is set to 1G */
  if (!strcmp(c, "jia_alloc2_negative_block")) jia_alloc2(8192, -2147483647 - 1);
  if (!strcmp(c, "jia_alloc2p_int_max")) jia_alloc2p(0x7fffffff, 0); /* region is set to 1G */
  if (!strcmp(c, "jia_alloc1_negative_size")) jia_alloc1(-2147483647 - 1);
  if (!strcmp(c, "jia_alloc_negative_size")) jia_alloc(-4096);
  if (!strcmp(c, "alloc_mismatch")) jia_alloc3(4096 * (1 + jiapid), 4096, 0);
  if (!strcmp(c, "barrier_vs_alloc")) {
    if (jiapid == 0) jia_barrier();
    else jia_alloc(4096);
  }
  if (!strcmp(c, "alloc_in_cs")) {
    jia_lock(0);
    jia_alloc(4096);
  }
  if (!strcmp(c, "explicit_placement_under_first_touch")) jia_alloc3(8192, 4096, 0);
  if (!strcmp(c, "touch_unallocated")) {
    char *a = (char *)jia_alloc(4096);
    a[40 * 4096] = 1;
  }
  if (!strcmp(c, "touch_after_exit")) {
    volatile char *a = (char *)jia_alloc(4096);
    jia_exit();
    return a[0];
  }
  if (!strcmp(c, "after_exit")) {
    jia_exit();
    jia_lock(0);
  }
  if (!strcmp(c, "double_init")) jia_init(argc, argv);
  if (!strcmp(c, "locks_held_at_exit")) {
    jia_lock(5);
    jia_exit();
    return 0;
  }
  if (!strcmp(c, "return_without_exit")) return 0;
  if (!strcmp(c, "exit_early")) {
    if (jiapid == jiahosts - 1) exit(0);
    jia_barrier();
  }
  if (!strcmp(c, "cv_out_of_range")) jia_setcv(Maxcondvs);
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
  if (!strcmp(c, "mpi_abort")) MPI_Abort(MPI_COMM_WORLD, 3);
  if (!strcmp(c, "segv_outside_region") || !strcmp(c, "chained_handler")) {
    /* The address is read through a volatile so the compiler cannot see it. */
    volatile uintptr_t outside = 16;
    volatile int *p = (volatile int *)outside;
    *p = 1;
  }
  if (!strcmp(c, "timeout")) {
    /* Rank 0 takes lock 0 and never lets go; the others wait for it. */
    if (jiapid == 0) {
      jia_lock(0);
      jia_wait(); /* now the others know lock 0 is taken */
      sleep(60);
    } else {
      jia_wait();
      jia_lock(0);
    }
  }
  if (!strcmp(c, "config_bad")) {
    /* never reached: jia_init rejects the environment */
  }
  jia_exit();
  fprintf(stderr, "misuse case '%s' was not detected\n", c);
  return 0;
}
