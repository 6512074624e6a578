// Calls that hand a buffer to the kernel or to an MPI library, interposed:
// libscopedsm defines them, and since a program links libscopedsm before
// the C and MPI libraries, the dynamic linker binds the program's calls and
// every other library's (libgfortran's and libstdc++'s read, write and
// writev) to these definitions. Each finds the real function once
// (interpose/real.h; for MPI, the PMPI_ profiling entry point).
//
// Contract, for every call:
//  * A call whose buffers reach no allocated shared memory, or made while
//    no runtime runs, or under the test fault interpose-direct, is the real
//    call, after one test of a published address range
//    (runtime/shared_access.h `may_reach`): a few nanoseconds
//    (bench/micro/interpose).
//  * On the application thread, the shared part of each buffer is made
//    valid for the call's access first (read for data going out, write for
//    data coming in), as an access by the program at the time of the call:
//    pages are fetched, twinned and noted as written exactly as at a page
//    fault, so data a call brings into shared memory reaches its home at
//    the next release like any write. A call never fails and never returns
//    short because a page was protected; its return value and errno are the
//    real call's.
//  * A call whose shared part does not fit the cache at once is cut where
//    the kernel's semantics allow it (libc.cc), or goes through a private
//    copy (messages, MPI), or is refused with a clear error (mpi.cc:
//    persistent MPI requests on shared memory).
//  * On any other thread, or inside another interposed call's own work, the
//    real call is made unchanged; if the kernel then reports EFAULT on a
//    shared buffer the job ends with a report naming the call and the
//    thread (a short count is not detectable there).
//
// The calls (libc.cc): read, write, pread, pwrite, readv, writev, preadv,
// pwritev, preadv2, pwritev2 (and their *64 names), recv, recvfrom,
// recvmsg, send, sendto, sendmsg, fread, fwrite, fread_unlocked,
// fwrite_unlocked, and _FORTIFY_SOURCE's __read_chk, __pread_chk,
// __pread64_chk, __recv_chk, __recvfrom_chk, __fread_chk and
// __fread_unlocked_chk. glibc's stdio reaches the kernel through internal
// calls, so fread and fwrite need wrappers of their own; stdio calls that
// read their whole argument first (fputs, printf's %s) fault it in
// themselves, which holds while the string fits the cache.
//
// MPI (mpi.cc): MPI_Send, Ssend, Rsend, Bsend, Recv, Mrecv, Sendrecv,
// Sendrecv_replace; Isend, Issend, Irsend, Ibsend, Irecv, Imrecv and their
// completions (Wait, Test and their -all, -any and -some forms,
// Request_free); Bcast, Reduce, Allreduce, Reduce_scatter(_block), Scan,
// Exscan, Gather(v), Scatter(v), Allgather(v), Alltoall(v) and the
// nonblocking Ibcast, Ireduce, Iallreduce, Igather(v), Iscatter(v),
// Iallgather(v), Ialltoall(v); MPI_File_read/write, their _at, _all and
// _at_all forms and iread/iwrite(_at). Send_init, Ssend_init, Rsend_init,
// Bsend_init and Recv_init refuse shared buffers. Other calls that take a
// buffer (one-sided communication, other nonblocking collectives) are not
// interposed, nor are Open MPI's Fortran bindings, which call the PMPI_
// entry points themselves (MPICH's call the MPI_ ones, and are): pass those
// shared memory made valid with scopedsm_prepare, or private copies.
#pragma once
