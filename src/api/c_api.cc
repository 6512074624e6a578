// The C API (scopedsm.h): argument checks and forwarding to the runtime.

#include <mpi.h>

#include <cstdarg>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>

#include "api/message_passing.h"
#include "api/test_hooks.h"
#include "common/log.h"
#include "jia.h"
#include "runtime/runtime.h"
#include "scopedsm.h"

using scopedsm::Placement;
using scopedsm::Runtime;

namespace {

std::string describe(const char* call, size_t size, const char* rest) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s(size=%zu%s)", call, size, rest);
  return buf;
}

}  // namespace

extern "C" {

void scopedsm_init(int* argc, char*** argv) { Runtime::init(argc, argv, "scopedsm_init"); }
void scopedsm_finalize(void) { Runtime::require_running("scopedsm_finalize").finalize("scopedsm_finalize"); }
int scopedsm_initialized(void) { return Runtime::running() ? 1 : 0; }
int scopedsm_rank(void) { return Runtime::require_running("scopedsm_rank").state().rank; }
int scopedsm_size(void) { return Runtime::require_running("scopedsm_size").state().size; }
size_t scopedsm_page_size(void) { return Runtime::require_running("scopedsm_page_size").state().region.page_size(); }
int scopedsm_num_locks(void) { return Maxlocks; }
int scopedsm_num_condvars(void) { return Maxcondvs; }

void* scopedsm_alloc(size_t size) {
  Runtime& rt = Runtime::require_running("scopedsm_alloc");
  Placement p;
  if (rt.state().config.home_policy == scopedsm::HomePolicy::kFirstTouch) {
    p.kind = Placement::kFirstTouch;
  } else {
    p.block_bytes = rt.state().region.page_size();  // page-cyclic from rank 0
  }
  return rt.allocate("scopedsm_alloc", describe("scopedsm_alloc", size, ""), size, p);
}

void* scopedsm_alloc_cyclic(size_t size, size_t block, int start_rank) {
  Runtime& rt = Runtime::require_running("scopedsm_alloc_cyclic");
  char rest[128];
  std::snprintf(rest, sizeof rest, ", block=%zu, start_rank=%d", block, start_rank);
  Placement p;
  p.block_bytes = block;
  p.start_rank = start_rank;
  return rt.allocate("scopedsm_alloc_cyclic", describe("scopedsm_alloc_cyclic", size, rest), size, p);
}

void* scopedsm_alloc_first_touch(size_t size) {
  Runtime& rt = Runtime::require_running("scopedsm_alloc_first_touch");
  Placement p;
  p.kind = Placement::kFirstTouch;
  return rt.allocate("scopedsm_alloc_first_touch", describe("scopedsm_alloc_first_touch", size, ""), size, p);
}

int scopedsm_home_of(const void* addr) { return Runtime::require_running("scopedsm_home_of").home_of(addr, "scopedsm_home_of"); }

int scopedsm_is_shared(const void* addr) {
  return Runtime::require_running("scopedsm_is_shared").state().region.contains(addr) ? 1 : 0;
}

void scopedsm_lock(int id) { Runtime::require_running("scopedsm_lock").sync().lock("scopedsm_lock", id); }
void scopedsm_unlock(int id) { Runtime::require_running("scopedsm_unlock").sync().unlock("scopedsm_unlock", id); }
void scopedsm_barrier(void) { Runtime::require_running("scopedsm_barrier").sync().barrier("scopedsm_barrier"); }
void scopedsm_wait(void) { Runtime::require_running("scopedsm_wait").sync().wait("scopedsm_wait"); }
void scopedsm_cv_set(int cv) { Runtime::require_running("scopedsm_cv_set").sync().cv_set("scopedsm_cv_set", cv); }
void scopedsm_cv_reset(int cv) { Runtime::require_running("scopedsm_cv_reset").sync().cv_reset("scopedsm_cv_reset", cv); }
void scopedsm_cv_wait(int cv) { Runtime::require_running("scopedsm_cv_wait").sync().cv_wait("scopedsm_cv_wait", cv); }

void scopedsm_send(const void* buf, size_t len, int to, int tag) {
  scopedsm::mp_send(Runtime::require_running("scopedsm_send"), "scopedsm_send", buf, len, to, tag);
}
size_t scopedsm_recv(void* buf, size_t len, int from, int tag) {
  return scopedsm::mp_recv(Runtime::require_running("scopedsm_recv"), "scopedsm_recv", buf, len, from, tag);
}

double scopedsm_time(void) { return Runtime::require_running("scopedsm_time").seconds_since_init(); }

void scopedsm_stats_start(void) {
  auto& s = Runtime::require_running("scopedsm_stats_start").state();
  s.stats.start(s.transport.sent(), s.transport.received());
}
void scopedsm_stats_stop(void) {
  auto& s = Runtime::require_running("scopedsm_stats_stop").state();
  s.stats.stop(s.transport.sent(), s.transport.received());
}
size_t scopedsm_stats_json(char* buf, size_t len) {
  auto& s = Runtime::require_running("scopedsm_stats_json").state();
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
    for (const auto& u : cfg.unknown) out += "unknown_variable: " + scopedsm::describe_unknown(u) + "\n";
  } else {
    out += "config_error: " + st.message() + "\n";
    rc = -1;
  }
  for (const auto& v : scopedsm::config_variables()) {
    const char* set = std::getenv(v.name);
    out += std::string("variable: ") + v.name + "=" + (set ? set : std::string("(default ") + v.default_text + ")") + "\n";
  }
  if (len > 0) {
    size_t c = out.size() < len - 1 ? out.size() : len - 1;
    std::memcpy(buf, out.data(), c);
    buf[c] = '\0';
  }
  return rc;
}

void scopedsm_prepare(const void* addr, size_t len, int for_write) {
  Runtime::require_running("scopedsm_prepare").prepare(addr, len, for_write != 0, "scopedsm_prepare");
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
  Runtime& rt = Runtime::require_running("scopedsm_test_lock_version");
  if (lock < 0 || lock >= Maxlocks) scopedsm::fatal("scopedsm_test_lock_version(%d): lock id out of range", lock);
  return rt.sync().granted_version(lock);
}
