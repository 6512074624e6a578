"""The Python side of ScopeDSM's command-line tools.

The launchers that CMake writes into <build>/bin (scopedsm, scopedsm-cc,
scopedsm-c++) put this package on sys.path and pass it the path of the
build description, a JSON file CMake generates (see buildconfig.py).
"""
