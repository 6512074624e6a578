// libgomp's ABI (GCC 12: the GOMP_* calls the compiler emits for OpenMP
// constructs, and the omp_* routines of the C and Fortran APIs), on the
// team of processes of omp/team.h. Each entry point only adapts its
// arguments; what is not supported ends the job naming the construct.
#include <omp.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "omp/team.h"

using scopedsm::fatal;
using scopedsm::omp::LoopSpec;
using scopedsm::omp::Team;

namespace {

Team& team() { return Team::get(); }

// GCC's loop schedule numbers (GFS_*), and its monotonic flag.
int kind_of_gfs(long sched) {
  switch (sched & 0x7fffffffL) {
    case 0: return team().icvs().run_sched;
    case 1: return scopedsm::omp::kSchedStatic;
    case 2: return scopedsm::omp::kSchedDynamic;
    case 3: return scopedsm::omp::kSchedGuided;
    default: return scopedsm::omp::kSchedStatic;  // auto
  }
}

LoopSpec spec(long start, long end, long incr, int kind, long chunk, bool ordered) {
  LoopSpec s;
  s.start = start;
  s.end = end;
  s.incr = incr;
  s.kind = kind;
  s.chunk = chunk > 0 ? static_cast<uint64_t>(chunk) : 0;
  s.ordered = ordered;
  return s;
}

LoopSpec spec_ull(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, int kind,
                  unsigned long long chunk, bool ordered) {
  LoopSpec s;
  s.ull = true;
  s.up = up;
  s.start = static_cast<int64_t>(start);
  s.end = static_cast<int64_t>(end);
  s.incr = static_cast<int64_t>(incr);
  s.kind = kind;
  s.chunk = chunk;
  s.ordered = ordered;
  return s;
}

LoopSpec runtime_spec(long start, long end, long incr, bool ordered) {
  const auto& icv = team().icvs();
  return spec(start, end, incr, icv.run_sched, icv.run_chunk, ordered);
}

bool first(const LoopSpec& s, long* istart, long* iend) {
  int64_t a = 0, b = 0;
  const bool got = team().loop_start(s, &a, &b);
  *istart = a;
  *iend = b;
  return got;
}

bool next(long* istart, long* iend) {
  int64_t a = 0, b = 0;
  const bool got = team().loop_next(&a, &b);
  *istart = a;
  *iend = b;
  return got;
}

bool first_ull(const LoopSpec& s, unsigned long long* istart, unsigned long long* iend) {
  int64_t a = 0, b = 0;
  const bool got = team().loop_start(s, &a, &b);
  *istart = static_cast<unsigned long long>(a);
  *iend = static_cast<unsigned long long>(b);
  return got;
}

bool next_ull(unsigned long long* istart, unsigned long long* iend) {
  int64_t a = 0, b = 0;
  const bool got = team().loop_next(&a, &b);
  *istart = static_cast<unsigned long long>(a);
  *iend = static_cast<unsigned long long>(b);
  return got;
}

void no_reductions(const void* reductions, const void* mem, const char* construct) {
  if (reductions != nullptr)
    Team::unsupported(construct, "task reductions (reduction with the task modifier, in_reduction, taskgroup "
                                 "task_reduction) are not supported");
  if (mem != nullptr)
    Team::unsupported(construct, "lastprivate(conditional:) and scan (inscan reductions) are not supported");
}

}  // namespace

// taskloop: the iterations in one task, run at once. GCC keeps a task's
// range in the first two words of its data.
namespace {
template <typename T>
void taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
              unsigned flags, T start, T end) {
  if ((flags & (1u << 12)) != 0 || (flags & (1u << 13)) != 0)
    Team::unsupported("omp taskloop reduction", "taskloop reductions are not supported");
  const size_t align = arg_align > 0 ? static_cast<size_t>(arg_align) : 16;
  char* raw = static_cast<char*>(std::malloc(static_cast<size_t>(arg_size) + align));
  if (raw == nullptr) fatal("omp taskloop: no memory for the task's %ld bytes of data", arg_size);
  char* buf = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + align - 1) / align * align);
  if (cpyfn != nullptr) cpyfn(buf, data);
  else std::memcpy(buf, data, static_cast<size_t>(arg_size));
  T* range = reinterpret_cast<T*>(buf);
  range[0] = start;
  range[1] = end;
  fn(buf);
  std::free(raw);
}
}  // namespace

