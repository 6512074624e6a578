"""Unit tests of `scopedsm cleanup`: only files of dead processes go."""
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

from scopedsm_tools import cleanup, hosts


def dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


class CleanupTest(unittest.TestCase):
    def test_removes_files_of_dead_processes_only(self):
        with tempfile.TemporaryDirectory() as d:
            gone = os.path.join(d, f"scopedsm-home-{dead_pid()}-Ab12Cd")
            mine = os.path.join(d, f"scopedsm-home-{os.getpid()}-Ab12Cd")
            other = os.path.join(d, "scopedsm-home-notes.txt")
            for path in (gone, mine, other):
                open(path, "w").close()
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(cleanup.main([d]), 0)
            self.assertFalse(os.path.exists(gone))
            self.assertTrue(os.path.exists(mine))   # its process runs
            self.assertTrue(os.path.exists(other))  # not one of ours
            self.assertIn(gone, out.getvalue())

    def test_the_hosts_mpi_segments_go_only_when_no_launcher_runs(self):
        # A --hosts job killed by a signal leaves Open MPI's segments, named
        # after the namespaced hosts, in /dev/shm.
        with tempfile.TemporaryDirectory() as shm, tempfile.TemporaryDirectory() as tmp:
            ours = [os.path.join(shm, n) for n in ("vader_segment.scopedsm-h0.24380001.0",
                                                   "vader_segment.scopedsm-h12.5.3")]
            others = [os.path.join(shm, n) for n in ("vader_segment.vm.0.25630001.0", "scopedsm-h0-notes")]
            for path in ours + others:
                open(path, "w").close()
            os.mkdir(os.path.join(tmp, f"{hosts.TMP_PREFIX}{dead_pid()}-x1y2"))
            self.assertEqual(hosts.stale_segments(shm, tmp), sorted(ours))
            # A launcher that runs may own them: none is stale.
            os.mkdir(os.path.join(tmp, f"{hosts.TMP_PREFIX}{os.getpid()}-a1b2"))
            self.assertEqual(hosts.stale_segments(shm, tmp), [])
            self.assertEqual(hosts.stale_segments(os.path.join(shm, "missing"), tmp), [])

    def test_a_missing_directory_is_an_error(self):
        with redirect_stdout(io.StringIO()):
            self.assertEqual(cleanup.main(["/nonexistent/scopedsm"]), 2)


if __name__ == "__main__":
    unittest.main()
