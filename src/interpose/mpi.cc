// MPI calls on shared buffers, interposed through the profiling interface
// (interpose/interpose.h states the contract).
//
// An MPI library reads and writes a buffer with its own loads and stores,
// and, on one node, with the kernel (Open MPI's vader with CMA, MPICH's
// shared-memory transfers): neither may meet a protected page. Each call
// below stages the buffers that reach shared memory:
//  * blocking calls, in place if they fit the cache: valid for their access
//    before the real call, and valid until it returns (nothing on this
//    thread runs meanwhile, and only this thread changes protections);
//  * otherwise, and for every nonblocking call, through private copies: an
//    outgoing buffer is copied at the call (MPI may read it any time until
//    completion, which is equivalent), an incoming one is written into
//    shared memory when the program learns of its completion (MPI_Wait,
//    MPI_Test and their kin), the only time it may look at it.
// An incoming buffer's copy goes back whole when MPI fills all of it (a
// collective's receive buffer of a gapless datatype), as far as the status
// says for a receive, and otherwise byte by byte where the call changed it
// (gaps, MPI_IN_PLACE, v-variants' displacements), so bytes MPI does not
// write are never written.
//
// The runtime's own MPI traffic comes through here too (the service thread,
// buffers in the alias view, which the app view never overlaps): one test of
// a published range, and the real call.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/log.h"
#include "interpose/interpose.h"
#include "runtime/shared_access.h"

namespace scopedsm::interpose {
namespace {

using shared_access::may_reach;
using shared_access::Range;
using shared_access::SlowPath;

bool active() { return shared_access::g_end.load(std::memory_order_relaxed) != 0; }

// How MPI fills an incoming buffer, which decides how its private copy goes
// back into shared memory.
enum class Fill {
  kNone,     // outgoing: MPI only reads it
  kStatus,   // a receive: from its start, as many bytes as the status says (none if cancelled)
  kFile,     // a file read: the same, but a file request's status says nothing of cancelling
  kWhole,    // every byte of its span
  kChanged,  // some bytes of its span (gaps, in place, displacements)
};

// The bytes an argument spans, [lo, lo + len), and whether its datatype has
// no gaps.
struct Span {
  uintptr_t lo = 0;
  size_t len = 0;
  bool dense = false;
};

// The size of a predefined datatype whose extent is its size and whose
// lower bound is 0 (the common ones), or 0: their spans need no call into
// MPI, which keeps the fast path of the calls on private buffers short.
size_t basic_size(MPI_Datatype type) {
  // The most used first: each test is a load and a compare.
  if (type == MPI_DOUBLE) return 8;
  if (type == MPI_INT || type == MPI_FLOAT) return 4;
  if (type == MPI_BYTE || type == MPI_CHAR) return 1;
  if (type == MPI_LONG || type == MPI_LONG_LONG || type == MPI_UNSIGNED_LONG || type == MPI_UNSIGNED_LONG_LONG ||
      type == MPI_INT64_T || type == MPI_UINT64_T)
    return 8;
  if (type == MPI_UNSIGNED || type == MPI_INT32_T || type == MPI_UINT32_T) return 4;
  if (type == MPI_SHORT || type == MPI_UNSIGNED_SHORT || type == MPI_INT16_T || type == MPI_UINT16_T) return 2;
  if (type == MPI_SIGNED_CHAR || type == MPI_UNSIGNED_CHAR || type == MPI_INT8_T || type == MPI_UINT8_T) return 1;
  return 0;
}

// (buf, count, type): false if it spans nothing or is MPI_IN_PLACE.
// MPI_BOTTOM (address 0) with absolute displacements works as any buffer.
bool span_of(const void* buf, MPI_Aint count, MPI_Datatype type, Span* s) {
  if (count <= 0 || buf == MPI_IN_PLACE) return false;
  const auto b = reinterpret_cast<uintptr_t>(buf);
  if (const size_t size = basic_size(type); size != 0) {
    *s = {b, static_cast<size_t>(count) * size, true};
    return true;
  }
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  int size = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  PMPI_Type_size(type, &size);
  const MPI_Aint step = (count - 1) * extent;
  const MPI_Aint lo = true_lb + std::min<MPI_Aint>(0, step);
  const MPI_Aint hi = true_lb + true_extent + std::max<MPI_Aint>(0, step);
  if (hi <= lo) return false;
  *s = {b + static_cast<uintptr_t>(lo), static_cast<size_t>(hi - lo), size == true_extent && extent == true_extent};
  return true;
}

// The union of the pieces (buf + displs[i] * extent, counts[i]) of a
// v-variant: one span, which may have gaps.
bool span_of_pieces(const void* buf, const int* counts, const int* displs, int n, MPI_Datatype type, Span* s) {
  if (buf == MPI_IN_PLACE || counts == nullptr || displs == nullptr) return false;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  bool any = false;
  uintptr_t lo = 0, hi = 0;
  for (int i = 0; i < n; ++i) {
    Span p;
    const auto at = reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(displs[i] * extent);
    if (!span_of(reinterpret_cast<const void*>(at), counts[i], type, &p)) continue;
    lo = any ? std::min(lo, p.lo) : p.lo;
    hi = any ? std::max(hi, p.lo + p.len) : p.lo + p.len;
    any = true;
  }
  if (!any) return false;
  *s = {lo, hi - lo, false};
  return true;
}

// The shared buffers of one MPI call, and their private copies.
class Staged {
 public:
  Staged() = default;
  Staged(Staged&&) = default;  // the source is left empty
  Staged(const Staged&) = delete;
  Staged& operator=(const Staged&) = delete;
  ~Staged() {
    for (Buffer& b : bufs_) {
      std::free(b.copy);
      std::free(b.before);
    }
  }

