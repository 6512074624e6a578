"""Unit tests of info.parse_describe: the helper's "key: value" lines."""
import unittest

from scopedsm_tools import info

TEXT = """version: 0.1.0
compiler: 12.2.0
mpi_library: Open MPI v4.1.4, package: Debian OpenMPI
mpi_standard: 3.1
config_error: SCOPEDSM_CACHE_PAGES='0' is invalid: expected a page count from 1 to 268435456
unknown_variable: SCOPEDSM_CACHE_PAGE is not a ScopeDSM variable (did you mean SCOPEDSM_CACHE_PAGES?)
variable: SCOPEDSM_CACHE_PAGES=0
unknown_variable: SCOPEDSM_LOGG is not a ScopeDSM variable (did you mean SCOPEDSM_LOG?)
variable: SCOPEDSM_LOG=(default warn)
setting: SCOPEDSM_CACHE_PAGES\tMemory and placement\t65536\ta page count from 4 to 268435456\tCapacity of the cache.
setting: SCOPEDSM_LOG\tOutput and checks\twarn\terror, warn, info or debug\tLog level.
"""


class DescribeTest(unittest.TestCase):
    def test_fields_and_variables(self):
        fields, variables = info.parse_describe(TEXT)
        self.assertEqual(fields["mpi_library"], "Open MPI v4.1.4, package: Debian OpenMPI")
        self.assertEqual(fields["mpi_standard"], "3.1")
        self.assertIn("SCOPEDSM_CACHE_PAGES", fields["config_error"])
        self.assertEqual(variables, [("SCOPEDSM_CACHE_PAGES", "0", False), ("SCOPEDSM_LOG", "warn", True)])
        self.assertEqual(fields["unknown_variables"], [
            "SCOPEDSM_CACHE_PAGE is not a ScopeDSM variable (did you mean SCOPEDSM_CACHE_PAGES?)",
            "SCOPEDSM_LOGG is not a ScopeDSM variable (did you mean SCOPEDSM_LOG?)"])


class SettingsTest(unittest.TestCase):
    """`scopedsm info --variables`: the runtime's declarations of the settings."""

    def test_setting_lines(self):
        fields, _ = info.parse_describe(TEXT)
        self.assertEqual(fields["settings"][0], {"name": "SCOPEDSM_CACHE_PAGES", "group": "Memory and placement",
                                                 "default": "65536", "accepted": "a page count from 4 to 268435456",
                                                 "meaning": "Capacity of the cache."})
        self.assertEqual([s["name"] for s in fields["settings"]], ["SCOPEDSM_CACHE_PAGES", "SCOPEDSM_LOG"])

    def test_listing_by_group_with_set_values(self):
        fields, variables = info.parse_describe(TEXT)
        text = info.format_settings(fields["settings"], {n: v for n, v, d in variables if not d})
        self.assertEqual(text.splitlines(), [
            "Memory and placement",
            "  SCOPEDSM_CACHE_PAGES = 0 (set; default 65536)",
            "      Capacity of the cache.",
            "      accepts: a page count from 4 to 268435456",
            "",
            "Output and checks",
            "  SCOPEDSM_LOG = warn (default)",
            "      Log level.",
            "      accepts: error, warn, info or debug"])


class BuildLineTest(unittest.TestCase):
    """The first line of `scopedsm info`: the build type and where this copy is."""

    def test_build_tree(self):
        line = info.build_line({"tree": "build", "build_type": "Release", "build_dir": "/src/build"})
        self.assertEqual(line, "Release, build tree /src/build")

    def test_installation(self):
        line = info.build_line({"tree": "install", "build_type": "RelWithDebInfo", "install_prefix": "/opt/s"})
        self.assertEqual(line, "RelWithDebInfo, installed in /opt/s")

    def test_no_build_type(self):
        self.assertEqual(info.build_line({"tree": "build", "build_type": "", "build_dir": "/b"}),
                         "no build type, build tree /b")


if __name__ == "__main__":
    unittest.main()


class SlurmTest(unittest.TestCase):
    """info.slurm_info: srun's plugin for each MPI library, and the
    allocation Slurm's variables describe."""

    def test_plugin_for_each_mpi(self):
        self.assertEqual(info.slurm_info("Open MPI", {}, lambda _: "/usr/bin/srun")["command"],
                         "srun --mpi=pmix -n 4 PROGRAM")
        self.assertEqual(info.slurm_info("MPICH", {}, lambda _: None)["mpi_plugin"], "pmi2")

    def test_outside_and_inside_an_allocation(self):
        self.assertIsNone(info.slurm_info("Open MPI", {}, lambda _: None)["allocation"])
        inside = info.slurm_info("Open MPI", {"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": "n[1-2]",
                                              "SLURM_NTASKS": "8"}, lambda _: "/usr/bin/srun")
        self.assertEqual(inside["allocation"], {"job_id": "42", "nodes": "n[1-2]", "tasks": "8"})
        self.assertEqual(inside["srun"], "/usr/bin/srun")
