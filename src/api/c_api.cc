// The C API (scopedsm.h): argument checks and forwarding to the runtime.
// Each entry point passes its own name (common/surface.h); the operations
// every surface shares (api/entry.h) are defined here.

#include <mpi.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>

#include "api/entry.h"
#include "api/message_passing.h"
#include "api/test_hooks.h"
#include "common/log.h"
#include "jia.h"
#include "memory/atomic_word.h"
#include "runtime/runtime.h"
#include "scopedsm.h"
#define SCOPEDSM_MPI_C_ONLY  // scopedsm::Runtime is the runtime's here, not scopedsm.hpp's
#include "scopedsm_mpi.h"

using scopedsm::Placement;
using scopedsm::Runtime;

using scopedsm::ApiCall;
using scopedsm::c_call;

namespace {

std::string describe(const char* call, size_t size, const char* rest) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s(size=%zu%s)", call, size, rest);
  return buf;
}

}  // namespace

namespace scopedsm::api {

void init(int* argc, char*** argv, ApiCall call) { Runtime::init(argc, argv, call); }
void init_comm(MPI_Comm comm, ApiCall call) { Runtime::init_comm(comm, call); }
void finalize(ApiCall call) { Runtime::require_running(call).finalize(call); }
int rank(ApiCall call) { return Runtime::require_running(call).state().rank; }
int size(ApiCall call) { return Runtime::require_running(call).state().size; }
double time(ApiCall call) { return Runtime::require_running(call).seconds_since_init(); }
namespace {
// The runtime for a synchronization call, after any test-only random hints.
Runtime& sync_call(ApiCall call) {
  Runtime& rt = Runtime::require_running(call);
  rt.inject_test_hints();
  return rt;
}
}  // namespace

void lock(ApiCall call, int id) { sync_call(call).sync().lock(call, id); }
void unlock(ApiCall call, int id) { sync_call(call).sync().unlock(call, id); }
void barrier(ApiCall call) { sync_call(call).sync().barrier(call); }
void wait(ApiCall call) { sync_call(call).sync().wait(call); }
void next_touch(ApiCall call, const void* addr, size_t len) {
  Runtime::require_running(call).next_touch(call, addr, len);
}
void checkpoint(ApiCall call) { sync_call(call).checkpoint(call); }
void checkpoint_register(ApiCall call, void* addr, size_t len) {
  Runtime::require_running(call).checkpoint_register(call, addr, len);
}
long long restarted(ApiCall call) { return static_cast<long long>(Runtime::require_running(call).restarted()); }
void prefetch(const void* addr, size_t len) {
  if (Runtime::running()) Runtime::require_running(c_call("scopedsm_prefetch")).prefetch(addr, len);
}
void release(const void* addr, size_t len, int priority, uint64_t tag) {
  if (Runtime::running()) Runtime::require_running(c_call("scopedsm_release")).release(addr, len, priority, tag);
}
void cv_set(ApiCall call, int cv) { Runtime::require_running(call).sync().cv_set(call, cv); }
void cv_reset(ApiCall call, int cv) { Runtime::require_running(call).sync().cv_reset(call, cv); }
void cv_wait(ApiCall call, int cv) { Runtime::require_running(call).sync().cv_wait(call, cv); }

void* alloc_default(ApiCall call, const std::string& text, size_t size) {
  Runtime& rt = Runtime::require_running(call);
  Placement p;
  if (rt.state().config.home_policy == scopedsm::HomePolicy::kFirstTouch) {
    p.kind = Placement::kFirstTouch;
  } else {
    p.block_bytes = rt.state().region.page_size();  // page-cyclic from rank 0
  }
  return rt.allocate(call, text, size, p);
}

void* alloc_cyclic(ApiCall call, const std::string& text, size_t size, size_t block, int start_rank) {
  Runtime& rt = Runtime::require_running(call);
  Placement p;
  p.block_bytes = block;
  p.start_rank = start_rank;
  return rt.allocate(call, text, size, p);
}

void* alloc_first_touch(ApiCall call, const std::string& text, size_t size) {
  Runtime& rt = Runtime::require_running(call);
  Placement p;
  p.kind = Placement::kFirstTouch;
  return rt.allocate(call, text, size, p);
}

void loop_init(ApiCall call, long long begin, long long end, const char* schedule, const void* data, size_t stride) {
  Runtime::require_running(call).loops().start(call, begin, end, schedule, data, stride);
}

bool lbarrier(ApiCall call, long long* begin, long long* end, bool inclusive) {
  Runtime& rt = Runtime::require_running(call);
  if (begin == nullptr || end == nullptr) scopedsm::fatal("%s: begin and end must not be null", call.name);
  int64_t b = *begin, e = *end;
  const bool changed = rt.tasks().lbarrier(rt.sync(), rt.state().config, rt.state().stats.app, call, &b, &e, inclusive);
  *begin = b;
  *end = e;
  return changed;
}

void lbarrier_setup(ApiCall call, long long iterations, long long alpha, double beta) {
  Runtime& rt = Runtime::require_running(call);
  rt.tasks().setup(rt.sync(), rt.state().stats.app, call, iterations, alpha, beta);
}

bool loop_next(ApiCall call, long long* begin, long long* end) {
  Runtime& rt = Runtime::require_running(call);
  if (begin == nullptr || end == nullptr) scopedsm::fatal("%s: begin and end must not be null", call.name);
  scopedsm::Chunk c;
  const bool got = rt.loops().next(call, &c);
  *begin = c.begin;
  *end = c.end;
  return got;
}

namespace {

// The numbering of scopedsm.h is the runtime's (memory/atomic_word.h).
static_assert(SCOPEDSM_LOAD == static_cast<int>(AtomicOp::kLoad) &&
              SCOPEDSM_FETCH_MAX == static_cast<int>(AtomicOp::kFetchMax) &&
              SCOPEDSM_COMPARE_EXCHANGE == static_cast<int>(AtomicOp::kCompareExchange));
static_assert(SCOPEDSM_DOUBLE == static_cast<int>(AtomicType::kDouble) &&
              SCOPEDSM_UINT64 == static_cast<int>(AtomicType::kUint64));
static_assert(SCOPEDSM_SEQ_CST == static_cast<int>(AtomicOrder::kSeqCst) &&
              SCOPEDSM_RELEASE == static_cast<int>(AtomicOrder::kRelease));
static_assert(offsetof(scopedsm_amo_reduction, sum) == 8 && sizeof(scopedsm_amo_reduction) == 24);

struct Word {
  uint64_t page;
  uint32_t offset;
};

// The page and offset of the `bytes`-byte word at addr, which must be
// allocated shared memory, aligned, within one page; else a fatal error
// naming the call.
Word locate_word(Runtime& rt, ApiCall call, const void* addr, size_t bytes, int order) {
  const auto& region = rt.state().region;
  if (!region.contains(addr) || region.page_of(addr) >= rt.state().pages.allocated())
    fatal("%s(%p): the address is not allocated shared memory", call.name, addr);
  if (order < 0 || order >= static_cast<int>(AtomicOrder::kCount))
    fatal("%s(%p): memory order %d is not a scopedsm_memory_order", call.name, addr, order);
  const uint64_t page = region.page_of(addr);
  const uint64_t offset = reinterpret_cast<uintptr_t>(addr) - reinterpret_cast<uintptr_t>(region.app(page));
  const size_t align = bytes < 8 ? bytes : 8;
  if (offset % align != 0 || offset + bytes > region.page_size())
    fatal("%s(%p): the %zu bytes are not aligned to %zu bytes within one page", call.name, addr, bytes, align);
  return Word{page, static_cast<uint32_t>(offset)};
}

}  // namespace

uint64_t atomic(ApiCall call, void* addr, int type, int op, uint64_t operand, uint64_t expected, int order) {
  Runtime& rt = Runtime::require_running(call);
  if (type < 0 || type >= static_cast<int>(AtomicType::kCount))
    fatal("%s(%p): type %d is not a scopedsm_atomic_type", call.name, addr, type);
  const Word w = locate_word(rt, call, addr, atomic_type_size(static_cast<AtomicType>(type)), order);
  if (const std::string why = atomic_request_error(static_cast<uint32_t>(op), static_cast<uint32_t>(type), w.offset,
                                                   rt.state().region.page_size());
      !why.empty())
    fatal("%s(%p): %s", call.name, addr, why.c_str());
  return rt.sync().atomic(call, w.page, w.offset, static_cast<AtomicOp>(op), static_cast<AtomicType>(type), operand,
                          expected, static_cast<AtomicOrder>(order));
}

void atomic_values(ApiCall call, void* addr, int type, int op, const void* operand, const void* expected, void* old,
                   int order) {
  // Only the type's bytes are read and written (a 4-byte value's in the low half).
  const size_t n = type >= 0 && type < static_cast<int>(AtomicType::kCount)
                       ? atomic_type_size(static_cast<AtomicType>(type))
                       : 8;
  uint64_t a = 0, e = 0;
  if (operand != nullptr) std::memcpy(&a, operand, n);
  if (expected != nullptr) std::memcpy(&e, expected, n);
  if (op == SCOPEDSM_COMPARE_EXCHANGE && expected == nullptr)
    fatal("%s(%p): compare_exchange needs an expected value", call.name, addr);
  const uint64_t was = atomic(call, addr, type, op, a, e, order);
  if (old != nullptr) std::memcpy(old, &was, n);
}

int64_t amo_inc(ApiCall call, int64_t* counter, int64_t test, int order) {
  Runtime& rt = Runtime::require_running(call);
  const Word w = locate_word(rt, call, counter, 8, order);
  return rt.sync().amo_inc(call, w.page, w.offset, test, 0, static_cast<AtomicOrder>(order));
}

void amo_wait(ApiCall call, int64_t* counter, int64_t value, int order) {
  Runtime& rt = Runtime::require_running(call);
  const Word w = locate_word(rt, call, counter, 8, order);
  rt.sync().amo_wait(call, w.page, w.offset, value, static_cast<AtomicOrder>(order));
}

void amo_barrier(ApiCall call, int64_t* counter, int order) {
  Runtime& rt = Runtime::require_running(call);
  const Word w = locate_word(rt, call, counter, 8, order);
  rt.sync().amo_barrier(call, w.page, w.offset, static_cast<AtomicOrder>(order));
}

double amo_reduce_sum(ApiCall call, void* reduction, double value, int order) {
  Runtime& rt = Runtime::require_running(call);
  const Word w = locate_word(rt, call, reduction, sizeof(scopedsm_amo_reduction), order);
  return rt.sync().amo_reduce_sum(call, w.page, w.offset, value, static_cast<AtomicOrder>(order));
}

}  // namespace scopedsm::api

