#!@SCOPEDSM_TOOLS_PYTHON@
"""scopedsm-cc / scopedsm-c++: compile and link programs for ScopeDSM.

This file is a template: CMake writes configured copies to <build>/bin
(and installs them). The work is done by scopedsm_tools/compile.py.
"""
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean

PYTHON_DIR = "@SCOPEDSM_TOOLS_PYTHON_DIR@"
BUILD_JSON = "@SCOPEDSM_TOOLS_BUILD_JSON@"
LANGUAGE = "@SCOPEDSM_TOOLS_LANGUAGE@"
# An installation may have moved since it was configured: "{prefix}" is the
# directory above the bin/ this launcher is in.
PREFIX = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PYTHON_DIR = PYTHON_DIR.replace("{prefix}", PREFIX)
BUILD_JSON = BUILD_JSON.replace("{prefix}", PREFIX)

if PYTHON_DIR.startswith("@"):
    sys.exit("scopedsm-cc: this is the unconfigured template tools/scopedsm_cc.py; "
             "build ScopeDSM and use <build>/bin/scopedsm-cc")
sys.path.insert(0, PYTHON_DIR)
from scopedsm_tools import compile as _compile  # noqa: E402

sys.exit(_compile.main(LANGUAGE, sys.argv[1:], BUILD_JSON))
