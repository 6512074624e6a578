// The words of each public surface, for messages.
//
// A program calls ScopeDSM through one of five surfaces: the C API
// (scopedsm.h), the C++ API (scopedsm.hpp), the JIAJIA API (jia.h), its
// Fortran 77 form (jiaf.h) or the Fortran module (scopedsm.mod). Each
// names the same operations differently (scopedsm_lock, scopedsm::LockGuard,
// jia_lock), and a message must speak the program's language: a C program
// never reads jia_lock, a JIAJIA program never reads scopedsm_init, a
// Fortran 77 one is told to call jiaf_init, not jia_init.
//
// So every entry point passes an ApiCall down: its surface and its own name
// as the program wrote it. The runtime phrases each message about that call
// from the call's name and its surface's words below, never from a name of
// its own. Messages that concern no call (a fault, the exit check, the
// rendezvous manager naming what other processes called) use the surface
// that initialized the process.
#pragma once

#include <string>
#include <vector>

#include "common/limits.h"

namespace scopedsm {

struct Surface {
  // Calls, as the program writes them.
  const char* init;      // initializes ScopeDSM
  const char* finalize;  // shuts it down
  const char* barrier;
  const char* wait;   // the rendezvous without coherence actions
  const char* alloc;  // the plain allocation
  const char* lock;   // acquires a lock
  // Phrases.
  const char* before_init;        // "before <init>"
  const char* after_finalize;     // "after <finalize>"
  const char* init_once;          // how to initialize exactly once
  const char* exit_without_finalize;  // "without <finalizing>"
  const char* exit_advice;            // what to do when others still wait for a process that ended so
  const char* critical_section;   // "between <lock> and <unlock>"
  const char* lock_limit;         // what names the number of lock ids
  const char* cv_limit;           // what names the number of condition variables
  const char* larger_blocks;      // how to place homes in larger blocks
  // Fortran 77 passes ids by value only when told to (%val): an id out of
  // range is then most likely an address, and the report says how to pass it.
  bool ids_by_value = false;
};

inline constexpr Surface kCSurface{
    "scopedsm_init",
    "scopedsm_finalize",
    "scopedsm_barrier",
    "scopedsm_wait",
    "scopedsm_alloc",
    "scopedsm_lock",
    "before scopedsm_init",
    "after scopedsm_finalize",
    "call scopedsm_init exactly once per process",
    "without calling scopedsm_finalize",
    "call scopedsm_finalize before the process ends, or let every process end without it at the same point",
    "between scopedsm_lock and scopedsm_unlock",
    "scopedsm_num_locks()",
    "scopedsm_num_condvars()",
    "scopedsm_alloc_cyclic with a bigger block",
};

inline constexpr Surface kCxxSurface{
    "scopedsm::Runtime",
    "scopedsm::Runtime::~Runtime",
    "scopedsm::barrier",
    "scopedsm::wait",
    "scopedsm::alloc_array",
    "scopedsm::LockGuard",
    "before a scopedsm::Runtime was constructed",
    "after the scopedsm::Runtime was destroyed",
    "construct exactly one scopedsm::Runtime per process",
    "without destroying its scopedsm::Runtime",
    "keep the Runtime in main and return from main (exit() skips its destructor), or let every process end "
    "without destroying it at the same point",
    "while a scopedsm::LockGuard holds a lock",
    "scopedsm::num_locks()",
    "scopedsm_num_condvars()",  // the C++ API has no condition variables of its own
    "alloc_array with scopedsm::Cyclic{a bigger block}",
};

inline constexpr Surface kJiaSurface{
    "jia_init",
    "jia_exit",
    "jia_barrier",
    "jia_wait",
    "jia_alloc",
    "jia_lock",
    "before jia_init",
    "after jia_exit",
    "call jia_init exactly once per process",
    "without calling jia_exit",
    "call jia_exit before the process ends, or let every process end without it at the same point",
    "between jia_lock and jia_unlock",
    "Maxlocks",
    "Maxcondvs",
    "jia_alloc3 with a bigger block, or jia_alloc2p",
};

// The C++ API inside an MPI program (scopedsm_mpi.h): scopedsm::init(comm)
// and scopedsm::finalize() in place of the Runtime object, the rest the
// C++ API's.
inline constexpr Surface kCxxCommSurface = [] {
  Surface s = kCxxSurface;
  s.init = "scopedsm::init";
  s.finalize = "scopedsm::finalize";
  s.before_init = "before scopedsm::init";
  s.after_finalize = "after scopedsm::finalize";
  s.init_once = "call scopedsm::init exactly once per process";
  s.exit_without_finalize = "without calling scopedsm::finalize";
  s.exit_advice = "call scopedsm::finalize before the process ends, or let every process end without it at the same point";
  return s;
}();

// The JIAJIA calls from Fortran 77 (jiaf.h, api/fortran_api.cc): JIAJIA's
// words, with jiaf_init in place of jia_init, and integer arguments passed
// by value (%val).
inline constexpr Surface kJiafSurface = [] {
  Surface s = kJiaSurface;
  s.init = "jiaf_init";
  s.before_init = "before jiaf_init";
  s.init_once = "call jiaf_init exactly once per process";
  s.ids_by_value = true;
  return s;
}();

// The Fortran module `scopedsm` (src/api/scopedsm.f90): the C API's words,
// as Fortran procedures, but its allocation takes its block as an argument.
inline constexpr Surface kFortranSurface = [] {
  Surface s = kCSurface;
  s.larger_blocks = "scopedsm_alloc with a bigger block= argument";
  return s;
}();

// An OpenMP program (omp/, docs/OPENMP.md): the runtime starts before main
// and ends with the program; its synchronization is OpenMP's constructs,
// named as the program wrote them (`omp barrier`, `omp critical`,
// `omp_set_lock`).
inline constexpr Surface kOmpSurface{
    "the OpenMP runtime's start (before main)",
    "the end of the program",
    "omp barrier",
    "omp barrier",
    "malloc",
    "omp critical",
    "before the OpenMP runtime started",
    "after the program ended",
    "build the program with scopedsm-cc -fopenmp (the runtime starts by itself)",
    "",
    "end the program on the master thread, outside parallel regions",
    "inside a critical section or while holding an OpenMP lock",
    "the number of OpenMP locks and named critical sections (SCOPEDSM_LOCKS)",
    "the OpenMP runtime's condition variables",
    "a larger allocation",
};

// The rule a mismatch of collective calls breaks, in the surface's words.
inline std::string same_collective_calls(const Surface& s) {
  return std::string("every process must make the same collective calls (") + s.barrier + ", allocations, " + s.wait +
         ", " + s.finalize + ") in the same order with the same arguments";
}

// A process that ends (returns from main or calls exit()) while ScopeDSM is
// still initialized shuts it down implicitly, at exit: a collective call
// that matches the surface's shutdown call (`jia_exit` and the implicit one
// meet at the same rendezvous), so a job whose processes all end that way
// ends cleanly. This is that call's description at the rendezvous.
std::string implicit_exit_call(const Surface& s);
// Whether `call` is the implicit shutdown of implicit_exit_call.
bool is_implicit_exit(const std::string& call);
// Whether two descriptions of collective calls name the same call: equal,
// or each a shutdown of the same surface, implicit or explicit.
bool same_collective_call(const std::string& a, const std::string& b);
// The report when a process ended without shutting down while another
// still waits for it in a collective call: `who` is "the process" when the
// ending process reports it, "rank 3" when rank 0's rendezvous does.
std::string exit_while_waited_error(const Surface& s, const std::string& who, int waiting_rank,
                                    const std::string& waiting_call);

// One call of the program: the surface it came through and its name there
// ("scopedsm_lock", "scopedsm::LockGuard", "jia_lock").
struct ApiCall {
  const Surface* surface;
  const char* name;
};

inline constexpr ApiCall c_call(const char* name) { return ApiCall{&kCSurface, name}; }
inline constexpr ApiCall cxx_call(const char* name) { return ApiCall{&kCxxSurface, name}; }
inline constexpr ApiCall cxx_comm_call(const char* name) { return ApiCall{&kCxxCommSurface, name}; }
inline constexpr ApiCall jia_call(const char* name) { return ApiCall{&kJiaSurface, name}; }
inline constexpr ApiCall jiaf_call(const char* name) { return ApiCall{&kJiafSurface, name}; }
inline constexpr ApiCall fortran_call(const char* name) { return ApiCall{&kFortranSurface, name}; }
inline constexpr ApiCall omp_call(const char* name) { return ApiCall{&kOmpSurface, name}; }

// The misuse reports both builds give, the runtime (libscopedsm) and the
// sequential library (libscopedsm_seq), so that they say the same thing in
// the same words. Each begins with the call's name. (surface.cc, in the
// scopedsm_plan library both link.)
std::string lock_id_error(ApiCall call, int lock, int locks = kMaxLocks);  // "scopedsm_lock(1024): lock id out of range; ..."
std::string cv_id_error(ApiCall call, int cv);
std::string before_init_error(ApiCall call);        // "jia_lock: called before jia_init; ..."
std::string after_finalize_error(ApiCall call);
std::string init_again_error(ApiCall call, bool shut_down);
// `held` describes the locks held, as describe_locks_held words it.
std::string barrier_in_lock_error(ApiCall call, const std::string& held);
std::string relock_error(ApiCall call, int lock, const std::string& held);
std::string unlock_unheld_error(ApiCall call, int lock, const std::string& held);
std::string unlock_not_innermost_error(ApiCall call, int lock, const std::string& held);
std::string finalize_in_lock_error(ApiCall call, const std::string& held);

// "locks held (outermost first): 3 1", or "no locks held".
std::string describe_locks_held(const std::vector<int>& outermost_first);

// JIAJIA's allocation calls take int arguments, as JIAJIA 2.1's did; jia.h
// passes each argument's value, before it becomes an int, through
// scopedsm_jia_int_arg (both libraries define it). Returns the value as an
// int, or, when it does not fit one, sets *error to the report in JIAJIA's
// words: "jia_alloc: size 4800000000 does not fit its int argument
// (-2147483648 to 2147483647), and converted to one it is 505032704; one
// JIAJIA allocation holds at most 2147483647 bytes: split the data into
// several". `what` is the parameter's name in jia.h (size, block,
// starthost, proc).
int jia_int_arg(const char* call, const char* what, long double value, std::string* error);

}  // namespace scopedsm