extern "C" {

// --- parallel ---------------------------------------------------------------

void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  team().parallel(fn, data, num_threads, flags);
}
void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads) {
  team().parallel_start(fn, data, num_threads, 0);
}
void GOMP_parallel_end(void) { team().parallel_end(); }
unsigned GOMP_parallel_reductions(void (*)(void*), void*, unsigned, unsigned) {
  Team::unsupported("omp parallel reduction(task, ...)", "task reductions are not supported");
}

void GOMP_parallel_loop_static(void (*fn)(void*), void* data, unsigned n, long start, long end, long incr, long chunk,
                               unsigned flags) {
  team().parallel_loop(fn, data, n, spec(start, end, incr, scopedsm::omp::kSchedStatic, chunk, false), flags);
}
void GOMP_parallel_loop_dynamic(void (*fn)(void*), void* data, unsigned n, long start, long end, long incr,
                                long chunk, unsigned flags) {
  team().parallel_loop(fn, data, n, spec(start, end, incr, scopedsm::omp::kSchedDynamic, chunk, false), flags);
}
void GOMP_parallel_loop_guided(void (*fn)(void*), void* data, unsigned n, long start, long end, long incr,
                               long chunk, unsigned flags) {
  team().parallel_loop(fn, data, n, spec(start, end, incr, scopedsm::omp::kSchedGuided, chunk, false), flags);
}
void GOMP_parallel_loop_runtime(void (*fn)(void*), void* data, unsigned n, long start, long end, long incr,
                                unsigned flags) {
  team().parallel_loop(fn, data, n, runtime_spec(start, end, incr, false), flags);
}
void GOMP_parallel_loop_nonmonotonic_dynamic(void (*fn)(void*), void* data, unsigned n, long start, long end,
                                             long incr, long chunk, unsigned flags) {
  GOMP_parallel_loop_dynamic(fn, data, n, start, end, incr, chunk, flags);
}
void GOMP_parallel_loop_nonmonotonic_guided(void (*fn)(void*), void* data, unsigned n, long start, long end,
                                            long incr, long chunk, unsigned flags) {
  GOMP_parallel_loop_guided(fn, data, n, start, end, incr, chunk, flags);
}
void GOMP_parallel_loop_nonmonotonic_runtime(void (*fn)(void*), void* data, unsigned n, long start, long end,
                                             long incr, unsigned flags) {
  GOMP_parallel_loop_runtime(fn, data, n, start, end, incr, flags);
}
void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*fn)(void*), void* data, unsigned n, long start, long end,
                                                   long incr, unsigned flags) {
  GOMP_parallel_loop_runtime(fn, data, n, start, end, incr, flags);
}
void GOMP_parallel_sections(void (*fn)(void*), void* data, unsigned n, unsigned count, unsigned flags) {
  team().parallel_sections(fn, data, n, count, flags);
}

// --- barriers, cancellation ---------------------------------------------------

void GOMP_barrier(void) { team().barrier("omp barrier"); }
bool GOMP_barrier_cancel(void) {
  team().barrier("omp barrier");
  return false;
}
bool GOMP_cancel(int, bool do_cancel) {
  if (do_cancel) Team::unsupported("omp cancel", "cancellation is not supported (OMP_CANCELLATION is false)");
  return false;
}
bool GOMP_cancellation_point(int) { return false; }

// --- loops ---------------------------------------------------------------------

