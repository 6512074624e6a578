#!/usr/bin/env python3
"""OpenMP programs on ScopeDSM beside libgomp's threads, in the same run.

    bench/omp/run.py [--build BUILD] [--np 2] [--reps 5] [--size bench]
                     [--kernels sor,jacobi,...] [--init serial,parallel]
                     [--syncbench] [--env VAR=VALUE ...] [--hosts H] > results.json

Builds (in BUILD/bench-omp) bench/omp/kernels.c and syncbench.c twice:
with `gcc -fopenmp` (libgomp, threads) and with BUILD/bin/scopedsm-cc
-fopenmp (ScopeDSM, processes). Then, for each kernel and data
initialization, runs the two builds in turn, REPS times each, alternating
(threads with OMP_NUM_THREADS=NP, processes under mpirun -n NP), and checks
that every run prints the threads' checksum. Prints one JSON object:

  {"np": NP, "machine": ..., "kernels": [{"kernel", "init", "threads_s":
   [..], "scopedsm_s": [..], "threads_median", "threads_p90",
   "scopedsm_median", "scopedsm_p90", "speed_vs_threads"}, ...],
   "syncbench": {"threads": {...}, "scopedsm": {...}, "rows": [...]}}

speed_vs_threads is the threads' median time over ScopeDSM's: 1.0 means
as fast as threads, 0.8 means 80% of their speed.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ["sor", "jacobi", "mm", "cg", "ep", "mg", "ft", "is"]


def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def build(args):
    out = os.path.join(args.build, "bench-omp")
    os.makedirs(out, exist_ok=True)
    cc = os.path.join(args.build, "bin", "scopedsm-cc")
    for src in ("kernels.c", "syncbench.c"):
        name = src[:-2]
        subprocess.run(["gcc", "-O2", "-fopenmp", os.path.join(HERE, src), "-lm", "-o",
                        os.path.join(out, name + "_threads")], check=True)
        subprocess.run([cc, "-fopenmp", "-O2", os.path.join(HERE, src), "-lm", "-o",
                        os.path.join(out, name + "_scopedsm")], check=True)
    return out


def mpirun(args):
    """The launcher of the MPI the build was linked with (its scopedsm-build.json):
    another MPI's launcher would start NP singletons, each its own job. With
    --hosts, `scopedsm run --hosts H`: namespaced hosts of this machine."""
    if args.hosts:
        return [os.path.join(args.build, "bin", "scopedsm"), "run", "--quiet", "--hosts", str(args.hosts),
                "-n", str(args.np)]
    with open(os.path.join(args.build, "tools", "scopedsm-build.json")) as f:
        config = json.load(f)
    launcher = os.environ.get("SCOPEDSM_MPIEXEC") or config["mpiexec"]
    flags = ["--oversubscribe", "--bind-to", "none"] if config.get("mpi_vendor") == "Open MPI" else []
    return [launcher, config.get("mpiexec_numproc_flag") or "-n", str(args.np)] + flags


def env_for(args, threads):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for kv in args.env:
        k, v = kv.split("=", 1)
        env[k] = v
    if threads:
        env["OMP_NUM_THREADS"] = str(args.np)
    return env


def run_kernel(cmd, env):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if r.returncode != 0:
        sys.exit(f"run.py: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    t = re.search(r"^kernel \S+ \S+ \S+: (\S+) s", r.stdout, re.M)
    c = re.search(r"^checksum\s+(\S+)", r.stdout, re.M)
    if not t or not c:
        sys.exit(f"run.py: {' '.join(cmd)} printed no time or checksum:\n{r.stdout}{r.stderr}")
    return float(t.group(1)), float(c.group(1))


def kernels(args, out):
    rows = []
    for kernel in args.kernels.split(","):
        for init in args.init.split(","):
            threads, dsm = [], []
            want = None
            for _ in range(args.reps):
                t, c = run_kernel([os.path.join(out, "kernels_threads"), kernel, args.size, init], env_for(args, True))
                threads.append(t)
                want = c if want is None else want
                t, c = run_kernel(mpirun(args) + [os.path.join(out, "kernels_scopedsm"), kernel, args.size, init],
                                  env_for(args, False))
                if abs(c - want) > 1e-9 * max(abs(want), 1e-300):
                    sys.exit(f"run.py: {kernel} {init}: ScopeDSM's checksum {c!r} is not the threads' {want!r}")
                dsm.append(t)
            row = {"kernel": kernel, "init": init, "threads_s": threads, "scopedsm_s": dsm,
                   "threads_median": statistics.median(threads), "threads_p90": p90(threads),
                   "scopedsm_median": statistics.median(dsm), "scopedsm_p90": p90(dsm)}
            row["speed_vs_threads"] = row["threads_median"] / row["scopedsm_median"]
            rows.append(row)
            print(f"run.py: {kernel:7s} {init:8s} threads {row['threads_median']:.3f} s  ScopeDSM "
                  f"{row['scopedsm_median']:.3f} s (p90 {row['scopedsm_p90']:.3f})  speed {row['speed_vs_threads']:.2f}",
                  file=sys.stderr)
    return rows


def syncbench(args, out):
    def one(cmd, env):
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
        if r.returncode != 0:
            sys.exit(f"run.py: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
        return json.loads(r.stdout.strip().splitlines()[-1])
    sb = ["--samples=%d" % max(args.reps * 4, 10)]
    threads = one([os.path.join(out, "syncbench_threads")] + sb, env_for(args, True))
    dsm = one(mpirun(args) + [os.path.join(out, "syncbench_scopedsm")] + sb, env_for(args, False))
    rows = []
    for name, t in threads["constructs"].items():
        d = dsm["constructs"][name]
        rows.append({"construct": name, "threads_median_us": statistics.median(t), "threads_p90_us": p90(t),
                     "scopedsm_median_us": statistics.median(d), "scopedsm_p90_us": p90(d)})
        print(f"run.py: {name:18s} threads {statistics.median(t):8.2f} us  ScopeDSM {statistics.median(d):8.2f} us "
              f"(p90 {p90(d):.2f})", file=sys.stderr)
    return {"threads": threads, "scopedsm": dsm, "rows": rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--size", default="bench", choices=["test", "bench"])
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--init", default="serial,parallel")
    ap.add_argument("--syncbench", action="store_true")
    ap.add_argument("--no-kernels", action="store_true")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--hosts", type=int, default=0,
                    help="run ScopeDSM's processes on H namespaced hosts of this machine (scopedsm run --hosts)")
    args = ap.parse_args()
    out = build(args)
    result = {"np": args.np, "hosts": args.hosts, "reps": args.reps, "size": args.size, "env": args.env,
              "loadavg": os.getloadavg()[0], "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
    if not args.no_kernels:
        result["kernels"] = kernels(args, out)
    if args.syncbench:
        result["syncbench"] = syncbench(args, out)
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
