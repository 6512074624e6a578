#pragma once

// Whether a thread of this process is blocked in read(2) on a given file
// descriptor, from /proc/self/task/<tid>/syscall (Linux). The runtime's
// bounded MPI_Finalize uses it to tell a process waiting in the launcher's
// final PMI barrier (blocked reading PMI_FD) from one an MPI library still
// holds (runtime.cc, finalize_mpi).
//
// Thread safety: reads only procfs; callable from any thread, not from a
// signal handler (it opens a file).

namespace scopedsm {

// True iff thread `tid` (a kernel thread id of this process) is inside the
// read system call on `fd`. False when it is running, in another call, or
// when the kernel does not say (no procfs, a thread that has gone).
bool thread_blocked_in_read(long tid, int fd);

}  // namespace scopedsm
