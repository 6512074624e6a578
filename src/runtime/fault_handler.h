// The SIGSEGV handler.
//
// Faults inside the shared region go to the runtime's callback. Every other
// fault goes to whatever handler was installed before ours (the
// application's own, chained), or, if there was none, gets the default
// action back: the process dies with a core dump as it would without
// ScopeDSM.
#pragma once

#include <cstdint>

#include "protocol/coherence.h"

namespace scopedsm {

// Returns true if it handled the fault at `addr`.
using RegionFaultCallback = bool (*)(void* addr, Access access);

void install_fault_handler(RegionFaultCallback callback);

// Whether a fault was a read or a write, from the signal context. The one
// architecture-specific piece; kUnknown where the hardware does not say.
Access fault_access(void* ucontext);

// Measures the cost of taking one SIGSEGV and returning from it (without
// the mprotect the handler does), in nanoseconds. Needs the handler installed.
double calibrate_fault_cost();

}  // namespace scopedsm