  // Argument `arg` spanning `s`, read by MPI (Fill::kNone) or written; only
  // a span that reaches shared memory is kept.
  void add(const void* arg, const Span& s, Fill fill) {
    if (s.len == 0 || !may_reach(reinterpret_cast<const void*>(s.lo), s.len)) return;
    bufs_.push_back({arg, s.lo, s.len, fill, nullptr, nullptr});
  }
  bool empty() const { return bufs_.empty(); }
  bool incoming() const {
    return std::any_of(bufs_.begin(), bufs_.end(), [](const Buffer& b) { return b.fill != Fill::kNone; });
  }

  // Makes the buffers safe for MPI: in place when `blocking` and they fit
  // the cache together, else through private copies.
  void stage(SlowPath& sp, bool blocking, const char* call) {
    if (blocking) {
      std::vector<Range> ranges;
      for (const Buffer& b : bufs_) ranges.push_back({reinterpret_cast<const void*>(b.lo), b.len, b.fill != Fill::kNone});
      if (sp.prepare(ranges.data(), ranges.size())) {
        sp.count_prepared(1);
        return;
      }
    }
    const uintptr_t base = shared_access::g_base.load(std::memory_order_relaxed);
    const uintptr_t end = shared_access::g_end.load(std::memory_order_relaxed);
    uint64_t bytes = 0;
    for (Buffer& b : bufs_) {
      if (b.lo < base || b.len > end - b.lo)
        fatal("%s: a buffer of %zu bytes at %p lies partly in shared memory and partly outside it, and cannot be "
              "made valid for MPI at once (%s); pass shared and private data in separate calls",
              call, b.len, reinterpret_cast<void*>(b.lo),
              blocking ? "larger than SCOPEDSM_CACHE_PAGES" : "a nonblocking call");
      b.copy = static_cast<std::byte*>(std::malloc(b.len));
      if (b.copy == nullptr)
        fatal("%s: no memory for a private copy of a %zu-byte shared buffer", call, b.len);
      // Ordinary, faulting accesses of this thread, outside MPI.
      const auto* shared = reinterpret_cast<const std::byte*>(b.lo);
      if (b.fill == Fill::kNone || b.fill == Fill::kChanged) std::memcpy(b.copy, shared, b.len);
      if (b.fill == Fill::kChanged) {
        b.before = static_cast<std::byte*>(std::malloc(b.len));
        if (b.before == nullptr) fatal("%s: no memory for a private copy of a %zu-byte shared buffer", call, b.len);
        std::memcpy(b.before, b.copy, b.len);
      }
      bytes += b.len;
    }
    sp.count_bounced(bytes);
  }

  // The pointer MPI gets for argument `arg`: its private copy's, if it has one.
  template <typename T>
  T* at(T* arg) const {
    for (const Buffer& b : bufs_)
      if (b.arg == arg && b.copy != nullptr)
        return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(b.copy) + (reinterpret_cast<uintptr_t>(arg) - b.lo));
    return arg;
  }

  // MPI is done with the buffers: incoming copies go back into shared
  // memory (ordinary, faulting writes). `status`: a receive's, for kStatus.
  void finish(const MPI_Status* status) {
    for (Buffer& b : bufs_) {
      if (b.copy == nullptr || b.fill == Fill::kNone) continue;
      auto* shared = reinterpret_cast<std::byte*>(b.lo);
      switch (b.fill) {
        case Fill::kStatus:
        case Fill::kFile: {
          int bytes = 0, cancelled = 0;
          if (status != nullptr) {
            // (Open MPI leaves a file request's cancelled flag unset.)
            if (b.fill == Fill::kStatus) PMPI_Test_cancelled(status, &cancelled);
            PMPI_Get_count(status, MPI_BYTE, &bytes);
          }
          if (cancelled || bytes == MPI_UNDEFINED || bytes < 0) bytes = 0;
          std::memcpy(shared, b.copy, std::min(b.len, static_cast<size_t>(bytes)));
          break;
        }
        case Fill::kWhole:
          std::memcpy(shared, b.copy, b.len);
          break;
        case Fill::kChanged:
          write_changed(shared, b.copy, b.before, b.len);
          break;
        case Fill::kNone:
          break;
      }
    }
  }

 private:
  struct Buffer {
    const void* arg;
    uintptr_t lo;
    size_t len;
    Fill fill;
    std::byte* copy;    // the private copy MPI uses; null: in place
    std::byte* before;  // kChanged: the copy as it was before the call
  };

  // Writes to `to` the bytes of `now` that differ from `was`.
  static void write_changed(std::byte* to, const std::byte* now, const std::byte* was, size_t len) {
    constexpr size_t kBlock = 64;
    for (size_t at = 0; at < len; at += kBlock) {
      const size_t n = std::min(kBlock, len - at);
      if (std::memcmp(now + at, was + at, n) == 0) continue;
      for (size_t i = at; i < at + n; ++i)
        if (now[i] != was[i]) to[i] = now[i];
    }
  }

