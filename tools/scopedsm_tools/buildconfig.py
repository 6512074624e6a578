"""The build description: where the headers, libraries, helpers, apps and
MPI launcher of one ScopeDSM build (or installation) are.

CMake writes it as JSON next to the build (tools/scopedsm-build.json) and
next to an installation (lib/scopedsm/scopedsm-build.json).
"""
import json
import os


class BuildConfigError(Exception):
    pass


# Keys every description has; absent keys of older files read as these.
DEFAULTS = {
    "version": "unknown",
    "tree": "build",
    "build_type": "",
    "source_dir": "",
    "build_dir": "",
    "install_prefix": "",
    "include_dirs": [],
    "lib_dir": "",
    "seq_lib_dir": "",
    "bin_dir": "",
    "info_helper": "",
    "apps_dir": "",
    "bench_dir": "",
    "mpiexec": "",
    "mpiexec_numproc_flag": "-n",
    "mpi_vendor": "",
    "c_compiler": "cc",
    "cxx_compiler": "c++",
    "fortran_compiler": "",
    "fortran_module_dirs": [],
    "fortran_lib_dir": "",
    "c_legacy_flags": [],
    "mpi_include_dirs": [],
    "mpi_compile_options": [],
    "mpi_compile_definitions": [],
    "mpi_libraries": [],
    "mpi_link_flags": [],
    "sanitize_flags": [],
    "python": "",
}


def load(path):
    """Reads the build description at `path` into a dict with every key."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise BuildConfigError(
            f"cannot read the build description {path}: {e.strerror}; "
            "rebuild ScopeDSM (cmake --build <build>) or reinstall it") from e
    except ValueError as e:
        raise BuildConfigError(f"the build description {path} is not valid JSON ({e}); rebuild ScopeDSM") from e
    config = dict(DEFAULTS)
    config.update(data)
    # An installation names its paths under "{prefix}", the directory three
    # levels above <prefix>/lib/scopedsm/scopedsm-build.json, so it can move.
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(path))))
    return {k: _substitute(v, prefix) for k, v in config.items()}


def _substitute(value, prefix):
    if isinstance(value, str):
        return value.replace("{prefix}", prefix)
    if isinstance(value, list):
        return [_substitute(v, prefix) for v in value]
    return value


def mpiexec(config):
    """The MPI launcher: $SCOPEDSM_MPIEXEC if set, else the configured one."""
    return os.environ.get("SCOPEDSM_MPIEXEC") or config.get("mpiexec") or ""
