/*
 * scopedsm.h - the C API of ScopeDSM.
 *
 * ScopeDSM runs one SPMD program as many processes (launched by mpirun, srun
 * or `scopedsm run`) that share one address space. Shared memory is coherent
 * under scope consistency: what a process wrote inside a critical section of
 * lock L is visible to the next process that acquires L; everything written
 * before a barrier is visible to everyone after it. docs/MEMORY_MODEL.md is
 * the full contract.
 *
 * Every call below is made by one application thread per process. Misuse
 * (bad ids, unlocking a lock not held, a barrier inside a critical section,
 * calls before init or after finalize, mismatched collective calls) prints a
 * message naming the call and the rank, and the whole job exits non-zero.
 */
#ifndef SCOPEDSM_H
#define SCOPEDSM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lifetime. scopedsm_init initializes MPI if the program has not, reserves
 * the shared region at the same address in every process and starts the
 * service thread. It is collective. scopedsm_finalize is collective too:
 * it waits for every process, prints the statistics summary on rank 0,
 * writes the JSON statistics if configured, and finalizes MPI if init did;
 * then it returns to the program. A process that ends (returns from main,
 * calls exit()) without it finalizes at exit: when every process ends so,
 * the job ends as cleanly; one that ends while another still waits for it in
 * a collective call is an error naming both. */
void scopedsm_init(int *argc, char ***argv);
void scopedsm_finalize(void);
int scopedsm_initialized(void);

int scopedsm_rank(void);
int scopedsm_size(void);
/* The coherence unit in bytes: SCOPEDSM_UNIT_PAGES OS pages (default 1). */
size_t scopedsm_page_size(void);
/* Number of lock ids: valid ids are [0, scopedsm_num_locks()): JIAJIA's
 * Maxlocks (1024) unless SCOPEDSM_LOCKS says otherwise. */
int scopedsm_num_locks(void);
int scopedsm_num_condvars(void);

/* Collective allocation. Every process calls with the same arguments in the
 * same order and receives the same address; a mismatch is reported. Memory
 * is zero-filled. Each allocation starts on a fresh page. Sizes and blocks
 * are rounded up to whole pages. Where the homes of the pages go (N
 * processes, page p of the allocation; docs/ALLOCATION.md has the table for
 * every call of every surface, and when to use which):
 *   scopedsm_alloc              rank p mod N: page by page from rank 0, in
 *                               every allocation afresh; first touch under
 *                               SCOPEDSM_HOME_POLICY=first-touch
 *   scopedsm_alloc_cyclic       block-cyclic: blocks of `block` bytes dealt
 *                               round-robin from start_rank
 *   scopedsm_alloc_on           the whole allocation on `rank`
 *   scopedsm_alloc_first_touch  the first process to touch each page
 * SCOPEDSM_HOME_POLICY applies only to scopedsm_alloc, which names no
 * placement; a call that names one always gets it.
 * When to use which: scopedsm_alloc_cyclic(size, size / N, 0) when each
 * process writes its own contiguous share (rows of a grid), or a smaller
 * block when shares interleave in blocks (block-cyclic matrix codes);
 * scopedsm_alloc_on for data one process writes and others read (a queue,
 * a result) or a few shared counters and atomic words, spread over ranks
 * by separate calls; scopedsm_alloc_first_touch when the writer of each
 * page is known only when the data is first initialized in parallel.
 * A size of zero, a size or block that does not round up to whole pages in
 * 64 bits (such as a negative number converted to size_t), a size beyond what is
 * left of the shared region (SCOPEDSM_REGION_SIZE) or past its first 2^32
 * pages, and a start rank that is not a rank are fatal errors naming the
 * call; a block larger than the size puts the whole allocation at
 * start_rank. */
/* Names of the placements above (no C call takes one as an argument;
 * scopedsm.hpp passes one to its own entry point). */
