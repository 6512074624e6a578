// The functions the interposed ones stand in for: the next definition after
// libscopedsm in the dynamic linker's search order (the C library's, or the
// MPI library's PMPI_ entry points need no lookup), found once per function.
#pragma once

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace scopedsm::interpose {

// A real function of type Fn (a function pointer type), looked up by name
// at its first use. Constant-initialized, so usable from any constructor
// or thread; concurrent first uses look it up twice, harmlessly.
template <typename Fn>
class Real {
 public:
  explicit constexpr Real(const char* name) : name_(name) {}
  Fn get() {
    Fn f = fn_.load(std::memory_order_acquire);
    return f != nullptr ? f : resolve();
  }

 private:
  Fn resolve() {
    void* sym = dlsym(RTLD_NEXT, name_);
    if (sym == nullptr) {
      // No stdio here: stdio may be what is being resolved.
      const char* parts[] = {"scopedsm: the C library has no ", name_, "; the interposed call cannot be made\n"};
      for (const char* p : parts)
        if (::syscall(SYS_write, 2, p, std::strlen(p)) < 0) break;
      std::abort();
    }
    Fn f = reinterpret_cast<Fn>(sym);
    fn_.store(f, std::memory_order_release);
    return f;
  }

  const char* name_;
  std::atomic<Fn> fn_{nullptr};
};

}  // namespace scopedsm::interpose
