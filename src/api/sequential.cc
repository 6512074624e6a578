// The sequential build of the ScopeDSM API: one process, plain memory, no
// MPI. Applications link against it (libscopedsm_seq) to produce the
// sequential baseline from the same source and flags as the DSM build.
// Misuse is still reported, so an application that is wrong under the DSM
// is wrong here too.

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "common/checked.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/schedule_spec.h"
#include "common/surface.h"
#include "jia.h"
#include "memory/atomic_word.h"
#include "runtime/alloc_plan.h"
#include "scopedsm.h"
#include "scopedsm.hpp"

int jia_pid = 0;
int hostc = 1;
int jia_lock_index = 0;

namespace {

using scopedsm::ApiCall;
using scopedsm::c_call;
using scopedsm::cxx_call;
using scopedsm::jia_call;
using scopedsm::Placement;

bool g_initialized = false;
bool g_finalized = false;
std::vector<int> g_held;  // the locks held, outermost first
bool g_cv_set[Maxcondvs] = {};
std::chrono::steady_clock::time_point g_start;

// Ends the process with "scopedsm: rank 0: <prefix><message>", as the DSM
// build's fatal() does for rank 0.
[[noreturn]] void vdie(const char* prefix, const char* fmt, va_list ap) {
  std::fprintf(stderr, "scopedsm: rank 0: %s", prefix);
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::_Exit(1);
}

[[noreturn]] void die_text(const std::string& text) {
  std::fprintf(stderr, "scopedsm: rank 0: %s\n", text.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

bool holds(int id) { return std::find(g_held.begin(), g_held.end(), id) != g_held.end(); }

std::string describe_held() { return scopedsm::describe_locks_held(g_held); }

[[noreturn]] void die(ApiCall call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] void die(ApiCall call, const char* fmt, ...) {
  const std::string prefix = std::string(call.name) + ": ";
  va_list ap;
  va_start(ap, fmt);
  vdie(prefix.c_str(), fmt, ap);
}

// The reports the DSM build gives too come from common/surface.h, word
// for word; the others name the call in its surface's words as well.
void require_running(ApiCall call) {
  if (!g_initialized) die_text(before_init_error(call));
  if (g_finalized) die_text(after_finalize_error(call));
}

// The coherence unit as the parallel library sizes it (SCOPEDSM_UNIT_PAGES
// OS pages), so that allocations round alike in both builds; a bad value
// ends the program with the parallel library's words.
uint64_t unit_bytes() {
  static const uint64_t bytes = []() -> uint64_t {
    const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const char* text = std::getenv("SCOPEDSM_UNIT_PAGES");
    if (text == nullptr) return os_page;
    char* end = nullptr;
    const unsigned long long n = *text >= '0' && *text <= '9' ? std::strtoull(text, &end, 10) : 0;
    if (end == nullptr || *end != '\0' || !scopedsm::valid_unit_pages(n))
      die_text(std::string("SCOPEDSM_UNIT_PAGES='") + text + "' is invalid: expected " + scopedsm::kUnitPagesAccepted);
    return os_page * n;
  }();
  return bytes;
}

// Sizes and blocks are checked by the same arithmetic as the DSM build
// (runtime/alloc_plan.h), so a size the DSM refuses is refused here too,
// with the same words. Start ranks are not: every rank is this process.
void* allocate(ApiCall call, size_t size, const Placement* cyclic) {
  require_running(call);
  const uint64_t page = unit_bytes();
  uint64_t pages = 0, block_pages = 0;
  scopedsm::Status s = scopedsm::pages_for_size(size, page, &pages);
  if (s.ok() && cyclic != nullptr) s = scopedsm::pages_for_block(cyclic->block_bytes, page, &block_pages);
  if (!s.ok()) die(call, "%s", s.message().c_str());
  // pages * page fits 64 bits (pages_for_size), but maybe not size_t.
  std::optional<size_t> bytes = scopedsm::checked_cast<size_t>(pages * page);
  if (!bytes) die(call, "size too large for this process's address space");
  void* p = mmap(nullptr, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die(call, "out of memory");
  return p;
}

// A DOALL loop with one process: the whole range is one chunk. A schedule
// text is checked as the DSM build checks it (SCOPEDSM_SCHEDULE is not read).
struct {
  bool started = false;
  bool taken = false;
  long long begin = 0, end = 0;
} g_loop;

void loop_init(ApiCall call, long long begin, long long end, const char* schedule) {
  require_running(call);
  scopedsm::Schedule parsed;
  if (schedule != nullptr) {
    const scopedsm::Status st = scopedsm::parse_schedule(schedule, &parsed);
    if (!st.ok()) die(call, "%s", st.message().c_str());
  }
  g_loop = {true, false, begin, end < begin ? begin : end};
}

bool loop_next(ApiCall call, long long* begin, long long* end) {
  require_running(call);
  if (begin == nullptr || end == nullptr) die(call, "begin and end must not be null");
  if (!g_loop.started) die(call, "no loop started; start one first (every process, collectively)");
  const bool got = !g_loop.taken && g_loop.end > g_loop.begin;
  g_loop.taken = true;
  *begin = got ? g_loop.begin : g_loop.end;
  *end = g_loop.end;
  return got;
}

// The JIAJIA calls take int sizes and blocks, as JIAJIA 2.1 did.
unsigned long jia_alloc_as(const char* name, int size, int block, int) {
  const ApiCall call = jia_call(name);
  if (size < 0) die(call, "negative size");
  if (block <= 0 && size > 0) die(call, "block size must be positive");
  Placement p;
  p.block_bytes = static_cast<uint64_t>(block);
  return reinterpret_cast<unsigned long>(allocate(call, static_cast<size_t>(size), &p));
}

// SCOPEDSM_LOCKS as the parallel library reads it; a value it would reject
// leaves JIAJIA's Maxlocks (the parallel library says what is wrong).
int lock_count() {
  static const int count = [] {
    const char* text = std::getenv("SCOPEDSM_LOCKS");
    if (text == nullptr || *text < '0' || *text > '9') return Maxlocks;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(text, &end, 10);
    return *end == '\0' && n >= 1 && n <= static_cast<unsigned long long>(scopedsm::kMaxLockIds) ? static_cast<int>(n)
                                                                                       : Maxlocks;
  }();
  return count;
}

void check_lock(ApiCall call, int id) {
  require_running(call);
  if (id < 0 || id >= lock_count()) die_text(lock_id_error(call, id, lock_count()));
}

void check_cv(ApiCall call, int cv) {
  require_running(call);
  if (cv < 0 || cv >= Maxcondvs) die_text(cv_id_error(call, cv));
}

void init(ApiCall call) {
  if (g_initialized) die_text(init_again_error(call, g_finalized));
  g_initialized = true;
  g_start = std::chrono::steady_clock::now();
  unit_bytes();  // a bad SCOPEDSM_UNIT_PAGES is reported at start-up, as in the parallel build
}

void finalize(ApiCall call) {
  require_running(call);
  if (!g_held.empty()) die_text(scopedsm::finalize_in_lock_error(call, describe_held()));
  g_finalized = true;
}

void lock(ApiCall call, int id) {
  check_lock(call, id);
  if (holds(id)) die_text(scopedsm::relock_error(call, id, describe_held()));
  g_held.push_back(id);
}

void unlock(ApiCall call, int id) {
  check_lock(call, id);
  if (!holds(id)) die_text(scopedsm::unlock_unheld_error(call, id, describe_held()));
  if (g_held.back() != id) die_text(scopedsm::unlock_not_innermost_error(call, id, describe_held()));
  g_held.pop_back();
}

void barrier(ApiCall call) {
  require_running(call);
  if (!g_held.empty()) die_text(barrier_in_lock_error(call, describe_held()));
}

// Task migration with one process: nothing to move; a barrier, the range
// as it is (its misuse reported as the DSM build reports it).
bool lbarrier(ApiCall call, long long* begin, long long* end, bool inclusive) {
  if (begin == nullptr || end == nullptr) die(call, "begin and end must not be null");
  if (*end < *begin) {
    if (inclusive) die(call, "this process's range [%lld, %lld] is reversed (an empty range is end = begin - 1)", *begin, *end - 1);
    die(call, "this process's range [%lld, %lld) is reversed (an empty range is end = begin)", *begin, *end);
  }
  barrier(call);
  return false;
}

void lbarrier_setup(ApiCall call, long long iterations) {
  require_running(call);
  if (iterations < 1) die(call, "the iterations must be 1 or more");
}

void cv_set(ApiCall call, int cv, bool set) {
  check_cv(call, cv);
  g_cv_set[cv] = set;
}

void cv_wait(ApiCall call, int cv) {
  check_cv(call, cv);
  if (!g_cv_set[cv]) die(call, "waiting on an unset condition variable with one process would never return");
}

double seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count(); }

// An AMO barrier or reduction of the one process: it arrives and is the last.
void amo_arrive(ApiCall call, int64_t* counter) {
  require_running(call);
  if (counter != nullptr) ++*counter;
}

// Atomics on the one process's memory; the orders have nothing to order.
void atomic_values(ApiCall call, void* addr, int type, int op, const void* operand, const void* expected, void* old) {
  require_running(call);
  if (type < 0 || type >= static_cast<int>(scopedsm::AtomicType::kCount))
    die(call, "type %d is not a scopedsm_atomic_type", type);
  const auto t = static_cast<scopedsm::AtomicType>(type);
  const size_t n = scopedsm::atomic_type_size(t);
  const auto at = reinterpret_cast<uintptr_t>(addr);
  if (const std::string why = scopedsm::atomic_request_error(static_cast<uint32_t>(op), static_cast<uint32_t>(type),
                                                             at % 4096, 4096);
      !why.empty())
    die(call, "%s", why.c_str());
  uint64_t a = 0, e = 0;
  if (operand != nullptr) std::memcpy(&a, operand, n);
  if (expected != nullptr) std::memcpy(&e, expected, n);
  const uint64_t was = scopedsm::apply_atomic(addr, static_cast<scopedsm::AtomicOp>(op), t, a, e, false);
  if (old != nullptr) std::memcpy(old, &was, n);
}

}  // namespace

extern "C" {

void scopedsm_init(int*, char***) { init(c_call("scopedsm_init")); }
void scopedsm_finalize(void) { finalize(c_call("scopedsm_finalize")); }
int scopedsm_initialized(void) { return g_initialized && !g_finalized; }
int scopedsm_rank(void) { return 0; }
int scopedsm_size(void) { return 1; }
size_t scopedsm_page_size(void) { return static_cast<size_t>(unit_bytes()); }
int scopedsm_num_locks(void) { return lock_count(); }
int scopedsm_num_condvars(void) { return Maxcondvs; }
void* scopedsm_alloc(size_t size) { return allocate(c_call("scopedsm_alloc"), size, nullptr); }
void* scopedsm_alloc_cyclic(size_t size, size_t block, int start_rank) {
  Placement p;
  p.block_bytes = block;
  p.start_rank = start_rank;
  return allocate(c_call("scopedsm_alloc_cyclic"), size, &p);
}
void* scopedsm_alloc_first_touch(size_t size) { return allocate(c_call("scopedsm_alloc_first_touch"), size, nullptr); }
void* scopedsm_alloc_on(size_t size, int) { return allocate(c_call("scopedsm_alloc_on"), size, nullptr); }
int scopedsm_home_of(const void*) { return 0; }
int scopedsm_is_shared(const void*) { return 0; }

void scopedsm_lock(int id) { lock(c_call("scopedsm_lock"), id); }
void scopedsm_unlock(int id) { unlock(c_call("scopedsm_unlock"), id); }
void scopedsm_barrier(void) { barrier(c_call("scopedsm_barrier")); }
void scopedsm_wait(void) { require_running(c_call("scopedsm_wait")); }
// Checkpoints: the sequential build saves nothing and never restarts.
void scopedsm_checkpoint(void) { require_running(c_call("scopedsm_checkpoint")); }
void scopedsm_checkpoint_register(void*, size_t) { require_running(c_call("scopedsm_checkpoint_register")); }
long long scopedsm_restarted(void) {
  require_running(c_call("scopedsm_restarted"));
  return 0;
}
void scopedsm_cv_set(int cv) { cv_set(c_call("scopedsm_cv_set"), cv, true); }
void scopedsm_cv_reset(int cv) { cv_set(c_call("scopedsm_cv_reset"), cv, false); }
void scopedsm_cv_wait(int cv) { cv_wait(c_call("scopedsm_cv_wait"), cv); }
void scopedsm_send(const void*, size_t, int, int) {
  die(c_call("scopedsm_send"), "message passing needs more than one process");
}
size_t scopedsm_recv(void*, size_t, int, int) {
  die(c_call("scopedsm_recv"), "message passing needs more than one process");
}
double scopedsm_time(void) { return seconds(); }
void scopedsm_stats_start(void) {}
void scopedsm_stats_stop(void) {}
size_t scopedsm_stats_json(char* buf, size_t len) {
  const char* s = "{\"sequential\":true}";
  size_t n = std::strlen(s);
  if (len > 0) {
    size_t c = n < len - 1 ? n : len - 1;
    std::memcpy(buf, s, c);
    buf[c] = '\0';
  }
  return n;
}
const char* scopedsm_version(void) { return "sequential"; }
int scopedsm_describe(char* buf, size_t len) {
  const char* s = "version: sequential build (no MPI)\n";
  size_t n = std::strlen(s);
  if (len > 0) {
    size_t c = n < len - 1 ? n : len - 1;
    std::memcpy(buf, s, c);
    buf[c] = '\0';
  }
  return 0;
}
void scopedsm_prepare(const void*, size_t, int) {}
// Hints: one process holds everything; nothing to fetch or give back.
void scopedsm_prefetch(const void*, size_t) {}
void scopedsm_next_touch(const void*, size_t) {}  // one process: every home is here already
void jia_nexttouch(void*, long) {}
void(scopedsm_release)(const void*, size_t, int) {}
void scopedsm_release_tagged(const void*, size_t, int, unsigned long) {}
void jia_prefetch(void*, int) {}
void(jia_release)(void*, int, int) {}
void jia_release_tagged(void*, int, int, unsigned long) {}
void scopedsm_atomic(void* addr, scopedsm_atomic_type type, scopedsm_atomic_op op, const void* operand,
                     const void* expected, void* old, scopedsm_memory_order) {
  atomic_values(c_call("scopedsm_atomic"), addr, type, op, operand, expected, old);
}
int64_t scopedsm_amo_inc(int64_t* counter, int64_t, scopedsm_memory_order) {
  require_running(c_call("scopedsm_amo_inc"));
  return (*counter)++;
}
void scopedsm_amo_wait(int64_t*, int64_t, scopedsm_memory_order) { require_running(c_call("scopedsm_amo_wait")); }
void scopedsm_amo_barrier(int64_t* counter, scopedsm_memory_order) {
  amo_arrive(c_call("scopedsm_amo_barrier"), counter);
}
double scopedsm_amo_reduce_sum(scopedsm_amo_reduction*, double value, scopedsm_memory_order) {
  amo_arrive(c_call("scopedsm_amo_reduce_sum"), nullptr);
  return value;
}
void scopedsm_fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdie("", fmt, ap);
}

// JIAJIA surface.
void jia_init(int, char**) { init(jia_call("jia_init")); }
void jia_exit(void) { finalize(jia_call("jia_exit")); }
unsigned long (jia_alloc3)(int size, int block, int start) { return jia_alloc_as("jia_alloc3", size, block, start); }
unsigned long (jia_alloc2)(int size, int block) { return jia_alloc_as("jia_alloc2", size, block, 0); }
unsigned long (jia_alloc2p)(int size, int proc) { return jia_alloc_as("jia_alloc2p", size, size, proc); }
unsigned long (jia_alloc1)(int size) { return jia_alloc_as("jia_alloc1", size, size, 0); }
unsigned long (jia_alloc)(int size) { return jia_alloc_as("jia_alloc", size, size, 0); }
int scopedsm_jia_int_arg(const char* call, const char* what, long double value) {
  std::string error;
  const int v = scopedsm::jia_int_arg(call, what, value, &error);
  if (!error.empty()) die_text(error);
  return v;
}
void jia_lock(int id) { lock(jia_call("jia_lock"), id); }
void jia_unlock(int id) { unlock(jia_call("jia_unlock"), id); }
void jia_barrier(void) { barrier(jia_call("jia_barrier")); }
void jia_wait(void) { require_running(jia_call("jia_wait")); }
void jia_checkpoint(void) { require_running(jia_call("jia_checkpoint")); }
void jia_checkpoint_register(void*, long) { require_running(jia_call("jia_checkpoint_register")); }
long jia_restarted(void) {
  require_running(jia_call("jia_restarted"));
  return 0;
}
void jia_setcv(int cv) { cv_set(jia_call("jia_setcv"), cv, true); }
void jia_resetcv(int cv) { cv_set(jia_call("jia_resetcv"), cv, false); }
void jia_waitcv(int cv) { cv_wait(jia_call("jia_waitcv"), cv); }
void jia_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdie("jia_error: ", fmt, ap);
}
float jia_clock(void) { return static_cast<float>(scopedsm::seconds_since_first_call()); }
unsigned int jia_startstat(void) { return 0; }
unsigned int jia_stopstat(void) { return 0; }
void jia_send(void*, int, int, int) { die(jia_call("jia_send"), "message passing needs more than one process"); }
int jia_recv(void*, int, int, int) { die(jia_call("jia_recv"), "message passing needs more than one process"); }
void jia_bcast(void*, int, int root) {
  if (root != 0) die(jia_call("jia_bcast"), "root out of range");
}
void jia_reduce(void* sendbuf, void* recvbuf, int count, int op, int root) {
  const ApiCall call = jia_call("jia_reduce");
  if (root != 0) die(call, "root out of range");
  if (count < 0) die(call, "negative count");
  size_t elem = op <= MIN_INT ? sizeof(int) : op <= MIN_FLOAT ? sizeof(float) : sizeof(double);
  if (op < 0 || op > MIN_DOUBLE) die(call, "unknown operation");
  std::memmove(recvbuf, sendbuf, elem * static_cast<size_t>(count));
}
int jia_fetchadd(int* addr, int value) {
  int old = 0;
  atomic_values(jia_call("jia_fetchadd"), addr, SCOPEDSM_INT32, SCOPEDSM_FETCH_ADD, &value, nullptr, &old);
  return old;
}
int jia_compswap(int* addr, int expected, int desired) {
  int old = 0;
  atomic_values(jia_call("jia_compswap"), addr, SCOPEDSM_INT32, SCOPEDSM_COMPARE_EXCHANGE, &desired, &expected, &old);
  return old;
}
void jia_config(int, int) {}
void jia_divtask(int*, int*) {}
void jia_loadcheck(void) {}
void jia_lbarrier(int* begin, int* end) {
  if (begin == nullptr || end == nullptr) die(jia_call("jia_lbarrier"), "begin and end must not be null");
  long long b = *begin, e = static_cast<long long>(*end) + 1;
  lbarrier(jia_call("jia_lbarrier"), &b, &e, true);
}
void jia_lbarrier_setup(int iterations, int, double) { lbarrier_setup(jia_call("jia_lbarrier_setup"), iterations); }
int scopedsm_lbarrier(long long* begin, long long* end) {
  return lbarrier(c_call("scopedsm_lbarrier"), begin, end, false) ? 1 : 0;
}
void scopedsm_lbarrier_setup(long long iterations, long long, double) {
  lbarrier_setup(c_call("scopedsm_lbarrier_setup"), iterations);
}
void jia_settask(int begin, int end, const char* schedule, const void*, unsigned long) {
  loop_init(jia_call("jia_settask"), begin, static_cast<long long>(end) + 1, schedule);
}
int jia_gettask(int* begin, int* end) {
  long long b = 0, e = 0;
  const bool got = loop_next(jia_call("jia_gettask"), &b, &e);
  *begin = static_cast<int>(b);
  *end = static_cast<int>(e - 1);
  return got ? 1 : 0;
}
void scopedsm_loop_init(long long begin, long long end, const char* schedule, const void*, size_t) {
  loop_init(c_call("scopedsm_loop_init"), begin, end, schedule);
}
int scopedsm_loop_next(long long* begin, long long* end) {
  return loop_next(c_call("scopedsm_loop_next"), begin, end) ? 1 : 0;
}

}  // extern "C"