typedef enum {
  SCOPEDSM_HOME_DEFAULT = 0,     /* scopedsm_alloc: page-cyclic from rank 0, or first touch by SCOPEDSM_HOME_POLICY */
  SCOPEDSM_HOME_CYCLIC = 1,      /* scopedsm_alloc_cyclic: blocks of `block` bytes from start_rank */
  SCOPEDSM_HOME_FIRST_TOUCH = 2, /* scopedsm_alloc_first_touch: each page homed where first touched */
  SCOPEDSM_HOME_ON_RANK = 3      /* scopedsm_alloc_on: every page on one rank */
} scopedsm_home_policy;
void *scopedsm_alloc(size_t size);
void *scopedsm_alloc_cyclic(size_t size, size_t block, int start_rank);
void *scopedsm_alloc_first_touch(size_t size);
void *scopedsm_alloc_on(size_t size, int rank);
/* The rank that is the home of the page holding addr, or -1 if this process
 * does not know it yet: a first-touch page that nobody has touched, or that
 * only other processes have touched and this one has not accessed since.
 * With home migration on (SCOPEDSM_HOME_MIGRATION) the answer may change at
 * a barrier. addr must be allocated shared memory. */
int scopedsm_home_of(const void *addr);
/* Non-zero if addr lies in the shared region (allocated or not). */
int scopedsm_is_shared(const void *addr);

/* Synchronization. */
void scopedsm_lock(int lock_id);
void scopedsm_unlock(int lock_id);
void scopedsm_barrier(void);
/* A rendezvous of all processes with no coherence action. */
void scopedsm_wait(void);
void scopedsm_cv_set(int cv);
void scopedsm_cv_reset(int cv);
void scopedsm_cv_wait(int cv);

/* Checkpoints and restart (docs/RELIABILITY.md, "Checkpoints").
 * scopedsm_checkpoint is collective and a barrier: after it, every process
 * saves the pages homed at it and the buffers registered with
 * scopedsm_checkpoint_register into a new generation under
 * SCOPEDSM_CHECKPOINT_DIR (default: <program>.checkpoint in the current
 * directory), which becomes current once every process has written it.
 * After the first, a checkpoint writes only the pages changed since the last.
 * A job started with SCOPEDSM_RESTART=DIR (scopedsm run --restart DIR), with
 * the same number of processes, starts from the last complete checkpoint in
 * DIR: scopedsm_init loads it (or ends the job naming a missing, truncated or
 * damaged file), the program's allocations, made again in the same order,
 * hold what they held, and scopedsm_restarted() returns the checkpoint's
 * sequence number (1, 2, ...; 0 on a fresh start) so that the program can
 * skip to where it was. scopedsm_checkpoint_register(addr, len) saves the
 * private bytes [addr, addr+len) with every checkpoint; on a restart the
 * n-th registration restores what the n-th saved (register after giving the
 * variable its initial value). Not saved: other private memory, open files,
 * MPI state. Inside a critical section it is an error, as a barrier is. */
void scopedsm_checkpoint(void);
void scopedsm_checkpoint_register(void *addr, size_t len);
long long scopedsm_restarted(void);

/* DOALL loops (docs/SCHEDULING.md). The processes share out the iterations
 * [begin, end) in chunks, each asking for its next chunk until none is left:
 *
 *   scopedsm_loop_init(0, n, NULL, a, sizeof a[0]);
 *   long long b, e;
 *   while (scopedsm_loop_next(&b, &e))
 *     for (long long i = b; i < e; i++) work(i);
 *   scopedsm_barrier();
 *
 * scopedsm_loop_init is collective: every process passes the same arguments
 * (a mismatch is reported), and it ends with a barrier. schedule is NULL
 * for SCOPEDSM_SCHEDULE (default "static"), or a schedule in its form:
 * static, ss, bss[,K], gss, fs, tss[,first[,last]], afs[,k], sss[,alpha],
 * aafs[,k], abs[,gss[,k]] or abs,bss[,K]; a bad one is a fatal error.
 * data, if not NULL, is where iteration begin's data is, and each later
 * iteration's is stride bytes further: the affinity schemes (afs, aafs, abs)
 * then start each process with the iterations whose data it homes (NULL and
 * 0: even blocks in rank order). An empty range (end <= begin) is a loop
 * with nothing to hand out.
 * scopedsm_loop_next sets [*begin, *end) to this process's next chunk and
 * returns 1, or returns 0 when no iteration is left (*begin == *end == end).
 * Taking a chunk is a critical section of a lock of ScopeDSM's own (none
 * for static): it does not order the loop body's writes for others; end the
 * loop with a barrier before reading what other processes wrote. */
