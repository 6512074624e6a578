"""Finding the application binaries of a build and the options that select
their problem sizes.

Binaries: every ELF executable under <build>/apps named <app>, <app>_seq,
<app>_mpi or <app>_omp (variants dsm, seq, mpi, omp).

Kernel apps: one binary that runs one of several kernels by an option
(KERNELS below; apps/loops, `-k sor|jacobi|tc|mm|ac`) is seen as one app per
kernel, named <binary>-<kernel> (loops-sor, ...), each run with its kernel
option before its size options; selecting the binary's own name (--apps
loops) selects all of its kernels.

Sizes, first source that has one:
  test size       SIZES below, else the arguments of the app's own CTest test
                  (ctest --show-only=json-v1 -L apps), else the app's defaults
  benchmark size  SIZES below, else the "benchmark N" hints in the app's -h
                  text (e.g. "-n  points per side (default 256; benchmark 2048)"),
                  else the app's defaults
"""
import json
import os
import re
import shutil
import subprocess

VARIANT_SUFFIXES = {"_seq": "seq", "_mpi": "mpi", "_omp": "omp"}

# Sizes that override what the apps say about themselves, e.g.
#   "sor": {"test": ["-n", "128", "-i", "10"], "bench": ["-n", "2048", "-i", "100"]},
# The loop-scheduling kernels' sizes (the app's defaults are the benchmark
# sizes): test sizes take a fraction of a second; benchmark sizes 0.3-0.6 s
# of compute at 2 processes under static (docs/STUDIES.md §4).
SIZES = {
    "loops-sor": {"test": ["-n", "64", "-i", "4"], "bench": ["-n", "2048", "-i", "60"]},
    "loops-jacobi": {"test": ["-n", "128", "-i", "4"], "bench": ["-n", "2048", "-i", "100"]},
    "loops-tc": {"test": ["-n", "48"], "bench": ["-n", "1536"]},
    "loops-mm": {"test": ["-n", "64"], "bench": ["-n", "1024"]},
    "loops-ac": {"test": ["-n", "24"], "bench": ["-n", "192"]},
    # ooc has five kernels and CTest tests with hints on: its sizes are the CG
    # kernel's, without hints (the study's configurations add -H 1, and
    # --args 'ooc=-k fft -n 2^22' picks another kernel; docs/STUDIES.md §5).
    "ooc": {"test": ["-k", "cg", "-n", "4096", "-i", "10"], "bench": ["-k", "cg", "-n", "2^20", "-i", "25"]},
}

# Binaries that run one of several kernels: {binary: (option, [kernels])}.
KERNELS = {"loops": ("-k", ["sor", "jacobi", "tc", "mm", "ac"])}

# The option of the threads variants that sets the thread count.
THREADS_OPTION = "-t"


def _is_elf_executable(path):
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def split_variant(name):
    """('sor', 'mpi') for 'sor_mpi'; ('sor', 'dsm') for 'sor'."""
    for suffix, variant in VARIANT_SUFFIXES.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)], variant
    return name, "dsm"


def discover(apps_dir):
    """{app: {variant: path}} for every app that has a DSM build under apps_dir."""
    found = {}
    if not apps_dir or not os.path.isdir(apps_dir):
        return {}
    for root, dirs, files in os.walk(apps_dir):
        dirs[:] = [d for d in dirs if d != "CMakeFiles" and not d.startswith(".")]
        for name in files:
            if "." in name:
                continue
            path = os.path.join(root, name)
            if not _is_elf_executable(path):
                continue
            app, variant = split_variant(name)
            found.setdefault(app, {}).setdefault(variant, path)
    found = expand_kernels(found)
    return {app: v for app, v in sorted(found.items()) if "dsm" in v}


def expand_kernels(found):
    """{app: variants} with every kernel binary of KERNELS replaced by one
    app per kernel (loops -> loops-sor, loops-jacobi, ...), same binaries."""
    out = {}
    for app, variants in found.items():
        if app in KERNELS:
            for kernel in KERNELS[app][1]:
                out[f"{app}-{kernel}"] = dict(variants)
        else:
            out[app] = variants
    return out


