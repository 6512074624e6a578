"""`scopedsm run --load` (load.py): competing busy processes pinned beside
chosen ranks, and gone when the rank's program ends."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from scopedsm_tools import load, run_cmd

# What a rank's program sees: its CPUs, and its siblings (the other children
# of the load.py process that started it) with theirs.
PROBE = textwrap.dedent("""
    import json, os, sys
    me, parent = os.getpid(), os.getppid()
    siblings = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid == parent:
                siblings.append({"pid": int(entry), "cpus": sorted(os.sched_getaffinity(int(entry)))})
        except (OSError, ValueError, IndexError):
            pass
    with open(sys.argv[1], "w") as f:
        json.dump({"cpus": sorted(os.sched_getaffinity(0)), "siblings": siblings}, f)
    sys.exit(int(sys.argv[2]))
""")


class LoadArgsTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(load.parse_loads("2,1,3,1"), [2, 1, 3, 1])
        self.assertEqual(load.parse_loads("0"), [0])
        for bad in ("", "2,,1", "-1", "x", "1.5", "65"):
            with self.assertRaises(load.LoadError, msg=bad):
                load.parse_loads(bad)

    def test_run_option(self):
        self.assertEqual(run_cmd.parse_args(["-n", "4", "--load", "2,1,3,1", "p"])["loads"], [2, 1, 3, 1])
        self.assertEqual(run_cmd.parse_args(["-n", "2", "--load=0,1", "p"])["loads"], [0, 1])
        with self.assertRaises(run_cmd.UsageError):
            run_cmd.parse_args(["-n", "2", "--load", "two", "p"])

    def test_more_loads_than_ranks_is_a_usage_error(self):
        self.assertEqual(run_cmd.main(["-n", "1", "--load", "1,1", "true"], {}), 2)

    def test_rank_from_the_launchers_variables(self):
        self.assertEqual(load.rank_from_env({"OMPI_COMM_WORLD_RANK": "3"}), 3)
        self.assertEqual(load.rank_from_env({"PMI_RANK": "1"}), 1)
        with self.assertRaises(load.LoadError):
            load.rank_from_env({})

    def test_ranks_take_cpus_round_robin(self):
        self.assertEqual([load.cpu_of(r, {4, 6}) for r in range(4)], [4, 6, 4, 6])


class LoadRunTest(unittest.TestCase):
    def run_rank(self, loads, rank, status=0):
        with tempfile.TemporaryDirectory() as d:
            probe, out = os.path.join(d, "probe.py"), os.path.join(d, "out.json")
            with open(probe, "w") as f:
                f.write(PROBE)
            env = dict(os.environ, OMPI_COMM_WORLD_RANK=str(rank))
            cmd = load.command(loads, sys.executable, [probe, out, str(status)])
            done = subprocess.run(cmd, env=env, timeout=60, check=False)
            with open(out) as f:
                return done.returncode, json.load(f)

    def test_busy_processes_run_pinned_beside_the_rank_and_end_with_it(self):
        code, seen = self.run_rank([0, 3], 1, status=5)
        self.assertEqual(code, 5)  # the program's status is the rank's
        self.assertEqual(len(seen["cpus"]), 1)  # pinned to one CPU
        self.assertEqual(len(seen["siblings"]), 3)
        for s in seen["siblings"]:
            self.assertEqual(s["cpus"], seen["cpus"])  # on the same CPU as the rank
            self.assertFalse(os.path.exists(f"/proc/{s['pid']}"), "a busy process outlived its rank")

    def test_an_unlisted_rank_has_no_load(self):
        code, seen = self.run_rank([2], 1)
        self.assertEqual(code, 0)
        self.assertEqual(seen["siblings"], [])


if __name__ == "__main__":
    unittest.main()
