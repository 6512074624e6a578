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

// How the homes of an allocation are placed.
struct Cyclic {
  std::size_t block_bytes;
  int start_rank = 0;
};
struct FirstTouch {};

// Collective, typed allocation of `count` zero-filled objects. T must be trivially copyable: its bytes move between processes.
template <typename T>
T* alloc_array(std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(scopedsm_alloc(count * sizeof(T)));
}
template <typename T>
T* alloc_array(std::size_t count, Cyclic placement) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(scopedsm_alloc_cyclic(count * sizeof(T), placement.block_bytes, placement.start_rank));
}
template <typename T>
T* alloc_array(std::size_t count, FirstTouch) {
  static_assert(std::is_trivially_copyable_v<T>, "shared objects must be trivially copyable");
  return static_cast<T*>(scopedsm_alloc_first_touch(count * sizeof(T)));
}
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
