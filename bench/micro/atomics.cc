// atomics: three shared-memory workloads, each written with locks and with
// atomics at the home (issue 11's "Atomics" experiment), at whatever rank
// count it runs with (run_micro.sh: 1, 2, 4).
//
//   --workload=counter    every process adds 1 to one shared int64 counter
//                         (home: rank 0), --ops times
//   --workload=histogram  every process adds --ops pseudo-random keys into
//                         64 int64 buckets on one page (home: rank 0); the
//                         lock version takes the bucket's own lock (64 locks)
//   --workload=queue      a shared work queue of ops × processes tasks: each
//                         process takes the next task index from one shared
//                         head word (home: rank 0) until none are left; a
//                         task is summing its index, so the queue is the cost
//
// Measured: microseconds per operation as one process sees it, with
// atomics (relaxed fetch_add at the word's home). Baseline, same run: the
// same workload with scopedsm_lock/unlock around a plain update. Rounds
// alternate the two. A round's time is the slowest process's, so
// aggregate throughput is processes / (µs per op) million operations per
// second (extra.mops). Every round checks its result: the counter's final
// value, every bucket against a replay of every process's keys, every task
// taken exactly once. A wrong result ends the run with an error.
//
//   atomics [--workload=counter] [--ops=2000] [--rounds=6] [--warmup=1]
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "common/options.h"
#include "common/report.h"
#include "scopedsm.h"

namespace {

constexpr const char* kName = "atomics";
constexpr int kBuckets = 64;

enum class Workload { kCounter, kHistogram, kQueue };

// A process's key stream: the same for a given rank and round everywhere.
struct Keys {
  uint64_t state;
  Keys(int rank, size_t round) : state(0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(rank) + 1) + round) {}
  int next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state >> 33) % kBuckets);
  }
};

struct Shared {
  int64_t* counter;  // counter, and the queue's head
  int64_t* buckets;  // kBuckets words
};

