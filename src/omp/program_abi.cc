// What an OpenMP program's own code calls besides libgomp's ABI: the start
// (omp/start.c calls scopedsm_omp_boot and scopedsm_omp_run_main), the
// allocator (the program's malloc family, new and delete, which the link
// redirects here with --wrap: docs/OPENMP.md, "What is shared") and the
// atomics bridge of omp/atomic_abi.c.
#include <dlfcn.h>
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/log.h"
#include "omp/team.h"
#include "runtime/fault_handler.h"
#include "runtime/runtime.h"

using scopedsm::fatal;
using scopedsm::Runtime;
using scopedsm::omp::SharedHeap;
using scopedsm::omp::Team;

namespace {

// The process's application thread: only it may touch shared memory.
thread_local bool t_app = false;

SharedHeap* heap() {
  if (!t_app || !Team::booted() || !scopedsm::Runtime::running()) return nullptr;
  return Team::get().heap();
}

bool shared(const void* p) { return p != nullptr && Team::booted() && Team::get().contains(p); }

[[noreturn]] void full(const char* call, size_t bytes) {
  fatal("%s(%zu): the shared heap of this process is full (its arena is SCOPEDSM_REGION_SIZE divided among the "
        "processes, less the globals and the master's stack); raise SCOPEDSM_REGION_SIZE",
        call, bytes);
}

void* take(const char* call, size_t bytes, size_t align) {
  if (SharedHeap* h = heap()) {
    void* p = h->allocate(bytes, align);
    if (p == nullptr) full(call, bytes);
    return p;
  }
  return nullptr;
}

}  // namespace

namespace scopedsm::omp {
void free_shared(const char* call, void* p);
}

void scopedsm::omp::free_shared(const char* call, void* p) {
  SharedHeap* h = Team::get().heap();
  if (h == nullptr) return;  // the program's constructors, before main, on a process that does not run it
  switch (h->free(p)) {
    case SharedHeap::FreeResult::kFreed:
    case SharedHeap::FreeResult::kForeign: return;
    case SharedHeap::FreeResult::kDoubleFree:
      fatal("%s(%p): the block was freed already (double free)", call, p);
    case SharedHeap::FreeResult::kNotABlock:
      fatal("%s(%p): the address is not a block that malloc returned", call, p);
  }
}

extern "C" {

// --- start ---------------------------------------------------------------------

void scopedsm_omp_boot(int argc, char** argv, void* start, void* data_end, void* end, const void* text_start,
                       const void* text_end) {
  t_app = true;
  scopedsm::omp::set_program_text(text_start, text_end);
  Team::boot(argc, argv, static_cast<std::byte*>(start), static_cast<std::byte*>(data_end),
             static_cast<std::byte*>(end));
}

int scopedsm_omp_run_main(int argc, char** argv, char** envp, int (*main)(int, char**, char**)) {
  return Team::get().run_main(argc, argv, envp, main);
}

// --- the program's allocations ------------------------------------------------------

void* __wrap_malloc(size_t n) {
  if (void* p = take("malloc", n, 16)) return p;
  return std::malloc(n);
}

void* __wrap_calloc(size_t n, size_t size) {
  if (SharedHeap* h = heap()) {
    if (size != 0 && n > SIZE_MAX / size) {
      errno = ENOMEM;
      return nullptr;
    }
    void* p = h->allocate_zeroed(n, size);
    if (p == nullptr) full("calloc", n * size);
    return p;
  }
  return std::calloc(n, size);
}

void __wrap_free(void* p) {
  if (p == nullptr) return;
  if (!shared(p)) {
    std::free(p);
    return;
  }
  if (!Runtime::running()) return;  // the program's exit handlers, after the runtime ended
  scopedsm::omp::free_shared("free", p);
}

void* __wrap_realloc(void* p, size_t n) {
  if (p == nullptr) return __wrap_malloc(n);
  if (!shared(p)) return std::realloc(p, n);
  if (n == 0) {
    __wrap_free(p);
    return nullptr;
  }
  const size_t have = SharedHeap::capacity(p);
  if (n <= have) return p;
  void* q = take("realloc", n, 16);
  if (q == nullptr) q = std::malloc(n);  // not the application thread, or the runtime has ended
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, have);
  __wrap_free(p);
  return q;
}

void* __wrap_reallocarray(void* p, size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) {
    errno = ENOMEM;
    return nullptr;
  }
  return __wrap_realloc(p, n * size);
}

int __wrap_posix_memalign(void** out, size_t align, size_t n) {
  if (align < sizeof(void*) || (align & (align - 1)) != 0) return EINVAL;
  if (void* p = take("posix_memalign", n, align)) {
    *out = p;
    return 0;
  }
  return posix_memalign(out, align, n);
}

void* __wrap_aligned_alloc(size_t align, size_t n) {
  if (void* p = take("aligned_alloc", n, align)) return p;
  return aligned_alloc(align, n);
}

void* __wrap_memalign(size_t align, size_t n) {
  if (void* p = take("memalign", n, align)) return p;
  return memalign(align, n);
}