  std::vector<Buffer> bufs_;
};

// Nonblocking calls whose buffers went through private copies, by request:
// application thread only.
std::unordered_map<MPI_Request, std::unique_ptr<Staged>>& pending() {
  static auto* table = new std::unordered_map<MPI_Request, std::unique_ptr<Staged>>();
  return *table;
}
std::atomic<size_t> g_pending{0};

// A blocking call: `real(st)` makes it with st.at(arg) for every buffer.
// `status`: where the real call puts a receive's status (kStatus buffers).
template <typename Real>
int blocking(Staged& st, const char* call, Real real, MPI_Status* status = MPI_STATUS_IGNORE) {
  if (st.empty()) return real(st, status);
  SlowPath sp;
  if (!sp.usable()) return real(st, status);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  st.stage(sp, true, call);
  const int rc = real(st, s);
  if (rc == MPI_SUCCESS) st.finish(s);
  return rc;
}

// A nonblocking call: `real(st)` posts it into *req. Its buffers go through
// private copies, finished when the request completes.
template <typename Real>
int nonblocking(Staged&& st, const char* call, MPI_Request* req, Real real) {
  if (st.empty()) return real(st);
  SlowPath sp;
  if (!sp.usable()) return real(st);
  st.stage(sp, false, call);
  const int rc = real(st);
  if (rc == MPI_SUCCESS && *req != MPI_REQUEST_NULL) {
    pending()[*req] = std::make_unique<Staged>(std::move(st));
    g_pending.fetch_add(1, std::memory_order_relaxed);
  }
  return rc;
}

// Open MPI 4.1's ompio advances its nonblocking file requests from every
// opal_progress call, with no lock over its list of them, and the service
// thread's MPI calls progress too: the two threads then corrupt the list
// (SIGSEGV in mca_common_ompio_progress; 1 run in 30 of
// SharedMpi.FileWriteAndReadOfSharedBuffers with node sharing off). While
// ScopeDSM runs, a nonblocking file call is therefore made in its blocking
// form, and its request is a generalized request, already complete, that
// carries the blocking call's status (MPI lets the operation be done by the
// time the call returns). On success *req is that request.
int as_done_request(int rc, const MPI_Status& status, MPI_Request* req) {
  if (rc != MPI_SUCCESS) return rc;
  auto* saved = new MPI_Status(status);
  saved->MPI_ERROR = MPI_SUCCESS;  // a blocking call leaves the field as it was
  const int g = PMPI_Grequest_start(
      [](void* extra, MPI_Status* out) {
        *out = *static_cast<MPI_Status*>(extra);
        return MPI_SUCCESS;
      },
      [](void* extra) {
        delete static_cast<MPI_Status*>(extra);
        return MPI_SUCCESS;
      },
      [](void*, int) { return MPI_SUCCESS; }, saved, req);
  if (g != MPI_SUCCESS) {
    delete saved;
    return g;
  }
  return PMPI_Grequest_complete(*req);
}

// The staged buffers of request `r`, taken out of the table (null if none).
std::unique_ptr<Staged> take(MPI_Request r) {
  auto& table = pending();
  auto it = table.find(r);
  if (it == table.end()) return nullptr;
  std::unique_ptr<Staged> s = std::move(it->second);
  table.erase(it);
  g_pending.fetch_sub(1, std::memory_order_relaxed);
  return s;
}

// Whether completion calls need to look at the table: only on the
// application thread, and only while it has staged requests.
bool tracking() { return g_pending.load(std::memory_order_relaxed) != 0 && shared_access::on_application_thread(); }

// Completes the staged requests among `saved` (the handles before a
// completion call) that `done(i)` says completed, with status `status(i)`.
template <typename Done, typename Status>
void finish_completed(const std::vector<MPI_Request>& saved, Done done, Status status) {
  for (size_t i = 0; i < saved.size(); ++i) {
    if (!done(i)) continue;
    if (std::unique_ptr<Staged> s = take(saved[i])) s->finish(status(i));
  }
}

// Collectives: which process is the root, and how many processes a
// buffer's pieces are for (the remote group's, across an intercommunicator).
struct Roles {
  bool root = false;     // this process is the root
  bool nonroot = false;  // this process takes part, not as the root
  int size = 1;          // processes a root's buffer has pieces for
  int rank = 0;
};
Roles roles(MPI_Comm comm, int root) {
  Roles r;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_rank(comm, &r.rank);
  if (inter) {
    PMPI_Comm_remote_size(comm, &r.size);
    r.root = root == MPI_ROOT;
    r.nonroot = root >= 0;
  } else {
    PMPI_Comm_size(comm, &r.size);
    r.root = r.rank == root;
    r.nonroot = !r.root;
  }
  return r;
}
int group_size(MPI_Comm comm) {
  int inter = 0, n = 1;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) PMPI_Comm_remote_size(comm, &n);
  else PMPI_Comm_size(comm, &n);
  return n;
}

// A span's fill for an incoming collective buffer: whole if gapless.
Fill whole_or_changed(const Span& s) { return s.dense ? Fill::kWhole : Fill::kChanged; }

void add_out(Staged& st, const void* buf, MPI_Aint count, MPI_Datatype type) {
  Span s;
  if (span_of(buf, count, type, &s)) st.add(buf, s, Fill::kNone);
}
void add_recv(Staged& st, const void* buf, MPI_Aint count, MPI_Datatype type, Fill dense_fill = Fill::kStatus) {
  Span s;
  if (span_of(buf, count, type, &s)) st.add(buf, s, s.dense ? dense_fill : Fill::kChanged);
}
// An incoming collective buffer; `in_place`: it is also read (MPI_IN_PLACE).
void add_in(Staged& st, const void* buf, MPI_Aint count, MPI_Datatype type, bool in_place) {
  Span s;
  if (span_of(buf, count, type, &s)) st.add(buf, s, in_place ? Fill::kChanged : whole_or_changed(s));
}
void add_pieces(Staged& st, const void* buf, const int* counts, const int* displs, int n, MPI_Datatype type, Fill fill) {
  Span s;
  if (span_of_pieces(buf, counts, displs, n, type, &s)) st.add(buf, s, fill);
}

void refuse_persistent(const char* call, const void* buf, int count, MPI_Datatype type) {
  Span s;
  if (!active() || !span_of(buf, count, type, &s) || !may_reach(reinterpret_cast<const void*>(s.lo), s.len)) return;
  fatal("%s(%p): a persistent request on shared memory is not supported: MPI would use the buffer at every "
        "MPI_Start, when its pages need not be valid; use the nonblocking call (MPI_Isend, MPI_Irecv, ...) or a "
        "private buffer",
        call, buf);
}