bool GOMP_loop_static_start(long s, long e, long i, long c, long* a, long* b) {
  return first(spec(s, e, i, scopedsm::omp::kSchedStatic, c, false), a, b);
}
bool GOMP_loop_dynamic_start(long s, long e, long i, long c, long* a, long* b) {
  return first(spec(s, e, i, scopedsm::omp::kSchedDynamic, c, false), a, b);
}
bool GOMP_loop_guided_start(long s, long e, long i, long c, long* a, long* b) {
  return first(spec(s, e, i, scopedsm::omp::kSchedGuided, c, false), a, b);
}
bool GOMP_loop_runtime_start(long s, long e, long i, long* a, long* b) { return first(runtime_spec(s, e, i, false), a, b); }
bool GOMP_loop_nonmonotonic_dynamic_start(long s, long e, long i, long c, long* a, long* b) {
  return GOMP_loop_dynamic_start(s, e, i, c, a, b);
}
bool GOMP_loop_nonmonotonic_guided_start(long s, long e, long i, long c, long* a, long* b) {
  return GOMP_loop_guided_start(s, e, i, c, a, b);
}
bool GOMP_loop_nonmonotonic_runtime_start(long s, long e, long i, long* a, long* b) {
  return GOMP_loop_runtime_start(s, e, i, a, b);
}
bool GOMP_loop_maybe_nonmonotonic_runtime_start(long s, long e, long i, long* a, long* b) {
  return GOMP_loop_runtime_start(s, e, i, a, b);
}
bool GOMP_loop_ordered_static_start(long s, long e, long i, long c, long* a, long* b) {
  return first(spec(s, e, i, scopedsm::omp::kSchedStatic, c, true), a, b);
}
bool GOMP_loop_ordered_dynamic_start(long s, long e, long i, long c, long* a, long* b) {
  return first(spec(s, e, i, scopedsm::omp::kSchedDynamic, c, true), a, b);
}
bool GOMP_loop_ordered_guided_start(long s, long e, long i, long c, long* a, long* b) {
  return first(spec(s, e, i, scopedsm::omp::kSchedGuided, c, true), a, b);
}
bool GOMP_loop_ordered_runtime_start(long s, long e, long i, long* a, long* b) {
  return first(runtime_spec(s, e, i, true), a, b);
}
bool GOMP_loop_start(long s, long e, long i, long sched, long chunk, long* a, long* b, uintptr_t* reductions,
                     void** mem) {
  no_reductions(reductions, mem, "omp for");
  const int kind = kind_of_gfs(sched);
  const long c = (sched & 0x7fffffffL) == 0 ? team().icvs().run_chunk : chunk;
  return first(spec(s, e, i, kind, c, false), a, b);
}
bool GOMP_loop_ordered_start(long s, long e, long i, long sched, long chunk, long* a, long* b, uintptr_t* reductions,
                             void** mem) {
  no_reductions(reductions, mem, "omp for ordered");
  const int kind = kind_of_gfs(sched);
  const long c = (sched & 0x7fffffffL) == 0 ? team().icvs().run_chunk : chunk;
  return first(spec(s, e, i, kind, c, true), a, b);
}

bool GOMP_loop_static_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_dynamic_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_guided_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_runtime_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_nonmonotonic_dynamic_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_nonmonotonic_guided_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_nonmonotonic_runtime_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_maybe_nonmonotonic_runtime_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_ordered_static_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_ordered_dynamic_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_ordered_guided_next(long* a, long* b) { return next(a, b); }
bool GOMP_loop_ordered_runtime_next(long* a, long* b) { return next(a, b); }

void GOMP_loop_end(void) { team().loop_end(false); }
void GOMP_loop_end_nowait(void) { team().loop_end(true); }
bool GOMP_loop_end_cancel(void) {
  team().loop_end(false);
  return false;
}

