/*
 * jia.h - the JIAJIA 2.1-compatible surface of ScopeDSM.
 *
 * A program written for JIAJIA 2.1 compiles and runs unchanged against this
 * header (including K&R-style C). The calls keep JIAJIA's names, argument
 * order and return types; where JIAJIA 2.1 took `char *` for a buffer this
 * header takes `void *`, which accepts every argument the old one did.
 *
 * Semantics are ScopeDSM's, documented in docs/MEMORY_MODEL.md and
 * docs/PROTOCOL.md. Every call reports misuse (bad lock id, barrier inside a
 * critical section, use before jia_init, ...) with a message naming the call
 * and the rank, and the whole job exits non-zero.
 */
#ifndef SCOPEDSM_JIA_H
#define SCOPEDSM_JIA_H

#ifdef __cplusplus
extern "C" {
#endif

/* Process identity: jiapid is this process's rank, jiahosts the process count.
 * Both spellings of the released header are provided. */
extern int jia_pid;
extern int hostc;
#define jiapid jia_pid
#define jiahosts hostc

/* Limits. Lock ids are in [0, Maxlocks), condition variables in [0, Maxcondvs).
 * The runtime defines them once (src/common/limits.h) and checks at compile
 * time that these equal its values. */
#define Maxlocks 1024
#define Maxcondvs 64
#define Maxhosts 1024
/* JIAJIA's coherence unit, kept as a constant for old programs. The runtime's
 * unit is SCOPEDSM_UNIT_PAGES OS pages (scopedsm_page_size() returns its
 * bytes); blocks passed to jia_alloc3 are rounded up to it. */
#define Pagesize 4096

/* Start-up and shut-down. jia_init must come before every call but
 * jia_clock. jia_exit is collective and, as in JIAJIA 2.1 built by default,
 * returns to the program: it waits for every process, writes every write
 * home, prints the statistics (rank 0, to standard error, unless
 * SCOPEDSM_SUMMARY=off) and shuts ScopeDSM down (and MPI, if jia_init
 * started it). The program then goes on, without shared memory: touching it,
 * or calling jia_* (but jia_clock), is an error.
 *
 * A process may also end without jia_exit (return from main, or exit()), as
 * JIAJIA's own example programs do: ScopeDSM then makes the jia_exit at exit.
 * When every process ends so, or calls jia_exit, the job ends as it would
 * with jia_exit everywhere. A process that ends while another still waits for
 * it (in jia_barrier, jia_wait, an allocation) is an error naming both, and
 * so is ending while holding a lock, or exit() called from a thread other
 * than the one that called jia_init. A child the program forks is not a
 * process of the job: its exit() makes no jia_exit. */
void jia_init(int argc, char **argv);
void jia_exit(void);

/* Collective allocation: every process calls with the same arguments in the
 * same order and gets the same address. The address is returned as an
 * integer, as JIAJIA 2.1 did; cast it to the pointer type you need. Sizes and
 * blocks are rounded up to whole pages; a negative or zero size, a block that
 * is not positive and a size beyond what is left of the shared region are
 * fatal errors naming the call. Placement follows JIAJIA 2.1:
 *   jia_alloc3(size, block, start): homes cyclic over all processes in blocks
 *                                   of `block` bytes, starting at `start`.
 *   jia_alloc2(size, block) = jia_alloc3(size, block, 0)
 *   jia_alloc2p(size, proc) = jia_alloc3(size, size, proc): all homed on proc
 *   jia_alloc1(size)        = jia_alloc3(size, size, 0): all homed on 0
 *   jia_alloc(size)         = jia_alloc3(size, size, s) where s is 0 on the
 *                             first call and advances by one on each call.
 * So jia_alloc, jia_alloc1 and jia_alloc2p put a whole allocation on one
 * process, unlike scopedsm_alloc, which deals its pages one by one.
 * With SCOPEDSM_HOME_POLICY=first-touch, jia_alloc/jia_alloc1 place each page
 * at the process that touches it first; explicit placement calls are then an
 * error. docs/ALLOCATION.md compares every allocation call and says when to
 * use which. */
unsigned long jia_alloc3(int size, int block, int starthost);
unsigned long jia_alloc2(int size, int block);
unsigned long jia_alloc2p(int size, int proc);
unsigned long jia_alloc1(int size);
unsigned long jia_alloc(int size);

/* The arguments are ints, as in JIAJIA 2.1, so a size of 2 GiB or more
 * (600000000 * sizeof(double), say) would silently become another size.
 * Each call is therefore a macro that passes every argument's value, before
 * it becomes an int, to scopedsm_jia_int_arg: a value that does not fit an
 * int ends the job with one line naming the call, the argument and both
 * values ("jia_alloc: size 4800000000 does not fit its int argument ...").
 * The signatures are unchanged: (jia_alloc)(n), or the function's address,
 * reaches the plain function. The long double parameter holds every
 * integer argument's value exactly. */
int scopedsm_jia_int_arg(const char *call, const char *what, long double value);
#define jia_alloc3(size, block, starthost)                                      \
  jia_alloc3(scopedsm_jia_int_arg("jia_alloc3", "size", (size)),                \
             scopedsm_jia_int_arg("jia_alloc3", "block", (block)),              \
             scopedsm_jia_int_arg("jia_alloc3", "starthost", (starthost)))
#define jia_alloc2(size, block)                                                 \
  jia_alloc2(scopedsm_jia_int_arg("jia_alloc2", "size", (size)),                \
             scopedsm_jia_int_arg("jia_alloc2", "block", (block)))
#define jia_alloc2p(size, proc)                                                 \
  jia_alloc2p(scopedsm_jia_int_arg("jia_alloc2p", "size", (size)),              \
              scopedsm_jia_int_arg("jia_alloc2p", "proc", (proc)))
#define jia_alloc1(size) jia_alloc1(scopedsm_jia_int_arg("jia_alloc1", "size", (size)))
#define jia_alloc(size) jia_alloc(scopedsm_jia_int_arg("jia_alloc", "size", (size)))

/* Synchronization. */
void jia_lock(int lockid);
void jia_unlock(int lockid);
void jia_barrier(void);
void jia_wait(void);

/* Condition variables (ScopeDSM semantics, see docs/MEMORY_MODEL.md):
 * jia_setcv is a release and sets the flag; jia_waitcv blocks until the flag
 * is set and is then an acquire; jia_resetcv clears the flag. */
void jia_setcv(int cv);
void jia_resetcv(int cv);
void jia_waitcv(int cv);

/* Checkpoints, not in JIAJIA 2.1: scopedsm_checkpoint (see scopedsm.h)
 * under a JIAJIA-style name. Collective; a barrier. jia_checkpoint_register
 * and jia_restarted are scopedsm_checkpoint_register and scopedsm_restarted. */
void jia_checkpoint(void);
void jia_checkpoint_register(void *addr, long len);
long jia_restarted(void); /* long, not long long: jia.h stays C89 */

/* Re-homing on next touch, not in JIAJIA 2.1: scopedsm_next_touch (see
 * scopedsm.h) under a JIAJIA-style name. Collective. */
void jia_nexttouch(void *addr, long len);

/* Hints, not in JIAJIA 2.1 (ScopeDSM's scopedsm_prefetch and
 * scopedsm_release under JIAJIA-style names; see scopedsm.h): non-binding,
 * they never fault and never change a result. */
void jia_prefetch(void *addr, int len);
void jia_release(void *addr, int len, int priority);
/* jia_release with an explicit tag; the macro gives jia_release its call
 * site (file and line) as its tag, as scopedsm_release's does. */
void jia_release_tagged(void *addr, int len, int priority, unsigned long tag);
#ifndef SCOPEDSM_SITE_TAG /* as in scopedsm.h */
#ifdef __cplusplus
#define SCOPEDSM_SITE_TAG \
  (reinterpret_cast<unsigned long>(static_cast<const void *>(__FILE__)) ^ (static_cast<unsigned long>(__LINE__) << 48))
#else
#define SCOPEDSM_SITE_TAG ((unsigned long)(const void *)__FILE__ ^ ((unsigned long)__LINE__ << 48))
#endif
#endif
#define jia_release(addr, len, priority) jia_release_tagged((addr), (len), (priority), SCOPEDSM_SITE_TAG)

/* Utilities. jia_error prints a printf-style message and ends every process. */
void jia_error(const char *fmt, ...);
/* Seconds since the first call of jia_clock in this process (JIAJIA's
 * definition), wall-clock time; it may be called before jia_init. */
float jia_clock(void);
unsigned int jia_startstat(void);
unsigned int jia_stopstat(void);

/* Message passing. It moves bytes only: it is not a coherence point.
 * jia_recv returns the number of bytes received. frompid may be MSG_PROC_ALL
 * and tag may be MSG_TAG_ALL. */
#define MSG_PROC_ALL (-1)
#define MSG_TAG_ALL (-1)
void jia_send(void *buf, int len, int topid, int tag);
int jia_recv(void *buf, int len, int frompid, int tag);
void jia_bcast(void *buf, int len, int root);
/* op names both the element type and the operation. */
#define SUM_INT 0
#define MAX_INT 1
#define MIN_INT 2
#define SUM_FLOAT 3
#define MAX_FLOAT 4
#define MIN_FLOAT 5
#define SUM_DOUBLE 6
#define MAX_DOUBLE 7
#define MIN_DOUBLE 8
void jia_reduce(void *sendbuf, void *recvbuf, int count, int op, int root);

/* Optional features, switched at run time by each process for itself (make
 * the same call on every process; LOADBAL must match everywhere):
 *   HMIG     home migration at barriers (SCOPEDSM_HOME_MIGRATION, default OFF)
 *   ADWD     adaptive write detection (SCOPEDSM_WRITE_DETECT, default ON);
 *            OFF selects the fixed detection: every write trapped, or
 *            cache-only (CO-WD) if the job started with it, which ON
 *            cannot leave (docs/PROTOCOL.md section 6b)
 *   LOADBAL  jia_loadcheck measures and jia_divtask weights (default ON);
 *            OFF: jia_loadcheck does nothing, jia_divtask splits evenly
 *   BROADCAST the barrier's form (SCOPEDSM_BARRIER): ON (default) the
 *            dissemination barrier, log2 N rounds among the processes,
 *            which does what JIAJIA's tree broadcast did; OFF the central
 *            barrier at rank 0 (must match everywhere)
 *   WVEC     write vectors (SCOPEDSM_WRITE_VECTOR, default OFF): ON, a
 *            refetch by message of a stale copy brings only the blocks
 *            written since (docs/PROTOCOL.md section 6b) */
#ifndef ON
#define OFF 0
#define ON 1
#endif
#define HMIG 0
#define ADWD 1
#define BROADCAST 2
#define LOADBAL 3
#define WVEC 4
void jia_config(int key, int value);

/* Load balancing. jia_divtask narrows the inclusive
 * range [*begin, *end] (JIAJIA's convention: `for (i = begin; i <= end; i++)`)
 * to this process's part; the parts of all processes, in rank order, cover
 * the range exactly, and a part may be empty (*end == *begin - 1). Parts are
 * in proportion to each process's speed at the last jia_loadcheck (an even
 * split before the first one, or with jia_config(LOADBAL, OFF)). LOADBAL is
 * ON by default here, so that jia_loadcheck weighs the parts without a
 * jia_config call; a program that wants the even split every time says
 * jia_config(LOADBAL, OFF). jia_loadcheck is collective: each process measures
 * the seconds it computed since the previous jia_loadcheck (or its first
 * jia_divtask), less the time it waited in synchronization; speed is its
 * part over those seconds. */
void jia_divtask(int *begin, int *end);
void jia_loadcheck(void);

/* Task migration (the dissertation's chapter 6; docs/SCHEDULING.md). Each
 * process works on its inclusive part [*begin, *end] of one range of tasks
 * (the parts in rank order, one after the other; an empty part is
 * *end == *begin - 1) and ends every iteration with jia_lbarrier(&begin,
 * &end), a jia_barrier that every alpha calls measures each process's
 * compute time and, when sigma/E of the times exceeds beta, sets every
 * process's part anew in proportion to its power (tasks per second). The
 * two calls after a reassignment move, under SCOPEDSM_TASK_MIGRATION=data
 * (the default), the homes of the pages each process wrote alone to it
 * (HMIG for those barriers). jia_lbarrier_setup (not in JIAJIA; optional, collective)
 * names the program's iterations (alpha = iterations / 10), alpha (<= 0:
 * SCOPEDSM_TASK_MIGRATION_ALPHA) and beta (< 0: the setting, default 0.2). */
void jia_lbarrier(int *begin, int *end);
void jia_lbarrier_setup(int iterations, int alpha, double beta);

/* Loop scheduling (the dissertation's Fig 5.1; docs/SCHEDULING.md).
 * jia_settask starts a loop over the inclusive range [begin, end]; it is
 * collective (same arguments everywhere) and ends with a barrier. schedule
 * is NULL for SCOPEDSM_SCHEDULE or a schedule text ("gss", "abs,bss,16";
 * scopedsm.h, scopedsm_loop_init, lists them); data and stride, if data is
 * not NULL, place iteration i's data at data + (i - begin) * stride, so that
 * afs, aafs and abs start each process with the iterations homed at it.
 * jia_gettask sets [*begin, *end] to this process's next chunk and returns
 * 1, or returns 0 when no work is left (*end == *begin - 1):
 *   jia_settask(0, n - 1, NULL, NULL, 0);
 *   while (jia_gettask(&begin, &end))
 *     for (i = begin; i <= end; i++) ...;
 *   jia_barrier(); */
void jia_settask(int begin, int end, const char *schedule, const void *data, unsigned long stride);
int jia_gettask(int *begin, int *end);

/* Atomics at the home (not in JIAJIA 2.1; named after the AMO paper's
 * amo.fetchadd and amo.compswap). The int at addr (shared memory, aligned)
 * is changed at its home; the old value is returned. Relaxed: like a write,
 * the change reaches other processes' copies at the next barrier, or at the
 * next acquire of a lock whose critical section made it, but every call
 * sees every earlier one (docs/MEMORY_MODEL.md, "Atomics at the home"). */
int jia_fetchadd(int *addr, int value);
int jia_compswap(int *addr, int expected, int desired);

/* No-op hooks kept for source compatibility. */
#define jia_wtnt(a, b)
#define jia_wtntw(a)
#define jia_wtntd(a)
#define jia_errexit jia_error

/* ANL (SPLASH) macros mapped onto the calls above. */
extern int jia_lock_index;
#define LOCKDEC(x) int x;
#define LOCKINIT(x) (x) = (jia_lock_index++) % Maxlocks;
#define LOCK(x) jia_lock(x);
#define UNLOCK(x) jia_unlock(x);
#define ALOCKDEC(x, y) int x[y];
#define ALOCKINIT(x, y)                                   \
  {                                                       \
    int jia_alock_i_;                                     \
    for (jia_alock_i_ = 0; jia_alock_i_ < (y); jia_alock_i_++) \
      (x)[jia_alock_i_] = (jia_lock_index++) % Maxlocks;  \
  }
#define ALOCK(x, y) jia_lock((x)[y]);
#define AULOCK(x, y) jia_unlock((x)[y]);
#define BARDEC(x) int x;
#define BARINIT(x)
#define BARRIER(x, y) jia_barrier();
#define EXTERN_ENV
#define MAIN_ENV
#define MAIN_INITENV(x, y)
#define MAIN_END
#define WAIT_FOR_END(x) jia_barrier();
#define PAUSEDEC(x) int x;
#define PAUSEINIT(x)
#define PAUSE_POLL(x)
#define PAUSE_SET(x, y)
#define PAUSE_RESET(x)
#define PAUSE_ACCEPT(x)
#define GSDEC(x) int x;
#define GSINIT(x)
#define GETSUB(x, y, z, zz)
#define G_MALLOC(x) jia_alloc1((x));
#define CLOCK(x) x = jia_clock();

#ifdef __cplusplus
}
#endif

#endif /* SCOPEDSM_JIA_H */
