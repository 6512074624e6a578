// scopedsm.hpp - the C++ API of ScopeDSM, a thin layer over scopedsm.h.
//
//   int main(int argc, char** argv) {
//     scopedsm::Runtime dsm(argc, argv);              // init ... finalize
//     double* a = scopedsm::alloc_array<double>(n);   // collective, typed
//     {
//       scopedsm::LockGuard guard(3);                 // lock 3, RAII
//       a[0] += 1;
//     }
//     scopedsm::barrier();
//   }
//
// Semantics are those of the C API (docs/MEMORY_MODEL.md). Errors name the
// C++ calls the program made (scopedsm::barrier, scopedsm::LockGuard,
// alloc_array<T>); calls of the C API made from C++ are named as C calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#if __has_include(<source_location>)
#include <source_location>
#endif

#include "scopedsm.h"

// The C++ API's entry points into libscopedsm: the C API's operations under
// the C++ names, for its errors. Not for programs: call the functions below.
extern "C" {
void scopedsm_cxx_init(int* argc, char*** argv);
void scopedsm_cxx_finalize(void);
int scopedsm_cxx_rank(void);
int scopedsm_cxx_size(void);
double scopedsm_cxx_time(void);
void scopedsm_cxx_barrier(void);
void scopedsm_cxx_next_touch(const void* addr, size_t len);
void scopedsm_cxx_wait(void);
void scopedsm_cxx_checkpoint(void);
void scopedsm_cxx_checkpoint_register(void* addr, size_t len);
long long scopedsm_cxx_restarted(void);
void scopedsm_cxx_lock(int id);
void scopedsm_cxx_unlock(int id);
// `bytes` for `count` objects of the type named by the first `type_length`
// characters of `type`; placement is a scopedsm_home_policy.
void scopedsm_cxx_loop_init(long long begin, long long end, const char* schedule, const void* data,
                            std::size_t stride);
int scopedsm_cxx_loop_next(long long* begin, long long* end);
void scopedsm_cxx_lbarrier_setup(long long iterations, long long alpha, double beta);
int scopedsm_cxx_lbarrier(long long* begin, long long* end);
void* scopedsm_cxx_alloc(std::size_t bytes, std::size_t count, const char* type, int type_length, int placement,
                         std::size_t block_bytes, int start_rank);
// scopedsm_atomic and the AMO calls under the C++ names.
void scopedsm_cxx_atomic(void* addr, int type, int op, const void* operand, const void* expected, void* old,
                         int order);
void scopedsm_cxx_amo_barrier(std::int64_t* counter, int order);
double scopedsm_cxx_amo_reduce_sum(scopedsm_amo_reduction* r, double value, int order);
}