bool GOMP_loop_ull_static_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                unsigned long long c, unsigned long long* a, unsigned long long* b) {
  return first_ull(spec_ull(up, s, e, i, scopedsm::omp::kSchedStatic, c, false), a, b);
}
bool GOMP_loop_ull_dynamic_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                 unsigned long long c, unsigned long long* a, unsigned long long* b) {
  return first_ull(spec_ull(up, s, e, i, scopedsm::omp::kSchedDynamic, c, false), a, b);
}
bool GOMP_loop_ull_guided_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                unsigned long long c, unsigned long long* a, unsigned long long* b) {
  return first_ull(spec_ull(up, s, e, i, scopedsm::omp::kSchedGuided, c, false), a, b);
}
bool GOMP_loop_ull_runtime_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                 unsigned long long* a, unsigned long long* b) {
  const auto& icv = team().icvs();
  return first_ull(spec_ull(up, s, e, i, icv.run_sched, static_cast<unsigned long long>(icv.run_chunk), false), a, b);
}
bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, unsigned long long s, unsigned long long e,
                                              unsigned long long i, unsigned long long c, unsigned long long* a,
                                              unsigned long long* b) {
  return GOMP_loop_ull_dynamic_start(up, s, e, i, c, a, b);
}
bool GOMP_loop_ull_nonmonotonic_guided_start(bool up, unsigned long long s, unsigned long long e,
                                             unsigned long long i, unsigned long long c, unsigned long long* a,
                                             unsigned long long* b) {
  return GOMP_loop_ull_guided_start(up, s, e, i, c, a, b);
}
bool GOMP_loop_ull_nonmonotonic_runtime_start(bool up, unsigned long long s, unsigned long long e,
                                              unsigned long long i, unsigned long long* a, unsigned long long* b) {
  return GOMP_loop_ull_runtime_start(up, s, e, i, a, b);
}
bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool up, unsigned long long s, unsigned long long e,
                                                    unsigned long long i, unsigned long long* a,
                                                    unsigned long long* b) {
  return GOMP_loop_ull_runtime_start(up, s, e, i, a, b);
}
bool GOMP_loop_ull_ordered_static_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                        unsigned long long c, unsigned long long* a, unsigned long long* b) {
  return first_ull(spec_ull(up, s, e, i, scopedsm::omp::kSchedStatic, c, true), a, b);
}
bool GOMP_loop_ull_ordered_dynamic_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                         unsigned long long c, unsigned long long* a, unsigned long long* b) {
  return first_ull(spec_ull(up, s, e, i, scopedsm::omp::kSchedDynamic, c, true), a, b);
}
bool GOMP_loop_ull_ordered_guided_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                        unsigned long long c, unsigned long long* a, unsigned long long* b) {
  return first_ull(spec_ull(up, s, e, i, scopedsm::omp::kSchedGuided, c, true), a, b);
}
bool GOMP_loop_ull_ordered_runtime_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                         unsigned long long* a, unsigned long long* b) {
  const auto& icv = team().icvs();
  return first_ull(spec_ull(up, s, e, i, icv.run_sched, static_cast<unsigned long long>(icv.run_chunk), true), a, b);
}
bool GOMP_loop_ull_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i, long sched,
                         unsigned long long chunk, unsigned long long* a, unsigned long long* b, uintptr_t* reductions,
                         void** mem) {
  no_reductions(reductions, mem, "omp for");
  const unsigned long long c =
      (sched & 0x7fffffffL) == 0 ? static_cast<unsigned long long>(team().icvs().run_chunk) : chunk;
  return first_ull(spec_ull(up, s, e, i, kind_of_gfs(sched), c, false), a, b);
}
bool GOMP_loop_ull_ordered_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i, long sched,
                                 unsigned long long chunk, unsigned long long* a, unsigned long long* b,
                                 uintptr_t* reductions, void** mem) {
  no_reductions(reductions, mem, "omp for ordered");
  const unsigned long long c =
      (sched & 0x7fffffffL) == 0 ? static_cast<unsigned long long>(team().icvs().run_chunk) : chunk;
  return first_ull(spec_ull(up, s, e, i, kind_of_gfs(sched), c, true), a, b);
}
bool GOMP_loop_ull_static_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_dynamic_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_guided_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_runtime_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_nonmonotonic_dynamic_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_nonmonotonic_guided_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_nonmonotonic_runtime_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_maybe_nonmonotonic_runtime_next(unsigned long long* a, unsigned long long* b) {
  return next_ull(a, b);
}
bool GOMP_loop_ull_ordered_static_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_ordered_dynamic_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_ordered_guided_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }
bool GOMP_loop_ull_ordered_runtime_next(unsigned long long* a, unsigned long long* b) { return next_ull(a, b); }

void GOMP_ordered_start(void) { team().ordered_start(); }
void GOMP_ordered_end(void) { team().ordered_end(); }

// Doacross loops: ordered(n) with depend(sink:) and depend(source).
#define SCOPEDSM_DOACROSS(name, ...)                                                                        \
  bool name(__VA_ARGS__) {                                                                                  \
    Team::unsupported("omp for ordered(n)", "doacross loops (depend(sink:) and depend(source)) are not supported"); \
  }
SCOPEDSM_DOACROSS(GOMP_loop_doacross_static_start, unsigned, long*, long, long*, long*)
SCOPEDSM_DOACROSS(GOMP_loop_doacross_dynamic_start, unsigned, long*, long, long*, long*)
SCOPEDSM_DOACROSS(GOMP_loop_doacross_guided_start, unsigned, long*, long, long*, long*)
SCOPEDSM_DOACROSS(GOMP_loop_doacross_runtime_start, unsigned, long*, long*, long*)
SCOPEDSM_DOACROSS(GOMP_loop_doacross_start, unsigned, long*, long, long, long*, long*, uintptr_t*, void**)
SCOPEDSM_DOACROSS(GOMP_loop_ull_doacross_static_start, unsigned, unsigned long long*, unsigned long long,
                  unsigned long long*, unsigned long long*)
