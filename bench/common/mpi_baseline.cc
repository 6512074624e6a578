#include "common/mpi_baseline.h"

#include <mpi.h>

#include <cstdlib>
#include <ctime>

#include "common/timing.h"
#include "scopedsm.h"

namespace bench {

namespace {

constexpr int kTagPing = 9001;

void pause_ns(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  nanosleep(&ts, nullptr);
}

uint64_t runtime_spin_ns() {
  const char* v = std::getenv("SCOPEDSM_SPIN_US");
  uint64_t us = 50;
  if (v != nullptr && *v != '\0') us = std::strtoull(v, nullptr, 10);
  return us * 1000;
}

}  // namespace

void quiesce() {
  scopedsm_barrier();
  // Two spin windows plus a margin: the last service thread to act spins
  // for one window after its last message.
  uint64_t pause = 2 * runtime_spin_ns() + 1000000;
  if (pause > 200000000) pause = 200000000;
  pause_ns(pause);
  MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<double> mpi_round_trips(int a, int b, size_t bytes, size_t reps, size_t warmup) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> samples;
  if (rank != a && rank != b) return samples;
  std::vector<char> buf(bytes == 0 ? 1 : bytes, 1);
  const int n = static_cast<int>(bytes);
  const int peer = rank == a ? b : a;
  for (size_t i = 0; i < warmup + reps; ++i) {
    if (rank == a) {
      uint64_t t0 = now_ns();
      MPI_Send(buf.data(), n, MPI_BYTE, peer, kTagPing, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), n, MPI_BYTE, peer, kTagPing, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      uint64_t t1 = now_ns();
      if (i >= warmup) samples.push_back(ns_to_us(t1 - t0));
    } else {
      MPI_Recv(buf.data(), n, MPI_BYTE, peer, kTagPing, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_BYTE, peer, kTagPing, MPI_COMM_WORLD);
    }
  }
  return samples;
}

std::vector<double> mpi_barriers(size_t reps, size_t batch, size_t warmup) {
  std::vector<double> samples;
  if (batch == 0) batch = 1;
  for (size_t i = 0; i < warmup; ++i) MPI_Barrier(MPI_COMM_WORLD);
  for (size_t i = 0; i < reps; ++i) {
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < batch; ++k) MPI_Barrier(MPI_COMM_WORLD);
    uint64_t t1 = now_ns();
    samples.push_back(ns_to_us(t1 - t0) / static_cast<double>(batch));
  }
  return samples;
}

std::vector<double> mpi_allgathers(size_t bytes, size_t reps, size_t batch, size_t warmup) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> mine(bytes == 0 ? 1 : bytes, 1), all((bytes == 0 ? 1 : bytes) * static_cast<size_t>(size));
  const int n = static_cast<int>(bytes);
  std::vector<double> samples;
  if (batch == 0) batch = 1;
  for (size_t i = 0; i < warmup; ++i)
    MPI_Allgather(mine.data(), n, MPI_BYTE, all.data(), n, MPI_BYTE, MPI_COMM_WORLD);
  for (size_t i = 0; i < reps; ++i) {
    uint64_t t0 = now_ns();
    for (size_t k = 0; k < batch; ++k)
      MPI_Allgather(mine.data(), n, MPI_BYTE, all.data(), n, MPI_BYTE, MPI_COMM_WORLD);
    uint64_t t1 = now_ns();
    samples.push_back(ns_to_us(t1 - t0) / static_cast<double>(batch));
  }
  return samples;
}

long mpi_eager_limit() {
  const char* v = std::getenv("OMPI_MCA_btl_vader_eager_limit");
  if (v == nullptr || *v == '\0') return -1;
  return std::strtol(v, nullptr, 10);
}

}  // namespace bench

namespace bench {

std::vector<double> mpi_gets(int origin, int target, size_t bytes, size_t reps, size_t warmup) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  constexpr size_t kSlots = 16;
  std::vector<char> exposed(kSlots * bytes, 3), into(bytes, 0);
  MPI_Win win;
  MPI_Win_create(exposed.data(), static_cast<MPI_Aint>(exposed.size()), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  std::vector<double> samples;
  if (rank == origin) {
    MPI_Win_lock_all(0, win);
    for (size_t i = 0; i < warmup + reps; ++i) {
      uint64_t t0 = now_ns();
      MPI_Get(into.data(), static_cast<int>(bytes), MPI_BYTE, target, static_cast<MPI_Aint>((i % kSlots) * bytes),
              static_cast<int>(bytes), MPI_BYTE, win);
      MPI_Win_flush(target, win);
      uint64_t t1 = now_ns();
      if (i >= warmup) samples.push_back(ns_to_us(t1 - t0));
    }
    MPI_Win_unlock_all(win);
  }
  MPI_Win_free(&win);
  return samples;
}

}  // namespace bench
