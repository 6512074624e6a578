// The time slice the kernel gives a thread (Linux's EEVDF scheduler).
//
// With more processes than cores, a request that needs another process's
// CPU (a lock hand-over, a page from a computing home) waits until the
// thread that serves it runs. On a woken thread the kernel decides by
// virtual deadlines: a thread that asked for a short slice has an earlier
// deadline, so it may preempt the thread computing on its core rather than
// wait out that thread's slice (1.4 ms on this project's 2-core machine:
// 0.7 ms x (1 + log2 of the CPUs)). Since Linux 6.12 a SCHED_OTHER thread
// asks for one with sched_setattr's sched_runtime, without privilege
// (SCOPEDSM_SERVICE_SLICE_US; Runtime's service thread). Measured on the
// project's machine it gains nothing (docs/PERFORMANCE.md, "Operations: where the time goes"), so it is off
// by default.
#pragma once

#include <cstdint>

namespace scopedsm {

// Asks for a slice of `ns` for the calling thread, keeping its policy and
// nice value. Returns 0, or the errno of the failure (ENOSYS, EINVAL on
// kernels before 6.12 or with `ns` outside the kernel's 100 µs to 100 ms).
int request_thread_slice(uint64_t ns);

}  // namespace scopedsm
