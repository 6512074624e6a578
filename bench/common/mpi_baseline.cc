#include "common/mpi_baseline.h"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
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

double wall_span_s(uint64_t start_ns, uint64_t end_ns) {
  uint64_t first = 0, last = 0;
  MPI_Allreduce(&start_ns, &first, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&end_ns, &last, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return static_cast<double>(last - first) / 1e9;
}

std::vector<double> mpi_spin_lock_rates(int home, size_t iters, size_t rounds, size_t warmup) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The lock word (0 free, else holder + 1) and the counter, in a window of
  // shared memory (MPI_Win_allocate_shared: the MPI library's atomics are
  // the CPU's). Open MPI 4.1's emulated atomics on other windows crash when
  // a rank targets itself (btl vader), and the home takes the lock too, so
  // across nodes there is no baseline.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0, all_one_node = 0;
  MPI_Comm_size(node, &node_size);
  int here = node_size == size ? 1 : 0;
  MPI_Allreduce(&here, &all_one_node, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_one_node) {
    MPI_Comm_free(&node);
    return {};
  }
  int64_t* words = nullptr;
  MPI_Win win;
  MPI_Win_allocate_shared(rank == home ? 2 * sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, node, &words, &win);
  MPI_Win_lock_all(0, win);
  if (rank == home) {
    words[0] = 0;
    words[1] = 0;
  }
  MPI_Win_sync(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  const int64_t mine = rank + 1, free_word = 0, one = 1;
  auto take_and_add = [&](size_t n) {
    for (size_t i = 0; i < n; ++i) {
      int64_t seen = -1, old = 0;
      do {
        MPI_Compare_and_swap(&mine, &free_word, &seen, MPI_INT64_T, home, 0, win);
        MPI_Win_flush(home, win);
      } while (seen != 0);
      MPI_Fetch_and_op(&one, &old, MPI_INT64_T, home, 1, MPI_SUM, win);
      MPI_Win_flush(home, win);
      MPI_Fetch_and_op(&free_word, &seen, MPI_INT64_T, home, 0, MPI_REPLACE, win);
      MPI_Win_flush(home, win);
    }
  };
  take_and_add(warmup);
  std::vector<double> rates;
  for (size_t r = 0; r < rounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const uint64_t t0 = now_ns();
    take_and_add(iters);
    const double span = wall_span_s(t0, now_ns());
    if (rank == 0) rates.push_back(static_cast<double>(iters) * size / span);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t count = 0, zero = 0;
  MPI_Fetch_and_op(&zero, &count, MPI_INT64_T, home, 1, MPI_NO_OP, win);
  MPI_Win_flush(home, win);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
  const auto expected = static_cast<int64_t>((warmup + iters * rounds) * static_cast<size_t>(size));
  if (count != expected) {
    std::fprintf(stderr, "mpi_spin_lock_rates: the counter is %lld, expected %lld\n", static_cast<long long>(count),
                 static_cast<long long>(expected));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return rates;
}

}  // namespace bench
