// Test-only entry points of libscopedsm. Not part of the public API: the
// correctness test suites (tests/model, tests/difftest) use them to observe
// the order the runtime chose.
#pragma once

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

#ifdef __cplusplus
}
#endif
