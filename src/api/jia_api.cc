// The JIAJIA 2.1-compatible API (jia.h), on top of the runtime.

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "api/entry.h"
#include "api/message_passing.h"
#include "api/test_hooks.h"
#include "common/clock.h"
#include "common/log.h"
#include "jia.h"
#include "runtime/runtime.h"
#include "scopedsm.h"

using scopedsm::jia_call;
using scopedsm::Runtime;

int jia_pid = 0;
int hostc = 1;
int jia_lock_index = 0;

namespace {

int g_next_alloc_host = 0;  // jia_alloc rotates the home of successive allocations

unsigned long alloc_cyclic(const char* call, const std::string& text, int size, long long block, int start) {
  Runtime::require_running(jia_call(call));
  if (size < 0) scopedsm::fatal("%s: negative size", text.c_str());
  if (block <= 0 && size > 0) scopedsm::fatal("%s: block size must be positive", text.c_str());
  return reinterpret_cast<unsigned long>(scopedsm::api::alloc_cyclic(
      jia_call(call), text, static_cast<size_t>(size), static_cast<size_t>(block), start));
}

std::string text3(const char* call, int size, int block, int start) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s(size=%d, block=%d, starthost=%d)", call, size, block, start);
  return buf;
}

unsigned long alloc_first_touch(const char* call, int size) {
  Runtime::require_running(jia_call(call));
  if (size < 0) scopedsm::fatal("%s(size=%d): negative size", call, size);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s(size=%d)", call, size);
  return reinterpret_cast<unsigned long>(
      scopedsm::api::alloc_first_touch(jia_call(call), buf, static_cast<size_t>(size)));
}

bool first_touch_run(const char* call) {
  return Runtime::require_running(jia_call(call)).state().config.home_policy == scopedsm::HomePolicy::kFirstTouch;
}

}  // namespace

