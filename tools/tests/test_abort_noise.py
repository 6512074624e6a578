"""Unit tests of abort_noise.py and run_cmd.run_filtered: what `scopedsm run`
leaves out of the launcher's error output, and what it never does."""
import io
import os
import signal
import sys
import tempfile
import unittest

from scopedsm_tools import abort_noise, run_cmd

FATAL = "scopedsm: rank 1: jia_barrier: called inside a critical section (locks held (outermost first): 1)\n"
FATAL_0 = "scopedsm: rank 0: jia_lock(1024): lock id out of range\n"
DASHES = "-" * 74 + "\n"
OMPI_BANNER = [
    DASHES,
    "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\n",
    "with errorcode 1.\n",
    "\n",
    "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n",
    "You may or may not see output from other processes, depending on\n",
    "exactly when Open MPI kills them.\n",
    DASHES,
]
OMPI_AGGREGATE = [
    "[vm:23644] 1 more process has sent help message help-mpi-api.txt / mpi-abort\n",
    '[vm:23644] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help / error messages\n',
]
OMPI_UNPACK = "[vm:23644] [[1234,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer in file " \
              "util/show_help.c at line 501\n"
OMPI_RELAY = "[vm:00689] [[28239,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c at " \
             "line 501\n"
MPICH_ABORT = ["application called MPI_Abort(MPI_COMM_WORLD, 1) - process 1\n",
               "Abort(1) on node 1 (rank 1 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 1\n"]
MPICH_BOX = [
    "=" * 85 + "\n",
    "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n",
    "=   PID 4242 RUNNING AT vm\n",
    "=   EXIT CODE: 1\n",
    "=   CLEANING UP REMAINING PROCESSES\n",
    "=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n",
    "=" * 85 + "\n",
]
# An error of MPI's own, in Open MPI's box: it must always get through.
OMPI_OTHER = [
    DASHES,
    "There are not enough slots available in the system to satisfy the 8\n",
    "slots that were requested by the application:\n",
    DASHES,
]
# Open MPI's boxes for a process that ended with a non-zero status, and
# libevent's warning about a connection of a process already gone.
OMPI_PRIMARY = [
    DASHES,
    "Primary job  terminated normally, but 1 process returned\n",
    "a non-zero exit code. Per user-direction, the job has been aborted.\n",
    DASHES,
]
OMPI_NONZERO = [
    DASHES,
    "mpiexec detected that one or more processes exited with non-zero status, thus causing\n",
    "the job to be terminated. The first process to do so was:\n",
    "\n",
    "  Process name: [[62329,1],0]\n",
    "  Exit code:    1\n",
    DASHES,
]
EPOLL = ("[warn] Epoll MOD(1) on fd 11 failed. Old events were 6; read change was 0 (none); write change was 2 "
         "(del): Bad file descriptor\n")


def filtered(lines):
    noise = abort_noise.AbortNoise()
    out = []
    for line in lines:
        out += noise.feed(line)
    return out + noise.finish()


class AbortNoiseTest(unittest.TestCase):
    def test_open_mpi_abort_account_is_left_out(self):
        self.assertEqual(filtered([FATAL] + OMPI_BANNER + OMPI_AGGREGATE + [OMPI_UNPACK]), [FATAL])
        self.assertEqual(filtered([FATAL, OMPI_RELAY] + OMPI_BANNER), [FATAL])

    def test_mpich_abort_account_is_left_out(self):
        self.assertEqual(filtered([FATAL] + MPICH_ABORT + MPICH_BOX), [FATAL])

    def test_the_runtime_line_is_held_back_and_printed_last_once(self):
        later = "rank 0 says goodbye\n"
        self.assertEqual(filtered([FATAL] + OMPI_BANNER + [later]), [later, FATAL])

    def test_of_several_fatal_lines_only_the_first_is_printed(self):
        self.assertEqual(filtered([FATAL, FATAL_0] + OMPI_BANNER), [FATAL])
        later = "something else\n"
        self.assertEqual(filtered([FATAL, FATAL_0, later] + OMPI_BANNER), [later, FATAL])
        # Every rank making the same mistake: one line, not four.
        every = [f"scopedsm: rank {r}: jia_lock(1024): lock id out of range\n" for r in (2, 0, 3, 1)]
        self.assertEqual(filtered(every + OMPI_BANNER), [every[0]])

    def test_the_program_output_passes_at_once(self):
        noise = abort_noise.AbortNoise()
        self.assertEqual(noise.feed(FATAL), [])
        self.assertEqual(noise.feed("progress 10%\n"), ["progress 10%\n"])
        self.assertEqual(noise.finish(), [FATAL])

    def test_open_mpi_exit_boxes_and_epoll_warnings_go_with_a_fatal_line(self):
        lines = [FATAL, EPOLL] + OMPI_PRIMARY + OMPI_NONZERO + [FATAL_0]
        self.assertEqual(filtered(lines), [FATAL])
        # Without a runtime line they are all the user has: all shown.
        self.assertEqual(filtered([EPOLL] + OMPI_PRIMARY + OMPI_NONZERO), [EPOLL] + OMPI_PRIMARY + OMPI_NONZERO)

    def test_the_runtime_line_may_come_after_the_banner(self):
        self.assertEqual(filtered(OMPI_BANNER + [FATAL]), [FATAL])

    def test_without_a_runtime_line_everything_is_shown(self):
        # A program that called MPI_Abort itself: the banner is all it has.
        lines = ["my program gave up\n"] + OMPI_BANNER + OMPI_AGGREGATE + [OMPI_UNPACK]
        self.assertEqual(filtered(lines), lines)
        self.assertEqual(filtered(MPICH_ABORT + MPICH_BOX), MPICH_ABORT + MPICH_BOX)

    def test_warnings_are_not_fatal_lines(self):
        warning = ("scopedsm: rank 0: warning: jia_lock(0): rank 1 has waited 2.4 s of the 3 s limit (SCOPEDSM_TIMEOUT) "
                   "for rank 0, which holds lock 0; the job ends at 3 s unless rank 0 releases it\n")
        error = "scopedsm: rank 0: error: could not write statistics to /x\n"
        self.assertEqual(filtered([warning, error] + OMPI_BANNER), [warning, error] + OMPI_BANNER)

    def test_a_fatal_line_before_the_rank_is_known(self):
        early = "scopedsm: scopedsm_init: bad configuration: SCOPEDSM_CACHE_PAGES='0' is invalid\n"
        self.assertEqual(filtered([early] + OMPI_BANNER), [early])

    def test_other_mpi_errors_get_through(self):
        self.assertEqual(filtered([FATAL] + OMPI_OTHER + OMPI_BANNER), OMPI_OTHER + [FATAL])
        self.assertEqual(filtered(OMPI_OTHER), OMPI_OTHER)
        other_unpack = "[vm:1] [[1,0],0] ORTE_ERROR_LOG: Not found in file base/plm_base_launch_support.c\n"
        self.assertEqual(filtered([FATAL, other_unpack]), [other_unpack, FATAL])

    def test_the_aggregation_hint_stays_when_other_help_was_aggregated(self):
        other = "[vm:1] 3 more processes have sent help message help-mpi-btl-base.txt / btl:no-nics\n"
        lines = [FATAL] + OMPI_BANNER + [OMPI_AGGREGATE[0], other, OMPI_AGGREGATE[1]]
        self.assertEqual(filtered(lines), [other, OMPI_AGGREGATE[1], FATAL])

    def test_an_unfinished_box_is_shown(self):
        self.assertEqual(filtered([FATAL, DASHES, "half a message\n"]), [DASHES, "half a message\n", FATAL])