void* __wrap_valloc(size_t n) {
  if (void* p = take("valloc", n, static_cast<size_t>(sysconf(_SC_PAGESIZE)))) return p;
  return valloc(n);
}

size_t __wrap_malloc_usable_size(void* p) {
  if (shared(p)) return SharedHeap::capacity(p);
  return malloc_usable_size(p);
}

// The program's own calls of new and delete (the link wraps them, see
// scopedsm-cc): where a runtime replaces operator new for the whole process
// before ScopeDSM's (AddressSanitizer does), the program's direct calls and
// the templates instantiated in it still come to the shared heap.
void* __wrap__Znwm(size_t n) {
  if (void* p = take("operator new", n == 0 ? 1 : n, 16)) return p;
  return ::operator new(n);
}
void* __wrap__Znam(size_t n) { return __wrap__Znwm(n); }
void* __wrap__ZnwmSt11align_val_t(size_t n, std::align_val_t a) {
  if (void* p = take("operator new", n == 0 ? 1 : n, static_cast<size_t>(a))) return p;
  return ::operator new(n, a);
}
void* __wrap__ZnamSt11align_val_t(size_t n, std::align_val_t a) { return __wrap__ZnwmSt11align_val_t(n, a); }
void* __wrap__ZnwmRKSt9nothrow_t(size_t n, const std::nothrow_t&) noexcept {
  if (void* p = take("operator new", n == 0 ? 1 : n, 16)) return p;
  return ::operator new(n, std::nothrow);
}
void* __wrap__ZnamRKSt9nothrow_t(size_t n, const std::nothrow_t& t) noexcept { return __wrap__ZnwmRKSt9nothrow_t(n, t); }
void __wrap__ZdlPv(void* p) noexcept {
  if (shared(p)) {
    if (Runtime::running()) scopedsm::omp::free_shared("operator delete", p);
    return;
  }
  ::operator delete(p);
}
void __wrap__ZdaPv(void* p) noexcept { __wrap__ZdlPv(p); }
void __wrap__ZdlPvm(void* p, size_t) noexcept { __wrap__ZdlPv(p); }
void __wrap__ZdaPvm(void* p, size_t) noexcept { __wrap__ZdlPv(p); }
void __wrap__ZdlPvSt11align_val_t(void* p, std::align_val_t a) noexcept {
  if (shared(p)) {
    if (Runtime::running()) scopedsm::omp::free_shared("operator delete", p);
    return;
  }
  ::operator delete(p, a);
}
void __wrap__ZdaPvSt11align_val_t(void* p, std::align_val_t a) noexcept { __wrap__ZdlPvSt11align_val_t(p, a); }
void __wrap__ZdlPvmSt11align_val_t(void* p, size_t, std::align_val_t a) noexcept {
  __wrap__ZdlPvSt11align_val_t(p, a);
}
void __wrap__ZdaPvmSt11align_val_t(void* p, size_t, std::align_val_t a) noexcept {
  __wrap__ZdlPvSt11align_val_t(p, a);
}

// The program's own SIGSEGV handler does not replace ScopeDSM's: it gets
// the faults outside the shared region (runtime/fault_handler.h).
int __wrap_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (sig != SIGSEGV || !scopedsm::fault_handler_installed()) return sigaction(sig, act, old);
  scopedsm::chain_segv_handler(act, old);
  return 0;
}

sighandler_t __wrap_signal(int sig, sighandler_t handler) {
  if (sig != SIGSEGV || !scopedsm::fault_handler_installed()) return signal(sig, handler);
  struct sigaction sa = {}, old = {};
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  scopedsm::chain_segv_handler(&sa, &old);
  // A three-argument handler comes back as signal() returns any: its address.
  if ((old.sa_flags & SA_SIGINFO) == 0) return old.sa_handler;
  sighandler_t as_plain;
  static_assert(sizeof as_plain == sizeof old.sa_sigaction);
  std::memcpy(&as_plain, &old.sa_sigaction, sizeof as_plain);
  return as_plain;
}

// A gfortran program's main sets the Fortran runtime's options first, and
// with them its own SIGSEGV handler (for backtraces): ours goes back on top.
void __wrap__gfortran_set_options(int count, const int* options) {
  using SetOptions = void (*)(int, const int*);
  static const auto real = reinterpret_cast<SetOptions>(dlsym(RTLD_DEFAULT, "_gfortran_set_options"));
  if (real != nullptr) real(count, options);
  scopedsm::reinstall_fault_handler();
}