// The buffers of each collective (blocking and nonblocking alike).
Staged bcast_buffers(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  Staged st;
  const Roles r = roles(comm, root);
  if (r.root) add_out(st, buf, count, type);
  else if (r.nonroot) add_in(st, buf, count, type, false);
  return st;
}
Staged reduce_buffers(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, bool at_root,
                                       bool in_place_ok) {
  Staged st;
  const bool in_place = in_place_ok && sendbuf == MPI_IN_PLACE;
  add_out(st, sendbuf, count, type);
  if (at_root) add_in(st, recvbuf, count, type, in_place);
  return st;
}
Staged gather_buffers(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                                       MPI_Datatype rtype, int root, MPI_Comm comm) {
  Staged st;
  const Roles r = roles(comm, root);
  if (r.nonroot || (r.root && sendbuf != MPI_IN_PLACE && !(root == MPI_ROOT))) add_out(st, sendbuf, scount, stype);
  if (r.root) add_in(st, recvbuf, static_cast<MPI_Aint>(rcount) * r.size, rtype, sendbuf == MPI_IN_PLACE);
  return st;
}
Staged gatherv_buffers(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf,
                                        const int* rcounts, const int* displs, MPI_Datatype rtype, int root,
                                        MPI_Comm comm) {
  Staged st;
  const Roles r = roles(comm, root);
  if (r.nonroot || (r.root && sendbuf != MPI_IN_PLACE && !(root == MPI_ROOT))) add_out(st, sendbuf, scount, stype);
  if (r.root) add_pieces(st, recvbuf, rcounts, displs, r.size, rtype, Fill::kChanged);
  return st;
}
Staged scatter_buffers(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                                        MPI_Datatype rtype, int root, MPI_Comm comm) {
  Staged st;
  const Roles r = roles(comm, root);
  if (r.root) add_out(st, sendbuf, static_cast<MPI_Aint>(scount) * r.size, stype);
  if (r.nonroot || (r.root && recvbuf != MPI_IN_PLACE && !(root == MPI_ROOT))) add_in(st, recvbuf, rcount, rtype, false);
  return st;
}
Staged scatterv_buffers(const void* sendbuf, const int* scounts, const int* displs, MPI_Datatype stype,
                                         void* recvbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  Staged st;
  const Roles r = roles(comm, root);
  if (r.root) add_pieces(st, sendbuf, scounts, displs, r.size, stype, Fill::kNone);
  if (r.nonroot || (r.root && recvbuf != MPI_IN_PLACE && !(root == MPI_ROOT))) add_in(st, recvbuf, rcount, rtype, false);
  return st;
}
Staged allgather_buffers(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf,
                                          int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  Staged st;
  add_out(st, sendbuf, scount, stype);
  add_in(st, recvbuf, static_cast<MPI_Aint>(rcount) * group_size(comm), rtype, sendbuf == MPI_IN_PLACE);
  return st;
}
Staged allgatherv_buffers(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf,
                                           const int* rcounts, const int* displs, MPI_Datatype rtype, MPI_Comm comm) {
  Staged st;
  add_out(st, sendbuf, scount, stype);
  add_pieces(st, recvbuf, rcounts, displs, group_size(comm), rtype, Fill::kChanged);
  return st;
}
Staged alltoall_buffers(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                                         MPI_Datatype rtype, MPI_Comm comm) {
  Staged st;
  const int n = group_size(comm);
  add_out(st, sendbuf, static_cast<MPI_Aint>(scount) * n, stype);
  add_in(st, recvbuf, static_cast<MPI_Aint>(rcount) * n, rtype, sendbuf == MPI_IN_PLACE);
  return st;
}
Staged alltoallv_buffers(const void* sendbuf, const int* scounts, const int* sdispls,
                                          MPI_Datatype stype, void* recvbuf, const int* rcounts, const int* rdispls,
                                          MPI_Datatype rtype, MPI_Comm comm) {
  Staged st;
  const int n = group_size(comm);
  add_pieces(st, sendbuf, scounts, sdispls, n, stype, Fill::kNone);
  add_pieces(st, recvbuf, rcounts, rdispls, n, rtype, Fill::kChanged);
  return st;
}
bool at_root(MPI_Comm comm, int root) { return roles(comm, root).root; }

}  // namespace
}  // namespace scopedsm::interpose

namespace ip = scopedsm::interpose;
using ip::Staged;

extern "C" {

// ---------------------------------------------------------------------------
// Point to point, blocking.

#define SCOPEDSM_SEND_LIKE(NAME)                                                                      \
  int MPI_##NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {    \
    if (!ip::active()) return PMPI_##NAME(buf, count, type, dest, tag, comm);                         \
    Staged st;                                                                                        \
    ip::add_out(st, buf, count, type);                                                                \
    return ip::blocking(st, "MPI_" #NAME, [&](const Staged& s, MPI_Status*) {                         \
      return PMPI_##NAME(s.at(buf), count, type, dest, tag, comm);                                    \
    });                                                                                               \
  }
SCOPEDSM_SEND_LIKE(Send)
SCOPEDSM_SEND_LIKE(Ssend)
SCOPEDSM_SEND_LIKE(Rsend)
SCOPEDSM_SEND_LIKE(Bsend)
#undef SCOPEDSM_SEND_LIKE

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!ip::active()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  Staged st;
  ip::add_recv(st, buf, count, type);
  return ip::blocking(
      st, "MPI_Recv",
      [&](const Staged& s, MPI_Status* out) { return PMPI_Recv(s.at(buf), count, type, source, tag, comm, out); },
      status);
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  if (!ip::active()) return PMPI_Mrecv(buf, count, type, message, status);
  Staged st;
  ip::add_recv(st, buf, count, type);
  return ip::blocking(
      st, "MPI_Mrecv", [&](const Staged& s, MPI_Status* out) { return PMPI_Mrecv(s.at(buf), count, type, message, out); },
      status);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (!ip::active())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  Staged st;
  ip::add_out(st, sendbuf, sendcount, sendtype);
  ip::add_recv(st, recvbuf, recvcount, recvtype);
  return ip::blocking(
      st, "MPI_Sendrecv",
      [&](const Staged& s, MPI_Status* out) {
        return PMPI_Sendrecv(s.at(sendbuf), sendcount, sendtype, dest, sendtag, s.at(recvbuf), recvcount, recvtype,
                             source, recvtag, comm, out);
      },
      status);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status) {
  if (!ip::active()) return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  Staged st;
  ip::add_in(st, buf, count, type, true);  // read, then written
  return ip::blocking(
      st, "MPI_Sendrecv_replace",
      [&](const Staged& s, MPI_Status* out) {
        return PMPI_Sendrecv_replace(s.at(buf), count, type, dest, sendtag, source, recvtag, comm, out);
      },
      status);
}

