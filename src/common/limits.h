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

// The default number of lock ids (0 .. kMaxLocks - 1): JIAJIA's Maxlocks.
// SCOPEDSM_LOCKS raises it up to kMaxLockIds; locks are kept in hash maps
// by id (the client's versions, the managers' states), so only the locks a
// program uses take memory, whatever the limit. The limit stays as a check:
// an id past it is almost always a bug (an uninitialised variable, or an id
// passed by reference from Fortran), and would otherwise silently name a
// lock of its own, breaking mutual exclusion without a word.
inline constexpr int kMaxLocks = 1024;
// Locks the runtime keeps for itself, after the program's: ids L .. L +
// kReservedLocks - 1 where L is the program's limit (SCOPEDSM_LOCKS), which
// no API call accepts (loop scheduling's queue locks, runtime/loop.h: one
// per process and one more).
inline constexpr int kReservedLocks = 1025;
// SCOPEDSM_LOCKS at most: ids are ints, the reserved ones included.
inline constexpr int kMaxLockIds = 2147483647 - kReservedLocks;
inline constexpr int kMaxCondvars = 64;   // condition-variable ids are 0 .. kMaxCondvars - 1
// The most pages one fetch brings (SCOPEDSM_FETCH_PAGES, the GETP run field).
inline constexpr uint32_t kMaxFetchPages = 64;
// The most fetches a process keeps in flight at once (asynchronous prefetch,
// docs/PROTOCOL.md §2.6); each answers on a reply lane of its own, 1 to this
// (lane 0 is the synchronous fetch's), the GETP lane field.
inline constexpr uint32_t kMaxAsyncFetches = 32;

}  // namespace scopedsm