// One round of `w`, by lock or by atomic; returns this process's seconds.
// Resets the shared words first (rank 0, then a barrier).
double run_round(Workload w, bool atomic, const Shared& s, long ops, size_t round, int rank, int procs,
                 uint64_t* wrong) {
  if (rank == 0) {
    *s.counter = 0;
    for (int b = 0; b < kBuckets; ++b) s.buckets[b] = 0;
  }
  scopedsm_barrier();
  const uint64_t t0 = bench::now_ns();
  uint64_t taken = 0, index_sum = 0;
  if (w == Workload::kCounter) {
    for (long i = 0; i < ops; ++i) {
      if (atomic) {
        scopedsm_atomic_fetch_add_i64(s.counter, 1, SCOPEDSM_RELAXED);
      } else {
        scopedsm_lock(0);
        *s.counter += 1;
        scopedsm_unlock(0);
      }
    }
  } else if (w == Workload::kHistogram) {
    Keys keys(rank, round);
    for (long i = 0; i < ops; ++i) {
      const int b = keys.next();
      if (atomic) {
        scopedsm_atomic_fetch_add_i64(&s.buckets[b], 1, SCOPEDSM_RELAXED);
      } else {
        scopedsm_lock(b);
        s.buckets[b] += 1;
        scopedsm_unlock(b);
      }
    }
  } else {
    const int64_t tasks = static_cast<int64_t>(ops) * procs;
    for (;;) {
      int64_t next;
      if (atomic) {
        next = scopedsm_atomic_fetch_add_i64(s.counter, 1, SCOPEDSM_RELAXED);
      } else {
        scopedsm_lock(0);
        next = *s.counter;
        *s.counter = next + 1;
        scopedsm_unlock(0);
      }
      if (next >= tasks) break;
      ++taken;
      index_sum += static_cast<uint64_t>(next);
    }
  }
  const double seconds = bench::ns_to_us(bench::now_ns() - t0) * 1e-6;
  scopedsm_barrier();

  // Check the round's result.
  if (w == Workload::kCounter) {
    if (rank == 0 && scopedsm_atomic_load_i64(s.counter, SCOPEDSM_RELAXED) != static_cast<int64_t>(ops) * procs)
      ++*wrong;
  } else if (w == Workload::kHistogram) {
    if (rank == 0) {
      std::vector<int64_t> expect(kBuckets, 0);
      for (int r = 0; r < procs; ++r) {
        Keys keys(r, round);
        for (long i = 0; i < ops; ++i) ++expect[static_cast<size_t>(keys.next())];
      }
      for (int b = 0; b < kBuckets; ++b)
        if (scopedsm_atomic_load_i64(&s.buckets[b], SCOPEDSM_RELAXED) != expect[static_cast<size_t>(b)]) ++*wrong;
    }
  } else {
    uint64_t mine[2] = {taken, index_sum}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    const uint64_t tasks = static_cast<uint64_t>(ops) * static_cast<uint64_t>(procs);
    if (all[0] != tasks || all[1] != tasks * (tasks - 1) / 2) ++*wrong;
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options opt(argc, argv, {"workload", "ops", "rounds", "warmup"});
  const std::string workload = opt.text("workload", "counter");
  const long ops = opt.integer("ops", 2000);
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 6));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 1));
  if (!opt.ok()) bench::die(kName, opt.error());
  Workload w;
  if (workload == "counter") {
    w = Workload::kCounter;
  } else if (workload == "histogram") {
    w = Workload::kHistogram;
  } else if (workload == "queue") {
    w = Workload::kQueue;
  } else {
    bench::die(kName, "--workload must be counter, histogram or queue, not '" + workload + "'");
  }
  if (ops <= 0 || ops > 100000000) bench::die(kName, "--ops must be 1 to 100000000");
  if (rounds < 2) bench::die(kName, "--rounds must be at least 2");

  scopedsm_init(&argc, &argv);
  const int rank = scopedsm_rank(), procs = scopedsm_size();
  const size_t ps = scopedsm_page_size();
  // The counter (or head) and the buckets on pages of their own at rank 0.
  auto* counter_page = static_cast<int64_t*>(scopedsm_alloc_on(ps, 0));
  auto* bucket_page = static_cast<int64_t*>(scopedsm_alloc_on(ps, 0));
  const Shared shared{counter_page, bucket_page};

  uint64_t wrong = 0;
  for (size_t i = 0; i < warmup; ++i) {
    run_round(w, true, shared, ops, 1000 + i, rank, procs, &wrong);
    run_round(w, false, shared, ops, 2000 + i, rank, procs, &wrong);
  }
  bench::Rounds atomic_us, lock_us;
  scopedsm_stats_start();
  for (size_t r = 0; r < rounds; ++r) {
    const bool atomic = r % 2 == 0;
    const double mine = run_round(w, atomic, shared, ops, r, rank, procs, &wrong);
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    (atomic ? atomic_us : lock_us).add_round({slowest * 1e6 / static_cast<double>(ops)});
  }
  scopedsm_stats_stop();
  uint64_t wrong_all = 0;
  MPI_Allreduce(&wrong, &wrong_all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  const bench::Json stats = bench::gather_runtime_stats();
  if (rank == 0) {
    if (wrong_all != 0) bench::die(kName, std::to_string(wrong_all) + " round results were wrong");
    bench::Report report;
    report.bench = kName;
    report.procs = procs;
    report.unit = "us/op";
    report.reps = ops;
    report.rounds = static_cast<long>(rounds / 2);
    report.measured = atomic_us;
    report.has_baseline = true;
    report.baseline_what = "the same workload with scopedsm_lock/unlock around a plain update, rounds alternating";
    report.baseline = lock_us.all();
    report.extra["workload"] = workload;
    const double a = atomic_us.all().median, l = lock_us.all().median;
    report.extra["mops"] = {{"atomic", a > 0 ? procs / a : 0.0}, {"lock", l > 0 ? procs / l : 0.0}};
    report.extra["runtime_stats"] = stats;
    bench::print_report(report);
  }
  scopedsm_finalize();
  return 0;
}
