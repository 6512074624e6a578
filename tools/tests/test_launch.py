"""Unit tests of launch.py and run_cmd.parse_args: the launcher command lines."""
import os
import tempfile
import unittest

from scopedsm_tools import launch, run_cmd


class LaunchCommandTest(unittest.TestCase):
    def test_openmpi_within_cores_as_user(self):
        cmd = launch.launch_command(launch.OPENMPI, "/usr/bin/mpiexec", 2, "/p", ["a"], euid=1000, cores=2)
        self.assertEqual(cmd, ["/usr/bin/mpiexec", "-n", "2", "--bind-to", "none", "/p", "a"])

    def test_openmpi_oversubscribed_as_root_with_env(self):
        cmd = launch.launch_command(launch.OPENMPI, "mpiexec", 4, "/p", [], env_names=["SCOPEDSM_LOG"],
                                    euid=0, cores=2)
        self.assertEqual(cmd, ["mpiexec", "-n", "4", "--oversubscribe", "--bind-to", "none",
                               "--allow-run-as-root", "-x", "SCOPEDSM_LOG", "/p"])

    def test_mpich_is_plain(self):
        cmd = launch.launch_command(launch.MPICH, "mpiexec", 8, "/p", ["-n", "3"], euid=0, cores=2)
        self.assertEqual(cmd, ["mpiexec", "-n", "8", "/p", "-n", "3"])

    def test_zero_processes_is_an_error(self):
        with self.assertRaises(launch.LaunchError):
            launch.launch_command(launch.MPICH, "mpiexec", 0, "/p", [])

    def test_vendor_from_version_text(self):
        self.assertEqual(launch.vendor_from_text("mpiexec (OpenRTE) 4.1.4"), launch.OPENMPI)
        self.assertEqual(launch.vendor_from_text("mpiexec (Open MPI) 5.0.3"), launch.OPENMPI)
        self.assertEqual(launch.vendor_from_text("HYDRA build details:\n Version: 4.0.2"), launch.MPICH)

    def test_exit_status_of_signals(self):
        self.assertEqual(launch.exit_status(3), 3)
        self.assertEqual(launch.exit_status(-9), 137)

    def test_missing_program(self):
        with self.assertRaisesRegex(launch.LaunchError, "not found"):
            launch.resolve_program("surely-no-such-program-here")

    def test_missing_launcher(self):
        with self.assertRaisesRegex(launch.LaunchError, "missing"):
            launch.find_launcher("/nonexistent/mpiexec")


