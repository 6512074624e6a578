"""Unit tests of `scopedsm cleanup`: only files of dead processes go."""
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

from scopedsm_tools import cleanup


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

    def test_a_missing_directory_is_an_error(self):
        with redirect_stdout(io.StringIO()):
            self.assertEqual(cleanup.main(["/nonexistent/scopedsm"]), 2)


if __name__ == "__main__":
    unittest.main()
