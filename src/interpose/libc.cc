// The C library's calls that hand a buffer to the kernel, interposed
// (interpose/interpose.h states the contract).
//
// libscopedsm is linked before the C library, so these definitions are the
// ones the dynamic linker binds for the program and for every other shared
// library (libgfortran's and libstdc++'s read, write and writev go through
// here). glibc's stdio reaches the kernel through internal calls, not these
// symbols, so fread and fwrite have wrappers of their own.
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/log.h"
#include "interpose/interpose.h"
#include "interpose/chunks.h"
#include "interpose/real.h"
#include "runtime/shared_access.h"

namespace scopedsm::interpose {
namespace {

using shared_access::may_reach;
using shared_access::Range;
using shared_access::SlowPath;

using ReadFn = ssize_t (*)(int, void*, size_t);
using WriteFn = ssize_t (*)(int, const void*, size_t);
using PreadFn = ssize_t (*)(int, void*, size_t, off_t);
using PwriteFn = ssize_t (*)(int, const void*, size_t, off_t);
using VecFn = ssize_t (*)(int, const struct iovec*, int);
using PvecFn = ssize_t (*)(int, const struct iovec*, int, off_t);
using Pvec2Fn = ssize_t (*)(int, const struct iovec*, int, off_t, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
using SendtoFn = ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*, socklen_t);
using RecvmsgFn = ssize_t (*)(int, struct msghdr*, int);
using SendmsgFn = ssize_t (*)(int, const struct msghdr*, int);
using FreadFn = size_t (*)(void*, size_t, size_t, FILE*);
using FwriteFn = size_t (*)(const void*, size_t, size_t, FILE*);
using ReadChkFn = ssize_t (*)(int, void*, size_t, size_t);
using PreadChkFn = ssize_t (*)(int, void*, size_t, off_t, size_t);
using RecvChkFn = ssize_t (*)(int, void*, size_t, size_t, int);
using RecvfromChkFn = ssize_t (*)(int, void*, size_t, size_t, int, struct sockaddr*, socklen_t*);
using FreadChkFn = size_t (*)(void*, size_t, size_t, size_t, FILE*);

// On x86-64 (and every LP64 glibc target) off_t is off64_t and the *64
// functions are the same ones under a second name; they are looked up by
// their own names all the same.
constinit Real<ReadFn> real_read("read");
constinit Real<WriteFn> real_write("write");
constinit Real<PreadFn> real_pread("pread");
constinit Real<PreadFn> real_pread64("pread64");
constinit Real<PwriteFn> real_pwrite("pwrite");
constinit Real<PwriteFn> real_pwrite64("pwrite64");
constinit Real<VecFn> real_readv("readv");
constinit Real<VecFn> real_writev("writev");
constinit Real<PvecFn> real_preadv("preadv");
constinit Real<PvecFn> real_preadv64("preadv64");
constinit Real<PvecFn> real_pwritev("pwritev");
constinit Real<PvecFn> real_pwritev64("pwritev64");
constinit Real<Pvec2Fn> real_preadv2("preadv2");
constinit Real<Pvec2Fn> real_preadv64v2("preadv64v2");
constinit Real<Pvec2Fn> real_pwritev2("pwritev2");
constinit Real<Pvec2Fn> real_pwritev64v2("pwritev64v2");
constinit Real<RecvfromFn> real_recvfrom("recvfrom");
constinit Real<SendtoFn> real_sendto("sendto");
constinit Real<RecvmsgFn> real_recvmsg("recvmsg");
constinit Real<SendmsgFn> real_sendmsg("sendmsg");
constinit Real<FreadFn> real_fread("fread");
constinit Real<FreadFn> real_fread_unlocked("fread_unlocked");
constinit Real<FwriteFn> real_fwrite("fwrite");
constinit Real<FwriteFn> real_fwrite_unlocked("fwrite_unlocked");
constinit Real<ReadChkFn> real_read_chk("__read_chk");
constinit Real<PreadChkFn> real_pread_chk("__pread_chk");
constinit Real<PreadChkFn> real_pread64_chk("__pread64_chk");
constinit Real<RecvChkFn> real_recv_chk("__recv_chk");
constinit Real<RecvfromChkFn> real_recvfrom_chk("__recvfrom_chk");
constinit Real<FreadChkFn> real_fread_chk("__fread_chk");
constinit Real<FreadChkFn> real_fread_unlocked_chk("__fread_unlocked_chk");

// Which way the data goes: out of memory (write, send: the buffer is read)
// or into it (read, recv: the buffer is written).
enum class Dir { kOut, kIn };

bool reaches(const struct iovec* iov, size_t n) {
  if (may_reach(iov, n * sizeof(struct iovec))) return true;
  for (size_t i = 0; i < n; ++i)
    if (may_reach(iov[i].iov_base, iov[i].iov_len)) return true;
  return false;
}

SharedSpan span_of(const SlowPath& sp) {
  return SharedSpan{shared_access::g_base.load(std::memory_order_relaxed),
                    shared_access::g_end.load(std::memory_order_relaxed), sp.page_size()};
}

// The ranges of `iov` for `dir`, plus `extra`.
std::vector<Range> ranges_of(const struct iovec* iov, size_t n, Dir dir, std::initializer_list<Range> extra = {}) {
  std::vector<Range> r;
  r.reserve(n + extra.size());
  for (size_t i = 0; i < n; ++i) r.push_back({iov[i].iov_base, iov[i].iov_len, dir == Dir::kIn});
  for (const Range& e : extra) r.push_back(e);
  return r;
}

void prepare_or_die(SlowPath& sp, const std::vector<Range>& ranges, const char* call) {
  // Callers pass at most chunk_pages() units, half the cache: this fits.
  if (!sp.prepare(ranges.data(), ranges.size()))
    fatal("internal error: %s: a chunk of shared memory does not fit the cache", call);
}

// Whether `fd` has data to read now (or is at its end, or failed): a read
// after the first chunk goes on only then, as the kernel's single read
// would have returned what was there.
bool readable_now(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

// The real call on a list that reaches shared memory, from a thread that
// cannot prepare it: unchanged, but a failure the protection caused is an
// error, not a silent loss.
template <typename Op>
ssize_t unprepared(const char* call, const struct iovec* iov, size_t n, Op op) {
  const ssize_t r = op(iov, n, 0);
  if (r < 0 && errno == EFAULT)
    for (size_t i = 0; i < n; ++i) shared_access::report_foreign_fault(call, iov[i].iov_base, iov[i].iov_len);
  return r;
}

// A transfer that may be split: files, pipes, stream sockets, stdio. With
// all of its shared memory fitting a chunk, one real call on the whole
// list, exactly the program's. Otherwise one real call per chunk, each
// prepared just before it, stopping at the first short or failed one as
// the kernel would: the count so far is returned (and errno left as it
// was) if there is one, else the failure. With `poll_fd` >= 0 a chunk
// after the first is read only if that descriptor has data now.
// op(iov, n, done) makes the real call on (iov, n), `done` bytes in.
template <typename Op>
ssize_t chunked(SlowPath& sp, const char* call, const struct iovec* iov, size_t n, Dir dir, int poll_fd, Op op) {
  const SharedSpan span = span_of(sp);
  const uint64_t budget = sp.chunk_pages();
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (iov[i].iov_len > static_cast<size_t>(SSIZE_MAX) - total) return op(iov, n, 0);  // the kernel says EINVAL
    total += iov[i].iov_len;
  }
  if (units_touched(span, iov, n) <= budget) {
    prepare_or_die(sp, ranges_of(iov, n, dir), call);
    sp.count_prepared(1);
    return op(iov, n, 0);
  }
  const int saved_errno = errno;
  ChunkCursor cursor(iov, n, span, budget);
  std::vector<struct iovec> piece;
  size_t done = 0;
  uint64_t chunks = 0;
  while (!cursor.done()) {
    const size_t want = cursor.next(&piece);
    if (done > 0 && poll_fd >= 0 && !readable_now(poll_fd)) break;
    prepare_or_die(sp, ranges_of(piece.data(), piece.size(), dir), call);
    ++chunks;
    const ssize_t r = op(piece.data(), piece.size(), done);
    if (r < 0) {
      if (done == 0) {
        sp.count_prepared(chunks);
        return r;
      }
      errno = saved_errno;
      break;
    }
    done += static_cast<size_t>(r);
    if (static_cast<size_t>(r) < want) break;
  }
  sp.count_prepared(chunks);
  return static_cast<ssize_t>(done);
}

// A transfer that must stay one call (a datagram, a message with ancillary
// data, flags such as MSG_PEEK): prepared whole if it fits a chunk, else
// through a private buffer of its length, filled from shared memory before
// an outgoing call or emptied into it after an incoming one, with ordinary
// faulting accesses. `extra`: further ranges the kernel uses (an address,
// ancillary data), prepared just before the call. op(buf, len) makes the
// real call on the private buffer.
template <typename WholeOp, typename BounceOp>
ssize_t whole_or_bounced(SlowPath& sp, const char* call, const struct iovec* iov, size_t n, Dir dir,
                         const std::vector<Range>& extra, WholeOp whole, BounceOp bounced) {
  const SharedSpan span = span_of(sp);
  uint64_t units = units_touched(span, iov, n);
  for (const Range& e : extra) units += units_touched(span, reinterpret_cast<uintptr_t>(e.addr), e.len);
  if (units <= sp.chunk_pages()) {
    std::vector<Range> all = ranges_of(iov, n, dir);
    all.insert(all.end(), extra.begin(), extra.end());
    prepare_or_die(sp, all, call);
    sp.count_prepared(1);
    return whole();
  }
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (iov[i].iov_len > static_cast<size_t>(SSIZE_MAX) - total) return whole();  // the kernel says EINVAL
    total += iov[i].iov_len;
  }
  auto* buf = static_cast<std::byte*>(std::malloc(total > 0 ? total : 1));
  if (buf == nullptr) {
    errno = ENOMEM;
    return -1;
  }
  if (dir == Dir::kOut) {
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(buf + at, iov[i].iov_base, iov[i].iov_len);
      at += iov[i].iov_len;
    }
  }
  prepare_or_die(sp, extra, call);
  const ssize_t r = bounced(static_cast<void*>(buf), total);
  if (dir == Dir::kIn && r > 0) {
    const int saved_errno = errno;
    size_t left = static_cast<size_t>(r) < total ? static_cast<size_t>(r) : total;
    for (size_t i = 0, at = 0; i < n && left > 0; ++i) {
      const size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
      std::memcpy(iov[i].iov_base, buf + at, k);
      at += k;
      left -= k;
    }
    errno = saved_errno;
  }
  std::free(buf);
  sp.count_bounced(total);
  return r;
}

