// The Fortran surfaces' entry points into the library.
//
// Fortran 77 (include/jiaf.h): JIAJIA's calls under the names gfortran gives
// them (lower case, one trailing underscore), with JIAJIA's conventions:
// integer arguments by value (%val), buffers and out-parameters by
// reference, strings with gfortran's hidden length after the other
// arguments. Each checks, with the Fortran surface's words (so an early call
// is told to come after jiaf_init), that ScopeDSM runs, then does what the C
// call of the same name does. Lock and condition-variable ids go through
// api/entry.h with that surface, whose report of an id out of range says how
// to pass one by value. common /jia/ is filled in by jiaf_init.
//
// The module `scopedsm` (src/api/scopedsm.f90): most of its procedures are
// the C API's functions themselves (ISO_C_BINDING, by value; the module's
// procedure names are the C names, so misuse reports name what the program
// called); init, allocation, atomics, DOALL loops and errors go through
// scopedsm_f_* below.
//
// The mapping of every call is in docs/FORTRAN.md.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>

#include "api/entry.h"
#include "common/checked.h"
#include "common/log.h"
#include "jia.h"
#include "scopedsm.h"
#include "runtime/runtime.h"

using scopedsm::ApiCall;
using scopedsm::fortran_call;
using scopedsm::jiaf_call;
using scopedsm::Runtime;
namespace api = scopedsm::api;

// common /jia/ jiapid, jiahosts. gfortran names a common block by its name
// and an underscore; a program's own /jia/ is the same object as this one
// (the dynamic linker binds our references to the executable's copy), so
// this is where jiaf_init writes. Aligned as gfortran aligns a common block,
// so the linker has nothing to warn about.
struct JiaCommon {
  int jiapid;
  int jiahosts;
};
extern "C" {
alignas(32) JiaCommon jia_ = {0, 1};
}

namespace {

void require(const char* name) { Runtime::require_running(jiaf_call(name)); }

// A Fortran string: `len` bytes, blank-padded, no NUL.
std::string fortran_string(const char* s, size_t len) {
  std::string out(s, len);
  const size_t end = out.find_last_not_of(' ');
  out.erase(end == std::string::npos ? 0 : end + 1);
  return out;
}

// JIAJIA-style sizes are ints passed by value; a size passed by reference
// arrives as an address, whose low half is often negative.
void check_size(const char* name, int size) {
  if (size < 0)
    scopedsm::fatal("%s(size=%d): negative size; from Fortran pass sizes by value, %s(%%val(size))", name, size, name);
}

}  // namespace