// ---------------------------------------------------------------------------
// Point to point, nonblocking.

#define SCOPEDSM_ISEND_LIKE(NAME)                                                                                   \
  int MPI_##NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) { \
    if (!ip::active()) return PMPI_##NAME(buf, count, type, dest, tag, comm, req);                                  \
    Staged st;                                                                                                      \
    ip::add_out(st, buf, count, type);                                                                             \
    return ip::nonblocking(std::move(st), "MPI_" #NAME, req, [&](const Staged& s) {                                 \
      return PMPI_##NAME(s.at(buf), count, type, dest, tag, comm, req);                                             \
    });                                                                                                             \
  }
SCOPEDSM_ISEND_LIKE(Isend)
SCOPEDSM_ISEND_LIKE(Issend)
SCOPEDSM_ISEND_LIKE(Irsend)
SCOPEDSM_ISEND_LIKE(Ibsend)
#undef SCOPEDSM_ISEND_LIKE

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Irecv(buf, count, type, source, tag, comm, req);
  Staged st;
  ip::add_recv(st, buf, count, type);
  return ip::nonblocking(std::move(st), "MPI_Irecv", req,
                         [&](const Staged& s) { return PMPI_Irecv(s.at(buf), count, type, source, tag, comm, req); });
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* req) {
  if (!ip::active()) return PMPI_Imrecv(buf, count, type, message, req);
  Staged st;
  ip::add_recv(st, buf, count, type);
  return ip::nonblocking(std::move(st), "MPI_Imrecv", req,
                         [&](const Staged& s) { return PMPI_Imrecv(s.at(buf), count, type, message, req); });
}

// Persistent requests would use their buffer at every MPI_Start: refused
// on shared memory.
#define SCOPEDSM_PERSISTENT_SEND(NAME)                                                                              \
  int MPI_##NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) { \
    ip::refuse_persistent("MPI_" #NAME, buf, count, type);                                                          \
    return PMPI_##NAME(buf, count, type, dest, tag, comm, req);                                                     \
  }
SCOPEDSM_PERSISTENT_SEND(Send_init)
SCOPEDSM_PERSISTENT_SEND(Ssend_init)
SCOPEDSM_PERSISTENT_SEND(Rsend_init)
SCOPEDSM_PERSISTENT_SEND(Bsend_init)
#undef SCOPEDSM_PERSISTENT_SEND

int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  ip::refuse_persistent("MPI_Recv_init", buf, count, type);
  return PMPI_Recv_init(buf, count, type, source, tag, comm, req);
}

// ---------------------------------------------------------------------------
// Completion: staged requests write their received data back.

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  if (!ip::tracking() || req == nullptr) return PMPI_Wait(req, status);
  const std::vector<MPI_Request> saved = {*req};
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = PMPI_Wait(req, s);
  ip::finish_completed(saved, [&](size_t) { return rc == MPI_SUCCESS; }, [&](size_t) { return s; });
  return rc;
}

int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  if (!ip::tracking() || req == nullptr) return PMPI_Test(req, flag, status);
  const std::vector<MPI_Request> saved = {*req};
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = PMPI_Test(req, flag, s);
  ip::finish_completed(saved, [&](size_t) { return rc == MPI_SUCCESS && *flag; }, [&](size_t) { return s; });
  return rc;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  if (!ip::tracking() || count <= 0) return PMPI_Waitall(count, reqs, statuses);
  const std::vector<MPI_Request> saved(reqs, reqs + count);
  std::vector<MPI_Status> mine;
  MPI_Status* s = statuses;
  if (statuses == MPI_STATUSES_IGNORE) {
    mine.resize(static_cast<size_t>(count));
    s = mine.data();
  }
  const int rc = PMPI_Waitall(count, reqs, s);
  ip::finish_completed(saved, [&](size_t) { return rc == MPI_SUCCESS; }, [&](size_t i) { return &s[i]; });
  return rc;
}

int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  if (!ip::tracking() || count <= 0) return PMPI_Testall(count, reqs, flag, statuses);
  const std::vector<MPI_Request> saved(reqs, reqs + count);
  std::vector<MPI_Status> mine;
  MPI_Status* s = statuses;
  if (statuses == MPI_STATUSES_IGNORE) {
    mine.resize(static_cast<size_t>(count));
    s = mine.data();
  }
  const int rc = PMPI_Testall(count, reqs, flag, s);
  ip::finish_completed(saved, [&](size_t) { return rc == MPI_SUCCESS && *flag; }, [&](size_t i) { return &s[i]; });
  return rc;
}

int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  if (!ip::tracking() || count <= 0) return PMPI_Waitany(count, reqs, index, status);
  const std::vector<MPI_Request> saved(reqs, reqs + count);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = PMPI_Waitany(count, reqs, index, s);
  ip::finish_completed(
      saved, [&](size_t i) { return rc == MPI_SUCCESS && *index != MPI_UNDEFINED && static_cast<size_t>(*index) == i; },
      [&](size_t) { return s; });
  return rc;
}

int MPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  if (!ip::tracking() || count <= 0) return PMPI_Testany(count, reqs, index, flag, status);
  const std::vector<MPI_Request> saved(reqs, reqs + count);
  MPI_Status mine;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = PMPI_Testany(count, reqs, index, flag, s);
  ip::finish_completed(
      saved,
      [&](size_t i) {
        return rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && static_cast<size_t>(*index) == i;
      },
      [&](size_t) { return s; });
  return rc;
}

// Waitsome and Testsome: statuses are by position in the output.
static int some_completed(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[],
                          int (*real)(int, MPI_Request*, int*, int*, MPI_Status*)) {
  const std::vector<MPI_Request> saved(reqs, reqs + incount);
  std::vector<MPI_Status> mine;
  MPI_Status* s = statuses;
  if (statuses == MPI_STATUSES_IGNORE) {
    mine.resize(static_cast<size_t>(incount));
    s = mine.data();
  }
  const int rc = real(incount, reqs, outcount, indices, s);
  if (rc != MPI_SUCCESS || *outcount == MPI_UNDEFINED) return rc;
  std::vector<int> position(static_cast<size_t>(incount), -1);
  for (int k = 0; k < *outcount; ++k) position[static_cast<size_t>(indices[k])] = k;
  ip::finish_completed(
      saved, [&](size_t i) { return position[i] >= 0; }, [&](size_t i) { return &s[position[i]]; });
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (!ip::tracking() || incount <= 0) return PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
  return some_completed(incount, reqs, outcount, indices, statuses, &PMPI_Waitsome);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (!ip::tracking() || incount <= 0) return PMPI_Testsome(incount, reqs, outcount, indices, statuses);
  return some_completed(incount, reqs, outcount, indices, statuses, &PMPI_Testsome);
}

int MPI_Request_free(MPI_Request* req) {
  if (!ip::tracking() || req == nullptr) return PMPI_Request_free(req);
  std::unique_ptr<Staged> s = ip::take(*req);
  if (s != nullptr && s->incoming())
    scopedsm::fatal("MPI_Request_free: the request receives into shared memory, which ScopeDSM writes when the "
                    "program completes the request; complete it with MPI_Wait or MPI_Test instead of freeing it");
  // An outgoing copy must outlive the request, whose end nobody will see.
  (void)s.release();
  return PMPI_Request_free(req);
}

// ---------------------------------------------------------------------------
// Collectives, blocking and nonblocking.

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Bcast(buf, count, type, root, comm);
  auto st = ip::bcast_buffers(buf, count, type, root, comm);
  return ip::blocking(st, "MPI_Bcast",
                      [&](const Staged& s, MPI_Status*) { return PMPI_Bcast(s.at(buf), count, type, root, comm); });
}
int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Ibcast(buf, count, type, root, comm, req);
  return ip::nonblocking(ip::bcast_buffers(buf, count, type, root, comm), "MPI_Ibcast", req,
                         [&](const Staged& s) { return PMPI_Ibcast(s.at(buf), count, type, root, comm, req); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  auto st = ip::reduce_buffers(sendbuf, recvbuf, count, type, ip::at_root(comm, root), true);
  return ip::blocking(st, "MPI_Reduce", [&](const Staged& s, MPI_Status*) {
    return PMPI_Reduce(s.at(sendbuf), s.at(recvbuf), count, type, op, root, comm);
  });
}
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* req) {
  if (!ip::active()) return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, req);
  return ip::nonblocking(ip::reduce_buffers(sendbuf, recvbuf, count, type, ip::at_root(comm, root), true),
                         "MPI_Ireduce", req, [&](const Staged& s) {
                           return PMPI_Ireduce(s.at(sendbuf), s.at(recvbuf), count, type, op, root, comm, req);
                         });
}

#define SCOPEDSM_ALLREDUCE_LIKE(NAME)                                                                               \
  int MPI_##NAME(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {     \
    if (!ip::active()) return PMPI_##NAME(sendbuf, recvbuf, count, type, op, comm);                                 \
    auto st = ip::reduce_buffers(sendbuf, recvbuf, count, type, true, true);                                        \
    return ip::blocking(st, "MPI_" #NAME, [&](const Staged& s, MPI_Status*) {                                      \
      return PMPI_##NAME(s.at(sendbuf), s.at(recvbuf), count, type, op, comm);                                      \
    });                                                                                                             \
  }
SCOPEDSM_ALLREDUCE_LIKE(Allreduce)
SCOPEDSM_ALLREDUCE_LIKE(Scan)
#undef SCOPEDSM_ALLREDUCE_LIKE

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
  // Rank 0's receive buffer is left as it was: only changed bytes go back.
  Staged st;
  ip::add_out(st, sendbuf, count, type);
  ip::Span sp;
  if (ip::span_of(recvbuf, count, type, &sp)) st.add(recvbuf, sp, ip::Fill::kChanged);
  return ip::blocking(st, "MPI_Exscan", [&](const Staged& s, MPI_Status*) {
    return PMPI_Exscan(s.at(sendbuf), s.at(recvbuf), count, type, op, comm);
  });
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* req) {
  if (!ip::active()) return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, req);
  return ip::nonblocking(ip::reduce_buffers(sendbuf, recvbuf, count, type, true, true), "MPI_Iallreduce", req,
                         [&](const Staged& s) {
                           return PMPI_Iallreduce(s.at(sendbuf), s.at(recvbuf), count, type, op, comm, req);
                         });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm) {
  if (!ip::active()) return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  const MPI_Aint all = static_cast<MPI_Aint>(recvcount) * ip::group_size(comm);
  Staged st;
  ip::add_out(st, sendbuf, all, type);
  if (sendbuf == MPI_IN_PLACE) ip::add_in(st, recvbuf, all, type, true);
  else ip::add_in(st, recvbuf, recvcount, type, false);
  return ip::blocking(st, "MPI_Reduce_scatter_block", [&](const Staged& s, MPI_Status*) {
    return PMPI_Reduce_scatter_block(s.at(sendbuf), s.at(recvbuf), recvcount, type, op, comm);
  });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm) {
  if (!ip::active()) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const int n = ip::group_size(comm);
  MPI_Aint all = 0;
  for (int i = 0; i < n; ++i) all += recvcounts[i];
  Staged st;
  ip::add_out(st, sendbuf, all, type);
  if (sendbuf == MPI_IN_PLACE) ip::add_in(st, recvbuf, all, type, true);
  else ip::add_in(st, recvbuf, recvcounts[rank], type, false);
  return ip::blocking(st, "MPI_Reduce_scatter", [&](const Staged& s, MPI_Status*) {
    return PMPI_Reduce_scatter(s.at(sendbuf), s.at(recvbuf), recvcounts, type, op, comm);
  });
}

