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
// Semantics are those of the C API (docs/MEMORY_MODEL.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "scopedsm.h"

namespace scopedsm {

// Initializes ScopeDSM for its lifetime; finalizes when destroyed.
class Runtime {
 public:
  Runtime(int& argc, char**& argv) { scopedsm_init(&argc, &argv); }
  ~Runtime() {
    if (scopedsm_initialized()) scopedsm_finalize();
  }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
};

inline int rank() { return scopedsm_rank(); }
inline int size() { return scopedsm_size(); }
inline void barrier() { scopedsm_barrier(); }
inline void wait() { scopedsm_wait(); }
inline double time() { return scopedsm_time(); }

// How the homes of an allocation are placed (see alloc_array below).
struct Cyclic {
  std::size_t block_bytes;
  int start_rank = 0;
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
// start_rank}, scopedsm_alloc_cyclic; with FirstTouch{},
// scopedsm_alloc_first_touch. Each allocation takes whole pages.
template <typename T>
T* alloc_array(std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(scopedsm_alloc(detail::checked_array_bytes(count, sizeof(T), SCOPEDSM_SIGNATURE_)));
}
template <typename T>
T* alloc_array(std::size_t count, Cyclic placement) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(scopedsm_alloc_cyclic(detail::checked_array_bytes(count, sizeof(T), SCOPEDSM_SIGNATURE_),
                                               placement.block_bytes, placement.start_rank));
}
template <typename T>
T* alloc_array(std::size_t count, FirstTouch) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  const std::size_t bytes = detail::checked_array_bytes(count, sizeof(T), SCOPEDSM_SIGNATURE_);
  return static_cast<T*>(scopedsm_alloc_first_touch(bytes));
}
#undef SCOPEDSM_SIGNATURE_

// One shared object, zero-filled.
template <typename T>
T* alloc_one() {
  return alloc_array<T>(1);
}

// Holds lock `id` for its lifetime.
class LockGuard {
 public:
  explicit LockGuard(int id) : id_(id) { scopedsm_lock(id_); }
  ~LockGuard() { scopedsm_unlock(id_); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  int id_;
};

}  // namespace scopedsm
