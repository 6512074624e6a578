#!/bin/sh
# A stand-in for Open MPI's mpiexec whose job ends as a ScopeDSM fatal error
# does: the runtime's line, then Open MPI's account of the abort, exit 1.
# The tools tests point SCOPEDSM_MPIEXEC at it to check what `scopedsm run`
# shows with and without --raw-errors.
if [ "$1" = "--version" ]; then
  echo "mpiexec (OpenRTE) 4.1.4"
  exit 0
fi
cat >&2 <<'END'
scopedsm: rank 1: jia_barrier: called inside a critical section (locks held (outermost first): 1)
--------------------------------------------------------------------------
MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD
with errorcode 1.

NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.
You may or may not see output from other processes, depending on
exactly when Open MPI kills them.
--------------------------------------------------------------------------
[vm:01934] [[27504,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer in file ../../../orte/util/show_help.c at line 501
END
exit 1