class FilterTextTest(unittest.TestCase):
    def test_a_whole_output(self):
        self.assertEqual(abort_noise.filter_text("".join([FATAL] + OMPI_BANNER + ["later"])),
                         "later\n" + FATAL)
        self.assertEqual(abort_noise.filter_text(""), "")


class RunFilteredTest(unittest.TestCase):
    """run_filtered on a stand-in launcher: a shell script with known output."""

    def run_script(self, script):
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
            f.write(script)
        try:
            err = io.BytesIO()
            status = run_cmd.run_filtered(["/bin/sh", f.name], dict(os.environ), err)
            return status, err.getvalue().decode()
        finally:
            os.unlink(f.name)

    def test_status_and_last_line(self):
        output = FATAL + "later\n" + "".join(OMPI_BANNER)
        status, err = self.run_script(f"cat >&2 <<'EOF'\n{output}EOF\nexit 7\n")
        self.assertEqual(status, 7)
        self.assertEqual(err.splitlines(), ["later", FATAL.strip()])

    def test_an_mpi_error_gets_through(self):
        status, err = self.run_script("echo 'ORTE_ERROR_LOG: Not found in file x.c' >&2\nexit 1\n")
        self.assertEqual(status, 1)
        self.assertEqual(err, "ORTE_ERROR_LOG: Not found in file x.c\n")

    def test_bytes_that_are_not_utf8_pass_unchanged(self):
        with tempfile.NamedTemporaryFile("wb", suffix=".sh", delete=False) as f:
            f.write(b"printf '\\377\\376 raw\\n' >&2\n")
        try:
            err = io.BytesIO()
            self.assertEqual(run_cmd.run_filtered(["/bin/sh", f.name], dict(os.environ), err), 0)
            self.assertEqual(err.getvalue(), b"\xff\xfe raw\n")
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    sys.exit(unittest.main())


class InterruptionTest(unittest.TestCase):
    """An end asked of `scopedsm run` reaches the launcher, and the status and
    the last line say that the job was interrupted."""

    def test_sigterm_is_passed_on_and_reported(self):
        class SignalOnReady(io.BytesIO):
            def write(self, data):
                if b"ready" in data:
                    os.kill(os.getpid(), signal.SIGTERM)  # as a workflow tool would
                return super().write(data)

        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
            f.write("echo ready >&2\nexec sleep 100000\n")
        try:
            err = SignalOnReady()
            status = run_cmd.run_filtered(["/bin/sh", f.name], dict(os.environ), err)
        finally:
            os.unlink(f.name)
        self.assertEqual(status, 143)
        self.assertEqual(err.getvalue().decode().splitlines()[-1],
                         "scopedsm run: the job was interrupted by SIGTERM and has ended (exit status 143)")

    def test_session_members(self):
        with tempfile.TemporaryDirectory() as root:
            for pid, stat in {"10": "10 (mpiexec) S 1 10 10 0", "11": "11 (a (b) c) R 10 11 10 0",
                              "12": "12 (other) S 1 12 12 0"}.items():
                os.mkdir(os.path.join(root, pid))
                with open(os.path.join(root, pid, "stat"), "w") as f:
                    f.write(stat)
            os.mkdir(os.path.join(root, "self"))
            self.assertEqual(sorted(run_cmd.session_members(10, root)), [10, 11])
