// Raw MPI baselines, measured in the same process run as the ScopeDSM
// operation they are compared with, on MPI_COMM_WORLD.
//
// ScopeDSM's service threads share the cores with these measurements, so
// call quiesce() first: it lets every runtime thread fall asleep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

// Collective. A ScopeDSM barrier, then a pause longer than the runtime's
// spin window (SCOPEDSM_SPIN_US) so its threads sleep, then an MPI barrier so
// that every rank starts the next phase together.
void quiesce();

// Round trips of `bytes` each way between ranks `a` (which times them) and
// `b`; other ranks return at once. Returns the microseconds of each round
// trip on rank a, nothing elsewhere. `warmup` round trips go untimed first.
std::vector<double> mpi_round_trips(int a, int b, size_t bytes, size_t reps, size_t warmup);

// Collective. Each sample is the mean time of `batch` consecutive
// MPI_Barrier calls, in microseconds, as seen by the calling rank.
std::vector<double> mpi_barriers(size_t reps, size_t batch, size_t warmup);

// Collective. Like mpi_barriers, for MPI_Allgather of `bytes` per rank: what
// a barrier that exchanges its write notices as a collective would cost.
std::vector<double> mpi_allgathers(size_t bytes, size_t reps, size_t batch, size_t warmup);

// The Open MPI shared-memory eager limit in effect (the runtime raises it
// before MPI_Init unless the environment sets it), or -1 if unknown.
long mpi_eager_limit();

// One-sided reads of `bytes` by rank `origin` from rank `target`, which does
// not take part (passive target: it may compute meanwhile), on a window made
// with MPI_Win_create over ordinary memory (as a home's memory would be):
// MPI_Get + MPI_Win_flush under one MPI_Win_lock_all. Collective over
// MPI_COMM_WORLD. Microseconds per read, on the origin.
std::vector<double> mpi_gets(int origin, int target, size_t bytes, size_t reps, size_t warmup);

// Collective. Seconds from the earliest rank's `start_ns` to the latest
// rank's `end_ns` (now_ns() values: one clock for the ranks of a machine):
// the wall time a phase took, even when oversubscribed ranks ran it one
// after another.
double wall_span_s(uint64_t start_ns, uint64_t end_ns);

// Collective. The contended-lock baseline: a spin lock of MPI atomics on a
// window at rank `home` (MPI_Compare_and_swap until it takes the word,
// MPI_Fetch_and_op to add 1 to a counter beside it, MPI_Fetch_and_op with
// MPI_REPLACE to release; each flushed), every rank taking it `iters` times
// per round. Returns, on rank 0, each round's acquisitions per second (all
// ranks' over the round's wall_span_s), after `warmup` untimed ones per
// rank; ends the job if the counter is not exact. The window is shared
// memory (MPI_Win_allocate_shared): when the ranks are not all on one node,
// nothing is measured and every rank gets an empty vector.
std::vector<double> mpi_spin_lock_rates(int home, size_t iters, size_t rounds, size_t warmup);

}  // namespace bench
