"""Building the MPI launcher command for N processes on this machine.

Used by `scopedsm run` and `scopedsm bench`. Single-machine defaults, no
host file:
  Open MPI: mpiexec -n N [--oversubscribe] --bind-to none [--allow-run-as-root]
            [-x SCOPEDSM_...]... program args
            (--oversubscribe only when N exceeds the physical cores, since
            Open MPI gives one slot per core; --allow-run-as-root only as root)
  MPICH and other Hydra launchers: mpiexec -n N program args
"""
import os
import shutil
import subprocess


class LaunchError(Exception):
    """A problem with what is to be launched; the message says what to do."""


OPENMPI = "Open MPI"
MPICH = "MPICH"


def vendor_from_text(text):
    """The launcher family named in `mpiexec --version` output or a vendor name."""
    if any(s in text for s in ("Open MPI", "OpenRTE", "Open RTE", "PRRTE", "prterun")):
        return OPENMPI
    return MPICH


def detect_vendor(launcher, configured_launcher="", configured_vendor=""):
    """The configured vendor for the configured launcher; otherwise asks the launcher."""
    if configured_vendor and os.path.realpath(launcher) == os.path.realpath(configured_launcher or launcher):
        return vendor_from_text(configured_vendor)
    try:
        out = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=20,
                             check=False, stdin=subprocess.DEVNULL)
        return vendor_from_text(out.stdout + out.stderr)
    except (OSError, subprocess.TimeoutExpired):
        return MPICH


def physical_cores():
    """Cores this process may run on, counting hyperthreads of a core once."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = list(range(os.cpu_count() or 1))
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "core_id") as f:
                core = f.read().strip()
            with open(base + "physical_package_id") as f:
                package = f.read().strip()
            cores.add((package, core))
        except OSError:
            cores.add(("cpu", str(cpu)))
    return max(1, len(cores))


def find_launcher(config_launcher):
    """The launcher to use, as an absolute path, or LaunchError saying how to fix it."""
    name = os.environ.get("SCOPEDSM_MPIEXEC") or config_launcher
    source = "SCOPEDSM_MPIEXEC" if os.environ.get("SCOPEDSM_MPIEXEC") else "the build"
    if not name:
        raise LaunchError("no MPI launcher is configured; install MPI (e.g. openmpi-bin) and re-run cmake, "
                          "or set SCOPEDSM_MPIEXEC to your mpiexec")
    path = name if os.sep in name else shutil.which(name)
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise LaunchError(f"the MPI launcher '{name}' (from {source}) is missing or not executable; "
                          "install MPI (e.g. openmpi-bin or mpich) or set SCOPEDSM_MPIEXEC to your mpiexec")
    return os.path.abspath(path)


def resolve_program(program):
    """`program` as an absolute path: a path as given, or a name found in PATH or the current directory."""
    if not program:
        raise LaunchError("no program given; name the program to run after the options")
    candidates = []
    if os.sep in program:
        candidates.append(program)
    else:
        found = shutil.which(program)
        if found:
            candidates.append(found)
        candidates.append(os.path.join(os.getcwd(), program))
    for path in candidates:
        if os.path.isdir(path):
            raise LaunchError(f"'{program}' is a directory; give the path of a program")
        if os.path.isfile(path):
            if not os.access(path, os.X_OK):
                raise LaunchError(f"'{program}' is not executable; build it or chmod +x it")
            return os.path.abspath(path)
    where = "" if os.sep in program else " in the current directory or PATH"
    raise LaunchError(f"program '{program}' not found{where}; check the name or give its path")


def launch_command(vendor, launcher, nprocs, program, args, env_names=(), euid=None, cores=None,
                   extra_launcher_args=()):
    """The full command line that starts `program args` on `nprocs` local processes."""
    if nprocs < 1:
        raise LaunchError(f"the process count must be at least 1 (got {nprocs})")
    euid = os.geteuid() if euid is None else euid
    cores = physical_cores() if cores is None else cores
    cmd = [launcher, "-n", str(nprocs)]
    if vendor == OPENMPI:
        if nprocs > cores:
            cmd.append("--oversubscribe")
        cmd += ["--bind-to", "none"]
        if euid == 0:
            cmd.append("--allow-run-as-root")
        for name in env_names:
            cmd += ["-x", name]
    cmd += list(extra_launcher_args)
    cmd.append(program)
    cmd += list(args)
    return cmd


def scopedsm_env_names(env):
    """The SCOPEDSM_* variables set in `env`, in a stable order."""
    return sorted(name for name in env if name.startswith("SCOPEDSM_"))


def exit_status(returncode):
    """A subprocess return code as a shell exit status (signals as 128+N)."""
    return 128 - returncode if returncode < 0 else returncode