// The kind of socket `fd` is, or -1 if it is none.
int socket_type(int fd) {
  int type = -1;
  socklen_t len = sizeof type;
  const int saved_errno = errno;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) type = -1;
  errno = saved_errno;
  return type;
}

// recv and send flags under which a stream socket's transfer may be split.
constexpr int kSplittableRecv = MSG_DONTWAIT | MSG_WAITALL | MSG_CMSG_CLOEXEC;
constexpr int kSplittableSend = MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE;

// ---------------------------------------------------------------------------
// The calls, by kind. Each checks the fast path first.

ssize_t do_read(int fd, void* buf, size_t count) {
  if (!may_reach(buf, count)) return real_read.get()(fd, buf, count);
  struct iovec one = {buf, count};
  auto op = [fd](const struct iovec* v, size_t, size_t) { return real_read.get()(fd, v[0].iov_base, v[0].iov_len); };
  SlowPath sp;
  if (!sp.usable()) return unprepared("read", &one, 1, op);
  return chunked(sp, "read", &one, 1, Dir::kIn, fd, op);
}

ssize_t do_write(int fd, const void* buf, size_t count) {
  if (!may_reach(buf, count)) return real_write.get()(fd, buf, count);
  struct iovec one = {const_cast<void*>(buf), count};
  auto op = [fd](const struct iovec* v, size_t, size_t) { return real_write.get()(fd, v[0].iov_base, v[0].iov_len); };
  SlowPath sp;
  if (!sp.usable()) return unprepared("write", &one, 1, op);
  return chunked(sp, "write", &one, 1, Dir::kOut, -1, op);
}