extern "C" {

// ---- Fortran 77: jiaf.h -------------------------------------------------

void jiaf_init_(void) {
  // MPI takes no arguments from us; the runtime reads the command line
  // itself (/proc/self/cmdline) for its reports.
  api::init(nullptr, nullptr, jiaf_call("jiaf_init"));
  jia_.jiapid = api::rank(jiaf_call("jiaf_init"));
  jia_.jiahosts = api::size(jiaf_call("jiaf_init"));
}

void jia_exit_(void) { api::finalize(jiaf_call("jia_exit")); }

int64_t jia_alloc3_(int size, int block, int starthost) {
  require("jia_alloc3");
  check_size("jia_alloc3", size);
  return static_cast<int64_t>((jia_alloc3)(size, block, starthost));
}
int64_t jia_alloc2_(int size, int block) {
  require("jia_alloc2");
  check_size("jia_alloc2", size);
  return static_cast<int64_t>((jia_alloc2)(size, block));
}
int64_t jia_alloc2p_(int size, int proc) {
  require("jia_alloc2p");
  check_size("jia_alloc2p", size);
  return static_cast<int64_t>((jia_alloc2p)(size, proc));
}
int64_t jia_alloc1_(int size) {
  require("jia_alloc1");
  check_size("jia_alloc1", size);
  return static_cast<int64_t>((jia_alloc1)(size));
}
int64_t jia_alloc_(int size) {
  require("jia_alloc");
  check_size("jia_alloc", size);
  return static_cast<int64_t>((jia_alloc)(size));
}

void jia_lock_(int id) { api::lock(jiaf_call("jia_lock"), id); }
void jia_unlock_(int id) { api::unlock(jiaf_call("jia_unlock"), id); }
void jia_barrier_(void) { api::barrier(jiaf_call("jia_barrier")); }
void jia_wait_(void) { api::wait(jiaf_call("jia_wait")); }
void jia_setcv_(int cv) { api::cv_set(jiaf_call("jia_setcv"), cv); }
void jia_resetcv_(int cv) { api::cv_reset(jiaf_call("jia_resetcv"), cv); }
void jia_waitcv_(int cv) { api::cv_wait(jiaf_call("jia_waitcv"), cv); }

// call jia_error('message'): the string comes with its length (gfortran
// passes it as a size_t after the other arguments).
void jia_error_(const char* msg, size_t len) { jia_error("%s", fortran_string(msg, len).c_str()); }

float jia_clock_(void) { return jia_clock(); }
void jia_startstat_(void) {
  require("jia_startstat");
  jia_startstat();
}
void jia_stopstat_(void) {
  require("jia_stopstat");
  jia_stopstat();
}

void jia_send_(void* buf, int len, int topid, int tag) {
  require("jia_send");
  jia_send(buf, len, topid, tag);
}
int jia_recv_(void* buf, int len, int frompid, int tag) {
  require("jia_recv");
  return jia_recv(buf, len, frompid, tag);
}
void jia_bcast_(void* buf, int len, int root) {
  require("jia_bcast");
  jia_bcast(buf, len, root);
}
void jia_reduce_(void* sendbuf, void* recvbuf, int count, int op, int root) {
  require("jia_reduce");
  jia_reduce(sendbuf, recvbuf, count, op, root);
}
void jia_config_(int key, int value) {
  require("jia_config");
  jia_config(key, value);
}
// begin and end are out-parameters: by reference, as Fortran passes them.
void jia_divtask_(int* begin, int* end) {
  require("jia_divtask");
  jia_divtask(begin, end);
}
void jia_loadcheck_(void) {
  require("jia_loadcheck");
  jia_loadcheck();
}

// ---- The module scopedsm (scopedsm.f90) ---------------------------------

// The module binds finalize, rank, size, time, barrier, wait, locks and
// condition variables to the C API itself: the same names, the same words
// in misuse reports. These three differ: no argc/argv, typed arrays, and a
// Fortran string.
void scopedsm_f_init(void) { api::init(nullptr, nullptr, fortran_call("scopedsm_init")); }
// call scopedsm_init_comm(comm): the Fortran handle of the program's
// communicator (an integer, or a type(MPI_Comm)'s MPI_VAL), by value.
void scopedsm_f_init_comm(MPI_Fint comm) { api::init_comm(MPI_Comm_f2c(comm), fortran_call("scopedsm_init_comm")); }

// call scopedsm_alloc(a, n1[, n2][, block=, start_rank=]): an array of
// `rank` extents of `elem_bytes` bytes each, its type named `type` (not
// NUL-terminated, `type_len` bytes) for reports. Without a block (in
// elements) pages are dealt one by one, as scopedsm_alloc does.
// `start_rank` is -1 when not given; it needs a block.
void* scopedsm_f_alloc(const int64_t* extents, int rank, int elem_bytes, const char* type, int type_len,
                       int has_block, int64_t block, int start_rank) {
  const ApiCall call = fortran_call("scopedsm_alloc");
  Runtime::require_running(call);
  std::string described = "scopedsm_alloc(" + std::string(type, static_cast<size_t>(type_len)) + ", ";
  bool positive = true;
  std::optional<uint64_t> count = 1;
  for (int d = 0; d < rank; ++d) {
    described += (d == 0 ? "" : " x ") + std::to_string(extents[d]);
    positive = positive && extents[d] >= 1;
    if (positive && count) count = scopedsm::checked_mul(*count, static_cast<uint64_t>(extents[d]));
  }
  if (has_block) described += ", block=" + std::to_string(block);
  if (has_block || start_rank >= 0) described += ", start_rank=" + std::to_string(has_block ? std::max(start_rank, 0) : start_rank);
  described += ")";
  const char* text = described.c_str();
  if (!has_block && start_rank >= 0)
    scopedsm::fatal("%s: start_rank needs block (the array is dealt in blocks of that many elements from start_rank)",
                    text);
  if (!positive) scopedsm::fatal("%s: every extent must be at least 1", text);
  const std::optional<uint64_t> bytes = count ? scopedsm::checked_mul(*count, static_cast<uint64_t>(elem_bytes))
                                              : std::nullopt;
  if (!bytes) scopedsm::fatal("%s: the array's size does not fit 64 bits", text);
  if (has_block && block < 1) scopedsm::fatal("%s: block must be at least 1 element", text);
  if (!has_block) return api::alloc_default(call, text, *bytes);
  const std::optional<uint64_t> block_bytes = scopedsm::checked_mul(static_cast<uint64_t>(block),
                                                                    static_cast<uint64_t>(elem_bytes));
  if (!block_bytes) scopedsm::fatal("%s: the block's size does not fit 64 bits", text);
  return api::alloc_cyclic(call, text, *bytes, *block_bytes, std::max(start_rank, 0));
}

// The module's atomics: scopedsm_atomic_fetch_add(x, v[, order]) and the
// others (scopedsm.f90), each with the index `which` of its procedure in
// kAtomics, x the element (by reference) and operand, expected and old
// values of `type` (scopedsm_atomic_type). Reports name the procedure and
// the module's SCOPEDSM_ORDER_* constants.
void scopedsm_f_atomic(void* x, int type, int which, const void* operand, const void* expected, void* old,
                       int order) {
  struct Procedure {
    const char* name;
    int op;
  };
  static constexpr Procedure kAtomics[] = {
      {"scopedsm_atomic_fetch_add", SCOPEDSM_FETCH_ADD}, {"scopedsm_atomic_exchange", SCOPEDSM_EXCHANGE},
      {"scopedsm_atomic_compare_exchange", SCOPEDSM_COMPARE_EXCHANGE},
      {"scopedsm_atomic_fetch_and", SCOPEDSM_FETCH_AND}, {"scopedsm_atomic_fetch_or", SCOPEDSM_FETCH_OR},
      {"scopedsm_atomic_fetch_xor", SCOPEDSM_FETCH_XOR}, {"scopedsm_atomic_fetch_min", SCOPEDSM_FETCH_MIN},
      {"scopedsm_atomic_fetch_max", SCOPEDSM_FETCH_MAX}, {"scopedsm_atomic_load", SCOPEDSM_LOAD},
      {"scopedsm_atomic_store", SCOPEDSM_EXCHANGE}};
  if (which < 0 || which >= static_cast<int>(std::size(kAtomics)))
    scopedsm::fatal("scopedsm_f_atomic: procedure %d is not one of the module's atomics", which);
  const Procedure& proc = kAtomics[which];
  const ApiCall call = fortran_call(proc.name);
  Runtime::require_running(call);
  if (order < SCOPEDSM_RELAXED || order > SCOPEDSM_SEQ_CST)
    scopedsm::fatal("%s(%p): order=%d is not a memory order: use SCOPEDSM_ORDER_RELAXED, SCOPEDSM_ORDER_ACQUIRE, "
                    "SCOPEDSM_ORDER_RELEASE, SCOPEDSM_ORDER_ACQ_REL or SCOPEDSM_ORDER_SEQ_CST",
                    proc.name, x, order);
  api::atomic_values(call, x, type, proc.op, operand, proc.op == SCOPEDSM_COMPARE_EXCHANGE ? expected : nullptr,
                     old, order);
}

// call scopedsm_loop_init(first, last[, schedule][, data][, stride]): the
// iterations first..last, inclusive as in a DO loop; the C loop's
// [first, last + 1). `schedule` is `schedule_len` bytes, not NUL-terminated.
void scopedsm_f_loop_init(int64_t first, int64_t last, const char* schedule, int schedule_len, int has_schedule,
                          const void* data, int has_data, int64_t stride, int has_stride) {
  const ApiCall call = fortran_call("scopedsm_loop_init");
  Runtime::require_running(call);
  if (has_data && !has_stride)
    scopedsm::fatal("scopedsm_loop_init: data needs stride, the bytes from one iteration's data to the next's");
  if (has_stride && !has_data)
    scopedsm::fatal("scopedsm_loop_init: stride needs data, the first iteration's data");
  if (has_stride && stride < 0)
    scopedsm::fatal("scopedsm_loop_init: stride=%lld is negative; it is the bytes from one iteration's data to the "
                    "next's", static_cast<long long>(stride));
  if (last == INT64_MAX)
    scopedsm::fatal("scopedsm_loop_init(first=%lld, last=%lld): last must be below %lld", static_cast<long long>(first),
                    static_cast<long long>(last), static_cast<long long>(INT64_MAX));
  const std::string text = has_schedule ? fortran_string(schedule, static_cast<size_t>(schedule_len)) : "";
  api::loop_init(call, first, last + 1, has_schedule ? text.c_str() : nullptr,
                 has_data ? data : nullptr, has_data ? static_cast<size_t>(stride) : 0);
}

// scopedsm_loop_next(lo, hi): the next chunk lo..hi, inclusive; 0 when none
// is left.
int scopedsm_f_loop_next(int64_t* lo, int64_t* hi) {
  long long b = 0, e = 0;
  const bool got = api::loop_next(fortran_call("scopedsm_loop_next"), &b, &e);
  *lo = b;
  *hi = e - 1;
  return got ? 1 : 0;
}

// call scopedsm_error('message'): ends every process, like scopedsm_fatal.
void scopedsm_f_error(const char* msg, size_t len) {
  scopedsm::fatal("scopedsm_error: %s", fortran_string(msg, len).c_str());
}

}  // extern "C"
