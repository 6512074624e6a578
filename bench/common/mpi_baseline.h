// Raw MPI baselines, measured in the same process run as the ScopeDSM
// operation they are compared with, on MPI_COMM_WORLD.
//
// ScopeDSM's service threads share the cores with these measurements, so
// call quiesce() first: it lets every runtime thread fall asleep.
#pragma once

#include <cstddef>
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

}  // namespace bench