ssize_t do_pread(Real<PreadFn>& real, const char* call, int fd, void* buf, size_t count, off_t offset) {
  if (!may_reach(buf, count)) return real.get()(fd, buf, count, offset);
  struct iovec one = {buf, count};
  auto op = [&real, fd, offset](const struct iovec* v, size_t, size_t done) {
    return real.get()(fd, v[0].iov_base, v[0].iov_len, offset + static_cast<off_t>(done));
  };
  SlowPath sp;
  if (!sp.usable()) return unprepared(call, &one, 1, op);
  return chunked(sp, call, &one, 1, Dir::kIn, -1, op);
}

ssize_t do_pwrite(Real<PwriteFn>& real, const char* call, int fd, const void* buf, size_t count, off_t offset) {
  if (!may_reach(buf, count)) return real.get()(fd, buf, count, offset);
  struct iovec one = {const_cast<void*>(buf), count};
  auto op = [&real, fd, offset](const struct iovec* v, size_t, size_t done) {
    return real.get()(fd, v[0].iov_base, v[0].iov_len, offset + static_cast<off_t>(done));
  };
  SlowPath sp;
  if (!sp.usable()) return unprepared(call, &one, 1, op);
  return chunked(sp, call, &one, 1, Dir::kOut, -1, op);
}