namespace scopedsm {

// Initializes ScopeDSM for its lifetime; finalizes when destroyed. A process
// that ends without destroying it (exit()) finalizes at exit, as a C program
// that returns without scopedsm_finalize does (scopedsm.h).
class Runtime {
 public:
  Runtime(int& argc, char**& argv) { scopedsm_cxx_init(&argc, &argv); }
  ~Runtime() {
    if (scopedsm_initialized()) scopedsm_cxx_finalize();
  }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
};

inline int rank() { return scopedsm_cxx_rank(); }
inline int size() { return scopedsm_cxx_size(); }
inline void barrier() { scopedsm_cxx_barrier(); }
inline void wait() { scopedsm_cxx_wait(); }
inline double time() { return scopedsm_cxx_time(); }
// Re-homing on next touch (scopedsm_next_touch in scopedsm.h): the pages of
// [addr, addr + len) bytes. Collective.
inline void next_touch(const void* addr, std::size_t len) { scopedsm_cxx_next_touch(addr, len); }

// Checkpoints (scopedsm_checkpoint in scopedsm.h): a collective checkpoint
// of the shared space and the registered buffers; a buffer saved with every
// checkpoint (restored by this call on a restart: register it after giving
// it its initial value); the checkpoint a restart continues, 0 on a fresh start.
inline void checkpoint() { scopedsm_cxx_checkpoint(); }
inline void checkpoint_register(void* addr, std::size_t len) { scopedsm_cxx_checkpoint_register(addr, len); }
template <typename T>
inline void checkpoint_register(T& object) {
  static_assert(std::is_trivially_copyable_v<T>, "checkpoint_register saves the object's bytes");
  scopedsm_cxx_checkpoint_register(&object, sizeof object);
}
inline long long restarted() { return scopedsm_cxx_restarted(); }

// Hints (scopedsm_prefetch and scopedsm_release in scopedsm.h): non-binding.
// release's call site is its tag (the lag-by-one filter): the line and
// column of the call, unless `tag` names one.
inline void prefetch(const void* addr, std::size_t len) { scopedsm_prefetch(addr, len); }
#if defined(__cpp_lib_source_location)
inline void release(const void* addr, std::size_t len, int priority = 0,
                    std::source_location site = std::source_location::current()) {
  unsigned long tag = 1469598103934665603ul;
  for (const char* c = site.file_name(); *c != '\0'; ++c) tag = (tag ^ static_cast<unsigned char>(*c)) * 1099511628211ul;
  tag ^= (static_cast<unsigned long>(site.line()) << 16) ^ site.column();
  scopedsm_release_tagged(addr, len, priority, tag);
}
#endif
inline void release_tagged(const void* addr, std::size_t len, int priority, unsigned long tag) {
  scopedsm_release_tagged(addr, len, priority, tag);
}
// Number of lock ids: valid ids are [0, num_locks()).
inline int num_locks() { return scopedsm_num_locks(); }

// How the homes of an allocation are placed (see alloc_array below; which to
// use when: scopedsm.h and docs/ALLOCATION.md). An allocation that names a
// placement always gets it; SCOPEDSM_HOME_POLICY applies only to those that
// name none.
struct Cyclic {  // block-cyclic: blocks of block_bytes dealt round-robin from start_rank
  std::size_t block_bytes;
  int start_rank = 0;
};
using BlockCyclic = Cyclic;
struct OnRank {  // every page on one rank
  int rank = 0;
};
struct FirstTouch {};

namespace detail {

// The bytes of an array of n elements of elem_size bytes, or false when no
// object can be that large: n * elem_size wraps, or exceeds PTRDIFF_MAX (the
// difference of two pointers into one object must fit ptrdiff_t). A negative
// count converted to size_t, alloc_array<double>(-1), lands there; passed
// on, its wrapped byte count would look like an ordinary size.
constexpr bool array_bytes(std::size_t n, std::size_t elem_size, std::size_t* bytes) {
  std::size_t b = 0;
#if defined(__GNUC__)
  if (__builtin_mul_overflow(n, elem_size, &b)) return false;
#else
  if (elem_size != 0 && n > SIZE_MAX / elem_size) return false;
  b = n * elem_size;
#endif
  if (b > static_cast<std::size_t>(PTRDIFF_MAX)) return false;
  *bytes = b;
  return true;
}

// T's name in `signature`, the __PRETTY_FUNCTION__ of an alloc_array<T>:
// GCC writes "... [with T = double; std::size_t = ...]", clang "... [T =
// double]". For error messages only; "T" if the form is unknown.
inline void type_in_signature(const char* signature, const char** name, int* length) {
  *name = "T";
  *length = 1;
  const char* start = std::strstr(signature, "T = ");
  if (start == nullptr) return;
  start += 4;
  const char* end = std::strchr(start, ';');
  if (end == nullptr) end = std::strrchr(start, ']');
  if (end == nullptr) return;
  *name = start;
  *length = static_cast<int>(end - start);
}

// array_bytes, or a fatal error naming the call the program made.
inline std::size_t checked_array_bytes(std::size_t n, std::size_t elem_size, const char* signature) {
  std::size_t bytes = 0;
  if (array_bytes(n, elem_size, &bytes)) return bytes;
  const char* name = nullptr;
  int length = 0;
  type_in_signature(signature, &name, &length);
  if (n > static_cast<std::size_t>(PTRDIFF_MAX))
    scopedsm_fatal("alloc_array<%.*s>(n=%zu): n is %td as a signed number: a negative count converted to size_t",
                   length, name, n, static_cast<std::ptrdiff_t>(n));
  scopedsm_fatal("alloc_array<%.*s>(n=%zu): n * sizeof(T) = n * %zu bytes is more than any object can hold (%td bytes)",
                 length, name, n, elem_size, static_cast<std::ptrdiff_t>(PTRDIFF_MAX));
}

// Allocates the array, the call named as alloc_array<T>(n, ...) in errors.
inline void* alloc_array_bytes(std::size_t count, std::size_t elem_size, const char* signature, int placement,
                               std::size_t block_bytes, int start_rank) {
  const std::size_t bytes = checked_array_bytes(count, elem_size, signature);
  const char* type = nullptr;
  int length = 0;
  type_in_signature(signature, &type, &length);
  return scopedsm_cxx_alloc(bytes, count, type, length, placement, block_bytes, start_rank);
}

}  // namespace detail

#if defined(__GNUC__)
#define SCOPEDSM_SIGNATURE_ __PRETTY_FUNCTION__
#else
#define SCOPEDSM_SIGNATURE_ ""
#endif

// Collective, typed allocation of `count` zero-filled objects. T must be
// trivially copyable: its bytes move between processes. A count whose bytes
// overflow, or a negative count converted to size_t, is a fatal error naming
// alloc_array<T>(n), reported before anything is allocated.
// Placement (docs/ALLOCATION.md): alloc_array<T>(n) and alloc_one<T>() are
// scopedsm_alloc (page-cyclic from rank 0 in every allocation, or first
// touch under SCOPEDSM_HOME_POLICY=first-touch); with Cyclic{block_bytes,
// start_rank} (or BlockCyclic{...}), scopedsm_alloc_cyclic; with OnRank{r},
// scopedsm_alloc_on; with FirstTouch{},
// scopedsm_alloc_first_touch. Each allocation takes whole pages.
template <typename T>
T* alloc_array(std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(
      detail::alloc_array_bytes(count, sizeof(T), SCOPEDSM_SIGNATURE_, SCOPEDSM_HOME_DEFAULT, 0, 0));
}
template <typename T>
T* alloc_array(std::size_t count, Cyclic placement) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(detail::alloc_array_bytes(count, sizeof(T), SCOPEDSM_SIGNATURE_, SCOPEDSM_HOME_CYCLIC,
                                                   placement.block_bytes, placement.start_rank));
}
template <typename T>
T* alloc_array(std::size_t count, OnRank placement) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(detail::alloc_array_bytes(count, sizeof(T), SCOPEDSM_SIGNATURE_, SCOPEDSM_HOME_ON_RANK, 0,
                                                   placement.rank));
}
template <typename T>
T* alloc_array(std::size_t count, FirstTouch) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(
      detail::alloc_array_bytes(count, sizeof(T), SCOPEDSM_SIGNATURE_, SCOPEDSM_HOME_FIRST_TOUCH, 0, 0));
}
#undef SCOPEDSM_SIGNATURE_