SCOPEDSM_DOACROSS(GOMP_loop_ull_doacross_dynamic_start, unsigned, unsigned long long*, unsigned long long,
                  unsigned long long*, unsigned long long*)
SCOPEDSM_DOACROSS(GOMP_loop_ull_doacross_guided_start, unsigned, unsigned long long*, unsigned long long,
                  unsigned long long*, unsigned long long*)
SCOPEDSM_DOACROSS(GOMP_loop_ull_doacross_runtime_start, unsigned, unsigned long long*, unsigned long long*,
                  unsigned long long*)
SCOPEDSM_DOACROSS(GOMP_loop_ull_doacross_start, unsigned, unsigned long long*, long, unsigned long long,
                  unsigned long long*, unsigned long long*, uintptr_t*, void**)
#undef SCOPEDSM_DOACROSS
void GOMP_doacross_post(long*) { Team::unsupported("omp ordered depend(source)", "doacross loops are not supported"); }
void GOMP_doacross_wait(long, ...) { Team::unsupported("omp ordered depend(sink:)", "doacross loops are not supported"); }
void GOMP_doacross_ull_post(unsigned long long*) {
  Team::unsupported("omp ordered depend(source)", "doacross loops are not supported");
}
void GOMP_doacross_ull_wait(unsigned long long, ...) {
  Team::unsupported("omp ordered depend(sink:)", "doacross loops are not supported");
}

// --- sections, single ----------------------------------------------------------

unsigned GOMP_sections_start(unsigned count) { return team().sections_start(count); }
unsigned GOMP_sections2_start(unsigned count, uintptr_t* reductions, void** mem) {
  no_reductions(reductions, mem, "omp sections");
  return team().sections_start(count);
}
unsigned GOMP_sections_next(void) { return team().sections_next(); }
void GOMP_sections_end(void) { team().loop_end(false); }
void GOMP_sections_end_nowait(void) { team().loop_end(true); }
bool GOMP_sections_end_cancel(void) {
  team().loop_end(false);
  return false;
}
bool GOMP_single_start(void) { return team().single_start(); }
void* GOMP_single_copy_start(void) { return team().single_copy_start(); }
void GOMP_single_copy_end(void* data) { team().single_copy_end(data); }
void GOMP_scope_start(uintptr_t* reductions) { no_reductions(reductions, nullptr, "omp scope"); }

// --- mutual exclusion --------------------------------------------------------------

void GOMP_critical_start(void) { team().critical_start(nullptr); }
void GOMP_critical_end(void) { team().critical_end(nullptr); }
void GOMP_critical_name_start(void** name) { team().critical_start(name); }
void GOMP_critical_name_end(void** name) { team().critical_end(name); }
void GOMP_atomic_start(void) { team().atomic_start(); }
void GOMP_atomic_end(void) { team().atomic_end(); }

// --- tasks: executed at once by the thread that creates them ----------------------------

void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
               bool if_clause, unsigned flags, void** depend, int priority, void* detach) {
  (void)if_clause;
  (void)depend;  // run in creation order, every dependence is met
  (void)priority;
  if (detach != nullptr || (flags & (1u << 4)) != 0)
    Team::unsupported("omp task detach", "detachable tasks (omp_fulfill_event) are not supported");
  if (cpyfn == nullptr) {
    fn(data);
    return;
  }
  const size_t align = arg_align > 0 ? static_cast<size_t>(arg_align) : 16;
  char* raw = static_cast<char*>(std::malloc(static_cast<size_t>(arg_size) + align));
  if (raw == nullptr) fatal("omp task: no memory for the task's %ld bytes of data", arg_size);
  char* buf = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + align - 1) / align * align);
  cpyfn(buf, data);
  fn(buf);
  std::free(raw);
}
void GOMP_taskwait(void) {}
void GOMP_taskwait_depend(void**) {}
void GOMP_taskyield(void) {}
void GOMP_taskgroup_start(void) {}
void GOMP_taskgroup_end(void) {}
void GOMP_taskgroup_reduction_register(uintptr_t*) {
  Team::unsupported("omp taskgroup task_reduction", "task reductions are not supported");
}
void GOMP_taskgroup_reduction_unregister(uintptr_t*) {}
void GOMP_task_reduction_remap(size_t, size_t, void**) {
  Team::unsupported("omp task in_reduction", "task reductions are not supported");
}
void GOMP_workshare_task_reduction_unregister(bool) {}