// readv, writev and the p*v* family. `offset` is the position of the first
// byte, or -1 for the file's current position (preadv2, pwritev2);
// call(iov, n, offset) is the real function.
template <typename Call>
ssize_t do_vector(const char* name, int fd, const struct iovec* iov, int iovcnt, Dir dir, off_t offset, bool polled,
                  Call call) {
  if (iovcnt <= 0 || !reaches(iov, static_cast<size_t>(iovcnt))) return call(iov, iovcnt, offset);
  auto op = [&call, offset](const struct iovec* v, size_t n, size_t done) {
    return call(v, static_cast<int>(n), offset < 0 ? offset : offset + static_cast<off_t>(done));
  };
  SlowPath sp;
  if (!sp.usable()) return unprepared(name, iov, static_cast<size_t>(iovcnt), op);
  // The kernel reads the list itself too: a list in shared memory is copied.
  std::vector<struct iovec> copy;
  if (may_reach(iov, static_cast<size_t>(iovcnt) * sizeof(struct iovec))) {
    copy.assign(iov, iov + iovcnt);
    iov = copy.data();
  }
  return chunked(sp, name, iov, static_cast<size_t>(iovcnt), dir, polled ? fd : -1, op);
}

ssize_t do_recvfrom(const char* name, int fd, void* buf, size_t len, int flags, struct sockaddr* addr,
                    socklen_t* addrlen) {
  if (!may_reach(buf, len) && !may_reach(addr, addrlen != nullptr ? sizeof(struct sockaddr_storage) : 0))
    return real_recvfrom.get()(fd, buf, len, flags, addr, addrlen);
  struct iovec one = {buf, len};
  auto op = [=](const struct iovec* v, size_t, size_t) {
    return real_recvfrom.get()(fd, v[0].iov_base, v[0].iov_len, flags, addr, addrlen);
  };
  SlowPath sp;
  if (!sp.usable()) return unprepared(name, &one, 1, op);
  if (socket_type(fd) == SOCK_STREAM && (flags & ~kSplittableRecv) == 0 && addr == nullptr)
    return chunked(sp, name, &one, 1, Dir::kIn, (flags & MSG_WAITALL) != 0 ? -1 : fd, op);
  std::vector<Range> extra;
  if (addr != nullptr && addrlen != nullptr) {
    extra.push_back({addrlen, sizeof *addrlen, true});
    extra.push_back({addr, static_cast<size_t>(*addrlen), true});
  }
  return whole_or_bounced(
      sp, name, &one, 1, Dir::kIn, extra, [&] { return op(&one, 1, 0); },
      [=](void* b, size_t n) { return real_recvfrom.get()(fd, b, n, flags, addr, addrlen); });
}