def kernel_args(app):
    """The options that select `app`'s kernel (['-k', 'sor'] for loops-sor), or []."""
    binary, dash, kernel = app.rpartition("-")
    if dash and binary in KERNELS and kernel in KERNELS[binary][1]:
        return [KERNELS[binary][0], kernel]
    return []


def select(names, found):
    """The apps that `names` select: an app's own name, or a kernel binary's
    name for all of its kernels. Unknown names are returned second."""
    selected, missing = [], []
    for name in names:
        if name in found:
            picked = [name]
        elif name in KERNELS:
            picked = [f"{name}-{k}" for k in KERNELS[name][1] if f"{name}-{k}" in found]
        else:
            picked = []
        if not picked:
            missing.append(name)
        selected += [a for a in picked if a not in selected]
    return selected, missing


def ctest_test_args(build_dir, binaries, timeout=60):
    """{binary path: args} from the CTest tests labelled `apps` of a build,
    for the binaries (absolute paths) given."""
    ctest = shutil.which("ctest")
    if not ctest or not build_dir or not os.path.isdir(build_dir):
        return {}
    try:
        out = subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1", "-L", "apps"],
                             capture_output=True, text=True, timeout=timeout, check=False,
                             stdin=subprocess.DEVNULL)
        data = json.loads(out.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}
    return args_from_ctest_json(data, binaries)


def args_from_ctest_json(data, binaries):
    """The arguments after each of `binaries` in CTest's JSON test list (first test wins)."""
    wanted = {os.path.realpath(b): b for b in binaries}
    found = {}
    for test in data.get("tests", []) if isinstance(data, dict) else []:
        command = test.get("command") or []
        for i, word in enumerate(command):
            key = os.path.realpath(str(word)) if os.path.isabs(str(word)) else None
            if key in wanted:
                found.setdefault(wanted[key], [str(a) for a in command[i + 1:]])
                break
    return found


# "-n  points (default 256; benchmark 2048)" or "-c  class T (test), A or B (benchmark)"
BENCH_HINT = re.compile(r"^\s*(-[A-Za-z])\s.*?\bbenchmark\s+([^\s;,)]+)")
BENCH_HINT_AFTER = re.compile(r"^\s*(-[A-Za-z])\s.*?([^\s,;(]+)\s+\(benchmark\)")


def bench_args_from_usage(text):
    """Options with their benchmark values, from usage text such as
    '  -n  interior points (default 256; benchmark 2048)' or
    '  -c  size class T (test, default), S, A or B (benchmark)'."""
    args = []
    for line in text.splitlines():
        m = BENCH_HINT.match(line) or BENCH_HINT_AFTER.match(line)
        if m:
            args += [m.group(1), m.group(2)]
    return args


def usage_text(binary, timeout=20):
    try:
        out = subprocess.run([binary, "-h"], capture_output=True, text=True, timeout=timeout, check=False,
                             stdin=subprocess.DEVNULL)
        return out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired):
        return ""


def size_args(app, variants, mode, ctest_args):
    """(args, where they came from) selecting `mode` ('test' or 'bench') size for `app`."""
    known = SIZES.get(app, {}).get(mode)
    if known is not None:
        return list(known), "table"
    if mode == "test":
        for variant in ("seq", "dsm"):
            path = variants.get(variant)
            if path in ctest_args:
                return list(ctest_args[path]), "ctest"
        return [], "defaults"
    binary = variants.get("seq") or variants.get("dsm")
    hinted = bench_args_from_usage(usage_text(binary)) if binary else []
    if hinted:
        return hinted, "usage"
    return [], "defaults"


def with_threads(args, threads):
    """`args` with the thread-count option set to `threads` (for *_omp)."""
    out = []
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a == THREADS_OPTION and i + 1 < len(args):
            skip = True
            continue
        out.append(a)
    return out + [THREADS_OPTION, str(threads)]
