// The SIGSEGV handler.
//
// Faults inside the shared region go to the runtime's callback. Every other
// fault goes to whatever handler was installed before ours (the
// application's own, chained), or, if there was none, gets the default
// action back: the process dies with a core dump as it would without
// ScopeDSM.
//
// Contract of the region callback (Runtime::on_region_fault, then
// Coherence::handle_fault), which runs inside this signal handler:
//
// What it may do. Everything the application thread may do outside a
// handler: call MPI, allocate, take the runtime's mutexes (the transport's
// outbox and mailbox, the service's serve mutex), and wait for replies.
// While it waits it also serves other processes' requests
// (Transport::wait_until runs the idle work, Service::serve_pending): the
// fault handler re-enters the request dispatcher, on purpose, so that a
// process that faults still answers its peers.
//
// Why that is safe:
//  1. Only the application thread's faults are handled; a fault from any
//     other thread is reported as an error before anything else happens.
//  2. A region fault is raised only by an access through the application's
//     view of the region. The runtime never touches that view: it reads and
//     writes page contents through its alias view and its node peers'
//     views, which are always accessible. So the fault never interrupts the
//     runtime itself (no runtime mutex is held, no runtime MPI call or
//     allocation is in progress on this thread).
//  3. The application itself is not inside MPI or malloc either, unless it
//     hands an invalid shared page to a library or the kernel. The
//     runtime's own calls that do so (jia_send, jia_recv and the other
//     message-passing calls) copy through private buffers, and the calls
//     src/interpose stands in for (system calls, stdio, MPI) make the range
//     valid first (runtime/shared_access.h), which faults nothing; for any
//     other library call a program makes it valid with scopedsm_prepare
//     (README, "Shared memory and system calls").
//  4. Serving inside the handler cannot fault again or wait: request
//     handlers use only the alias view and never wait for another process
//     (docs/PROTOCOL.md, "Deadlock freedom"), and Service's serve mutex is
//     tried, never waited for.
//  5. errno is saved and restored around the callback.
#pragma once

#include <signal.h>

#include <cstdint>

#include "protocol/coherence.h"

namespace scopedsm {

// Returns true if it handled the fault at `addr`.
using RegionFaultCallback = bool (*)(void* addr, Access access);

void install_fault_handler(RegionFaultCallback callback);

// A program that sets its own SIGSEGV handler once ours is in place (an
// OpenMP program's sigaction and signal come here: omp/program_abi.cc)
// does not replace ours: chain_segv_handler makes `act` the handler that
// faults outside the shared region go to, and returns the one before in
// `old`, as sigaction would. reinstall_fault_handler puts ours back over a
// handler a library set behind our back (libgfortran's), chaining that one.
bool fault_handler_installed();
void chain_segv_handler(const struct sigaction* act, struct sigaction* old);
void reinstall_fault_handler();

// What a fault outside the shared space is told against: the region
// [region_begin, region_end) and the first `allocated` bytes of it that
// allocations hold. A fault that the callback does not take and that goes
// to the default action or to the MPI library's handler (its backtrace)
// first writes one line, at most once per process, saying that the program touched an
// address outside the shared space, with the rank (from the log) and the
// allocated range; then the process crashes as it would without ScopeDSM.
// Faults passed to a handler of the program's write no line, since that
// handler may take the fault and go on: the one in place when
// remember_program_segv_handler was called (at init, before MPI starts;
// a sanitizer's counts as the program's) or one set through
// chain_segv_handler.
void remember_program_segv_handler();
// The line is written without allocation or stdio. A region_begin of null
// (before init, after finalize) writes no line.
void set_shared_extent(const void* region_begin, const void* region_end, uint64_t allocated);

// Whether this thread is inside the region callback (the OpenMP runtime's
// allocator keeps the runtime's own allocations out of the shared heap).
bool in_region_fault();

// Whether a fault was a read or a write, from the signal context. The one
// architecture-specific piece; kUnknown where the hardware does not say.
Access fault_access(void* ucontext);

// Measures the cost of taking one SIGSEGV and returning from it (without
// the mprotect the handler does), in nanoseconds. Needs the handler installed.
double calibrate_fault_cost();

}  // namespace scopedsm