int MPI_Gather(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
               int root, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Gather(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm);
  auto st = ip::gather_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm);
  return ip::blocking(st, "MPI_Gather", [&](const Staged& s, MPI_Status*) {
    return PMPI_Gather(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, root, comm);
  });
}
int MPI_Igather(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Igather(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm, req);
  return ip::nonblocking(ip::gather_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm), "MPI_Igather",
                         req, [&](const Staged& s) {
                           return PMPI_Igather(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, root, comm,
                                               req);
                         });
}

int MPI_Gatherv(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Gatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root, comm);
  auto st = ip::gatherv_buffers(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root, comm);
  return ip::blocking(st, "MPI_Gatherv", [&](const Staged& s, MPI_Status*) {
    return PMPI_Gatherv(s.at(sendbuf), scount, stype, s.at(recvbuf), rcounts, displs, rtype, root, comm);
  });
}
int MPI_Igatherv(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Igatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root, comm, req);
  return ip::nonblocking(ip::gatherv_buffers(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root, comm),
                         "MPI_Igatherv", req, [&](const Staged& s) {
                           return PMPI_Igatherv(s.at(sendbuf), scount, stype, s.at(recvbuf), rcounts, displs, rtype,
                                                root, comm, req);
                         });
}

int MPI_Scatter(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Scatter(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm);
  auto st = ip::scatter_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm);
  return ip::blocking(st, "MPI_Scatter", [&](const Staged& s, MPI_Status*) {
    return PMPI_Scatter(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, root, comm);
  });
}
int MPI_Iscatter(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
                 int root, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Iscatter(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm, req);
  return ip::nonblocking(ip::scatter_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm),
                         "MPI_Iscatter", req, [&](const Staged& s) {
                           return PMPI_Iscatter(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, root, comm,
                                                req);
                         });
}

int MPI_Scatterv(const void* sendbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* recvbuf,
                 int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Scatterv(sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root, comm);
  auto st = ip::scatterv_buffers(sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root, comm);
  return ip::blocking(st, "MPI_Scatterv", [&](const Staged& s, MPI_Status*) {
    return PMPI_Scatterv(s.at(sendbuf), scounts, displs, stype, s.at(recvbuf), rcount, rtype, root, comm);
  });
}
int MPI_Iscatterv(const void* sendbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* recvbuf,
                  int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Iscatterv(sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root, comm, req);
  return ip::nonblocking(ip::scatterv_buffers(sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root, comm),
                         "MPI_Iscatterv", req, [&](const Staged& s) {
                           return PMPI_Iscatterv(s.at(sendbuf), scounts, displs, stype, s.at(recvbuf), rcount, rtype,
                                                 root, comm, req);
                         });
}

int MPI_Allgather(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm) {
  if (!ip::active()) return PMPI_Allgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
  auto st = ip::allgather_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
  return ip::blocking(st, "MPI_Allgather", [&](const Staged& s, MPI_Status*) {
    return PMPI_Allgather(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, comm);
  });
}
int MPI_Iallgather(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Iallgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, req);
  return ip::nonblocking(ip::allgather_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, comm), "MPI_Iallgather",
                         req, [&](const Staged& s) {
                           return PMPI_Iallgather(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, comm,
                                                  req);
                         });
}

int MPI_Allgatherv(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  if (!ip::active()) return PMPI_Allgatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm);
  auto st = ip::allgatherv_buffers(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm);
  return ip::blocking(st, "MPI_Allgatherv", [&](const Staged& s, MPI_Status*) {
    return PMPI_Allgatherv(s.at(sendbuf), scount, stype, s.at(recvbuf), rcounts, displs, rtype, comm);
  });
}
int MPI_Iallgatherv(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, const int rcounts[],
                    const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Iallgatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm, req);
  return ip::nonblocking(ip::allgatherv_buffers(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm),
                         "MPI_Iallgatherv", req, [&](const Staged& s) {
                           return PMPI_Iallgatherv(s.at(sendbuf), scount, stype, s.at(recvbuf), rcounts, displs, rtype,
                                                   comm, req);
                         });
}

int MPI_Alltoall(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm) {
  if (!ip::active()) return PMPI_Alltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
  auto st = ip::alltoall_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
  return ip::blocking(st, "MPI_Alltoall", [&](const Staged& s, MPI_Status*) {
    return PMPI_Alltoall(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, comm);
  });
}
int MPI_Ialltoall(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request* req) {
  if (!ip::active()) return PMPI_Ialltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, req);
  return ip::nonblocking(ip::alltoall_buffers(sendbuf, scount, stype, recvbuf, rcount, rtype, comm), "MPI_Ialltoall",
                         req, [&](const Staged& s) {
                           return PMPI_Ialltoall(s.at(sendbuf), scount, stype, s.at(recvbuf), rcount, rtype, comm, req);
                         });
}

