// ScopeDSM inside an MPI program, from C++ (scopedsm_mpi.h): the even and
// the odd processes each run a ScopeDSM of their own, side by side in one
// MPI job (scopedsm::init on their half of an MPI_Comm_split), while the
// program trades messages between the halves on MPI_COMM_WORLD on every
// tag ScopeDSM uses, received with MPI_ANY_SOURCE and MPI_ANY_TAG. Each
// half checks its shared array and a locked counter exactly; a wrong value
// or message prints "comm_mix_cxx: rank R: wrong ..." and aborts the job.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "scopedsm_mpi.h"

namespace {

constexpr int kTags = 24;
constexpr int kIters = 3;
constexpr int kN = 3000;
int g_world_rank = 0;

void check(const char* what, long got, long want) {
  if (got == want) return;
  std::fprintf(stderr, "comm_mix_cxx: rank %d: wrong %s: got %ld, expected %ld\n", g_world_rank, what, got, want);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// MPI_Waitall with statuses (GCC reads MPICH's MPI_STATUSES_IGNORE as an
// empty array).
void wait_all(MPI_Request* req) {
  MPI_Status st[kTags];
  MPI_Waitall(kTags, req, st);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0, world_size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const int half = g_world_rank % 2;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, half, g_world_rank, &comm);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The partner in the other half (the same rank there), if there is one.
  const int partner = half == 0 ? g_world_rank + 1 : g_world_rank - 1;
  const bool paired = partner < world_size;

  scopedsm::init(comm);
  check("scopedsm::rank", scopedsm::rank(), rank);
  check("scopedsm::size", scopedsm::size(), size);
  long* a = scopedsm::alloc_array<long>(kN);
  long* counter = scopedsm::alloc_array<long>(1, scopedsm::OnRank{size - 1});
  for (int it = 0; it < kIters; it++) {
    // The other half's messages, received late.
    MPI_Request req[kTags];
    int out[kTags][3];
    for (int t = 0; paired && t < kTags; t++) {
      out[t][0] = g_world_rank;
      out[t][1] = t;
      out[t][2] = it;
      MPI_Isend(out[t], 3, MPI_INT, partner, t, MPI_COMM_WORLD, &req[t]);
    }
    for (int i = rank; i < kN; i += size) a[i] = 1000L * it + i + half;
    usleep(50000);
    for (int t = 0; paired && t < kTags; t++) {
      int in[3];
      MPI_Status st;
      MPI_Recv(in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      check("message source", st.MPI_SOURCE, partner);
      check("message tag", st.MPI_TAG, t);
      check("message content", in[0] * 1000000L + in[1] * 1000L + in[2], partner * 1000000L + t * 1000L + it);
    }
    if (paired) wait_all(req);
    scopedsm::barrier();
    for (int i = 0; i < kN; i++) check("shared a[i]", a[i], 1000L * it + i + half);
    for (int k = 0; k < 5; k++) {
      scopedsm::LockGuard guard(4);
      *counter += 1 + half;
    }
    scopedsm::barrier();
    check("shared counter", *counter, 5L * (1 + half) * size * (it + 1));
    long sum = 0, mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
    check("MPI_Allreduce", sum, static_cast<long>(size) * (size - 1) / 2);
  }
  scopedsm::finalize();
  MPI_Comm_free(&comm);
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_world_rank == 0) std::printf("comm_mix_cxx: every message and value as expected\n");
  MPI_Finalize();
  return 0;
}