void scopedsm_loop_init(long long begin, long long end, const char *schedule, const void *data, size_t stride);
int scopedsm_loop_next(long long *begin, long long *end);

/* Task migration (jia_lbarrier in jia.h; docs/SCHEDULING.md, "Task
 * migration"). An iterative program gives each process a contiguous part
 * [*begin, *end) of one range of tasks, in rank order, and ends each
 * iteration with scopedsm_lbarrier(&begin, &end) instead of
 * scopedsm_barrier(): a barrier that every alpha calls also measures each
 * process's compute time and, when sigma/E of those times exceeds beta,
 * gives every process a new part in proportion to its power (tasks per
 * second). It returns 1 when this process's part changed. With
 * SCOPEDSM_TASK_MIGRATION=data (the default) the two calls after a
 * reassignment move the homes of the pages each process wrote alone to it.
 * scopedsm_lbarrier_setup is optional and collective (same arguments
 * everywhere): the program's number of iterations (alpha defaults to a
 * tenth of it), alpha (<= 0: SCOPEDSM_TASK_MIGRATION_ALPHA) and beta (< 0:
 * SCOPEDSM_TASK_MIGRATION_BETA, default 0.2); it starts the measurement. */
void scopedsm_lbarrier_setup(long long iterations, long long alpha, double beta);
int scopedsm_lbarrier(long long *begin, long long *end);

/* Atomics at the home (docs/MEMORY_MODEL.md, "Atomics at the home"). An
 * atomic operation on a 4- or 8-byte word of shared memory, aligned to its
 * size, is executed at the word's home, in the home's memory: by the caller
 * itself with the CPU's atomics when the home is this process or one on the
 * same node (SCOPEDSM_NODE_SHARING=on), otherwise by the home's server (one
 * request and one reply). All atomics on a word are linearizable, and each
 * process's atomics take effect in its program order. They return the
 * value the word held before.
 *
 * What a plain read of an atomically updated word returns: the home
 * process reads the home's memory, so the latest value; another process
 * reads its copy of the page, which shows its own atomics and the value the
 * home had when the copy was taken, and may stay stale until the copy is
 * dropped: at the next acquire that orders the atomic before it (a lock
 * whose critical section held the atomic, a barrier, an acquire-ordered
 * atomic). To wait for a word to change, read it with scopedsm_atomic_load,
 * not with plain reads. A plain write and an atomic to the same word
 * without synchronization between them is a race (the plain write reaches
 * the home with the writer's diff and may overwrite atomics made since);
 * diffs never carry a word the process only changed atomically.
 *
 * `order` adds coherence actions around the atomic:
 *   SCOPEDSM_RELAXED   none: only the word itself is atomic
 *   SCOPEDSM_RELEASE   before it, a release: every write of this process
 *                      reaches its home (as at an unlock)
 *   SCOPEDSM_ACQUIRE   after it, an acquire: every cached copy of a page
 *                      homed elsewhere is dropped, so later reads see every
 *                      write released before the atomics this one follows
 *   SCOPEDSM_ACQ_REL   both
 *   SCOPEDSM_SEQ_CST   both (atomics are already totally ordered) */
typedef enum {
  SCOPEDSM_RELAXED = 0,
  SCOPEDSM_ACQUIRE = 1,
  SCOPEDSM_RELEASE = 2,
  SCOPEDSM_ACQ_REL = 3,
  SCOPEDSM_SEQ_CST = 4
} scopedsm_memory_order;
typedef enum {
  SCOPEDSM_FETCH_ADD = 0,        /* integer or floating add */
  SCOPEDSM_EXCHANGE = 1,
  SCOPEDSM_COMPARE_EXCHANGE = 2, /* store operand if the word has the bits of *expected */
  SCOPEDSM_FETCH_AND = 3,        /* integers only */
  SCOPEDSM_FETCH_OR = 4,         /* integers only */
  SCOPEDSM_FETCH_XOR = 5,        /* integers only */
  SCOPEDSM_FETCH_MIN = 6,
  SCOPEDSM_FETCH_MAX = 7,
  SCOPEDSM_LOAD = 8              /* reads the home's value; changes nothing */
} scopedsm_atomic_op;
typedef enum {
  SCOPEDSM_INT32 = 0,
  SCOPEDSM_UINT32 = 1,
  SCOPEDSM_INT64 = 2,
  SCOPEDSM_UINT64 = 3,
  SCOPEDSM_FLOAT = 4,
  SCOPEDSM_DOUBLE = 5
} scopedsm_atomic_type;
/* The one entry point: `operand`, `expected` (compare_exchange only; NULL
 * otherwise) and `old` point to values of `type`. An address that is not
 * allocated shared memory, a word not aligned to its size, and a bitwise
 * operation on a floating type are fatal errors naming the call. */