void GOMP_taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                   unsigned flags, unsigned long num_tasks, int priority, long start, long end, long step) {
  (void)num_tasks;
  (void)priority;
  (void)step;
  taskloop<long>(fn, data, cpyfn, arg_size, arg_align, flags, start, end);
}
void GOMP_taskloop_ull(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                       unsigned flags, unsigned long num_tasks, int priority, unsigned long long start,
                       unsigned long long end, unsigned long long step) {
  (void)num_tasks;
  (void)priority;
  (void)step;
  taskloop<unsigned long long>(fn, data, cpyfn, arg_size, arg_align, flags, start, end);
}

// --- teams and target on the host -----------------------------------------------------

void GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams, unsigned thread_limit, unsigned flags) {
  (void)num_teams;
  (void)thread_limit;
  (void)flags;
  fn(data);  // one team
}
bool GOMP_teams4(unsigned, unsigned, unsigned, bool first_call) { return first_call; }
void GOMP_teams(unsigned, unsigned) {}
void GOMP_target_ext(int, void (*fn)(void*), size_t, void** hostaddrs, size_t*, unsigned short*, unsigned, void**,
                     void**) {
  fn(hostaddrs);  // the host is the only device
}
void GOMP_target_data_ext(int, size_t, void**, size_t*, unsigned short*) {}
void GOMP_target_end_data(void) {}
void GOMP_target_update_ext(int, size_t, void**, size_t*, unsigned short*, unsigned, void**) {}
void GOMP_target_enter_exit_data(int, size_t, void**, size_t*, unsigned short*, unsigned, void**) {}
void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}

void GOMP_error(const char* msg, size_t len) { fatal("omp error: %.*s", static_cast<int>(len), msg); }
void GOMP_warning(const char* msg, size_t len) {
  if (team().thread_num() == 0) std::fprintf(stderr, "omp error (warning): %.*s\n", static_cast<int>(len), msg);
}

// --- flush -------------------------------------------------------------------------------

// OpenMP's flush, as the flush plugin (omp/plugin/flush_plugin.cc) rewrites
// the compiler's fences: `memorder` is the fence's (__ATOMIC_*): a release
// of everything before it if it releases, an acquire of everything after it
// if it acquires.
void scopedsm_omp_flush(int memorder) {
  if (!Team::booted()) return;
  const bool release = memorder == 3 || memorder >= 4;
  const bool acquire = memorder == 1 || memorder == 2 || memorder >= 4;
  team().flush(release, acquire);
}
// `#pragma omp flush` (a full fence, __sync_synchronize).
void scopedsm_omp_flush_full(void) { scopedsm_omp_flush(5); }

// --- the omp_* routines (C) --------------------------------------------------------