// One shared object, zero-filled.
template <typename T>
T* alloc_one() {
  return alloc_array<T>(1);
}
// One shared object placed as `placement` says (Cyclic, OnRank, FirstTouch).
template <typename T, typename Placement>
T* alloc_one(Placement placement) {
  return alloc_array<T>(1, placement);
}

// Atomics at the home (scopedsm.h and docs/MEMORY_MODEL.md, "Atomics at the
// home", say what they do and what each memory order adds): T is int32_t,
// uint32_t, int64_t, uint64_t, float or double, at an aligned address of
// shared memory. Each returns the value before the operation.
enum class MemoryOrder {
  relaxed = SCOPEDSM_RELAXED,
  acquire = SCOPEDSM_ACQUIRE,
  release = SCOPEDSM_RELEASE,
  acq_rel = SCOPEDSM_ACQ_REL,
  seq_cst = SCOPEDSM_SEQ_CST
};

namespace detail {
template <typename T>
constexpr int atomic_type_of() {
  if constexpr (std::is_same_v<T, std::int32_t>) return SCOPEDSM_INT32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return SCOPEDSM_UINT32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return SCOPEDSM_INT64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return SCOPEDSM_UINT64;
  else if constexpr (std::is_same_v<T, float>) return SCOPEDSM_FLOAT;
  else {
    static_assert(std::is_same_v<T, double>, "atomics at the home take int32_t, uint32_t, int64_t, uint64_t, float, double");
    return SCOPEDSM_DOUBLE;
  }
}
template <typename T>
T atomic_op(T* p, int op, T v, const void* expected, MemoryOrder o) {
  T old{};
  scopedsm_cxx_atomic(p, atomic_type_of<T>(), op, &v, expected, &old, static_cast<int>(o));
  return old;
}
}  // namespace detail