int MPI_Alltoallv(const void* sendbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* recvbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  if (!ip::active())
    return PMPI_Alltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm);
  auto st = ip::alltoallv_buffers(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm);
  return ip::blocking(st, "MPI_Alltoallv", [&](const Staged& s, MPI_Status*) {
    return PMPI_Alltoallv(s.at(sendbuf), scounts, sdispls, stype, s.at(recvbuf), rcounts, rdispls, rtype, comm);
  });
}
int MPI_Ialltoallv(const void* sendbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* recvbuf,
                   const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  if (!ip::active())
    return PMPI_Ialltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm, req);
  return ip::nonblocking(
      ip::alltoallv_buffers(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm),
      "MPI_Ialltoallv", req, [&](const Staged& s) {
        return PMPI_Ialltoallv(s.at(sendbuf), scounts, sdispls, stype, s.at(recvbuf), rcounts, rdispls, rtype, comm,
                               req);
      });
}

// ---------------------------------------------------------------------------
// MPI-IO: the library reads and writes the buffer with its own code and
// with system calls made inside MPI, which must not prepare it there.

#define SCOPEDSM_FILE_READ(NAME)                                                                             \
  int MPI_File_##NAME(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* status) {           \
    if (!ip::active()) return PMPI_File_##NAME(fh, buf, count, type, status);                                \
    Staged st;                                                                                               \
    ip::add_recv(st, buf, count, type, ip::Fill::kFile);                                                                     \
    return ip::blocking(                                                                                     \
        st, "MPI_File_" #NAME,                                                                               \
        [&](const Staged& s, MPI_Status* out) { return PMPI_File_##NAME(fh, s.at(buf), count, type, out); }, \
        status);                                                                                             \
  }
#define SCOPEDSM_FILE_WRITE(NAME)                                                                             \
  int MPI_File_##NAME(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Status* status) {      \
    if (!ip::active()) return PMPI_File_##NAME(fh, buf, count, type, status);                                 \
    Staged st;                                                                                                \
    ip::add_out(st, buf, count, type);                                                                        \
    return ip::blocking(                                                                                      \
        st, "MPI_File_" #NAME,                                                                                \
        [&](const Staged& s, MPI_Status* out) { return PMPI_File_##NAME(fh, s.at(buf), count, type, out); },  \
        status);                                                                                              \
  }
#define SCOPEDSM_FILE_READ_AT(NAME)                                                                                  \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset at, void* buf, int count, MPI_Datatype type, MPI_Status* status) {    \
    if (!ip::active()) return PMPI_File_##NAME(fh, at, buf, count, type, status);                                    \
    Staged st;                                                                                                       \
    ip::add_recv(st, buf, count, type, ip::Fill::kFile);                                                                             \
    return ip::blocking(                                                                                             \
        st, "MPI_File_" #NAME,                                                                                       \
        [&](const Staged& s, MPI_Status* out) { return PMPI_File_##NAME(fh, at, s.at(buf), count, type, out); },     \
        status);                                                                                                     \
  }
#define SCOPEDSM_FILE_WRITE_AT(NAME)                                                                                  \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset at, const void* buf, int count, MPI_Datatype type, MPI_Status* status) { \
    if (!ip::active()) return PMPI_File_##NAME(fh, at, buf, count, type, status);                                     \
    Staged st;                                                                                                        \
    ip::add_out(st, buf, count, type);                                                                                \
    return ip::blocking(                                                                                              \
        st, "MPI_File_" #NAME,                                                                                        \
        [&](const Staged& s, MPI_Status* out) { return PMPI_File_##NAME(fh, at, s.at(buf), count, type, out); },      \
        status);                                                                                                      \
  }
SCOPEDSM_FILE_READ(read)
SCOPEDSM_FILE_READ(read_all)
SCOPEDSM_FILE_WRITE(write)
SCOPEDSM_FILE_WRITE(write_all)
SCOPEDSM_FILE_READ_AT(read_at)
SCOPEDSM_FILE_READ_AT(read_at_all)
SCOPEDSM_FILE_WRITE_AT(write_at)
SCOPEDSM_FILE_WRITE_AT(write_at_all)
#undef SCOPEDSM_FILE_READ
#undef SCOPEDSM_FILE_WRITE
#undef SCOPEDSM_FILE_READ_AT
#undef SCOPEDSM_FILE_WRITE_AT

int MPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  if (!ip::active()) return PMPI_File_iread(fh, buf, count, type, req);
  Staged st;
  ip::add_recv(st, buf, count, type, ip::Fill::kFile);
  return ip::nonblocking(std::move(st), "MPI_File_iread", req, [&](const Staged& s) {
    MPI_Status done;
    return ip::as_done_request(PMPI_File_read(fh, s.at(buf), count, type, &done), done, req);
  });
}
int MPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  if (!ip::active()) return PMPI_File_iwrite(fh, buf, count, type, req);
  Staged st;
  ip::add_out(st, buf, count, type);
  return ip::nonblocking(std::move(st), "MPI_File_iwrite", req, [&](const Staged& s) {
    MPI_Status done;
    return ip::as_done_request(PMPI_File_write(fh, s.at(buf), count, type, &done), done, req);
  });
}
int MPI_File_iread_at(MPI_File fh, MPI_Offset at, void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  if (!ip::active()) return PMPI_File_iread_at(fh, at, buf, count, type, req);
  Staged st;
  ip::add_recv(st, buf, count, type, ip::Fill::kFile);
  return ip::nonblocking(std::move(st), "MPI_File_iread_at", req, [&](const Staged& s) {
    MPI_Status done;
    return ip::as_done_request(PMPI_File_read_at(fh, at, s.at(buf), count, type, &done), done, req);
  });
}
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset at, const void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  if (!ip::active()) return PMPI_File_iwrite_at(fh, at, buf, count, type, req);
  Staged st;
  ip::add_out(st, buf, count, type);
  return ip::nonblocking(std::move(st), "MPI_File_iwrite_at", req, [&](const Staged& s) {
    MPI_Status done;
    return ip::as_done_request(PMPI_File_write_at(fh, at, s.at(buf), count, type, &done), done, req);
  });
}

}  // extern "C"
