// The operations behind the entry points of every surface (C, C++, JIAJIA):
// each takes the ApiCall the program made (common/surface.h), so that its
// checks and the runtime's messages name that call in its surface's words.
// Defined in c_api.cc; the surfaces' files only name their calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <mpi.h>

#include "common/surface.h"

namespace scopedsm::api {

void init(int* argc, char*** argv, ApiCall call);
// init on the program's communicator (scopedsm_init_comm, Runtime::init_comm).
void init_comm(MPI_Comm comm, ApiCall call);
void finalize(ApiCall call);
int rank(ApiCall call);
int size(ApiCall call);
double time(ApiCall call);
void lock(ApiCall call, int id);
void unlock(ApiCall call, int id);
void barrier(ApiCall call);
void wait(ApiCall call);
void cv_set(ApiCall call, int cv);
void cv_reset(ApiCall call, int cv);
void cv_wait(ApiCall call, int cv);
// Collective: a next-touch point (Runtime::next_touch).
void next_touch(ApiCall call, const void* addr, std::size_t len);
// Checkpoints (runtime/checkpoint.h): the collective checkpoint, a
// private buffer saved with it, the checkpoint a restart continues (0: none).
void checkpoint(ApiCall call);
void checkpoint_register(ApiCall call, void* addr, std::size_t len);
long long restarted(ApiCall call);
// Hints: ignored unless the runtime is running (non-binding, never an error).
void prefetch(const void* addr, std::size_t len);
void release(const void* addr, std::size_t len, int priority, std::uint64_t tag);
// Collective allocations; `text` is the call with its arguments as the
// program wrote it, for reports.
void* alloc_default(ApiCall call, const std::string& text, std::size_t size);
void* alloc_cyclic(ApiCall call, const std::string& text, std::size_t size, std::size_t block, int start_rank);
void* alloc_first_touch(ApiCall call, const std::string& text, std::size_t size);
// DOALL loops (runtime/loop.h): [begin, end), half-open.
void loop_init(ApiCall call, long long begin, long long end, const char* schedule, const void* data,
               std::size_t stride);
bool loop_next(ApiCall call, long long* begin, long long* end);
// Task migration (runtime/task_migration.h): [begin, end), half-open;
// `inclusive` says the caller's surface writes [begin, end - 1].
bool lbarrier(ApiCall call, long long* begin, long long* end, bool inclusive);
void lbarrier_setup(ApiCall call, long long iterations, long long alpha, double beta);
// Atomics at the home and AMO synchronization (scopedsm.h); the arguments
// as the C API's, checked here. atomic returns the word's old bits.
uint64_t atomic(ApiCall call, void* addr, int type, int op, uint64_t operand, uint64_t expected, int order);
// atomic on values of `type` at the pointers (scopedsm_atomic's contract).
void atomic_values(ApiCall call, void* addr, int type, int op, const void* operand, const void* expected, void* old,
                   int order);
int64_t amo_inc(ApiCall call, int64_t* counter, int64_t test, int order);
void amo_wait(ApiCall call, int64_t* counter, int64_t value, int order);
void amo_barrier(ApiCall call, int64_t* counter, int order);
double amo_reduce_sum(ApiCall call, void* reduction, double value, int order);

}  // namespace scopedsm::api
