// The C++ API's entry points into the library (declared in scopedsm.hpp):
// the operations of api/entry.h, named as the C++ program wrote them, so
// that a C++ program's errors read scopedsm::barrier, scopedsm::LockGuard
// and alloc_array<T>, never scopedsm_barrier.

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "api/entry.h"
#include "scopedsm.hpp"
#include "scopedsm_mpi.h"

using scopedsm::cxx_call;
namespace api = scopedsm::api;

extern "C" {

void scopedsm_cxx_init(int* argc, char*** argv) { api::init(argc, argv, cxx_call("scopedsm::Runtime")); }
void scopedsm_cxx_finalize(void) { api::finalize(cxx_call("scopedsm::Runtime::~Runtime")); }
void scopedsm_cxx_init_comm(MPI_Comm comm) { api::init_comm(comm, scopedsm::cxx_comm_call("scopedsm::init")); }
void scopedsm_cxx_finalize_comm(void) { api::finalize(scopedsm::cxx_comm_call("scopedsm::finalize")); }
int scopedsm_cxx_rank(void) { return api::rank(cxx_call("scopedsm::rank")); }
int scopedsm_cxx_size(void) { return api::size(cxx_call("scopedsm::size")); }
double scopedsm_cxx_time(void) { return api::time(cxx_call("scopedsm::time")); }
void scopedsm_cxx_barrier(void) { api::barrier(cxx_call("scopedsm::barrier")); }
void scopedsm_cxx_next_touch(const void* addr, size_t len) {
  api::next_touch(cxx_call("scopedsm::next_touch"), addr, len);
}
void scopedsm_cxx_checkpoint(void) { api::checkpoint(cxx_call("scopedsm::checkpoint")); }
void scopedsm_cxx_checkpoint_register(void* addr, size_t len) {
  api::checkpoint_register(cxx_call("scopedsm::checkpoint_register"), addr, len);
}
long long scopedsm_cxx_restarted(void) { return api::restarted(cxx_call("scopedsm::restarted")); }
void scopedsm_cxx_wait(void) { api::wait(cxx_call("scopedsm::wait")); }
void scopedsm_cxx_lock(int id) { api::lock(cxx_call("scopedsm::LockGuard"), id); }
void scopedsm_cxx_unlock(int id) { api::unlock(cxx_call("scopedsm::LockGuard::~LockGuard"), id); }

void scopedsm_cxx_loop_init(long long begin, long long end, const char* schedule, const void* data, size_t stride) {
  api::loop_init(cxx_call("scopedsm::parallel_for"), begin, end, schedule, data, stride);
}
int scopedsm_cxx_loop_next(long long* begin, long long* end) {
  return api::loop_next(cxx_call("scopedsm::parallel_for"), begin, end) ? 1 : 0;
}
void scopedsm_cxx_lbarrier_setup(long long iterations, long long alpha, double beta) {
  api::lbarrier_setup(cxx_call("scopedsm::lbarrier_setup"), iterations, alpha, beta);
}
int scopedsm_cxx_lbarrier(long long* begin, long long* end) {
  return api::lbarrier(cxx_call("scopedsm::lbarrier"), begin, end, false) ? 1 : 0;
}

void* scopedsm_cxx_alloc(size_t bytes, size_t count, const char* type, int type_length, int placement,
                         size_t block_bytes, int start_rank) {
  const scopedsm::ApiCall call = cxx_call("scopedsm::alloc_array");
  char text[256];
  const int n = std::snprintf(text, sizeof text, "alloc_array<%.*s>(n=%zu", type_length, type, count);
  const size_t used = n < 0 ? 0 : std::min(static_cast<size_t>(n), sizeof text - 1);
  if (placement == SCOPEDSM_HOME_CYCLIC) {
    std::snprintf(text + used, sizeof text - used, ", Cyclic{%zu, %d})", block_bytes, start_rank);
    return api::alloc_cyclic(call, text, bytes, block_bytes, start_rank);
  }
  if (placement == SCOPEDSM_HOME_ON_RANK) {
    std::snprintf(text + used, sizeof text - used, ", OnRank{%d})", start_rank);
    return api::alloc_cyclic(call, text, bytes, bytes, start_rank);
  }
  if (placement == SCOPEDSM_HOME_FIRST_TOUCH) {
    std::snprintf(text + used, sizeof text - used, ", FirstTouch{})");
    return api::alloc_first_touch(call, text, bytes);
  }
  std::snprintf(text + used, sizeof text - used, ")");
  return api::alloc_default(call, text, bytes);
}

void scopedsm_cxx_atomic(void* addr, int type, int op, const void* operand, const void* expected, void* old,
                         int order) {
  // The C++ function the program called, for errors.
  static const char* const names[] = {"scopedsm::fetch_add", "scopedsm::exchange", "scopedsm::compare_exchange",
                                      "scopedsm::fetch_and", "scopedsm::fetch_or", "scopedsm::fetch_xor",
                                      "scopedsm::fetch_min", "scopedsm::fetch_max", "scopedsm::load"};
  const bool known = op >= 0 && op < static_cast<int>(sizeof names / sizeof names[0]);
  api::atomic_values(cxx_call(known ? names[op] : "scopedsm::detail::atomic_op"), addr, type, op, operand, expected,
                     old, order);
}

void scopedsm_cxx_amo_barrier(int64_t* counter, int order) {
  api::amo_barrier(cxx_call("scopedsm::amo_barrier"), counter, order);
}

double scopedsm_cxx_amo_reduce_sum(scopedsm_amo_reduction* r, double value, int order) {
  return api::amo_reduce_sum(cxx_call("scopedsm::amo_reduce_sum"), r, value, order);
}

}  // extern "C"
