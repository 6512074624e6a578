// Local, single-process costs: a protection fault handled by mprotect, and
// a pure compute loop (for a home that is busy, not inside any library).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

// Times the read of a PROT_NONE page whose SIGSEGV handler makes it readable
// with one mprotect: the kernel's part of a ScopeDSM read fault. Installs a
// handler for the measurement only and restores the previous one (the
// runtime's). Returns microseconds per fault.
std::vector<double> segv_mprotect_cycles(size_t reps, size_t warmup);

// Times a memcpy of one page from a warm source into one of a few warm
// destination pages: what copying a page costs once the memory exists.
// Returns microseconds per copy.
std::vector<double> page_copies(size_t reps, size_t warmup);

// Arithmetic for about `ns` nanoseconds, touching no memory, making no
// system or library calls besides reading the clock. Returns a value to keep.
uint64_t compute_for_ns(uint64_t ns);

}  // namespace bench
