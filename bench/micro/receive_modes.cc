// receive_modes: what the way a message is received costs a round trip, in
// plain MPI with MPI_THREAD_MULTIPLE (what the runtime asks for), and what
// one spin hint costs. No ScopeDSM runtime.
//
// Measured: 8-byte round trips between ranks 0 and 1 where both ends send
// with MPI_Isend and receive the way the runtime's transport does, by
// polling MPI_Improbe and then MPI_Mrecv (transport/transport.cc). Baseline,
// interleaved: the same round trip with MPI_Send and MPI_Recv. Extra: the
// same with a receive posted ahead (MPI_Irecv, then MPI_Test until done),
// and the cost of one cpu_relax() (PAUSE on x86, YIELD on arm64) in ns, the
// hint a spinning wait gives between polls (transport/waiter.h).
//
//   receive_modes [--reps=2000] [--rounds=10] [--warmup=200]
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/clock.h"
#include "common/mpi_baseline.h"
#include "common/options.h"
#include "common/report.h"

namespace {

constexpr const char* kName = "receive_modes";
constexpr int kTag = 7;

enum class Mode { kProbe, kPosted };

void isend(char* buf, int peer) {
  MPI_Request req;
  MPI_Isend(buf, 8, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, &req);
  int done = 0;
  while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
}

void receive(char* buf, Mode mode) {
  int done = 0;
  if (mode == Mode::kProbe) {
    MPI_Message msg;
    while (!done) MPI_Improbe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &done, &msg, MPI_STATUS_IGNORE);
    MPI_Mrecv(buf, 8, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Request req;
  MPI_Irecv(buf, 8, MPI_BYTE, MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &req);
  while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
}

// Round trips timed on rank 0; rank 1 echoes. Other ranks take no part.
std::vector<double> round_trips(int rank, Mode mode, size_t reps, size_t warmup) {
  std::vector<double> samples;
  if (rank > 1) return samples;
  char buf[8] = {};
  for (size_t i = 0; i < warmup + reps; ++i) {
    if (rank == 0) {
      const uint64_t t0 = bench::now_ns();
      isend(buf, 1);
      receive(buf, mode);
      if (i >= warmup) samples.push_back(bench::ns_to_us(bench::now_ns() - t0));
    } else {
      receive(buf, mode);
      isend(buf, 0);
    }
  }
  return samples;
}

// Nanoseconds per cpu_relax(), each sample the mean of 10,000.
std::vector<double> pauses(size_t reps) {
  constexpr int kBatch = 10000;
  std::vector<double> samples;
  for (size_t i = 0; i < reps; ++i) {
    const uint64_t t0 = bench::now_ns();
    for (int k = 0; k < kBatch; ++k) scopedsm::cpu_relax();
    samples.push_back(static_cast<double>(bench::now_ns() - t0) / kBatch);
  }
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench::Options opt(argc, argv, {"reps", "rounds", "warmup"});
  const size_t reps = static_cast<size_t>(opt.integer("reps", 2000));
  const size_t rounds = static_cast<size_t>(opt.integer("rounds", 10));
  const size_t warmup = static_cast<size_t>(opt.integer("warmup", 200));
  if (!opt.ok()) bench::die(kName, opt.error());
  if (size < 2) bench::die(kName, "needs 2 processes (mpiexec -n 2)");

  bench::Report report;
  report.bench = kName;
  report.procs = size;
  report.reps = static_cast<long>(reps);
  report.rounds = static_cast<long>(rounds);
  bench::Rounds base, posted, pause;
  for (size_t r = 0; r < rounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    base.add_round(bench::mpi_round_trips(0, 1, 8, reps, warmup));
    MPI_Barrier(MPI_COMM_WORLD);
    report.measured.add_round(round_trips(rank, Mode::kProbe, reps, warmup));
    MPI_Barrier(MPI_COMM_WORLD);
    posted.add_round(round_trips(rank, Mode::kPosted, reps, warmup));
    pause.add_round(pauses(reps));
  }
  if (rank == 0) {
    report.has_baseline = true;
    report.baseline_what = "mpi_send_recv_8B_round_trip";
    report.baseline = base.all();
    report.extra["mpi_thread_multiple"] = provided == MPI_THREAD_MULTIPLE;
    report.extra["posted_irecv"] = bench::summary_json(posted.all());
    report.extra["pause_ns"] = bench::summary_json(pause.all());
    bench::print_report(report);
  }
  MPI_Finalize();
  return 0;
}