extern "C" {

void scopedsm_init(int* argc, char*** argv) { scopedsm::api::init(argc, argv, c_call("scopedsm_init")); }
void scopedsm_finalize(void) { scopedsm::api::finalize(c_call("scopedsm_finalize")); }
void scopedsm_init_comm(MPI_Comm comm) { scopedsm::api::init_comm(comm, c_call("scopedsm_init_comm")); }
int scopedsm_initialized(void) { return Runtime::running() ? 1 : 0; }
int scopedsm_rank(void) { return scopedsm::api::rank(c_call("scopedsm_rank")); }
int scopedsm_size(void) { return scopedsm::api::size(c_call("scopedsm_size")); }
size_t scopedsm_page_size(void) {
  return Runtime::require_running(c_call("scopedsm_page_size")).state().region.page_size();
}
int scopedsm_num_locks(void) {
  return Runtime::running() ? Runtime::require_running(c_call("scopedsm_num_locks")).state().config.locks : Maxlocks;
}
int scopedsm_num_condvars(void) { return Maxcondvs; }

void* scopedsm_alloc(size_t size) {
  return scopedsm::api::alloc_default(c_call("scopedsm_alloc"), describe("scopedsm_alloc", size, ""), size);
}

void* scopedsm_alloc_cyclic(size_t size, size_t block, int start_rank) {
  char rest[128];
  std::snprintf(rest, sizeof rest, ", block=%zu, start_rank=%d", block, start_rank);
  return scopedsm::api::alloc_cyclic(c_call("scopedsm_alloc_cyclic"), describe("scopedsm_alloc_cyclic", size, rest),
                                     size, block, start_rank);
}

void* scopedsm_alloc_first_touch(size_t size) {
  return scopedsm::api::alloc_first_touch(c_call("scopedsm_alloc_first_touch"),
                                          describe("scopedsm_alloc_first_touch", size, ""), size);
}

void* scopedsm_alloc_on(size_t size, int rank) {
  char rest[64];
  std::snprintf(rest, sizeof rest, ", rank=%d", rank);
  return scopedsm::api::alloc_cyclic(c_call("scopedsm_alloc_on"), describe("scopedsm_alloc_on", size, rest), size,
                                     size, rank);
}

void scopedsm_atomic(void* addr, scopedsm_atomic_type type, scopedsm_atomic_op op, const void* operand,
                     const void* expected, void* old, scopedsm_memory_order order) {
  scopedsm::api::atomic_values(c_call("scopedsm_atomic"), addr, type, op, operand, expected, old, order);
}

int64_t scopedsm_amo_inc(int64_t* counter, int64_t test, scopedsm_memory_order order) {
  return scopedsm::api::amo_inc(c_call("scopedsm_amo_inc"), counter, test, order);
}
void scopedsm_amo_wait(int64_t* counter, int64_t value, scopedsm_memory_order order) {
  scopedsm::api::amo_wait(c_call("scopedsm_amo_wait"), counter, value, order);
}
void scopedsm_amo_barrier(int64_t* counter, scopedsm_memory_order order) {
  scopedsm::api::amo_barrier(c_call("scopedsm_amo_barrier"), counter, order);
}
double scopedsm_amo_reduce_sum(scopedsm_amo_reduction* r, double value, scopedsm_memory_order order) {
  return scopedsm::api::amo_reduce_sum(c_call("scopedsm_amo_reduce_sum"), r, value, order);
}

int scopedsm_home_of(const void* addr) {
  const ApiCall call = c_call("scopedsm_home_of");
  return Runtime::require_running(call).home_of(addr, call);
}

int scopedsm_is_shared(const void* addr) {
  return Runtime::require_running(c_call("scopedsm_is_shared")).state().region.contains(addr) ? 1 : 0;
}

void scopedsm_lock(int id) { scopedsm::api::lock(c_call("scopedsm_lock"), id); }
void scopedsm_unlock(int id) { scopedsm::api::unlock(c_call("scopedsm_unlock"), id); }
void scopedsm_barrier(void) { scopedsm::api::barrier(c_call("scopedsm_barrier")); }
void scopedsm_wait(void) { scopedsm::api::wait(c_call("scopedsm_wait")); }
void scopedsm_checkpoint(void) { scopedsm::api::checkpoint(c_call("scopedsm_checkpoint")); }
void scopedsm_checkpoint_register(void* addr, size_t len) {
  scopedsm::api::checkpoint_register(c_call("scopedsm_checkpoint_register"), addr, len);
}
long long scopedsm_restarted(void) { return scopedsm::api::restarted(c_call("scopedsm_restarted")); }
void scopedsm_cv_set(int cv) { scopedsm::api::cv_set(c_call("scopedsm_cv_set"), cv); }
void scopedsm_cv_reset(int cv) { scopedsm::api::cv_reset(c_call("scopedsm_cv_reset"), cv); }
void scopedsm_cv_wait(int cv) { scopedsm::api::cv_wait(c_call("scopedsm_cv_wait"), cv); }

void scopedsm_send(const void* buf, size_t len, int to, int tag) {
  scopedsm::mp_send(Runtime::require_running(c_call("scopedsm_send")), "scopedsm_send", buf, len, to, tag);
}
size_t scopedsm_recv(void* buf, size_t len, int from, int tag) {
  return scopedsm::mp_recv(Runtime::require_running(c_call("scopedsm_recv")), "scopedsm_recv", buf, len, from, tag);
}

double scopedsm_time(void) { return scopedsm::api::time(c_call("scopedsm_time")); }

void scopedsm_stats_start(void) {
  auto& s = Runtime::require_running(c_call("scopedsm_stats_start")).state();
  s.stats.start(s.transport.sent(), s.transport.received());
}
void scopedsm_stats_stop(void) {
  auto& s = Runtime::require_running(c_call("scopedsm_stats_stop")).state();
  s.stats.stop(s.transport.sent(), s.transport.received());
}
void scopedsm_loop_init(long long begin, long long end, const char* schedule, const void* data, size_t stride) {
  scopedsm::api::loop_init(c_call("scopedsm_loop_init"), begin, end, schedule, data, stride);
}

int scopedsm_loop_next(long long* begin, long long* end) {
  return scopedsm::api::loop_next(c_call("scopedsm_loop_next"), begin, end) ? 1 : 0;
}

void scopedsm_lbarrier_setup(long long iterations, long long alpha, double beta) {
  scopedsm::api::lbarrier_setup(c_call("scopedsm_lbarrier_setup"), iterations, alpha, beta);
}

int scopedsm_lbarrier(long long* begin, long long* end) {
  return scopedsm::api::lbarrier(c_call("scopedsm_lbarrier"), begin, end, false) ? 1 : 0;
}

size_t scopedsm_stats_json(char* buf, size_t len) {
  auto& s = Runtime::require_running(c_call("scopedsm_stats_json")).state();
  std::string j = scopedsm::record_json(s.stats.snapshot(s.rank, s.transport.sent(), s.transport.received()));
  if (len > 0) {
    size_t n = j.size() < len - 1 ? j.size() : len - 1;
    std::memcpy(buf, j.data(), n);
    buf[n] = '\0';
  }
  return j.size();
}

const char* scopedsm_version(void) { return SCOPEDSM_VERSION; }

int scopedsm_describe(char* buf, size_t len) {
  std::string out = std::string("version: ") + SCOPEDSM_VERSION + "\ncompiler: " + __VERSION__ + "\n";
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(lib, &n);
  std::string libs(lib, strnlen(lib, static_cast<size_t>(n)));  // some MPIs count the NUL
  while (!libs.empty() && (libs.back() == '\n' || libs.back() == ' ')) libs.pop_back();
  for (auto& c : libs)
    if (c == '\n') c = ' ';
  out += "mpi_library: " + libs + "\n";
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  out += "mpi_standard: " + std::to_string(major) + "." + std::to_string(minor) + "\n";
  scopedsm::Config cfg;
  scopedsm::Status st = scopedsm::parse_config(scopedsm::process_environment(), &cfg, scopedsm::scopedsm_variable_names());
  int rc = 0;
  if (st.ok()) {
    out += "config: " + scopedsm::describe_config(cfg) + "\n";
    const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    out += "coherence_unit: " + std::to_string(os_page * cfg.unit_pages) + " bytes (" +
           std::to_string(cfg.unit_pages) + " x " + std::to_string(os_page) + "-byte OS pages)\n";
    for (const auto& u : cfg.unknown) out += "unknown_variable: " + scopedsm::describe_unknown(u) + "\n";
  } else {
    out += "config_error: " + st.message() + "\n";
    rc = -1;
  }
  for (const scopedsm::Setting& s : scopedsm::settings()) {
    const char* set = std::getenv(s.name.c_str());
    out += "variable: " + s.name + "=" + (set ? set : "(default " + s.default_text() + ")") + "\n";
    out += "setting: " + s.name + "\t" + scopedsm::setting_group_title(s.group) + "\t" + s.default_text() + "\t" +
           s.accepted + "\t" + s.doc + "\n";
  }
  if (len > 0) {
    size_t c = out.size() < len - 1 ? out.size() : len - 1;
    std::memcpy(buf, out.data(), c);
    buf[c] = '\0';
  }
  return rc;
}

void scopedsm_prefetch(const void* addr, size_t len) { scopedsm::api::prefetch(addr, len); }
void scopedsm_next_touch(const void* addr, size_t len) {
  scopedsm::api::next_touch(c_call("scopedsm_next_touch"), addr, len);
}
void(scopedsm_release)(const void* addr, size_t len, int priority) {
  scopedsm::api::release(addr, len, priority, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}
void scopedsm_release_tagged(const void* addr, size_t len, int priority, unsigned long tag) {
  scopedsm::api::release(addr, len, priority, tag);
}

void scopedsm_prepare(const void* addr, size_t len, int for_write) {
  const ApiCall call = c_call("scopedsm_prepare");
  Runtime::require_running(call).prepare(addr, len, for_write != 0, call);
}

void scopedsm_fatal(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  scopedsm::fatal("%s", msg);
}

}  // extern "C"

extern "C" uint64_t scopedsm_test_lock_version(int lock) {
  Runtime& rt = Runtime::require_running(c_call("scopedsm_test_lock_version"));
  if (lock < 0 || lock >= Maxlocks) scopedsm::fatal("scopedsm_test_lock_version(%d): lock id out of range", lock);
  return rt.sync().granted_version(lock);
}