extern "C" {

void jia_init(int argc, char** argv) {
  scopedsm::api::init(&argc, &argv, jia_call("jia_init"));
  jia_pid = Runtime::require_running(jia_call("jia_init")).state().rank;
  hostc = Runtime::require_running(jia_call("jia_init")).state().size;
}

void jia_exit(void) { scopedsm::api::finalize(jia_call("jia_exit")); }

unsigned long (jia_alloc3)(int size, int block, int starthost) {
  return alloc_cyclic("jia_alloc3", text3("jia_alloc3", size, block, starthost), size, block, starthost);
}

unsigned long (jia_alloc2)(int size, int block) {
  return alloc_cyclic("jia_alloc2", text3("jia_alloc2", size, block, 0), size, block, 0);
}

unsigned long (jia_alloc2p)(int size, int proc) {
  return alloc_cyclic("jia_alloc2p", text3("jia_alloc2p", size, size, proc), size, size, proc);
}

unsigned long (jia_alloc1)(int size) {
  if (first_touch_run("jia_alloc1")) return alloc_first_touch("jia_alloc1", size);
  return alloc_cyclic("jia_alloc1", text3("jia_alloc1", size, size, 0), size, size, 0);
}

unsigned long (jia_alloc)(int size) {
  if (first_touch_run("jia_alloc")) return alloc_first_touch("jia_alloc", size);
  int start = g_next_alloc_host;
  g_next_alloc_host = (g_next_alloc_host + 1) % hostc;
  return alloc_cyclic("jia_alloc", text3("jia_alloc", size, size, start), size, size, start);
}

int scopedsm_jia_int_arg(const char* call, const char* what, long double value) {
  std::string error;
  const int v = scopedsm::jia_int_arg(call, what, value, &error);
  if (!error.empty()) scopedsm::fatal("%s", error.c_str());
  return v;
}

void jia_lock(int lockid) { scopedsm::api::lock(jia_call("jia_lock"), lockid); }
void jia_unlock(int lockid) { scopedsm::api::unlock(jia_call("jia_unlock"), lockid); }
void jia_barrier(void) { scopedsm::api::barrier(jia_call("jia_barrier")); }
void jia_wait(void) { scopedsm::api::wait(jia_call("jia_wait")); }
void jia_setcv(int cv) { scopedsm::api::cv_set(jia_call("jia_setcv"), cv); }
void jia_resetcv(int cv) { scopedsm::api::cv_reset(jia_call("jia_resetcv"), cv); }
void jia_waitcv(int cv) { scopedsm::api::cv_wait(jia_call("jia_waitcv"), cv); }

void jia_checkpoint(void) { scopedsm::api::checkpoint(jia_call("jia_checkpoint")); }
void jia_checkpoint_register(void* addr, long len) {
  if (len < 0) scopedsm::fatal("jia_checkpoint_register(%p, %ld): the length is negative", addr, len);
  scopedsm::api::checkpoint_register(jia_call("jia_checkpoint_register"), addr, static_cast<size_t>(len));
}
long jia_restarted(void) { return static_cast<long>(scopedsm::api::restarted(jia_call("jia_restarted"))); }

void jia_nexttouch(void* addr, long len) {
  const scopedsm::ApiCall call = scopedsm::jia_call("jia_nexttouch");
  if (len < 0) scopedsm::fatal("jia_nexttouch(%p, %ld): the length is negative", addr, len);
  scopedsm::api::next_touch(call, addr, static_cast<size_t>(len));
}

void jia_prefetch(void* addr, int len) {
  if (len > 0) scopedsm::api::prefetch(addr, static_cast<size_t>(len));
}
void(jia_release)(void* addr, int len, int priority) {
  if (len > 0)
    scopedsm::api::release(addr, static_cast<size_t>(len), priority,
                           reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}
void jia_release_tagged(void* addr, int len, int priority, unsigned long tag) {
  if (len > 0) scopedsm::api::release(addr, static_cast<size_t>(len), priority, tag);
}

int jia_fetchadd(int* addr, int value) {
  return static_cast<int>(scopedsm::api::atomic(jia_call("jia_fetchadd"), addr, SCOPEDSM_INT32, SCOPEDSM_FETCH_ADD,
                                                static_cast<uint32_t>(value), 0, SCOPEDSM_RELAXED));
}

int jia_compswap(int* addr, int expected, int desired) {
  return static_cast<int>(scopedsm::api::atomic(jia_call("jia_compswap"), addr, SCOPEDSM_INT32,
                                                SCOPEDSM_COMPARE_EXCHANGE, static_cast<uint32_t>(desired),
                                                static_cast<uint32_t>(expected), SCOPEDSM_RELAXED));
}

void jia_error(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  scopedsm::fatal("jia_error: %s", msg);
}

// As in JIAJIA: seconds since the first call, before jia_init too.
float jia_clock(void) { return static_cast<float>(scopedsm::seconds_since_first_call()); }

unsigned int jia_startstat(void) {
  auto& s = Runtime::require_running(jia_call("jia_startstat")).state();
  s.stats.start(s.transport.sent(), s.transport.received());
  return 0;
}

unsigned int jia_stopstat(void) {
  auto& s = Runtime::require_running(jia_call("jia_stopstat")).state();
  s.stats.stop(s.transport.sent(), s.transport.received());
  return 0;
}

void jia_send(void* buf, int len, int topid, int tag) {
  if (len < 0) scopedsm::fatal("jia_send: negative length %d", len);
  scopedsm::mp_send(Runtime::require_running(jia_call("jia_send")), "jia_send", buf, static_cast<size_t>(len), topid, tag);
}

int jia_recv(void* buf, int len, int frompid, int tag) {
  if (len < 0) scopedsm::fatal("jia_recv: negative length %d", len);
  return static_cast<int>(
      scopedsm::mp_recv(Runtime::require_running(jia_call("jia_recv")), "jia_recv", buf, static_cast<size_t>(len), frompid, tag));
}

void jia_bcast(void* buf, int len, int root) {
  if (len < 0) scopedsm::fatal("jia_bcast: negative length %d", len);
  scopedsm::mp_bcast(Runtime::require_running(jia_call("jia_bcast")), "jia_bcast", buf, static_cast<size_t>(len), root);
}

void jia_reduce(void* sendbuf, void* recvbuf, int count, int op, int root) {
  scopedsm::mp_reduce(Runtime::require_running(jia_call("jia_reduce")), "jia_reduce", sendbuf, recvbuf, count, op, root);
}

void jia_config(int key, int value) {
  Runtime& rt = Runtime::require_running(jia_call("jia_config"));
  static const char* names[] = {"HMIG", "ADWD", "BROADCAST", "LOADBAL", "WVEC"};
  if (key < 0 || key > WVEC) scopedsm::fatal("jia_config(%d, %d): unknown feature key; use HMIG, ADWD, BROADCAST, LOADBAL or WVEC", key, value);
  if (value != ON && value != OFF) scopedsm::fatal("jia_config(%s, %d): value must be ON or OFF", names[key], value);
  if (key == ADWD) {
    // Adaptive write detection is ScopeDSM's default; OFF selects the fixed
    // detection: VM-WD (every write trapped), or CO-WD if the job started
    // with it (SCOPEDSM_WRITE_DETECT=cache-only), which is for the whole
    // run: every process would have to leave it at the same instant.
    if (rt.state().config.write_detect_cache_only) {
      if (value == ON)
        scopedsm::fatal("jia_config(ADWD, ON): this job runs cache-only write detection (SCOPEDSM_WRITE_DETECT="
                        "cache-only), which cannot be left at run time (docs/PROTOCOL.md §6b); start the job with "
                        "SCOPEDSM_WRITE_DETECT=adaptive instead");
      return;  // OFF: the fixed detection, cache-only, is what runs
    }
    rt.state().config.write_detect_all = value == OFF;
    rt.coherence().write_detect_switched();
    return;
  }
  if (key == HMIG) {
    // Home migration at barriers (SCOPEDSM_HOME_MIGRATION).
    if (value == ON && rt.state().config.write_detect_cache_only)
      scopedsm::fatal("jia_config(HMIG, ON): home migration cannot run with cache-only write detection "
                      "(SCOPEDSM_WRITE_DETECT=cache-only): a page moves to its single writer only if its home did not "
                      "write it, and cache-only detection does not observe the home's writes (docs/PROTOCOL.md §6b)");
    rt.state().config.home_migration = value == ON;  // read at the next barrier
    return;
  }
  if (key == LOADBAL) {
    rt.load().set_enabled(value == ON, rt.state().stats.app);
    return;
  }
  if (key == BROADCAST) {
    // JIAJIA's BROADCAST sent the barrier's grant down a tree; ScopeDSM's
    // dissemination barrier (ON, the default) already takes ceil(log2 N)
    // rounds with no manager. OFF selects the central barrier at rank 0
    // (docs/PROTOCOL.md §4).
    rt.state().config.barrier_form = rt.sync().broadcast_form(value == ON);
    return;
  }
  // WVEC: a refetch by message brings only the blocks written since our
  // stale copy was fetched (SCOPEDSM_WRITE_VECTOR, docs/PROTOCOL.md §6b).
  // Both sides switch: our fetches ask for blocks, and as a home we keep
  // the write vectors (unless node peers write our memory unobserved).
  rt.state().config.write_vector = value == ON;
  rt.state().wvec.set_tracking(value == ON && rt.state().wvec_tracking_ok);
  rt.coherence().set_write_vector(value == ON);
}

void jia_divtask(int* begin, int* end) {
  Runtime& rt = Runtime::require_running(jia_call("jia_divtask"));
  rt.load().divide(begin, end, rt.state().stats.app);
}

void jia_settask(int begin, int end, const char* schedule, const void* data, unsigned long stride) {
  // JIAJIA's inclusive [begin, end] is [begin, end + 1).
  scopedsm::api::loop_init(jia_call("jia_settask"), begin, static_cast<long long>(end) + 1, schedule, data, stride);
}

int jia_gettask(int* begin, int* end) {
  const scopedsm::ApiCall call = jia_call("jia_gettask");
  if (begin == nullptr || end == nullptr) scopedsm::fatal("%s: begin and end must not be null", call.name);
  long long b = 0, e = 0;
  const bool got = scopedsm::api::loop_next(call, &b, &e);
  *begin = static_cast<int>(b);
  *end = static_cast<int>(e - 1);
  return got ? 1 : 0;
}

void jia_lbarrier(int* begin, int* end) {
  const scopedsm::ApiCall call = jia_call("jia_lbarrier");
  if (begin == nullptr || end == nullptr) scopedsm::fatal("%s: begin and end must not be null", call.name);
  // JIAJIA's inclusive [begin, end] is [begin, end + 1).
  long long b = *begin, e = static_cast<long long>(*end) + 1;
  scopedsm::api::lbarrier(call, &b, &e, true);
  *begin = static_cast<int>(b);
  *end = static_cast<int>(e - 1);
}

void jia_lbarrier_setup(int iterations, int alpha, double beta) {
  scopedsm::api::lbarrier_setup(jia_call("jia_lbarrier_setup"), iterations, alpha, beta);
}

void jia_loadcheck(void) {
  const scopedsm::ApiCall call = jia_call("jia_loadcheck");
  Runtime& rt = Runtime::require_running(call);
  rt.load().check(rt.sync(), rt.state().stats.app, call);
}

}  // extern "C"

extern "C" void scopedsm_test_set_compute_time(double seconds) {
  Runtime& rt = Runtime::require_running(jia_call("scopedsm_test_set_compute_time"));
  if (!(seconds >= 0)) scopedsm::fatal("scopedsm_test_set_compute_time(%g): seconds must be 0 or more", seconds);
  rt.load().set_test_seconds(seconds);
}

extern "C" void scopedsm_test_set_cache_policy(const char* policy) {
  Runtime& rt = Runtime::require_running(jia_call("scopedsm_test_set_cache_policy"));
  const std::string p = policy == nullptr ? "" : policy;
  if (p != "fifo" && p != "remote")
    scopedsm::fatal("scopedsm_test_set_cache_policy(%s): the policy is fifo or remote", p.c_str());
  rt.state().cache.set_policy(p == "remote" ? scopedsm::CachePolicy::kRemoteVictim : scopedsm::CachePolicy::kFifo);
}

extern "C" void scopedsm_test_hold_requests(int hold) {
  Runtime::require_running(jia_call("scopedsm_test_hold_requests")).hold_requests(hold != 0);
}

extern "C" uint64_t scopedsm_test_map_boundaries(void) {
  return Runtime::require_running(jia_call("scopedsm_test_map_boundaries")).state().region.boundaries();
}

extern "C" uint64_t scopedsm_test_set_map_budget(uint64_t boundaries) {
  return Runtime::require_running(jia_call("scopedsm_test_set_map_budget")).state().region.set_boundary_budget(boundaries);
}

extern "C" int scopedsm_test_barrier_leaders(int* is_leader) {
  Runtime& rt = Runtime::require_running(jia_call("scopedsm_test_barrier_leaders"));
  *is_leader = rt.state().meet.is_leader() ? 1 : 0;
  return static_cast<int>(rt.state().meet.leaders().size());
}

extern "C" size_t scopedsm_test_barrier_broadcast(void* buf, size_t len) {
  const scopedsm::ApiCall call = jia_call("scopedsm_test_barrier_broadcast");
  Runtime& rt = Runtime::require_running(call);
  const auto* b = static_cast<const std::byte*>(buf);
  std::vector<std::byte> bytes;
  if (rt.state().rank == 0) bytes.assign(b, b + len);
  rt.sync().barrier(call, &bytes);
  if (rt.state().rank == 0) return len;
  std::memcpy(buf, bytes.data(), std::min(len, bytes.size()));
  return bytes.size();
}

extern "C" void scopedsm_test_set_task_cost(double seconds) {
  Runtime::require_running(jia_call("scopedsm_test_set_task_cost")).tasks().set_test_task_cost(seconds);
}

extern "C" void scopedsm_test_set_net(const char* spec) {
  Runtime& rt = Runtime::require_running(jia_call("scopedsm_test_set_net"));
  scopedsm::NetParams params;
  if (scopedsm::Status st = scopedsm::parse_net(spec == nullptr ? "" : spec, &params); !st.ok())
    scopedsm::fatal("scopedsm_test_set_net: %s", st.message().c_str());
  rt.state().transport.net().configure(params);
}
