"""Unit tests of legacy_c.py with the real C compiler and with a stand-in for
a C23-by-default compiler (GCC 15), which rejects K&R definitions."""
import os
import shutil
import stat
import tempfile
import unittest

from scopedsm_tools import legacy_c

CC = shutil.which("cc") or shutil.which("gcc")

C23_CC = """#!/bin/sh
# Acts as a compiler whose default standard has no K&R definitions.
case " $* " in *" -std=gnu17 "*) exec {cc} "$@" ;; esac
for a in "$@"; do
  case "$a" in *.c) if grep -q '^main(argc, argv)' "$a"; then
    echo "$a: error: old-style function definition" >&2; exit 1; fi ;; esac
done
exec {cc} "$@"
"""


@unittest.skipUnless(CC, "no C compiler")
class LegacyCTest(unittest.TestCase):
    def test_real_compiler_needs_no_std(self):
        flags, std = legacy_c.probe(CC)
        self.assertIn("-Wno-implicit-int", flags)
        self.assertIn("-Wno-implicit-function-declaration", flags)
        self.assertEqual(std, "")
        self.assertFalse(any(f.startswith("-std=gnu89") for f in flags))

    def test_c23_compiler_gets_gnu17(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "c23cc")
            with open(fake, "w") as f:
                f.write(C23_CC.format(cc=CC))
            os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
            flags, std = legacy_c.probe(fake)
            self.assertEqual(std, "-std=gnu17")
            self.assertIn("-Wno-implicit-int", flags)


if __name__ == "__main__":
    unittest.main()