template <typename T>
T fetch_add(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) { return detail::atomic_op(p, SCOPEDSM_FETCH_ADD, v, nullptr, o); }
template <typename T>
T exchange(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) { return detail::atomic_op(p, SCOPEDSM_EXCHANGE, v, nullptr, o); }
template <typename T>
T fetch_min(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) { return detail::atomic_op(p, SCOPEDSM_FETCH_MIN, v, nullptr, o); }
template <typename T>
T fetch_max(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) { return detail::atomic_op(p, SCOPEDSM_FETCH_MAX, v, nullptr, o); }
template <typename T>
T fetch_and(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) {
  static_assert(std::is_integral_v<T>, "fetch_and takes integers");
  return detail::atomic_op(p, SCOPEDSM_FETCH_AND, v, nullptr, o);
}
template <typename T>
T fetch_or(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) {
  static_assert(std::is_integral_v<T>, "fetch_or takes integers");
  return detail::atomic_op(p, SCOPEDSM_FETCH_OR, v, nullptr, o);
}
template <typename T>
T fetch_xor(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) {
  static_assert(std::is_integral_v<T>, "fetch_xor takes integers");
  return detail::atomic_op(p, SCOPEDSM_FETCH_XOR, v, nullptr, o);
}
template <typename T>
T load(T* p, MemoryOrder o = MemoryOrder::seq_cst) { return detail::atomic_op(p, SCOPEDSM_LOAD, T{}, nullptr, o); }
template <typename T>
void store(T* p, T v, MemoryOrder o = MemoryOrder::seq_cst) { detail::atomic_op(p, SCOPEDSM_EXCHANGE, v, nullptr, o); }
// Stores `desired` if *p has the bits of `expected` and returns true; else
// returns false with the word's value in `expected` (as std::atomic does).
template <typename T>
bool compare_exchange(T* p, T& expected, T desired, MemoryOrder o = MemoryOrder::seq_cst) {
  const T old = detail::atomic_op(p, SCOPEDSM_COMPARE_EXCHANGE, desired, &expected, o);
  if (std::memcmp(&old, &expected, sizeof(T)) == 0) return true;
  expected = old;
  return false;
}

// AMO synchronization (scopedsm.h): a counting barrier on a shared int64_t
// counter, and a sum over all processes on a scopedsm_amo_reduction; by
// default both make every write before them visible after them.
inline void amo_barrier(std::int64_t* counter, MemoryOrder o = MemoryOrder::acq_rel) {
  scopedsm_cxx_amo_barrier(counter, static_cast<int>(o));
}
inline double amo_reduce_sum(scopedsm_amo_reduction* r, double value, MemoryOrder o = MemoryOrder::acq_rel) {
  return scopedsm_cxx_amo_reduce_sum(r, value, static_cast<int>(o));
}

// Task migration (scopedsm_lbarrier in scopedsm.h, docs/SCHEDULING.md): a
// barrier that may give this process a new part [begin, end) of the tasks;
// true when it did. lbarrier_setup: the program's iterations, alpha (<= 0:
// the setting) and beta (< 0: the setting); optional, collective.
inline bool lbarrier(long long& begin, long long& end) { return scopedsm_cxx_lbarrier(&begin, &end) != 0; }
inline void lbarrier_setup(long long iterations, long long alpha = 0, double beta = -1) {
  scopedsm_cxx_lbarrier_setup(iterations, alpha, beta);
}

// A DOALL loop (scopedsm_loop_init in scopedsm.h, docs/SCHEDULING.md):
// collective; calls body(b, e) for each chunk [b, e) this process takes,
// until none is left. `schedule`: null for SCOPEDSM_SCHEDULE, or a schedule
// text ("gss", "abs,bss,16"). `data`: iteration begin's data, for the
// affinity schemes, with `stride` bytes per iteration.
template <typename Body>
void parallel_for_chunks(long long begin, long long end, Body&& body, const char* schedule = nullptr,
                         const void* data = nullptr, std::size_t stride = 0) {
  scopedsm_cxx_loop_init(begin, end, schedule, data, stride);
  long long b = 0, e = 0;
  while (scopedsm_cxx_loop_next(&b, &e)) body(b, e);
}
// The same, calling body(i) for each iteration i. With data of type T at
// `data`, one element per iteration: parallel_for(0, n, body, "abs", a).
template <typename Body>
void parallel_for(long long begin, long long end, Body&& body, const char* schedule = nullptr) {
  parallel_for_chunks(begin, end, [&body](long long b, long long e) {
    for (long long i = b; i < e; ++i) body(i);
  }, schedule);
}
template <typename Body, typename T>
void parallel_for(long long begin, long long end, Body&& body, const char* schedule, const T* data) {
  parallel_for_chunks(begin, end, [&body](long long b, long long e) {
    for (long long i = b; i < e; ++i) body(i);
  }, schedule, data, sizeof(T));
}

// Holds lock `id` for its lifetime.
class LockGuard {
 public:
  explicit LockGuard(int id) : id_(id) { scopedsm_cxx_lock(id_); }
  ~LockGuard() { scopedsm_cxx_unlock(id_); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  int id_;
};

}  // namespace scopedsm
