/*
 * scopedsm_mpi.h - ScopeDSM inside a program that uses MPI itself.
 *
 * scopedsm.h needs no MPI; this header adds the one call that names an MPI
 * type, and includes <mpi.h> and scopedsm.h (and, in C++, scopedsm.hpp).
 * docs/CLUSTER.md, "Inside an MPI program", has a whole example.
 *
 *   MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
 *   scopedsm_init_comm(MPI_COMM_WORLD);       // or a communicator of some ranks
 *   ... shared memory, and the program's own MPI calls, on any communicator and tag ...
 *   scopedsm_finalize();
 *   MPI_Finalize();
 *
 * scopedsm_init_comm starts ScopeDSM on the processes of `comm`, after the
 * program's MPI_Init_thread, which must provide MPI_THREAD_MULTIPLE (the
 * runtime has a service thread). It is collective over `comm`, and only
 * its processes call it: ScopeDSM's ranks and size are theirs in `comm`
 * (scopedsm_rank() is the rank in `comm`, not in MPI_COMM_WORLD), and the
 * other processes of the job are free to do anything else meanwhile.
 * ScopeDSM talks only on communicators it duplicates from `comm`, so none
 * of its messages matches a receive of the program's, whatever its tags
 * (MPI_ANY_TAG and MPI_ANY_SOURCE included), and none of its collective
 * calls meets one of the program's. The program's MPI calls may name
 * shared memory as their buffers (interpose/interpose.h lists the calls).
 * scopedsm_finalize then ends ScopeDSM and returns; it neither finalizes
 * MPI nor ends the process, and the program calls MPI_Finalize after it
 * (MPI_Finalize while ScopeDSM runs is an error naming scopedsm_finalize).
 * Calling it before MPI_Init or after MPI_Finalize, twice, with
 * MPI_COMM_NULL or an intercommunicator, or with MPI at a thread level
 * below MPI_THREAD_MULTIPLE ends the job with one line saying so. A fatal
 * error of ScopeDSM's ends the whole job (MPI_Abort on MPI_COMM_WORLD).
 *
 * C++: scopedsm::init(comm) and scopedsm::finalize() are the same calls
 * (the scopedsm::Runtime object is for programs whose MPI ScopeDSM starts).
 * Fortran: call scopedsm_init_comm(comm) from the module scopedsm, with an
 * integer handle (with mpi_f08, comm%MPI_VAL).
 *
 * libscopedsm_seq, the sequential build, has no MPI and no
 * scopedsm_init_comm.
 */
#ifndef SCOPEDSM_MPI_H
#define SCOPEDSM_MPI_H

#include <mpi.h>

#include "scopedsm.h"

#ifdef __cplusplus
extern "C" {
#endif

void scopedsm_init_comm(MPI_Comm comm);

#ifdef __cplusplus
}

/* C++ code that wants the C call alone defines SCOPEDSM_MPI_C_ONLY first. */
#ifndef SCOPEDSM_MPI_C_ONLY
#include "scopedsm.hpp"

extern "C" void scopedsm_cxx_init_comm(MPI_Comm comm);
extern "C" void scopedsm_cxx_finalize_comm(void);

namespace scopedsm {
// scopedsm_init_comm and scopedsm_finalize, in the C++ API's words.
inline void init(MPI_Comm comm) { scopedsm_cxx_init_comm(comm); }
inline void finalize() { scopedsm_cxx_finalize_comm(); }
}  // namespace scopedsm
#endif /* SCOPEDSM_MPI_C_ONLY */
#endif /* __cplusplus */

#endif /* SCOPEDSM_MPI_H */
