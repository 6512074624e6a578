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