void scopedsm_atomic(void *addr, scopedsm_atomic_type type, scopedsm_atomic_op op, const void *operand,
                     const void *expected, void *old, scopedsm_memory_order order);

/* Typed forms, for T in int32_t (_i32), uint32_t (_u32), int64_t (_i64),
 * uint64_t (_u64), float (_f32), double (_f64):
 *   T    scopedsm_atomic_fetch_add_i64(int64_t *p, int64_t v, scopedsm_memory_order o)
 *   T    ..._exchange_, ..._fetch_min_, ..._fetch_max_ (same arguments)
 *   T    scopedsm_atomic_load_i64(int64_t *p, o);  void scopedsm_atomic_store_i64(p, v, o)
 *   int  scopedsm_atomic_compare_exchange_i64(int64_t *p, int64_t *expected, int64_t desired, o):
 *        1 if it stored desired; else 0, and *expected gets the word's value
 *   T    ..._fetch_and_, ..._fetch_or_, ..._fetch_xor_ (integer types only) */
#define SCOPEDSM_ATOMIC_COMMON_(S, T, TY)                                                                  \
  static inline T scopedsm_atomic_op_##S(T *p, scopedsm_atomic_op op, T v, scopedsm_memory_order o) {     \
    T old;                                                                                                 \
    scopedsm_atomic(p, TY, op, &v, NULL, &old, o);                                                         \
    return old;                                                                                            \
  }                                                                                                        \
  static inline T scopedsm_atomic_fetch_add_##S(T *p, T v, scopedsm_memory_order o) {                     \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_FETCH_ADD, v, o);                                            \
  }                                                                                                        \
  static inline T scopedsm_atomic_exchange_##S(T *p, T v, scopedsm_memory_order o) {                      \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_EXCHANGE, v, o);                                             \
  }                                                                                                        \
  static inline T scopedsm_atomic_fetch_min_##S(T *p, T v, scopedsm_memory_order o) {                     \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_FETCH_MIN, v, o);                                            \
  }                                                                                                        \
  static inline T scopedsm_atomic_fetch_max_##S(T *p, T v, scopedsm_memory_order o) {                     \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_FETCH_MAX, v, o);                                            \
  }                                                                                                        \
  static inline T scopedsm_atomic_load_##S(T *p, scopedsm_memory_order o) {                               \
    T zero = 0;                                                                                            \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_LOAD, zero, o);                                              \
  }                                                                                                        \
  static inline void scopedsm_atomic_store_##S(T *p, T v, scopedsm_memory_order o) {                      \
    (void)scopedsm_atomic_op_##S(p, SCOPEDSM_EXCHANGE, v, o);                                              \
  }                                                                                                        \
  static inline int scopedsm_atomic_compare_exchange_##S(T *p, T *expected, T desired,                    \
                                                         scopedsm_memory_order o) {                        \
    T old;                                                                                                 \
    scopedsm_atomic(p, TY, SCOPEDSM_COMPARE_EXCHANGE, &desired, expected, &old, o);                        \
    if (memcmp(&old, expected, sizeof old) == 0) return 1;                                                 \
    *expected = old;                                                                                       \
    return 0;                                                                                              \
  }
#define SCOPEDSM_ATOMIC_BITS_(S, T)                                                                        \
  static inline T scopedsm_atomic_fetch_and_##S(T *p, T v, scopedsm_memory_order o) {                     \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_FETCH_AND, v, o);                                            \
  }                                                                                                        \
  static inline T scopedsm_atomic_fetch_or_##S(T *p, T v, scopedsm_memory_order o) {                      \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_FETCH_OR, v, o);                                             \
  }                                                                                                        \
  static inline T scopedsm_atomic_fetch_xor_##S(T *p, T v, scopedsm_memory_order o) {                     \
    return scopedsm_atomic_op_##S(p, SCOPEDSM_FETCH_XOR, v, o);                                            \
  }