int omp_get_thread_num(void) { return team().thread_num(); }
int omp_get_num_threads(void) { return team().team_size(); }
int omp_get_max_threads(void) { return team().level() > 0 ? 1 : team().icvs().nthreads; }
void omp_set_num_threads(int n) { team().icvs().nthreads = n < 1 ? 1 : (n > team().procs() ? team().procs() : n); }
int omp_get_num_procs(void) { return team().procs(); }
int omp_in_parallel(void) { return team().active_level() > 0; }
void omp_set_dynamic(int d) { team().icvs().dynamic = d != 0; }
int omp_get_dynamic(void) { return team().icvs().dynamic; }
void omp_set_nested(int) {}
int omp_get_nested(void) { return 0; }
int omp_get_level(void) { return team().level(); }
int omp_get_active_level(void) { return team().active_level(); }
int omp_get_ancestor_thread_num(int level) { return team().ancestor_thread_num(level); }
int omp_get_team_size(int level) { return team().ancestor_team_size(level); }
int omp_get_thread_limit(void) { return team().icvs().thread_limit; }
void omp_set_max_active_levels(int n) { team().icvs().max_active_levels = n < 0 ? 0 : n; }
int omp_get_max_active_levels(void) { return team().icvs().max_active_levels; }
int omp_get_supported_active_levels(void) { return 1; }
void omp_set_schedule(omp_sched_t kind, int chunk) {
  auto& icv = team().icvs();
  const int k = static_cast<int>(kind) & 0x7fffffff;
  icv.run_sched = k >= 1 && k <= 4 ? k : scopedsm::omp::kSchedStatic;
  icv.run_chunk = chunk < 1 ? 0 : chunk;
  icv.run_monotonic = (static_cast<unsigned>(kind) & 0x80000000u) != 0;
}
void omp_get_schedule(omp_sched_t* kind, int* chunk) {
  const auto& icv = team().icvs();
  *kind = static_cast<omp_sched_t>(icv.run_sched | (icv.run_monotonic ? 0x80000000u : 0u));
  *chunk = icv.run_chunk == 0 ? (icv.run_sched == scopedsm::omp::kSchedStatic ? 0 : 1) : icv.run_chunk;
}
int omp_get_cancellation(void) { return 0; }
omp_proc_bind_t omp_get_proc_bind(void) { return omp_proc_bind_false; }
int omp_get_num_places(void) { return 0; }
int omp_get_place_num(void) { return -1; }
int omp_get_partition_num_places(void) { return 0; }
int omp_in_final(void) { return 0; }
int omp_get_max_task_priority(void) { return 0; }
int omp_get_num_teams(void) { return 1; }
int omp_get_team_num(void) { return 0; }
int omp_get_num_devices(void) { return 0; }
int omp_get_default_device(void) { return 0; }
void omp_set_default_device(int) {}
int omp_is_initial_device(void) { return 1; }
int omp_get_initial_device(void) { return 0; }
int omp_get_device_num(void) { return 0; }