// OpenMP's own allocation routines come to the shared heap too.
void* omp_alloc(size_t n, uintptr_t) { return __wrap_malloc(n); }
void* omp_aligned_alloc(size_t align, size_t n, uintptr_t) {
  if (void* p = take("omp_aligned_alloc", n, align)) return p;
  return aligned_alloc(align, n);
}
void* omp_calloc(size_t n, size_t size, uintptr_t) { return __wrap_calloc(n, size); }
void* omp_aligned_calloc(size_t align, size_t n, size_t size, uintptr_t) {
  if (size != 0 && n > SIZE_MAX / size) return nullptr;
  void* p = omp_aligned_alloc(align, n * size, 0);
  if (p != nullptr) std::memset(p, 0, n * size);
  return p;
}
void* omp_realloc(void* p, size_t n, uintptr_t, uintptr_t) { return __wrap_realloc(p, n); }
void omp_free(void* p, uintptr_t) { __wrap_free(p); }
void* GOMP_alloc(size_t align, size_t n, uintptr_t) { return omp_aligned_alloc(align, n, 0); }
void GOMP_free(void* p, uintptr_t) { __wrap_free(p); }

// --- the atomics bridge (omp/atomic_abi.c) --------------------------------------------

int scopedsm_omp_is_shared(const void* addr) {
  return t_app && shared(addr) && Runtime::running() ? 1 : 0;
}

int scopedsm_omp_atomic_shared(void* addr, int op, int type, uint64_t operand, uint64_t expected, int memorder,
                               uint64_t* old) {
  if (!scopedsm_omp_is_shared(addr)) return 0;
  *old = Team::get().atomic_word(addr, static_cast<scopedsm::AtomicOp>(op), static_cast<scopedsm::AtomicType>(type),
                                 operand, expected, memorder);
  return 1;
}

void scopedsm_omp_atomic16_shared(const void* addr) {
  Team::unsupported("omp atomic", "a 16-byte (or odd-sized) atomic on shared memory is not supported");
  (void)addr;
}

}  // extern "C"

// C++'s new and delete: replaced for the whole process (a replacement in a
// shared library preempts libstdc++'s), so that std::string and the rest of
// libstdc++ allocate for the program where the program would. A block is
// shared when the call comes from the program's code, or from libstdc++
// outside the runtime (the runtime's own strings stay private); delete
// tells the blocks apart by address.
namespace {

using NewFn = void* (*)(size_t);
using NewAlignedFn = void* (*)(size_t, std::align_val_t);
using DeleteFn = void (*)(void*);
using DeleteAlignedFn = void (*)(void*, std::align_val_t);

template <typename F>
F next_definition(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    static const char msg[] = "scopedsm: the C++ library's operator new or delete was not found\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
  }
  return reinterpret_cast<F>(f);
}

void* shared_new(size_t n, size_t align, const void* caller) {
  if (!scopedsm::omp::allocates_for_program(caller)) return nullptr;
  return take("operator new", n == 0 ? 1 : n, align);
}

void shared_delete(void* p) {
  if (Runtime::running()) scopedsm::omp::free_shared("operator delete", p);
}

}  // namespace

void* operator new(size_t n) {
  if (void* p = shared_new(n, 16, __builtin_return_address(0))) return p;
  static NewFn real = next_definition<NewFn>("_Znwm");
  return real(n);
}
void* operator new[](size_t n) {
  if (void* p = shared_new(n, 16, __builtin_return_address(0))) return p;
  static NewFn real = next_definition<NewFn>("_Znam");
  return real(n);
}
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  if (void* p = shared_new(n, 16, __builtin_return_address(0))) return p;
  static NewFn real = next_definition<NewFn>("_Znwm");
  try {
    return real(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  if (void* p = shared_new(n, 16, __builtin_return_address(0))) return p;
  static NewFn real = next_definition<NewFn>("_Znam");
  try {
    return real(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(size_t n, std::align_val_t a) {
  if (void* p = shared_new(n, static_cast<size_t>(a), __builtin_return_address(0))) return p;
  static NewAlignedFn real = next_definition<NewAlignedFn>("_ZnwmSt11align_val_t");
  return real(n, a);
}
void* operator new[](size_t n, std::align_val_t a) {
  if (void* p = shared_new(n, static_cast<size_t>(a), __builtin_return_address(0))) return p;
  static NewAlignedFn real = next_definition<NewAlignedFn>("_ZnamSt11align_val_t");
  return real(n, a);
}
void operator delete(void* p) noexcept {
  if (shared(p)) return shared_delete(p);
  static DeleteFn real = next_definition<DeleteFn>("_ZdlPv");
  real(p);
}
void operator delete[](void* p) noexcept {
  if (shared(p)) return shared_delete(p);
  static DeleteFn real = next_definition<DeleteFn>("_ZdaPv");
  real(p);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete[](p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { operator delete[](p); }
void operator delete(void* p, std::align_val_t a) noexcept {
  if (shared(p)) return shared_delete(p);
  static DeleteAlignedFn real = next_definition<DeleteAlignedFn>("_ZdlPvSt11align_val_t");
  real(p, a);
}
void operator delete[](void* p, std::align_val_t a) noexcept {
  if (shared(p)) return shared_delete(p);
  static DeleteAlignedFn real = next_definition<DeleteAlignedFn>("_ZdaPvSt11align_val_t");
  real(p, a);
}
void operator delete(void* p, size_t, std::align_val_t a) noexcept { operator delete(p, a); }
void operator delete[](void* p, size_t, std::align_val_t a) noexcept { operator delete[](p, a); }