ssize_t do_sendto(const char* name, int fd, const void* buf, size_t len, int flags, const struct sockaddr* addr,
                  socklen_t addrlen) {
  if (!may_reach(buf, len) && !may_reach(addr, addrlen)) return real_sendto.get()(fd, buf, len, flags, addr, addrlen);
  struct iovec one = {const_cast<void*>(buf), len};
  auto op = [=](const struct iovec* v, size_t, size_t) {
    return real_sendto.get()(fd, v[0].iov_base, v[0].iov_len, flags, addr, addrlen);
  };
  SlowPath sp;
  if (!sp.usable()) return unprepared(name, &one, 1, op);
  if (socket_type(fd) == SOCK_STREAM && (flags & ~kSplittableSend) == 0 && addr == nullptr)
    return chunked(sp, name, &one, 1, Dir::kOut, -1, op);
  std::vector<Range> extra;
  if (addr != nullptr) extra.push_back({addr, static_cast<size_t>(addrlen), false});
  return whole_or_bounced(
      sp, name, &one, 1, Dir::kOut, extra, [&] { return op(&one, 1, 0); },
      [=](void* b, size_t n) { return real_sendto.get()(fd, b, n, flags, addr, addrlen); });
}

bool msg_reaches(const struct msghdr* m) {
  return may_reach(m, sizeof *m) || reaches(m->msg_iov, m->msg_iovlen) || may_reach(m->msg_name, m->msg_namelen) ||
         may_reach(m->msg_control, m->msg_controllen);
}

