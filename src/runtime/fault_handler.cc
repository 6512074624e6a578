#include "runtime/fault_handler.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cerrno>
#include <atomic>
#include <vector>

#include "common/clock.h"

namespace scopedsm {

namespace {

std::atomic<RegionFaultCallback> g_callback{nullptr};
struct sigaction g_previous;
std::atomic<bool> g_installed{false};
std::atomic<std::byte*> g_calibration_page{nullptr};
thread_local int t_in_callback = 0;

void chain(int sig, siginfo_t* info, void* uctx) {
  const struct sigaction& prev = g_previous;
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
}

bool fault_handler_installed() { return g_installed.load(std::memory_order_acquire); }

void chain_segv_handler(const struct sigaction* act, struct sigaction* old) {
  const struct sigaction previous = g_previous;
  if (act != nullptr) g_previous = *act;
  if (old != nullptr) *old = previous;
}

void reinstall_fault_handler() {
  if (!fault_handler_installed()) return;
  struct sigaction sa = {}, replaced = {};
  sa.sa_sigaction = on_sigsegv;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &replaced);
  // Whatever replaced ours becomes the handler faults outside the region go to.
  if (replaced.sa_sigaction != on_sigsegv) g_previous = replaced;
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