SCOPEDSM_ATOMIC_COMMON_(i32, int32_t, SCOPEDSM_INT32)
SCOPEDSM_ATOMIC_COMMON_(u32, uint32_t, SCOPEDSM_UINT32)
SCOPEDSM_ATOMIC_COMMON_(i64, int64_t, SCOPEDSM_INT64)
SCOPEDSM_ATOMIC_COMMON_(u64, uint64_t, SCOPEDSM_UINT64)
SCOPEDSM_ATOMIC_COMMON_(f32, float, SCOPEDSM_FLOAT)
SCOPEDSM_ATOMIC_COMMON_(f64, double, SCOPEDSM_DOUBLE)
SCOPEDSM_ATOMIC_BITS_(i32, int32_t)
SCOPEDSM_ATOMIC_BITS_(u32, uint32_t)
SCOPEDSM_ATOMIC_BITS_(i64, int64_t)
SCOPEDSM_ATOMIC_BITS_(u64, uint64_t)
#undef SCOPEDSM_ATOMIC_COMMON_
#undef SCOPEDSM_ATOMIC_BITS_

/* AMO synchronization (the AMO paper's amo.inc with a test value;
 * docs/PROTOCOL.md §4b), on an int64_t counter in shared memory (best
 * alone on its page, allocated with scopedsm_alloc_on):
 *   scopedsm_amo_inc      adds 1 at the home and returns the old value; the
 *                         process whose increment makes the counter equal
 *                         `test` notifies every process, once
 *   scopedsm_amo_wait     returns once the counter was announced at `value`
 *                         or beyond (the test values given on one counter
 *                         must increase)
 *   scopedsm_amo_barrier  a counting barrier of all processes: amo_inc with
 *                         the next multiple of the number of processes as
 *                         the test value, then amo_wait for it. The counter
 *                         starts at a multiple of it (zero).
 *   scopedsm_amo_reduce_sum  every process's value summed, returned to all
 *                         (a barrier too); on a zero-filled
 *                         scopedsm_amo_reduction inside one page
 * `order`: an inc or arrival releases with SCOPEDSM_RELEASE, ACQ_REL or
 * SEQ_CST; a wait or departure acquires with ACQUIRE, ACQ_REL or SEQ_CST
 * (as scopedsm_atomic). With SCOPEDSM_ACQ_REL the barrier makes every write
 * before it visible after it, as scopedsm_barrier does, by dropping every
 * cached copy instead of exchanging write notices; with SCOPEDSM_RELAXED it
 * is only a rendezvous. None of them is a collective call of the runtime:
 * nothing checks that every process makes the same ones. */
int64_t scopedsm_amo_inc(int64_t *counter, int64_t test, scopedsm_memory_order order);
void scopedsm_amo_wait(int64_t *counter, int64_t value, scopedsm_memory_order order);
void scopedsm_amo_barrier(int64_t *counter, scopedsm_memory_order order);
typedef struct {
  int64_t count;
  double sum[2]; /* used by episodes in turn */
} scopedsm_amo_reduction;
double scopedsm_amo_reduce_sum(scopedsm_amo_reduction *r, double value, scopedsm_memory_order order);

/* Message passing between processes (bytes only, not a coherence point). */
void scopedsm_send(const void *buf, size_t len, int to_rank, int tag);
/* Returns the number of bytes received; from_rank and tag may be -1 (any). */
size_t scopedsm_recv(void *buf, size_t len, int from_rank, int tag);

/* Seconds since scopedsm_init. */
double scopedsm_time(void);

/* Statistics: counting covers the region between start and stop (the whole
 * run if never called). scopedsm_stats_json writes this process's counters
 * as a JSON object into buf (NUL-terminated, truncated to len) and returns
 * the length it needed. The counters move while the runtime works, so the
 * length can grow between two calls: call again with a larger buffer while
 * the result is >= len. */
void scopedsm_stats_start(void);
void scopedsm_stats_stop(void);
size_t scopedsm_stats_json(char *buf, size_t len);

/* The library version, e.g. "0.1.0". */
const char *scopedsm_version(void);
/* Describes the build (version, compiler, MPI library) and the configuration
 * that the SCOPEDSM_* environment variables select, one "key: value" per
 * line, without initializing anything. Writes at most len bytes including
 * the NUL; returns 0, or -1 if the configuration is invalid (the text then
 * says which variable and why). */
