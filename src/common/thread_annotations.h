// Thread contracts the compiler checks: clang's thread-safety analysis
// (-Wthread-safety; https://clang.llvm.org/docs/ThreadSafetyAnalysis.html).
//
// A mutex is a capability; a field it protects says so (GUARDED_BY, or
// PT_GUARDED_BY for what a pointer points to), and a function that needs
// it held says so (REQUIRES). Clang then rejects an access made without
// the capability; other compilers see nothing (the macros expand to
// nothing). tools/thread_safety.sh builds with clang and these warnings as
// errors (CMake option SCOPEDSM_THREAD_SAFETY; docs/ARCHITECTURE.md,
// "Thread contracts").
//
// Mutex and MutexLock below are std::mutex and std::lock_guard with the
// annotations; use them for any mutex whose contract should be checked.
#pragma once

#include <mutex>

#if defined(__clang__)
#define SCOPEDSM_TSA(x) __attribute__((x))
#else
#define SCOPEDSM_TSA(x)
#endif

// On a class: its objects are capabilities (`name` appears in the messages).
#define CAPABILITY(name) SCOPEDSM_TSA(capability(name))
// On an RAII class: acquires a capability in its constructor and releases
// it in its destructor.
#define SCOPED_CAPABILITY SCOPEDSM_TSA(scoped_lockable)
// On a field: read or written only with the capability held.
#define GUARDED_BY(x) SCOPEDSM_TSA(guarded_by(x))
// On a pointer field: what it points to is used only with the capability held.
#define PT_GUARDED_BY(x) SCOPEDSM_TSA(pt_guarded_by(x))
// On a function: the caller holds the capabilities (and still does after).
#define REQUIRES(...) SCOPEDSM_TSA(requires_capability(__VA_ARGS__))
// On a function: the caller does not hold them (it takes them itself).
#define EXCLUDES(...) SCOPEDSM_TSA(locks_excluded(__VA_ARGS__))
// On a function: it takes the capabilities (holds them on return) ...
#define ACQUIRE(...) SCOPEDSM_TSA(acquire_capability(__VA_ARGS__))
// ... or releases them (held on entry).
#define RELEASE(...) SCOPEDSM_TSA(release_capability(__VA_ARGS__))
// On a function: takes the capabilities if it returns `result`.
#define TRY_ACQUIRE(...) SCOPEDSM_TSA(try_acquire_capability(__VA_ARGS__))
// On a function: returns (a reference to) the capability `x`.
#define RETURN_CAPABILITY(x) SCOPEDSM_TSA(lock_returned(x))
// On a function the analysis cannot follow; use sparingly, with a comment.
#define NO_THREAD_SAFETY_ANALYSIS SCOPEDSM_TSA(no_thread_safety_analysis)

namespace scopedsm {

// std::mutex as a capability.
class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  std::mutex mu_;
};

// std::lock_guard for Mutex; `Adopt` takes over a Mutex already locked
// (after a successful try_lock).
class SCOPED_CAPABILITY MutexLock {
 public:
  struct Adopt {};
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->lock(); }
  MutexLock(Mutex* mu, Adopt) REQUIRES(mu) : mu_(mu) {}
  ~MutexLock() RELEASE() { mu_->unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace scopedsm
