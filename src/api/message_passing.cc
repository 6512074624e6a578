#include "api/message_passing.h"

#include <mpi.h>

#include <climits>
#include <cstring>
#include <vector>

#include "common/checked.h"
#include "common/log.h"
#include "jia.h"
#include "runtime/alloc_plan.h"
#include "runtime/runtime.h"

namespace scopedsm {

namespace {

void check_rank(Runtime& rt, const char* call, const char* what, int r, bool any_ok) {
  int size = rt.state().size;
  if (any_ok && r == MSG_PROC_ALL) return;
  if (r < 0 || r >= size)
    fatal("%s: %s %d is not a rank; valid ranks are 0 to %d%s", call, what, r, size - 1, any_ok ? " or -1 (any)" : "");
}

// Whether any byte of [buf, buf+len) is shared memory: not only the ends,
// since a buffer may start before the region and end after it, and without
// forming buf + len - 1, which wraps for a huge len.
bool touches_region(Runtime& rt, const void* buf, size_t len) {
  const Region& r = rt.state().region;
  const auto base = reinterpret_cast<uintptr_t>(r.base());
  return region_pages_of(base, r.bytes(), r.page_size(), reinterpret_cast<uintptr_t>(buf), len).has_value();
}

// MPI counts are ints: a longer message would be cut to its length modulo
// 2^32 (or turn negative) without a word from MPI.
void check_length(const char* call, size_t len) {
  if (!checked_cast<int>(len))
    fatal("%s: a message of %zu bytes is longer than the %d bytes one MPI message can carry; send it in pieces", call,
          len, INT_MAX);
}

void send_on(Runtime& rt, MPI_Comm comm, const void* buf, size_t len, int to, int tag) {
  // MPI (and the kernel, for single-copy transfers) cannot take our page
  // faults, and a range larger than the cache cannot be made valid all at
  // once. So shared buffers travel through a private copy, which the
  // application thread fills with ordinary, faulting reads.
  std::vector<std::byte> bounce;
  if (touches_region(rt, buf, len)) {
    bounce.resize(len);
    std::memcpy(bounce.data(), buf, len);
    buf = bounce.data();
  }
  MPI_Request req;
  // Every caller passed len through check_length.
  MPI_Isend(buf, static_cast<int>(len), MPI_BYTE, to, tag, comm, &req);
  Transport& t = rt.state().transport;
  t.wakeup().notify(to, WakeRole::kApp);
  t.wait_request(&req, "a message to be received", to);
}

size_t recv_on(Runtime& rt, const char* call, MPI_Comm comm, void* buf, size_t len, int from, int tag) {
  Transport& t = rt.state().transport;
  MPI_Message msg;
  MPI_Status st;
  int src = from == MSG_PROC_ALL ? MPI_ANY_SOURCE : from;
  int mtag = tag == MSG_TAG_ALL ? MPI_ANY_TAG : tag;
  t.wait_until(
      WakeRole::kApp,
      [&] {
        int flag = 0;
        MPI_Improbe(src, mtag, comm, &flag, &msg, &st);
        return flag != 0;
      },
      "a message", from);
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  if (static_cast<size_t>(count) > len)
    fatal("%s: a %d-byte message from rank %d (tag %d) does not fit the %zu-byte buffer; receive into a larger buffer",
          call, count, st.MPI_SOURCE, st.MPI_TAG, len);
  if (touches_region(rt, buf, static_cast<size_t>(count))) {
    std::vector<std::byte> bounce(static_cast<size_t>(count));
    MPI_Mrecv(bounce.data(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    std::memcpy(buf, bounce.data(), bounce.size());  // ordinary, faulting writes
  } else {
    MPI_Mrecv(buf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
  }
  t.wakeup().notify(st.MPI_SOURCE, WakeRole::kApp);
  return static_cast<size_t>(count);
}

size_t element_size(const char* call, int op) {
  switch (op) {
    case SUM_INT: case MAX_INT: case MIN_INT: return sizeof(int);
    case SUM_FLOAT: case MAX_FLOAT: case MIN_FLOAT: return sizeof(float);
    case SUM_DOUBLE: case MAX_DOUBLE: case MIN_DOUBLE: return sizeof(double);
    default: break;
  }
  fatal("%s: unknown reduce operation %d; use SUM_/MAX_/MIN_ with INT, FLOAT or DOUBLE", call, op);
}

template <typename T>
void combine(T* acc, const T* in, int count, int kind) {
  for (int i = 0; i < count; ++i) {
    if (kind == 0) acc[i] += in[i];
    else if (kind == 1) acc[i] = in[i] > acc[i] ? in[i] : acc[i];
    else acc[i] = in[i] < acc[i] ? in[i] : acc[i];
  }
}

void combine_op(void* acc, const void* in, int count, int op) {
  int kind = op % 3;
  if (op <= MIN_INT) combine(static_cast<int*>(acc), static_cast<const int*>(in), count, kind);
  else if (op <= MIN_FLOAT) combine(static_cast<float*>(acc), static_cast<const float*>(in), count, kind);
  else combine(static_cast<double*>(acc), static_cast<const double*>(in), count, kind);
}

constexpr int kBcastTag = 1;
constexpr int kReduceTag = 2;

}  // namespace

void mp_send(Runtime& rt, const char* call, const void* buf, size_t len, int to, int tag) {
  check_rank(rt, call, "destination", to, false);
  if (tag < 0) fatal("%s: tag %d is negative; tags must be 0 or more", call, tag);
  if (buf == nullptr && len > 0) fatal("%s: null buffer with length %zu", call, len);
  check_length(call, len);
  send_on(rt, rt.user_comm(), buf, len, to, tag);
}

size_t mp_recv(Runtime& rt, const char* call, void* buf, size_t len, int from, int tag) {
  check_rank(rt, call, "source", from, true);
  if (tag < 0 && tag != MSG_TAG_ALL) fatal("%s: tag %d is negative; use a tag of 0 or more, or -1 for any", call, tag);
  return recv_on(rt, call, rt.user_comm(), buf, len, from, tag);
}

void mp_bcast(Runtime& rt, const char* call, void* buf, size_t len, int root) {
  check_rank(rt, call, "root", root, false);
  check_length(call, len);
  // Binomial tree over ranks renumbered so that the root is 0.
  const int size = rt.state().size;
  const int me = (rt.state().rank - root + size) % size;
  int mask = 1;
  while (mask < size) {
    if (me & mask) {
      int from = (me - mask + root) % size;
      recv_on(rt, call, rt.collective_comm(), buf, len, from, kBcastTag);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (me + mask < size) send_on(rt, rt.collective_comm(), buf, len, (me + mask + root) % size, kBcastTag);
    mask >>= 1;
  }
}

void mp_reduce(Runtime& rt, const char* call, const void* send, void* recv, int count, int op, int root) {
  check_rank(rt, call, "root", root, false);
  if (count < 0) fatal("%s: negative count %d", call, count);
  // count <= INT_MAX elements of at most 8 bytes: no wrap in size_t, but
  // possibly more than one MPI message carries.
  const size_t bytes = element_size(call, op) * static_cast<size_t>(count);
  check_length(call, bytes);
  const int size = rt.state().size;
  const int me = (rt.state().rank - root + size) % size;
  std::vector<std::byte> acc(bytes), in(bytes);
  std::memcpy(acc.data(), send, bytes);
  for (int mask = 1; mask < size; mask <<= 1) {
    if (me & mask) {
      send_on(rt, rt.collective_comm(), acc.data(), bytes, (me - mask + root) % size, kReduceTag);
      break;
    }
    if (me + mask < size) {
      recv_on(rt, call, rt.collective_comm(), in.data(), bytes, (me + mask + root) % size, kReduceTag);
      combine_op(acc.data(), in.data(), count, op);
    }
  }
  if (me == 0) std::memcpy(recv, acc.data(), bytes);
}

}  // namespace scopedsm