ssize_t do_recvmsg(int fd, struct msghdr* m, int flags) {
  if (!msg_reaches(m)) return real_recvmsg.get()(fd, m, flags);
  SlowPath sp;
  if (!sp.usable()) {
    const ssize_t r = real_recvmsg.get()(fd, m, flags);
    if (r < 0 && errno == EFAULT)
      for (size_t i = 0; i < m->msg_iovlen; ++i)
        shared_access::report_foreign_fault("recvmsg", m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
    return r;
  }
  // A message stays one call (its ancillary data, its boundaries). The
  // kernel writes the header's lengths and flags, reads the list, and
  // writes the address and the ancillary data.
  struct msghdr h = *m;
  std::vector<struct iovec> list(m->msg_iov, m->msg_iov + m->msg_iovlen);
  h.msg_iov = list.data();
  const std::vector<Range> extra = {{m->msg_name, m->msg_namelen, true}, {m->msg_control, m->msg_controllen, true}};
  const ssize_t r = whole_or_bounced(
      sp, "recvmsg", list.data(), list.size(), Dir::kIn, extra, [&] { return real_recvmsg.get()(fd, &h, flags); },
      [&](void* b, size_t n) {
        struct msghdr p = h;
        struct iovec one = {b, n};
        p.msg_iov = &one;
        p.msg_iovlen = 1;
        const ssize_t got = real_recvmsg.get()(fd, &p, flags);
        h.msg_namelen = p.msg_namelen;
        h.msg_controllen = p.msg_controllen;
        h.msg_flags = p.msg_flags;
        return got;
      });
  m->msg_namelen = h.msg_namelen;
  m->msg_controllen = h.msg_controllen;
  m->msg_flags = h.msg_flags;
  return r;
}

ssize_t do_sendmsg(int fd, const struct msghdr* m, int flags) {
  if (!msg_reaches(m)) return real_sendmsg.get()(fd, m, flags);
  SlowPath sp;
  if (!sp.usable()) {
    const ssize_t r = real_sendmsg.get()(fd, m, flags);
    if (r < 0 && errno == EFAULT)
      for (size_t i = 0; i < m->msg_iovlen; ++i)
        shared_access::report_foreign_fault("sendmsg", m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
    return r;
  }
  struct msghdr h = *m;
  std::vector<struct iovec> list(m->msg_iov, m->msg_iov + m->msg_iovlen);
  h.msg_iov = list.data();
  const std::vector<Range> extra = {{m->msg_name, m->msg_namelen, false},
                                    {m->msg_control, m->msg_controllen, false}};
  return whole_or_bounced(
      sp, "sendmsg", list.data(), list.size(), Dir::kOut, extra, [&] { return real_sendmsg.get()(fd, &h, flags); },
      [&](void* b, size_t n) {
        struct msghdr p = h;
        struct iovec one = {b, n};
        p.msg_iov = &one;
        p.msg_iovlen = 1;
        return real_sendmsg.get()(fd, &p, flags);
      });
}

// A stdio call on shared memory from a thread that cannot prepare it:
// unchanged, but a short count the protection caused is an error.
template <typename Call>
size_t unprepared_stdio(const char* call, Call real, size_t n, const void* ptr, size_t bytes) {
  const int saved_errno = errno;
  errno = 0;
  const size_t done = real();
  if (done < n && errno == EFAULT) shared_access::report_foreign_fault(call, ptr, bytes);
  if (errno == 0) errno = saved_errno;
  return done;
}

// fread and fwrite, locked (the stream is locked around all of a split
// call's chunks, as around one call) or unlocked (the caller holds it).
size_t do_fread(bool locked, void* ptr, size_t size, size_t n, FILE* stream) {
  Real<FreadFn>& real = locked ? real_fread : real_fread_unlocked;
  size_t bytes = 0;
  if (__builtin_mul_overflow(size, n, &bytes) || !may_reach(ptr, bytes)) return real.get()(ptr, size, n, stream);
  SlowPath sp;
  if (!sp.usable()) return unprepared_stdio("fread", [&] { return real.get()(ptr, size, n, stream); }, n, ptr, bytes);
  struct iovec one = {ptr, bytes};
  const SharedSpan span = span_of(sp);
  if (units_touched(span, &one, 1) <= sp.chunk_pages() || bytes > static_cast<size_t>(SSIZE_MAX)) {
    prepare_or_die(sp, ranges_of(&one, 1, Dir::kIn), "fread");
    sp.count_prepared(1);
    return real.get()(ptr, size, n, stream);
  }
  if (locked) flockfile(stream);
  const ssize_t got = chunked(sp, "fread", &one, 1, Dir::kIn, -1, [stream](const struct iovec* v, size_t, size_t) {
    return static_cast<ssize_t>(real_fread_unlocked.get()(v[0].iov_base, 1, v[0].iov_len, stream));
  });
  if (locked) funlockfile(stream);
  return static_cast<size_t>(got) / size;
}

size_t do_fwrite(bool locked, const void* ptr, size_t size, size_t n, FILE* stream) {
  Real<FwriteFn>& real = locked ? real_fwrite : real_fwrite_unlocked;
  size_t bytes = 0;
  if (__builtin_mul_overflow(size, n, &bytes) || !may_reach(ptr, bytes)) return real.get()(ptr, size, n, stream);
  SlowPath sp;
  if (!sp.usable()) return unprepared_stdio("fwrite", [&] { return real.get()(ptr, size, n, stream); }, n, ptr, bytes);
  struct iovec one = {const_cast<void*>(ptr), bytes};
  const SharedSpan span = span_of(sp);
  if (units_touched(span, &one, 1) <= sp.chunk_pages() || bytes > static_cast<size_t>(SSIZE_MAX)) {
    prepare_or_die(sp, ranges_of(&one, 1, Dir::kOut), "fwrite");
    sp.count_prepared(1);
    return real.get()(ptr, size, n, stream);
  }
  if (locked) flockfile(stream);
  const ssize_t put = chunked(sp, "fwrite", &one, 1, Dir::kOut, -1, [stream](const struct iovec* v, size_t, size_t) {
    return static_cast<ssize_t>(real_fwrite_unlocked.get()(v[0].iov_base, 1, v[0].iov_len, stream));
  });
  if (locked) funlockfile(stream);
  return static_cast<size_t>(put) / size;
}

}  // namespace
}  // namespace scopedsm::interpose

// ---------------------------------------------------------------------------
// The interposed symbols.

using scopedsm::interpose::Dir;
namespace ip = scopedsm::interpose;

