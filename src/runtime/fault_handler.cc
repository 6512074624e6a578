#include "runtime/fault_handler.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cerrno>
#include <atomic>
#include <vector>

#include "common/clock.h"
#include "common/log.h"

namespace scopedsm {

namespace {

std::atomic<RegionFaultCallback> g_callback{nullptr};
struct sigaction g_previous;
std::atomic<bool> g_installed{false};
std::atomic<std::byte*> g_calibration_page{nullptr};
thread_local int t_in_callback = 0;
std::atomic<uintptr_t> g_region_begin{0};
std::atomic<uintptr_t> g_region_end{0};
std::atomic<uint64_t> g_allocated{0};
std::atomic<bool> g_outside_reported{false};
std::atomic<bool> g_previous_is_programs{false};
struct sigaction g_programs;  // remember_program_segv_handler

// The address of the function a disposition runs, or 0 for the default
// action and ignoring.
uintptr_t handler_of(const struct sigaction& sa) {
  if (sa.sa_flags & SA_SIGINFO) return reinterpret_cast<uintptr_t>(sa.sa_sigaction);
  if (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN) return 0;
  return reinterpret_cast<uintptr_t>(sa.sa_handler);
}

// A line built in a fixed buffer with no allocation and no stdio, so that
// it can be written from the signal handler.
class SignalLine {
 public:
  SignalLine& text(const char* s) {
    while (*s != '\0' && n_ < sizeof buf_ - 1) buf_[n_++] = *s++;
    return *this;
  }
  SignalLine& number(uint64_t v, unsigned base) {
    char digits[24];
    size_t k = 0;
    do {
      const auto d = static_cast<unsigned>(v % base);
      digits[k++] = static_cast<char>(d < 10 ? '0' + d : 'a' + (d - 10));
      v /= base;
    } while (v != 0);
    if (base == 16) text("0x");
    while (k > 0 && n_ < sizeof buf_ - 1) buf_[n_++] = digits[--k];
    return *this;
  }
  void write_line() {
    buf_[n_++] = '\n';
    const char* p = buf_;
    size_t left = n_;
    while (left > 0) {
      const ssize_t w = write(STDERR_FILENO, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return;
      p += w;
      left -= static_cast<size_t>(w);
    }
  }

 private:
  char buf_[512];
  size_t n_ = 0;
};

// The one line for a fault outside the shared space that will end the
// process (module comment in fault_handler.h).
void report_outside(const void* addr) {
  const uintptr_t begin = g_region_begin.load(std::memory_order_acquire);
  const auto a = reinterpret_cast<uintptr_t>(addr);
  if (begin == 0 || (a >= begin && a < g_region_end.load(std::memory_order_acquire))) return;
  if (g_outside_reported.exchange(true)) return;
  const uint64_t allocated = g_allocated.load(std::memory_order_acquire);
  SignalLine line;
  line.text("scopedsm: ");
  if (const int rank = log_rank(); rank >= 0) line.text("rank ").number(static_cast<uint64_t>(rank), 10).text(": ");
  line.text("error: SIGSEGV at ").number(a, 16).text(": the program touched an address outside the shared space (");
  if (allocated == 0)
    line.text("no shared memory is allocated yet; the shared space starts at ").number(begin, 16);
  else
    line.text("the nearest shared memory is ").number(begin, 16).text("-").number(begin + allocated, 16)
        .text(", the ").number(allocated, 10).text(" bytes allocated so far");
  line.text("); not a fault of shared memory: the program crashes as it would without ScopeDSM").write_line();
}

void chain(int sig, siginfo_t* info, void* uctx) {
  const struct sigaction& prev = g_previous;
  // A handler the program set may take the fault and go on; the default
  // action and the MPI library's handler (a backtrace) end the process.
  if (!g_previous_is_programs.load(std::memory_order_relaxed)) report_outside(info->si_addr);
  if (prev.sa_flags & SA_SIGINFO) {
    prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN) {
    // Re-executing the faulting instruction with the default action in
    // place ends the process as if we had never been here.
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    return;
  }
  prev.sa_handler(sig);
}

void on_sigsegv(int sig, siginfo_t* info, void* uctx) {
  // The interrupted code may be between a system call and its errno check.
  const int saved_errno = errno;
  struct RestoreErrno {
    int value;
    ~RestoreErrno() { errno = value; }
  } restore{saved_errno};
  void* addr = info->si_addr;
  std::byte* cal = g_calibration_page.load(std::memory_order_relaxed);
  if (cal != nullptr && addr >= cal && addr < cal + 4096) {
    mprotect(cal, 4096, PROT_READ | PROT_WRITE);
    return;
  }
  RegionFaultCallback cb = g_callback.load(std::memory_order_acquire);
  if (cb != nullptr) {
    ++t_in_callback;
    const bool handled = cb(addr, fault_access(uctx));
    --t_in_callback;
    if (handled) return;
  }
  chain(sig, info, uctx);
}

}  // namespace

void set_shared_extent(const void* region_begin, const void* region_end, uint64_t allocated) {
  g_allocated.store(allocated, std::memory_order_release);
  g_region_end.store(reinterpret_cast<uintptr_t>(region_end), std::memory_order_release);
  g_region_begin.store(reinterpret_cast<uintptr_t>(region_begin), std::memory_order_release);
}

bool in_region_fault() { return t_in_callback > 0; }

Access fault_access(void* ucontext) {
#if defined(__x86_64__)
  // Bit 1 of the page-fault error code is set for a write.
  auto* uc = static_cast<ucontext_t*>(ucontext);
  return (uc->uc_mcontext.gregs[REG_ERR] & 0x2) ? Access::kWrite : Access::kRead;
#else
  // Elsewhere we cannot tell; the coherence engine treats the fault as a
  // read, and a write then faults once more on the read-only page.
  (void)ucontext;
  return Access::kUnknown;
#endif
}

void install_fault_handler(RegionFaultCallback callback) {
  g_callback.store(callback, std::memory_order_release);
  if (g_installed.exchange(true)) return;
  struct sigaction sa = {};
  sa.sa_sigaction = on_sigsegv;
  // On the thread's alternate signal stack where it has one (an OpenMP
  // master, whose stack overflow must still be reported: omp/team.cc).
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_previous);
  g_previous_is_programs.store(handler_of(g_previous) != 0 && handler_of(g_previous) == handler_of(g_programs));
}

// Whether code at `addr` is in the program's executable (the object that
// holds the program headers the kernel passed), not in a shared library.
bool in_executable(uintptr_t addr) {
  Dl_info exe{}, where{};
  const auto phdr = static_cast<uintptr_t>(getauxval(AT_PHDR));
  if (phdr == 0 || dladdr(reinterpret_cast<void*>(phdr), &exe) == 0) return false;
  if (dladdr(reinterpret_cast<void*>(addr), &where) == 0) return false;
  return where.dli_fbase == exe.dli_fbase;
}

void remember_program_segv_handler() {
  if (g_installed.load(std::memory_order_acquire)) return;
  sigaction(SIGSEGV, nullptr, &g_programs);
  // A handler a shared library set when it was loaded (UCX's, under MPICH,
  // prints a backtrace and ends the process) is not the program's.
  if (handler_of(g_programs) != 0 && !in_executable(handler_of(g_programs))) {
    std::memset(&g_programs, 0, sizeof g_programs);
    g_programs.sa_handler = SIG_DFL;
  }
}

bool fault_handler_installed() { return g_installed.load(std::memory_order_acquire); }

void chain_segv_handler(const struct sigaction* act, struct sigaction* old) {
  const struct sigaction previous = g_previous;
  if (act != nullptr) {
    g_previous = *act;
    g_previous_is_programs.store(handler_of(*act) != 0);
  }
  if (old != nullptr) *old = previous;
}

void reinstall_fault_handler() {
  if (!fault_handler_installed()) return;
  struct sigaction sa = {}, replaced = {};
  sa.sa_sigaction = on_sigsegv;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &replaced);
  // Whatever replaced ours becomes the handler faults outside the region
  // go to: a library's crash report (libgfortran's backtrace).
  if (replaced.sa_sigaction != on_sigsegv) {
    g_previous = replaced;
    g_previous_is_programs.store(false);
  }
}

double calibrate_fault_cost() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 0;
  auto* page = static_cast<volatile char*>(p);
  page[0] = 1;
  g_calibration_page.store(static_cast<std::byte*>(p), std::memory_order_release);
  constexpr int kRounds = 200;
  std::vector<uint64_t> with_fault, without;
  for (int i = 0; i < kRounds; ++i) {
    uint64_t t0 = now_ns();
    mprotect(p, 4096, PROT_NONE);
    page[0] = static_cast<char>(i);  // faults; the handler restores access
    uint64_t t1 = now_ns();
    mprotect(p, 4096, PROT_NONE);
    mprotect(p, 4096, PROT_READ | PROT_WRITE);
    uint64_t t2 = now_ns();
    with_fault.push_back(t1 - t0);
    without.push_back(t2 - t1);
  }
  g_calibration_page.store(nullptr, std::memory_order_release);
  munmap(p, 4096);
  std::sort(with_fault.begin(), with_fault.end());
  std::sort(without.begin(), without.end());
  double cost = static_cast<double>(with_fault[kRounds / 2]) - static_cast<double>(without[kRounds / 2]);
  return cost > 0 ? cost : 0;
}

}  // namespace scopedsm
