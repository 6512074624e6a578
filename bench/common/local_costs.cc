#include "common/local_costs.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "common/timing.h"

namespace bench {

namespace {

std::atomic<char*> g_page{nullptr};
size_t g_page_size = 4096;
struct sigaction g_previous;

void on_fault(int sig, siginfo_t* info, void* uctx) {
  char* page = g_page.load(std::memory_order_relaxed);
  char* addr = static_cast<char*>(info->si_addr);
  if (page != nullptr && addr >= page && addr < page + g_page_size) {
    mprotect(page, g_page_size, PROT_READ);
    return;
  }
  // Not ours: hand it to whoever handled faults before.
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, info, uctx);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);
  }
}

}  // namespace

std::vector<double> segv_mprotect_cycles(size_t reps, size_t warmup) {
  g_page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, g_page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  auto* page = static_cast<volatile char*>(p);
  page[0] = 1;
  struct sigaction sa = {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_previous);
  g_page.store(static_cast<char*>(p), std::memory_order_release);

  std::vector<double> samples;
  for (size_t i = 0; i < warmup + reps; ++i) {
    mprotect(p, g_page_size, PROT_NONE);
    uint64_t t0 = now_ns();
    char v = page[0];  // faults; the handler makes the page readable
    uint64_t t1 = now_ns();
    keep(v);
    if (i >= warmup) samples.push_back(ns_to_us(t1 - t0));
  }

  g_page.store(nullptr, std::memory_order_release);
  sigaction(SIGSEGV, &g_previous, nullptr);
  munmap(p, g_page_size);
  return samples;
}

std::vector<double> page_copies(size_t reps, size_t warmup) {
  const size_t ps = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  constexpr size_t kDest = 16;
  std::vector<char> src(ps, 7), dst(kDest * ps, 1);
  std::vector<double> samples;
  samples.reserve(reps);
  for (size_t i = 0; i < warmup + reps; ++i) {
    char* to = dst.data() + (i % kDest) * ps;
    uint64_t t0 = now_ns();
    std::memcpy(to, src.data(), ps);
    asm volatile("" : : "r"(to) : "memory");
    uint64_t t1 = now_ns();
    if (i >= warmup) samples.push_back(ns_to_us(t1 - t0));
  }
  return samples;
}

uint64_t compute_for_ns(uint64_t ns) {
  const uint64_t start = now_ns();
  uint64_t x = 0x9e3779b97f4a7c15ull;
  do {
    for (int i = 0; i < 4096; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      asm volatile("" : "+r"(x));
    }
  } while (now_ns() - start < ns);
  return x;
}

}  // namespace bench