class RunArgsTest(unittest.TestCase):
    def test_program_options_stay_with_the_program(self):
        o = run_cmd.parse_args(["-n", "2", "--quiet", "prog", "-n", "5", "--stats", "x"])
        self.assertEqual(o["nprocs"], 2)
        self.assertEqual(o["program"], "prog")
        self.assertEqual(o["args"], ["-n", "5", "--stats", "x"])
        self.assertEqual(o["env"], {"SCOPEDSM_SUMMARY": "off"})

    def test_strict_sets_the_variable(self):
        o = run_cmd.parse_args(["-n", "2", "--strict", "prog"])
        self.assertEqual(o["env"], {"SCOPEDSM_STRICT": "on"})
        self.assertEqual(o["program"], "prog")

    def test_option_spellings(self):
        o = run_cmd.parse_args(["-n4", "--timeout=30", "-x", "SCOPEDSM_LOG=info", "--", "-prog"])
        self.assertEqual(o["nprocs"], 4)
        self.assertEqual(o["env"], {"SCOPEDSM_TIMEOUT": "30", "SCOPEDSM_LOG": "info"})
        self.assertEqual(o["program"], "-prog")
        self.assertEqual(run_cmd.parse_args(["--np=3", "p"])["nprocs"], 3)

    def test_stats_path_is_absolute(self):
        o = run_cmd.parse_args(["-n", "1", "--stats", "s.json", "p"])
        self.assertTrue(o["env"]["SCOPEDSM_STATS_FILE"].endswith("/s.json"))

    def test_trace_path_is_absolute(self):
        o = run_cmd.parse_args(["-n", "1", "--trace=t.json", "p"])
        self.assertEqual(o["env"]["SCOPEDSM_TRACE"], os.path.abspath("t.json"))

    def test_errors(self):
        with self.assertRaisesRegex(run_cmd.UsageError, "whole number"):
            run_cmd.parse_args(["-n", "two", "p"])
        with self.assertRaisesRegex(run_cmd.UsageError, "unknown option"):
            run_cmd.parse_args(["-n", "2", "--frobnicate", "p"])
        with self.assertRaisesRegex(run_cmd.UsageError, "needs a value"):
            run_cmd.parse_args(["-n"])

    def test_hosts_layout(self):
        def layout(argv):
            return run_cmd.host_layout(run_cmd.parse_args(argv + ["p"]))
        self.assertEqual(layout(["--hosts", "2", "-n", "4"]), (4, 2))
        self.assertEqual(layout(["--hosts=3", "-n", "5"]), (5, 2))
        self.assertEqual(layout(["--hosts", "2", "--per-host", "3"]), (6, 3))
        self.assertEqual(layout(["--hosts", "2", "--per-host=3", "-n", "4"]), (4, 3))
        with self.assertRaisesRegex(run_cmd.UsageError, "do not fit 2 hosts of 1"):
            layout(["--hosts", "2", "--per-host", "1", "-n", "3"])
        with self.assertRaisesRegex(run_cmd.UsageError, "leave a host of the 3 empty"):
            layout(["--hosts", "3", "--per-host", "2", "-n", "4"])
        with self.assertRaisesRegex(run_cmd.UsageError, "at least 1"):
            layout(["--hosts", "0", "-n", "4"])
        with self.assertRaisesRegex(run_cmd.UsageError, "missing -n N or --per-host"):
            layout(["--hosts", "2"])
        with self.assertRaisesRegex(run_cmd.UsageError, "whole number"):
            run_cmd.parse_args(["--hosts", "two", "p"])

    def test_hostfile_slots_in_both_forms(self):
        self.assertEqual(run_cmd.hostfile_slots("# cluster\nnode1 slots=4\nnode2 slots=2 max_slots=8\n\n"), 6)
        self.assertEqual(run_cmd.hostfile_slots("node1:4\nnode2  # one slot\nnode3:2\n"), 7)
        self.assertEqual(run_cmd.hostfile_slots("localhost\n"), 1)
        for bad, why in (("node1 slots=0\n", "N at least 1"), ("node1:x\n", "N at least 1"),
                         ("node1 cpus=4\n", "neither"), ("node1:2 slots=2\n", "twice"), ("# none\n", "no host")):
            with self.assertRaisesRegex(run_cmd.UsageError, why):
                run_cmd.hostfile_slots(bad)

    def test_default_process_count(self):
        self.assertEqual(run_cmd.default_nprocs(run_cmd.parse_args(["p"])), launch.physical_cores())
        with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
            f.write("a slots=3\nb slots=2\n")
        try:
            opts = run_cmd.parse_args(["--hostfile", f.name, "p"])
            self.assertEqual(opts["hostfile"], os.path.abspath(f.name))
            self.assertEqual(run_cmd.default_nprocs(opts), 5)
        finally:
            os.unlink(f.name)
        with self.assertRaisesRegex(run_cmd.UsageError, "cannot read the host file"):
            run_cmd.default_nprocs(run_cmd.parse_args(["--hostfile", "/nonexistent/hosts", "p"]))

    def test_hostfile_option_of_each_launcher(self):
        self.assertEqual(run_cmd.hostfile_args(launch.OPENMPI, "/h"), ["--hostfile", "/h"])
        self.assertEqual(run_cmd.hostfile_args(launch.MPICH, "/h"), ["-f", "/h"])

    def test_host_names(self):
        from scopedsm_tools import hosts
        self.assertEqual(hosts.namespace(4242, 1), "scopedsm-4242-h1")
        self.assertEqual(hosts.bridge(4194304), "sdsm2hwcgb")  # the largest pid: 15 characters at most
        self.assertLessEqual(len(hosts.veth(4194304, hosts.MAX_HOSTS - 1)), 15)
        self.assertEqual(int(hosts.bridge(4242)[4:-1], 36), 4242)


if __name__ == "__main__":
    unittest.main()
