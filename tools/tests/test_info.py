"""Unit tests of info.parse_describe: the helper's "key: value" lines."""
import unittest

from scopedsm_tools import info

TEXT = """version: 0.1.0
compiler: 12.2.0
mpi_library: Open MPI v4.1.4, package: Debian OpenMPI
mpi_standard: 3.1
config_error: SCOPEDSM_CACHE_PAGES='0' is invalid: expected a page count from 1 to 268435456
variable: SCOPEDSM_CACHE_PAGES=0
variable: SCOPEDSM_LOG=(default warn)
"""


class DescribeTest(unittest.TestCase):
    def test_fields_and_variables(self):
        fields, variables = info.parse_describe(TEXT)
        self.assertEqual(fields["mpi_library"], "Open MPI v4.1.4, package: Debian OpenMPI")
        self.assertEqual(fields["mpi_standard"], "3.1")
        self.assertIn("SCOPEDSM_CACHE_PAGES", fields["config_error"])
        self.assertEqual(variables, [("SCOPEDSM_CACHE_PAGES", "0", False), ("SCOPEDSM_LOG", "warn", True)])


if __name__ == "__main__":
    unittest.main()