extern "C" {

ssize_t __read_chk(int fd, void* buf, size_t nbytes, size_t buflen);
ssize_t __pread_chk(int fd, void* buf, size_t nbytes, off_t offset, size_t buflen);
ssize_t __pread64_chk(int fd, void* buf, size_t nbytes, off64_t offset, size_t buflen);
ssize_t __recv_chk(int fd, void* buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void* buf, size_t len, size_t buflen, int flags, struct sockaddr* addr,
                       socklen_t* addrlen);
size_t __fread_chk(void* ptr, size_t ptrlen, size_t size, size_t n, FILE* stream);
size_t __fread_unlocked_chk(void* ptr, size_t ptrlen, size_t size, size_t n, FILE* stream);

ssize_t read(int fd, void* buf, size_t count) { return ip::do_read(fd, buf, count); }
ssize_t write(int fd, const void* buf, size_t count) { return ip::do_write(fd, buf, count); }
ssize_t pread(int fd, void* buf, size_t count, off_t offset) {
  return ip::do_pread(ip::real_pread, "pread", fd, buf, count, offset);
}
ssize_t pread64(int fd, void* buf, size_t count, off64_t offset) {
  return ip::do_pread(ip::real_pread64, "pread64", fd, buf, count, offset);
}
ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  return ip::do_pwrite(ip::real_pwrite, "pwrite", fd, buf, count, offset);
}
ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  return ip::do_pwrite(ip::real_pwrite64, "pwrite64", fd, buf, count, offset);
}

ssize_t readv(int fd, const struct iovec* iov, int iovcnt) {
  return ip::do_vector("readv", fd, iov, iovcnt, Dir::kIn, -1, true,
                       [fd](const struct iovec* v, int n, off_t) { return ip::real_readv.get()(fd, v, n); });
}
ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  return ip::do_vector("writev", fd, iov, iovcnt, Dir::kOut, -1, false,
                       [fd](const struct iovec* v, int n, off_t) { return ip::real_writev.get()(fd, v, n); });
}
ssize_t preadv(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  return ip::do_vector("preadv", fd, iov, iovcnt, Dir::kIn, offset, false,
                       [fd](const struct iovec* v, int n, off_t at) { return ip::real_preadv.get()(fd, v, n, at); });
}
ssize_t preadv64(int fd, const struct iovec* iov, int iovcnt, off64_t offset) {
  return ip::do_vector("preadv64", fd, iov, iovcnt, Dir::kIn, offset, false,
                       [fd](const struct iovec* v, int n, off_t at) { return ip::real_preadv64.get()(fd, v, n, at); });
}
ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  return ip::do_vector("pwritev", fd, iov, iovcnt, Dir::kOut, offset, false,
                       [fd](const struct iovec* v, int n, off_t at) { return ip::real_pwritev.get()(fd, v, n, at); });
}
ssize_t pwritev64(int fd, const struct iovec* iov, int iovcnt, off64_t offset) {
  return ip::do_vector("pwritev64", fd, iov, iovcnt, Dir::kOut, offset, false, [fd](const struct iovec* v, int n, off_t at) {
    return ip::real_pwritev64.get()(fd, v, n, at);
  });
}
ssize_t preadv2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags) {
  return ip::do_vector("preadv2", fd, iov, iovcnt, Dir::kIn, offset, offset < 0, [fd, flags](const struct iovec* v, int n, off_t at) {
    return ip::real_preadv2.get()(fd, v, n, at, flags);
  });
}
ssize_t preadv64v2(int fd, const struct iovec* iov, int iovcnt, off64_t offset, int flags) {
  return ip::do_vector("preadv64v2", fd, iov, iovcnt, Dir::kIn, offset, offset < 0,
                       [fd, flags](const struct iovec* v, int n, off_t at) {
                         return ip::real_preadv64v2.get()(fd, v, n, at, flags);
                       });
}
ssize_t pwritev2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags) {
  return ip::do_vector("pwritev2", fd, iov, iovcnt, Dir::kOut, offset, false,
                       [fd, flags](const struct iovec* v, int n, off_t at) {
                         return ip::real_pwritev2.get()(fd, v, n, at, flags);
                       });
}
ssize_t pwritev64v2(int fd, const struct iovec* iov, int iovcnt, off64_t offset, int flags) {
  return ip::do_vector("pwritev64v2", fd, iov, iovcnt, Dir::kOut, offset, false,
                       [fd, flags](const struct iovec* v, int n, off_t at) {
                         return ip::real_pwritev64v2.get()(fd, v, n, at, flags);
                       });
}

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  return ip::do_recvfrom("recv", fd, buf, len, flags, nullptr, nullptr);
}
ssize_t recvfrom(int fd, void* __restrict buf, size_t len, int flags, struct sockaddr* __restrict addr,
                 socklen_t* __restrict addrlen) {
  return ip::do_recvfrom("recvfrom", fd, buf, len, flags, addr, addrlen);
}
ssize_t send(int fd, const void* buf, size_t len, int flags) {
  return ip::do_sendto("send", fd, buf, len, flags, nullptr, 0);
}
ssize_t sendto(int fd, const void* buf, size_t len, int flags, const struct sockaddr* addr, socklen_t addrlen) {
  return ip::do_sendto("sendto", fd, buf, len, flags, addr, addrlen);
}
ssize_t recvmsg(int fd, struct msghdr* msg, int flags) { return ip::do_recvmsg(fd, msg, flags); }
ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) { return ip::do_sendmsg(fd, msg, flags); }

