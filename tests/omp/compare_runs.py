#!/usr/bin/env python3
"""Runs an OpenMP program twice, as threads (its libgomp build) and as
ScopeDSM processes (its scopedsm-cc -fopenmp build under the MPI launcher),
and checks that both print the same checksum.

    compare_runs.py THREADS N -- THREADED_CMD... -- DSM_CMD...

The threaded command runs with OMP_NUM_THREADS=N. Each must exit 0 and
print a line "checksum X"; the two X must agree to 1e-9 relative (the
reductions of floating-point sums may add in another order).
"""
import os
import re
import subprocess
import sys

CHECKSUM = re.compile(r"^checksum\s+(\S+)\s*$", re.M)


def run(cmd, env):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    out = r.stdout + r.stderr
    if r.returncode != 0:
        sys.exit(f"compare_runs.py: {' '.join(cmd)} exited with {r.returncode}:\n{out}")
    m = CHECKSUM.search(r.stdout)
    if not m:
        sys.exit(f"compare_runs.py: {' '.join(cmd)} printed no checksum:\n{out}")
    return float(m.group(1)), out


def main():
    args = sys.argv[1:]
    if len(args) < 5 or args[0] != "THREADS" or args[2] != "--" or "--" not in args[3:]:
        sys.exit(__doc__)
    threads = args[1]
    rest = args[3:]
    split = rest.index("--")
    threaded, dsm = rest[:split], rest[split + 1:]
    env = dict(os.environ, OMP_NUM_THREADS=threads)
    want, out_t = run(threaded, env)
    got, out_d = run(dsm, dict(os.environ))
    scale = max(abs(want), abs(got), 1e-300)
    if abs(want - got) / scale > 1e-9:
        sys.exit(f"compare_runs.py: checksums differ: threads {want!r}, ScopeDSM {got!r}\n"
                 f"--- threads:\n{out_t}--- ScopeDSM:\n{out_d}")
    print(f"compare_runs.py: same checksum {got!r} ({threads} threads, {threads} processes)")
    print(out_d, end="")


if __name__ == "__main__":
    main()