double omp_get_wtime(void) {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double omp_get_wtick(void) { return 1e-9; }

void omp_init_lock(omp_lock_t* l) { team().lock_init(reinterpret_cast<uint32_t*>(l), "omp_init_lock"); }
void omp_init_lock_with_hint(omp_lock_t* l, omp_sync_hint_t) {
  team().lock_init(reinterpret_cast<uint32_t*>(l), "omp_init_lock_with_hint");
}
void omp_destroy_lock(omp_lock_t* l) { team().lock_destroy(reinterpret_cast<uint32_t*>(l), "omp_destroy_lock"); }
void omp_set_lock(omp_lock_t* l) { team().lock_set(reinterpret_cast<uint32_t*>(l), "omp_set_lock"); }
void omp_unset_lock(omp_lock_t* l) { team().lock_unset(reinterpret_cast<uint32_t*>(l), "omp_unset_lock"); }
int omp_test_lock(omp_lock_t* l) { return team().lock_test(reinterpret_cast<uint32_t*>(l), "omp_test_lock"); }
void omp_init_nest_lock(omp_nest_lock_t* l) {
  team().lock_init(reinterpret_cast<uint32_t*>(l), "omp_init_nest_lock");
}
void omp_init_nest_lock_with_hint(omp_nest_lock_t* l, omp_sync_hint_t) {
  team().lock_init(reinterpret_cast<uint32_t*>(l), "omp_init_nest_lock_with_hint");
}
void omp_destroy_nest_lock(omp_nest_lock_t* l) {
  team().lock_destroy(reinterpret_cast<uint32_t*>(l), "omp_destroy_nest_lock");
}
void omp_set_nest_lock(omp_nest_lock_t* l) {
  team().nest_lock_set(reinterpret_cast<uint32_t*>(l), "omp_set_nest_lock");
}
void omp_unset_nest_lock(omp_nest_lock_t* l) {
  team().nest_lock_unset(reinterpret_cast<uint32_t*>(l), "omp_unset_nest_lock");
}
int omp_test_nest_lock(omp_nest_lock_t* l) {
  return team().nest_lock_test(reinterpret_cast<uint32_t*>(l), "omp_test_nest_lock");
}

// --- the Fortran forms (omp_lib: arguments by reference, lock kinds 4 and 8) ---------

int omp_get_thread_num_(void) { return omp_get_thread_num(); }
int omp_get_num_threads_(void) { return omp_get_num_threads(); }
int omp_get_max_threads_(void) { return omp_get_max_threads(); }
void omp_set_num_threads_(const int* n) { omp_set_num_threads(*n); }
void omp_set_num_threads_8_(const long long* n) { omp_set_num_threads(static_cast<int>(*n)); }
int omp_get_num_procs_(void) { return omp_get_num_procs(); }
int omp_in_parallel_(void) { return omp_in_parallel(); }
void omp_set_dynamic_(const int* d) { omp_set_dynamic(*d); }
void omp_set_dynamic_8_(const long long* d) { omp_set_dynamic(static_cast<int>(*d)); }
int omp_get_dynamic_(void) { return omp_get_dynamic(); }
void omp_set_nested_(const int*) {}
void omp_set_nested_8_(const long long*) {}
int omp_get_nested_(void) { return 0; }
int omp_get_level_(void) { return omp_get_level(); }
int omp_get_active_level_(void) { return omp_get_active_level(); }
int omp_get_ancestor_thread_num_(const int* level) { return omp_get_ancestor_thread_num(*level); }
int omp_get_ancestor_thread_num_8_(const long long* level) {
  return omp_get_ancestor_thread_num(static_cast<int>(*level));
}
int omp_get_team_size_(const int* level) { return omp_get_team_size(*level); }
int omp_get_team_size_8_(const long long* level) { return omp_get_team_size(static_cast<int>(*level)); }
int omp_get_thread_limit_(void) { return omp_get_thread_limit(); }
void omp_set_max_active_levels_(const int* n) { omp_set_max_active_levels(*n); }
void omp_set_max_active_levels_8_(const long long* n) { omp_set_max_active_levels(static_cast<int>(*n)); }
int omp_get_max_active_levels_(void) { return omp_get_max_active_levels(); }
void omp_set_schedule_(const int* kind, const int* chunk) { omp_set_schedule(static_cast<omp_sched_t>(*kind), *chunk); }
void omp_set_schedule_8_(const int* kind, const long long* chunk) {
  omp_set_schedule(static_cast<omp_sched_t>(*kind), static_cast<int>(*chunk));
}
void omp_get_schedule_(int* kind, int* chunk) {
  omp_sched_t k;
  omp_get_schedule(&k, chunk);
  *kind = static_cast<int>(k);
}
void omp_get_schedule_8_(int* kind, long long* chunk) {
  omp_sched_t k;
  int c = 0;
  omp_get_schedule(&k, &c);
  *kind = static_cast<int>(k);
  *chunk = c;
}
int omp_get_cancellation_(void) { return 0; }
int omp_get_proc_bind_(void) { return 0; }
int omp_in_final_(void) { return 0; }
int omp_get_num_teams_(void) { return 1; }
int omp_get_team_num_(void) { return 0; }
int omp_get_num_devices_(void) { return 0; }
int omp_is_initial_device_(void) { return 1; }
double omp_get_wtime_(void) { return omp_get_wtime(); }
double omp_get_wtick_(void) { return omp_get_wtick(); }
void omp_init_lock_(int32_t* l) { team().lock_init(reinterpret_cast<uint32_t*>(l), "omp_init_lock"); }
void omp_destroy_lock_(int32_t* l) { team().lock_destroy(reinterpret_cast<uint32_t*>(l), "omp_destroy_lock"); }
void omp_set_lock_(int32_t* l) { team().lock_set(reinterpret_cast<uint32_t*>(l), "omp_set_lock"); }
void omp_unset_lock_(int32_t* l) { team().lock_unset(reinterpret_cast<uint32_t*>(l), "omp_unset_lock"); }
int omp_test_lock_(int32_t* l) { return team().lock_test(reinterpret_cast<uint32_t*>(l), "omp_test_lock"); }
void omp_init_nest_lock_(int64_t* l) { team().lock_init(reinterpret_cast<uint32_t*>(l), "omp_init_nest_lock"); }
void omp_destroy_nest_lock_(int64_t* l) {
  team().lock_destroy(reinterpret_cast<uint32_t*>(l), "omp_destroy_nest_lock");
}
void omp_set_nest_lock_(int64_t* l) { team().nest_lock_set(reinterpret_cast<uint32_t*>(l), "omp_set_nest_lock"); }
void omp_unset_nest_lock_(int64_t* l) {
  team().nest_lock_unset(reinterpret_cast<uint32_t*>(l), "omp_unset_nest_lock");
}
int omp_test_nest_lock_(int64_t* l) {
  return team().nest_lock_test(reinterpret_cast<uint32_t*>(l), "omp_test_nest_lock");
}

}  // extern "C"
