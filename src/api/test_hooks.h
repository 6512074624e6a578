// Test-only entry points of libscopedsm. Not part of the public API: the
// correctness test suites (tests/model, tests/difftest) use them to observe
// the order the runtime chose.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version (incarnation) of `lock` carried by this process's latest grant
 * of it. Versions increase by one per release, so the critical sections of
 * one lock, across all processes, are ordered by the version of their grant. */
uint64_t scopedsm_test_lock_version(int lock);

/* The compute seconds this process reports at its next jia_loadcheck,
 * instead of the measured ones: makes jia_divtask's division deterministic
 * for tests. */
void scopedsm_test_set_compute_time(double seconds);

/* From now on, a measuring jia_lbarrier (scopedsm_lbarrier) reports this
 * many seconds per task of this process's range as its compute time,
 * instead of the measured one (negative: measure again): a load that
 * follows the tasks, so that task migration's decisions are known in
 * advance in tests. */
void scopedsm_test_set_task_cost(double seconds);

/* Sets this process's communication-cost model (SCOPEDSM_NET syntax: "off"
 * or key=value pairs) from now on, for benchmarks that sweep its costs in
 * one run. Call it on every process, between barriers, while no message is
 * in flight; a malformed spec ends the job. With the model off at start-up,
 * the network lines stay per process even where node peers share memory. */
void scopedsm_test_set_net(const char* spec);

/* Switches this process's cache replacement policy (SCOPEDSM_CACHE_POLICY
 * syntax: "fifo" or "remote") from now on, for benchmarks that compare the
 * two in one run; the pages cached stay. Anything else ends the job. */
void scopedsm_test_set_cache_policy(const char* policy);

/* Test-only: while `hold` is non-zero, this process serves no request of
 * another (no page, no diff, no lock, no barrier round): they wait in MPI
 * until it is called again with 0. For tests that must show a call does not
 * wait for a home; call it between barriers, and release the hold before
 * anything that may wait for this process. */
void scopedsm_test_hold_requests(int hold);

/* Test-only: the protection boundaries of this process's view of the
 * shared region now (docs/PROTOCOL.md §7; each costs the kernel a mapping). */
uint64_t scopedsm_test_map_boundaries(void);

/* Test-only: the most protection boundaries this process allows itself
 * before it relieves map pressure by dropping clean cached copies, from now
 * on (0: the budget computed at start-up again), so that tests can make the
 * relief happen at a chosen access. Returns the budget it replaces. */
uint64_t scopedsm_test_set_map_budget(uint64_t boundaries);

/* Test-only: a barrier (as jia_barrier) that also carries rank 0's `len`
 * bytes at `buf` to every process (the barrier's broadcast, docs/PROTOCOL.md
 * §4): on the other ranks they are written to `buf` (which holds `len`
 * bytes). Returns the number of bytes this process received (rank 0: `len`). */
size_t scopedsm_test_barrier_broadcast(void* buf, size_t len);
// The barrier's node form (sync/node_meet.h): how many processes lead a
// node (every node's leader takes part in the rounds), and whether this
// process is one.
int scopedsm_test_barrier_leaders(int* is_leader);

#ifdef __cplusplus
}
#endif
