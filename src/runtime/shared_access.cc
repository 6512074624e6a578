#include "runtime/shared_access.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <vector>

#include "common/log.h"
#include "runtime/alloc_plan.h"
#include "runtime/runtime.h"

namespace scopedsm::shared_access {

std::atomic<uintptr_t> g_base{0};
std::atomic<uintptr_t> g_end{0};

namespace {

thread_local bool t_application = false;
// The process that initialized the runtime: a child it forks inherits the
// flag above, but is not a process of the job.
std::atomic<pid_t> g_pid{0};
// Inside a SlowPath: the interposed call's own work, and whatever it calls.
thread_local bool t_busy = false;

}  // namespace

void publish(uintptr_t base, uintptr_t end) {
  // A reader that sees the new end with the old base (0 at start-up) only
  // takes the slow path, which checks against the runtime itself.
  g_base.store(base, std::memory_order_relaxed);
  g_end.store(end, std::memory_order_release);
}

void set_application_thread() {
  t_application = true;
  g_pid.store(getpid(), std::memory_order_relaxed);
}

bool on_application_thread() { return t_application; }

SlowPath::SlowPath() {
  if (t_busy || !t_application || fatal_in_progress() || getpid() != g_pid.load(std::memory_order_relaxed)) return;
  rt_ = Runtime::active();
  if (rt_ != nullptr) t_busy = true;
}

SlowPath::~SlowPath() {
  if (rt_ != nullptr) t_busy = false;
}

uint64_t SlowPath::page_size() const { return rt_->state().region.page_size(); }

uint64_t SlowPath::chunk_pages() const { return std::max<uint64_t>(1, rt_->coherence().cache_capacity() / 2); }

uint64_t SlowPath::pages_of(const void* p, size_t len) const {
  const RuntimeState& s = rt_->state();
  const uint64_t allocated = s.pages.allocated();
  std::optional<PageSpan> span = region_pages_of(reinterpret_cast<uintptr_t>(s.region.base()),
                                                 allocated * s.region.page_size(), s.region.page_size(),
                                                 reinterpret_cast<uintptr_t>(p), len);
  return span ? span->count : 0;
}

bool SlowPath::prepare(const Range* ranges, size_t n) {
  RuntimeState& s = rt_->state();
  const uint64_t allocated = s.pages.allocated();
  std::vector<PrepareRange> pages;
  pages.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    // Only the allocated shared part: the rest is the kernel's to judge.
    std::optional<PageSpan> span =
        region_pages_of(reinterpret_cast<uintptr_t>(s.region.base()), allocated * s.region.page_size(),
                        s.region.page_size(), reinterpret_cast<uintptr_t>(ranges[i].addr), ranges[i].len);
    if (span) pages.push_back({span->first, span->count, ranges[i].write ? Access::kWrite : Access::kRead});
  }
  if (pages.empty()) return true;
  const int saved_errno = errno;
  // The wait for pages counts as data time, as at a fault (the fetches
  // themselves are traced as fetches).
  TraceSpan wait(nullptr, &s.stats.app.t_data_ns, TraceKind::kFetch);
  const bool ok = rt_->coherence().try_prepare(pages.data(), pages.size());
  errno = saved_errno;
  return ok;
}

void SlowPath::count_prepared(uint64_t chunks) {
  AppCounters& c = rt_->state().stats.app;
  ++c.interposed_calls;
  c.interposed_chunks += chunks;
}

void SlowPath::count_bounced(uint64_t bytes) {
  AppCounters& c = rt_->state().stats.app;
  ++c.interposed_calls;
  c.interposed_bounced_bytes += bytes;
}

void report_foreign_fault(const char* call, const void* addr, size_t len) {
  if (!may_reach(addr, len) || fatal_in_progress()) return;
  Runtime* rt = Runtime::active();
  if (rt == nullptr) return;
  const char* init = rt->state().surface->init;
  if (t_application)
    fatal("%s(%p, %zu bytes): the kernel could not access shared memory (EFAULT) while ScopeDSM was preparing "
          "another call on this thread; pass shared memory to one call at a time",
          call, addr, len);
  fatal("%s(%p, %zu bytes) on shared memory failed with EFAULT in thread %ld, which is not the thread that called "
        "%s: only that thread can make shared memory valid for the kernel; make the call from that thread, or "
        "through a private buffer",
        call, addr, len, static_cast<long>(syscall(SYS_gettid)), init);
}

}  // namespace scopedsm::shared_access
