/* Failure cases for tests/failure/failure_test.cc:
 *
 *   failure_victim <case> <victim-rank> <tag>
 *
 * Every process prints "PID <rank> <pid>" after jia_init. The victim prints
 * "VICTIM rank <r>: <what>" right before it fails; a process that ends
 * normally prints "FINISHED rank <r>" right before returning 0, which is the
 * only way this program exits with status 0. <tag> is only there so that the
 * driver can find this job's processes in /proc.
 *
 * Cases:
 *   kill_compute      the victim raises SIGKILL between barriers while the
 *                     others compute on pages homed at it, then wait at the
 *                     next barrier;
 *   kill_in_lock      the victim raises SIGKILL while holding a lock homed
 *                     at another rank that the others keep acquiring;
 *   kill_in_own_lock  the same with the lock homed at the victim;
 *   kill_at_barrier   the others wait at a barrier; the victim raises
 *                     SIGKILL instead of arriving;
 *   return_early      the victim returns from main without jia_exit while
 *                     the others go on to a barrier;
 *   exit_early        the victim calls exit(0) while the others go on;
 *   hang_in_lock      the victim holds a lock and stops forever (pause());
 *                     the others must time out (SCOPEDSM_TIMEOUT) and say so;
 *   hang_at_barrier   the victim stops forever instead of arriving at a
 *                     barrier; the others must time out and say so;
 *   serial_phase      the victim computes alone for 4 s (a serial phase,
 *                     reading input, say) while the others wait at a
 *                     barrier; without SCOPEDSM_TIMEOUT everyone finishes,
 *                     with a shorter limit the wait ends naming who waits
 *                     for whom.
 * Deadlocks (every process of the job waits, and none can proceed), which
 * ScopeDSM must find without SCOPEDSM_TIMEOUT; with v the victim, w the
 * next rank and x the one after:
 *   deadlock_wait_lock  v holds lock 4 and calls jia_wait (allowed inside a
 *                     critical section); w waits for lock 4; x calls jia_wait;
 *   deadlock_locks    v holds lock 10 and waits for lock 11, which w holds
 *                     while it waits for lock 10; x waits at a barrier;
 *   deadlock_cv       v waits on condition variable 1, which nobody sets;
 *                     w and x wait at a barrier;
 *   deadlock_ring     rank r holds lock 20 + r and waits for lock
 *                     20 + (r + 1) % 3 (v only says when).
 * Controls, which show that the driver's checks can fail:
 *   no_failure        nobody fails: every process prints FINISHED, exit 0;
 *   leave_orphan      the victim forks a child that leaves the launcher's
 *                     reach (setsid) and lives on for 20 s, then raises
 *                     SIGKILL: the child is an orphan the driver must see;
 *   hang_forever      hang_in_lock, to be run with SCOPEDSM_TIMEOUT=0: the
 *                     job never ends by itself (a process that stops while
 *                     it holds a lock is not in a deadlock the runtime can
 *                     prove: it could go on).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "jia.h"

static void victim_says(const char *what) {
  printf("VICTIM rank %d: %s\n", jiapid, what);
  fflush(stdout);
}

static int finished(void) {
  jia_exit();
  printf("FINISHED rank %d\n", jiapid);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: failure_victim <case> <victim-rank> <tag>\n");
    return 2;
  }
  const char *c = argv[1];
  const int victim = atoi(argv[2]);
  jia_init(argc, argv);
  printf("PID %d %ld\n", jiapid, (long)getpid());
  fflush(stdout);
  const int np = jiahosts;
  /* 16 pages homed at every rank in turn (4 pages each for 4 ranks). */
  long *a = (long *)jia_alloc3(16 * 4096, 4096, 0);
  const int words = 16 * 4096 / (int)sizeof(long);
  jia_barrier();

  if (!strcmp(c, "kill_compute")) {
    for (int it = 0; it < 2000; ++it) {
      for (int i = jiapid; i < words; i += np) a[i] += it;
      long sum = 0;
      for (int i = 0; i < words; i += 97) sum += a[i]; /* reads pages homed everywhere */
      if (sum == -1) printf("unlikely\n");
      if (jiapid == victim && it == 25) {
        victim_says("raising SIGKILL during compute");
        raise(SIGKILL);
      }
      if (it % 10 == 9) jia_barrier();
    }
    return finished();
  }
  if (!strcmp(c, "kill_in_lock") || !strcmp(c, "kill_in_own_lock")) {
    const int lock = !strcmp(c, "kill_in_lock") ? (victim + 1) % np : victim;
    for (int it = 0; it < 200000; ++it) {
      jia_lock(lock);
      a[0] += 1;
      if (jiapid == victim && it == 30) {
        victim_says("raising SIGKILL while holding the lock");
        raise(SIGKILL);
      }
      jia_unlock(lock);
    }
    return finished();
  }
  if (!strcmp(c, "kill_at_barrier")) {
    for (int it = 0; it < 50; ++it) {
      a[jiapid] = it;
      if (jiapid == victim && it == 5) {
        usleep(200000); /* the others are at the barrier by now */
        victim_says("raising SIGKILL instead of arriving at the barrier");
        raise(SIGKILL);
      }
      jia_barrier();
    }
    return finished();
  }
  if (!strcmp(c, "return_early") || !strcmp(c, "exit_early")) {
    for (int it = 0; it < 50; ++it) {
      a[jiapid] = it;
      if (jiapid == victim && it == 5) {
        if (!strcmp(c, "return_early")) {
          victim_says("returning from main without jia_exit");
          return 0;
        }
        victim_says("calling exit(0) without jia_exit");
        exit(0);
      }
      jia_barrier();
    }
    return finished();
  }
  if (!strcmp(c, "no_failure")) {
    a[jiapid] = 1;
    jia_barrier();
    if (jiapid == victim) victim_says("not failing at all");
    return finished();
  }
  if (!strcmp(c, "leave_orphan")) {
    jia_barrier();
    if (jiapid == victim) {
      pid_t child = fork();
      if (child == 0) {
        setsid();
        sleep(20);
        _exit(0);
      }
      printf("PID %d %ld\n", jiapid, (long)child);
      victim_says("leaving a child behind and raising SIGKILL");
      raise(SIGKILL);
    }
    jia_barrier();
    return finished();
  }
  if (!strcmp(c, "hang_at_barrier")) {
    a[jiapid] = 1;
    if (jiapid == victim) {
      victim_says("stopping forever instead of arriving at the barrier");
      for (;;) pause();
    }
    jia_barrier();
    return finished();
  }
  if (!strcmp(c, "serial_phase")) {
    if (jiapid == victim) {
      victim_says("computing alone for 4 s while the others wait at the barrier");
      const double until = jia_clock() + 4.0;
      long sum = 0;
      while (jia_clock() < until) {
        for (int i = 0; i < words; i += 512) sum += a[i]; /* pages homed everywhere */
        a[jiapid] = sum;
        usleep(20000);
      }
    }
    jia_barrier();
    return finished();
  }
  if (!strcmp(c, "deadlock_wait_lock")) {
    const int w = (victim + 1) % np;
    if (jiapid == victim) {
      jia_lock(4);
      jia_setcv(0); /* w asks for the lock only once v holds it */
      victim_says("holding lock 4 in jia_wait while rank w waits for lock 4");
      jia_wait();
    } else if (jiapid == w) {
      jia_waitcv(0);
      jia_lock(4);
      jia_unlock(4);
      jia_wait();
    } else {
      jia_wait();
    }
    return finished();
  }
  if (!strcmp(c, "deadlock_locks")) {
    const int w = (victim + 1) % np;
    if (jiapid == victim) jia_lock(10);
    if (jiapid == w) jia_lock(11);
    jia_wait(); /* inside the critical sections: both locks are held after it */
    if (jiapid == victim) {
      victim_says("holding lock 10 and waiting for lock 11");
      jia_lock(11);
    } else if (jiapid == w) {
      jia_lock(10);
    } else {
      jia_barrier();
    }
    return finished();
  }
  if (!strcmp(c, "deadlock_ring")) {
    jia_lock(20 + jiapid);
    jia_wait(); /* inside the critical sections: every lock is held after it */
    if (jiapid == victim) victim_says("holding lock 20 + v in a ring of three locks");
    jia_lock(20 + (jiapid + 1) % np);
    return finished();
  }
  if (!strcmp(c, "deadlock_cv")) {
    if (jiapid == victim) {
      victim_says("waiting on condition variable 1, which nobody sets");
      jia_waitcv(1);
    }
    jia_barrier();
    return finished();
  }
  if (!strcmp(c, "hang_in_lock") || !strcmp(c, "hang_forever")) {
    const int lock = (victim + 1) % np;
    jia_barrier();
    if (jiapid == victim) {
      jia_lock(lock);
      victim_says("holding the lock and stopping forever");
      for (;;) pause();
    }
    sleep(1); /* the victim holds the lock by now */
    jia_lock(lock);
    jia_unlock(lock);
    return finished();
  }
  fprintf(stderr, "failure_victim: unknown case %s\n", c);
  return 2;
}
