// The sequential build of the ScopeDSM API: one process, plain memory, no
// MPI. Applications link against it (libscopedsm_seq) to produce the
// sequential baseline from the same source and flags as the DSM build.
// Misuse is still reported, so an application that is wrong under the DSM
// is wrong here too.

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "common/checked.h"
#include "jia.h"
#include "runtime/alloc_plan.h"
#include "scopedsm.h"

int jia_pid = 0;
int hostc = 1;
int jia_lock_index = 0;

namespace {

using scopedsm::Placement;

bool g_initialized = false;
bool g_finalized = false;
int g_lock_depth = 0;
bool g_held[Maxlocks] = {};
bool g_cv_set[Maxcondvs] = {};
std::chrono::steady_clock::time_point g_start;

[[noreturn]] void die(const char* call, const char* what) {
  std::fprintf(stderr, "scopedsm: rank 0: %s: %s\n", call, what);
  std::fflush(stderr);
  std::_Exit(1);
}

[[noreturn]] void vdie(const char* prefix, const char* fmt, va_list ap) {
  std::fprintf(stderr, "scopedsm: rank 0: %s", prefix);
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::_Exit(1);
}

void require_running(const char* call) {
  if (!g_initialized) die(call, "called before jia_init/scopedsm_init; initialize first");
  if (g_finalized) die(call, "called after jia_exit/scopedsm_finalize");
}

// Sizes and blocks are checked by the same arithmetic as the DSM build
// (runtime/alloc_plan.h), so a size the DSM refuses is refused here too,
// with the same words. Start ranks are not: every rank is this process.
void* allocate(const char* call, size_t size, const Placement* cyclic) {
  require_running(call);
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t pages = 0, block_pages = 0;
  scopedsm::Status s = scopedsm::pages_for_size(size, page, &pages);
  if (s.ok() && cyclic != nullptr) s = scopedsm::pages_for_block(cyclic->block_bytes, page, &block_pages);
  if (!s.ok()) die(call, s.message().c_str());
  // pages * page fits 64 bits (pages_for_size), but maybe not size_t.
  std::optional<size_t> bytes = scopedsm::checked_cast<size_t>(pages * page);
  if (!bytes) die(call, "size too large for this process's address space");
  void* p = mmap(nullptr, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die(call, "out of memory");
  return p;
}

// The JIAJIA calls take int sizes and blocks, as JIAJIA 2.1 did.
unsigned long jia_alloc_as(const char* call, int size, int block, int) {
  if (size < 0) die(call, "negative size");
  if (block <= 0 && size > 0) die(call, "block size must be positive");
  Placement p;
  p.block_bytes = static_cast<uint64_t>(block);
  return reinterpret_cast<unsigned long>(allocate(call, static_cast<size_t>(size), &p));
}

void check_lock(const char* call, int id) {
  require_running(call);
  static const std::string what = "lock id out of range [0, " + std::to_string(Maxlocks) + ")";
  if (id < 0 || id >= Maxlocks) die(call, what.c_str());
}

void check_cv(const char* call, int cv) {
  require_running(call);
  static const std::string what = "condition variable out of range [0, " + std::to_string(Maxcondvs) + ")";
  if (cv < 0 || cv >= Maxcondvs) die(call, what.c_str());
}

}  // namespace

extern "C" {

void scopedsm_init(int*, char***) {
  if (g_initialized) die("scopedsm_init", "called twice; initialize once");
  g_initialized = true;
  g_start = std::chrono::steady_clock::now();
}
void scopedsm_finalize(void) {
  require_running("scopedsm_finalize");
  if (g_lock_depth != 0) die("scopedsm_finalize", "locks still held at exit; unlock them first");
  g_finalized = true;
}
int scopedsm_initialized(void) { return g_initialized && !g_finalized; }
int scopedsm_rank(void) { return 0; }
int scopedsm_size(void) { return 1; }
size_t scopedsm_page_size(void) { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
int scopedsm_num_locks(void) { return Maxlocks; }
int scopedsm_num_condvars(void) { return Maxcondvs; }
void* scopedsm_alloc(size_t size) { return allocate("scopedsm_alloc", size, nullptr); }
void* scopedsm_alloc_cyclic(size_t size, size_t block, int start_rank) {
  Placement p;
  p.block_bytes = block;
  p.start_rank = start_rank;
  return allocate("scopedsm_alloc_cyclic", size, &p);
}
void* scopedsm_alloc_first_touch(size_t size) { return allocate("scopedsm_alloc_first_touch", size, nullptr); }
int scopedsm_home_of(const void*) { return 0; }
int scopedsm_is_shared(const void*) { return 0; }

void scopedsm_lock(int id) {
  check_lock("scopedsm_lock", id);
  if (g_held[id]) die("scopedsm_lock", "lock already held by this process; locks do not nest on the same id");
  g_held[id] = true;
  ++g_lock_depth;
}
void scopedsm_unlock(int id) {
  check_lock("scopedsm_unlock", id);
  if (!g_held[id]) die("scopedsm_unlock", "unlocking a lock this process does not hold");
  g_held[id] = false;
  --g_lock_depth;
}
void scopedsm_barrier(void) {
  require_running("scopedsm_barrier");
  if (g_lock_depth != 0) die("scopedsm_barrier", "barrier inside a critical section; unlock first");
}
void scopedsm_wait(void) { require_running("scopedsm_wait"); }
void scopedsm_cv_set(int cv) { check_cv("scopedsm_cv_set", cv); g_cv_set[cv] = true; }
void scopedsm_cv_reset(int cv) { check_cv("scopedsm_cv_reset", cv); g_cv_set[cv] = false; }
void scopedsm_cv_wait(int cv) {
  check_cv("scopedsm_cv_wait", cv);
  if (!g_cv_set[cv]) die("scopedsm_cv_wait", "waiting on an unset condition variable with one process would never return");
}
void scopedsm_send(const void*, size_t, int, int) {
  die("scopedsm_send", "message passing needs more than one process");
}
size_t scopedsm_recv(void*, size_t, int, int) {
  die("scopedsm_recv", "message passing needs more than one process");
}
double scopedsm_time(void) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
}
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
void scopedsm_fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdie("", fmt, ap);
}

// JIAJIA surface.
void jia_init(int argc, char** argv) { scopedsm_init(&argc, &argv); }
void jia_exit(void) { scopedsm_finalize(); }
unsigned long jia_alloc3(int size, int block, int start) { return jia_alloc_as("jia_alloc3", size, block, start); }
unsigned long jia_alloc2(int size, int block) { return jia_alloc_as("jia_alloc2", size, block, 0); }
unsigned long jia_alloc2p(int size, int proc) { return jia_alloc_as("jia_alloc2p", size, size, proc); }
unsigned long jia_alloc1(int size) { return jia_alloc_as("jia_alloc1", size, size, 0); }
unsigned long jia_alloc(int size) { return jia_alloc_as("jia_alloc", size, size, 0); }
void jia_lock(int id) { scopedsm_lock(id); }
void jia_unlock(int id) { scopedsm_unlock(id); }
void jia_barrier(void) { scopedsm_barrier(); }
void jia_wait(void) { scopedsm_wait(); }
void jia_setcv(int cv) { scopedsm_cv_set(cv); }
void jia_resetcv(int cv) { scopedsm_cv_reset(cv); }
void jia_waitcv(int cv) { scopedsm_cv_wait(cv); }
void jia_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdie("jia_error: ", fmt, ap);
}
float jia_clock(void) { return static_cast<float>(scopedsm_time()); }
unsigned int jia_startstat(void) { return 0; }
unsigned int jia_stopstat(void) { return 0; }
void jia_send(void* buf, int len, int to, int tag) { scopedsm_send(buf, static_cast<size_t>(len), to, tag); }
int jia_recv(void* buf, int len, int from, int tag) {
  return static_cast<int>(scopedsm_recv(buf, static_cast<size_t>(len), from, tag));
}
void jia_bcast(void*, int, int root) {
  if (root != 0) die("jia_bcast", "root out of range");
}
void jia_reduce(void* sendbuf, void* recvbuf, int count, int op, int root) {
  if (root != 0) die("jia_reduce", "root out of range");
  if (count < 0) die("jia_reduce", "negative count");
  size_t elem = op <= MIN_INT ? sizeof(int) : op <= MIN_FLOAT ? sizeof(float) : sizeof(double);
  if (op < 0 || op > MIN_DOUBLE) die("jia_reduce", "unknown operation");
  std::memmove(recvbuf, sendbuf, elem * static_cast<size_t>(count));
}
void jia_config(int, int) {}
void jia_divtask(int*, int*) {}
void jia_loadcheck(void) {}

}  // extern "C"
