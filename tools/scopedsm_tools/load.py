"""Competing load beside chosen ranks: `scopedsm run --load 2,1,3,1`.

The JIAJIA dissertation's "metacomputing" experiments share some processors
with other jobs: a processor with load 2 runs two busy programs beside the
DSM process. On one machine the same is made reproducible by pinning: each
rank runs on one CPU (rank r on the r-th CPU it may use, round robin), and
load L beside rank r is L busy processes pinned to that same CPU, so the
kernel's fair scheduler gives rank r about 1/(1+L) of it, whatever else the
machine does meanwhile (ranks sharing a CPU when there are more ranks than
CPUs share it too, as they would without --load).

`scopedsm run --load` starts every rank through this file, run as a script
(`python3 load.py LOADS -- program args...`): it finds its rank in the MPI
launcher's environment, pins itself, starts the busy processes, runs the
program, and when the program ends (or it is told to end) kills them. The
busy processes also die with it (PR_SET_PDEATHSIG), so none outlives a job.
"""
import ctypes
import os
import signal
import subprocess
import sys

MAX_LOAD = 64
RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID")


class LoadError(Exception):
    pass


def parse_loads(text):
    """'2,1,3,1' -> [2, 1, 3, 1]: busy processes beside ranks 0, 1, 2, ..."""
    loads = []
    for part in text.split(","):
        if not part.strip().isdigit() or int(part) > MAX_LOAD:
            raise LoadError(f"--load takes busy-process counts per rank (0 to {MAX_LOAD}) separated by commas, "
                            f"such as 2,1,3,1; not '{text}'")
        loads.append(int(part))
    return loads


def rank_from_env(env):
    for name in RANK_VARIABLES:
        value = env.get(name, "")
        if value.isdigit():
            return int(value)
    raise LoadError("cannot tell this process's rank: none of " + ", ".join(RANK_VARIABLES) + " is set")


def cpu_of(rank, allowed):
    cpus = sorted(allowed)
    return cpus[rank % len(cpus)]


def _die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG = 1
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def start_busy(cpu, count):
    """`count` processes spinning on `cpu`; returns their pids."""
    pids = []
    parent = os.getpid()
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            try:
                _die_with_parent()
                if os.getppid() != parent:
                    os._exit(0)
                os.sched_setaffinity(0, {cpu})
                while True:
                    pass
            finally:
                os._exit(0)
        pids.append(pid)
    return pids


def stop_busy(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def command(loads, program, args, script=None):
    """The per-rank command that `scopedsm run --load` gives the launcher."""
    script = script or os.path.abspath(__file__)
    return [sys.executable, script, ",".join(str(n) for n in loads), "--", program] + list(args)


def main(argv):
    if len(argv) < 3 or argv[1] != "--":
        print("usage: load.py LOADS -- program [args...]", file=sys.stderr)
        return 2
    try:
        loads = parse_loads(argv[0])
        rank = rank_from_env(os.environ)
    except LoadError as e:
        print(f"scopedsm run: {e}", file=sys.stderr)
        return 2
    cpu = cpu_of(rank, os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})  # the program inherits it
    busy = start_busy(cpu, loads[rank] if rank < len(loads) else 0)
    try:
        proc = subprocess.Popen(argv[2:])
    except OSError as e:
        stop_busy(busy)
        print(f"scopedsm run: cannot start {argv[2]}: {e.strerror}", file=sys.stderr)
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _frame: proc.send_signal(s))
    try:
        code = proc.wait()
    finally:
        stop_busy(busy)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
