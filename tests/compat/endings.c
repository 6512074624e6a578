/* How a program may end, the way JIAJIA's own example programs end:
 * `endings <case>` on any number of processes must end cleanly (status 0,
 * the statistics printed and written as jia_exit would), and print
 * "endings <case>: ok on N processes" from rank 0 before it ends.
 *
 *   jia_return        every process returns from main without jia_exit
 *   jia_exit_call     every process calls exit(0) without jia_exit
 *   c_return          every process returns without scopedsm_finalize
 *   mixed             even ranks call jia_exit, odd ranks return without it
 *   jia_exit_returns  jia_exit returns to the program (JIAJIA 2.1 as built
 *                     by default): every rank prints a line after it
 *   fork_child        every process forks a child that calls exit(0); the
 *                     child is no process of the job and makes no jia_exit
 *
 * And one that must fail, with the report named in tests/compat/CMakeLists.txt:
 *   thread_exit       a second thread calls exit(0) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jia.h>
#include <scopedsm.h>

#define N 1024

/* Each process writes its share of a shared array; after a barrier every
 * process checks all of it, so the job did real shared-memory work. */
static int work(int *a, int rank, int size, void (*barrier)(void)) {
  int i, bad = 0;
  for (i = rank; i < N; i += size) a[i] = 3 * i + 1;
  barrier();
  for (i = 0; i < N; i++) bad += a[i] != 3 * i + 1;
  return bad;
}

static void *exit_from_thread(void *arg) {
  (void)arg;
  exit(0);
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  int bad;
  if (!strcmp(c, "c_return")) {
    scopedsm_init(&argc, &argv);
    bad = work((int *)scopedsm_alloc(N * sizeof(int)), scopedsm_rank(), scopedsm_size(), scopedsm_barrier);
    if (bad) scopedsm_fatal("endings c_return: %d wrong values", bad);
    if (scopedsm_rank() == 0) printf("endings %s: ok on %d processes\n", c, scopedsm_size());
    fflush(stdout);
    return 0;
  }
  jia_init(argc, argv);
  bad = work((int *)jia_alloc(N * sizeof(int)), jiapid, jiahosts, jia_barrier);
  if (bad) jia_error("endings %s: %d wrong values", c, bad);
  if (jiapid == 0) printf("endings %s: ok on %d processes\n", c, jiahosts);
  fflush(stdout);
  if (!strcmp(c, "jia_return")) return 0;
  if (!strcmp(c, "jia_exit_call")) exit(0);
  if (!strcmp(c, "mixed")) {
    if (jiapid % 2 == 0) jia_exit();
    return 0;
  }
  if (!strcmp(c, "fork_child")) {
    int status = 0;
    pid_t child = fork();
    if (child == 0) exit(0);
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      jia_error("endings fork_child: the child did not end with status 0");
    jia_barrier();
    return 0;
  }
  if (!strcmp(c, "thread_exit")) {
    pthread_t t;
    pthread_create(&t, NULL, exit_from_thread, NULL);
    pthread_join(t, NULL);
    return 0;
  }
  if (!strcmp(c, "jia_exit_returns")) {
    int rank = jiapid;
    jia_exit();
    printf("endings jia_exit_returns: rank %d goes on after jia_exit\n", rank);
    return 0;
  }
  jia_error("endings: unknown case '%s'", c);
  return 1;
}
