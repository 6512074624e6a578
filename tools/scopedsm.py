#!@SCOPEDSM_TOOLS_PYTHON@
"""scopedsm: run, inspect, benchmark and report on ScopeDSM programs.

This file is a template: CMake writes the configured copy, with this build's
paths and MPI launcher, to <build>/bin/scopedsm (and installs it). The work
is done by the scopedsm_tools package beside this file.
"""
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean

PYTHON_DIR = "@SCOPEDSM_TOOLS_PYTHON_DIR@"
BUILD_JSON = "@SCOPEDSM_TOOLS_BUILD_JSON@"
# An installation may have moved since it was configured: "{prefix}" is the
# directory above the bin/ this launcher is in.
PREFIX = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PYTHON_DIR = PYTHON_DIR.replace("{prefix}", PREFIX)
BUILD_JSON = BUILD_JSON.replace("{prefix}", PREFIX)

if PYTHON_DIR.startswith("@"):
    sys.exit("scopedsm: this is the unconfigured template tools/scopedsm.py; "
             "build ScopeDSM and run <build>/bin/scopedsm")
sys.path.insert(0, PYTHON_DIR)
from scopedsm_tools import cli  # noqa: E402

try:
    sys.exit(cli.main(sys.argv[1:], BUILD_JSON))
except KeyboardInterrupt:
    sys.exit(130)
except BrokenPipeError:  # the reader of our output went away (| head)
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(141)