int scopedsm_describe(char *buf, size_t len);

/* Makes [addr, addr+len) of shared memory accessible (for writing if
 * for_write) without faults, as an access by this process now. Programs do
 * not need it for system calls (read, write, send, fread, ...) or the MPI
 * calls ScopeDSM stands in for: those prepare shared memory themselves
 * (docs/MEMORY_MODEL.md, "System calls and libraries on shared memory").
 * It serves a library or call that does not, such as one-sided MPI; the
 * range stays accessible until this process's next access to other shared
 * memory or synchronization call. At most SCOPEDSM_CACHE_PAGES pages homed
 * elsewhere at once. Addresses outside the shared region are ignored. */
void scopedsm_prepare(const void *addr, size_t len, int for_write);

/* Re-homing on next touch (docs/PROTOCOL.md §6c, docs/ALLOCATION.md).
 * Collective: every process calls it at the same point with the same range,
 * which must lie wholly in allocated shared memory, outside any critical
 * section; it acts as a barrier. Afterwards each page the range touches is
 * "next-touch pending": at the first barrier after another process touches
 * it (SCOPEDSM_NEXT_TOUCH_ON=touch, the default: its first read or write
 * fault; =write: only a write), the page's home moves to that process (a
 * lone writer first, else the lowest-ranked toucher), on every process alike,
 * with no extra message. A page written by its home or by several processes
 * in that interval keeps its home. For data laid out by one process (serial
 * initialisation) and then used by others. Counters next_touch_pages_marked
 * and next_touch_pages_rehomed. */
void scopedsm_next_touch(const void *addr, size_t len);

/* Hints (docs/PROTOCOL.md §2.6). Non-binding: a hint never faults, never
 * waits for another process's computation, never changes a result, and may
 * be dropped; ranges outside allocated shared memory are ignored.
 *
 * scopedsm_prefetch: the pages of [addr, addr+len) will be used soon.
 * Invalid pages homed elsewhere are fetched in runs (one request per run of
 * pages of one home) into free cache slots or slots of released pages;
 * out-of-core home pages (SCOPEDSM_HOME_BACKING=file:DIR) not in memory are
 * read ahead. Pages already valid cost no system call and no message. The
 * fetch of a run is synchronous in this version (the caller waits for it,
 * not for the home's computation).
 *
 * scopedsm_release: the pages wholly inside [addr, addr+len) will not be
 * used again soon; `priority` is how soon they might be (0 = not at all,
 * released first). Each call site's range is held until that site releases
 * again (lag by one), then given back at once (SCOPEDSM_RELEASE_POLICY=
 * aggressive) or buffered until room is needed (buffered, the default). A
 * cached copy gives back its slot (a written one sends its diff home
 * first); an out-of-core home page gives back its memory. The _tagged form
 * names the call site explicitly. */
void scopedsm_prefetch(const void *addr, size_t len);
void scopedsm_release(const void *addr, size_t len, int priority);
void scopedsm_release_tagged(const void *addr, size_t len, int priority, unsigned long tag);
/* A call site as a release tag: the address of its file's name and its line,
 * the same in every copy an unrolled or inlined loop makes of the call. The
 * macro below gives scopedsm_release its call site as its tag; the function
 * itself (called through a pointer, or as (scopedsm_release)(...)) uses its
 * return address, which loop unrolling splits into several sites. */
#ifndef SCOPEDSM_SITE_TAG /* also in jia.h */
#ifdef __cplusplus
#define SCOPEDSM_SITE_TAG \
  (reinterpret_cast<unsigned long>(static_cast<const void *>(__FILE__)) ^ (static_cast<unsigned long>(__LINE__) << 48))
#else
#define SCOPEDSM_SITE_TAG ((unsigned long)(const void *)__FILE__ ^ ((unsigned long)__LINE__ << 48))
#endif
#endif
#define scopedsm_release(addr, len, priority) scopedsm_release_tagged((addr), (len), (priority), SCOPEDSM_SITE_TAG)

/* Fatal error: prints "scopedsm: rank R: <message>" and ends every process
 * with a non-zero status. */
void scopedsm_fatal(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* SCOPEDSM_H */