size_t fread(void* __restrict ptr, size_t size, size_t n, FILE* __restrict stream) {
  return ip::do_fread(true, ptr, size, n, stream);
}
size_t fread_unlocked(void* __restrict ptr, size_t size, size_t n, FILE* __restrict stream) {
  return ip::do_fread(false, ptr, size, n, stream);
}
size_t fwrite(const void* __restrict ptr, size_t size, size_t n, FILE* __restrict stream) {
  return ip::do_fwrite(true, ptr, size, n, stream);
}
size_t fwrite_unlocked(const void* __restrict ptr, size_t size, size_t n, FILE* __restrict stream) {
  return ip::do_fwrite(false, ptr, size, n, stream);
}

// _FORTIFY_SOURCE's checked forms: an overflow goes to the real one (which
// ends the process, as it would have); the rest as the plain call.
ssize_t __read_chk(int fd, void* buf, size_t nbytes, size_t buflen) {
  if (nbytes > buflen) return ip::real_read_chk.get()(fd, buf, nbytes, buflen);
  return ip::do_read(fd, buf, nbytes);
}
ssize_t __pread_chk(int fd, void* buf, size_t nbytes, off_t offset, size_t buflen) {
  if (nbytes > buflen) return ip::real_pread_chk.get()(fd, buf, nbytes, offset, buflen);
  return ip::do_pread(ip::real_pread, "pread", fd, buf, nbytes, offset);
}
ssize_t __pread64_chk(int fd, void* buf, size_t nbytes, off64_t offset, size_t buflen) {
  if (nbytes > buflen) return ip::real_pread64_chk.get()(fd, buf, nbytes, offset, buflen);
  return ip::do_pread(ip::real_pread64, "pread64", fd, buf, nbytes, offset);
}
ssize_t __recv_chk(int fd, void* buf, size_t len, size_t buflen, int flags) {
  if (len > buflen) return ip::real_recv_chk.get()(fd, buf, len, buflen, flags);
  return ip::do_recvfrom("recv", fd, buf, len, flags, nullptr, nullptr);
}
ssize_t __recvfrom_chk(int fd, void* buf, size_t len, size_t buflen, int flags, struct sockaddr* addr,
                       socklen_t* addrlen) {
  if (len > buflen) return ip::real_recvfrom_chk.get()(fd, buf, len, buflen, flags, addr, addrlen);
  return ip::do_recvfrom("recvfrom", fd, buf, len, flags, addr, addrlen);
}
size_t __fread_chk(void* ptr, size_t ptrlen, size_t size, size_t n, FILE* stream) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(size, n, &bytes) || bytes > ptrlen)
    return ip::real_fread_chk.get()(ptr, ptrlen, size, n, stream);
  return ip::do_fread(true, ptr, size, n, stream);
}
size_t __fread_unlocked_chk(void* ptr, size_t ptrlen, size_t size, size_t n, FILE* stream) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(size, n, &bytes) || bytes > ptrlen)
    return ip::real_fread_unlocked_chk.get()(ptr, ptrlen, size, n, stream);
  return ip::do_fread(false, ptr, size, n, stream);
}

}  // extern "C"