// The C++ API's entry points (scopedsm.hpp), named as the C++ program wrote them.
extern "C" {

void scopedsm_cxx_init(int*, char***) { init(cxx_call("scopedsm::Runtime")); }
void scopedsm_cxx_finalize(void) { finalize(cxx_call("scopedsm::Runtime::~Runtime")); }
int scopedsm_cxx_rank(void) { return 0; }
int scopedsm_cxx_size(void) { return 1; }
double scopedsm_cxx_time(void) { return seconds(); }
void scopedsm_cxx_barrier(void) { barrier(cxx_call("scopedsm::barrier")); }
void scopedsm_cxx_next_touch(const void*, size_t) {}
void scopedsm_cxx_wait(void) { require_running(cxx_call("scopedsm::wait")); }
void scopedsm_cxx_checkpoint(void) { require_running(cxx_call("scopedsm::checkpoint")); }
void scopedsm_cxx_checkpoint_register(void*, size_t) { require_running(cxx_call("scopedsm::checkpoint_register")); }
long long scopedsm_cxx_restarted(void) {
  require_running(cxx_call("scopedsm::restarted"));
  return 0;
}
void scopedsm_cxx_lock(int id) { lock(cxx_call("scopedsm::LockGuard"), id); }
void scopedsm_cxx_loop_init(long long begin, long long end, const char* schedule, const void*, size_t) {
  loop_init(cxx_call("scopedsm::parallel_for"), begin, end, schedule);
}
int scopedsm_cxx_loop_next(long long* begin, long long* end) {
  return loop_next(cxx_call("scopedsm::parallel_for"), begin, end) ? 1 : 0;
}
void scopedsm_cxx_lbarrier_setup(long long iterations, long long, double) {
  lbarrier_setup(cxx_call("scopedsm::lbarrier_setup"), iterations);
}
int scopedsm_cxx_lbarrier(long long* begin, long long* end) {
  return lbarrier(cxx_call("scopedsm::lbarrier"), begin, end, false) ? 1 : 0;
}
void scopedsm_cxx_unlock(int id) { unlock(cxx_call("scopedsm::LockGuard::~LockGuard"), id); }
void* scopedsm_cxx_alloc(size_t bytes, size_t, const char*, int, int placement, size_t block_bytes, int start_rank) {
  const ApiCall call = cxx_call("scopedsm::alloc_array");
  if (placement != SCOPEDSM_HOME_CYCLIC) return allocate(call, bytes, nullptr);
  Placement p;
  p.block_bytes = block_bytes;
  p.start_rank = start_rank;
  return allocate(call, bytes, &p);
}

void scopedsm_cxx_atomic(void* addr, int type, int op, const void* operand, const void* expected, void* old, int) {
  atomic_values(cxx_call("scopedsm::atomic"), addr, type, op, operand, expected, old);
}
void scopedsm_cxx_amo_barrier(int64_t* counter, int) { amo_arrive(cxx_call("scopedsm::amo_barrier"), counter); }
double scopedsm_cxx_amo_reduce_sum(scopedsm_amo_reduction*, double value, int) {
  amo_arrive(cxx_call("scopedsm::amo_reduce_sum"), nullptr);
  return value;
}

}  // extern "C"
