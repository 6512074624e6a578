// How many locks and condition variables a job has, and how many pages one
// fetch may bring: the one definition.
//
// include/jia.h keeps JIAJIA's public names for them, Maxlocks and Maxcondvs,
// as literal macros (C programs size arrays with them, and a public header
// cannot include this one); src/sync/sync_client.cc, which checks the ids
// programs pass, asserts at compile time that they equal these.
#pragma once

#include <cstdint>

namespace scopedsm {

inline constexpr int kMaxLocks = 1024;    // lock ids are 0 .. kMaxLocks - 1
// Locks the runtime keeps for itself, after the program's: ids kMaxLocks ..
// kMaxLocks + kReservedLocks - 1, which no API call accepts (loop
// scheduling's queue locks, runtime/loop.h: one per process and one more).
inline constexpr int kReservedLocks = 1025;
inline constexpr int kMaxCondvars = 64;   // condition-variable ids are 0 .. kMaxCondvars - 1
// The most pages one fetch brings (SCOPEDSM_FETCH_PAGES, the GETP run field).
inline constexpr uint32_t kMaxFetchPages = 64;

}  // namespace scopedsm
