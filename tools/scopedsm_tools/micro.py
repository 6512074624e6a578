"""Running the micro-benchmarks of bench/micro for `scopedsm bench --micro`.
Each prints one JSON object on rank 0 (see bench/common/report.h), with a
median and, where it has one, the median of its baseline."""
import os

from . import apps, launch, results, runner

# Process counts per micro-benchmark; others run on 2 processes.
PROCS = {"diff": [1], "read_fault": [2], "write_fault_release": [2], "lock_uncontended": [2],
         "barrier": [2, 4], "lock_contended": [2, 4]}


def discover(bench_dir):
    """{name: path} of the micro-benchmark programs under bench_dir/micro."""
    d = os.path.join(bench_dir or "", "micro")
    if not bench_dir or not os.path.isdir(d):
        return {}
    return {name: os.path.join(d, name) for name in sorted(os.listdir(d))
            if "." not in name and apps._is_elf_executable(os.path.join(d, name))}


def run_all(config, launcher, vendor, timeout):
    """One entry per program and process count: its JSON objects or why it failed."""
    out = []
    for name, path in discover(config.get("bench_dir")).items():
        for procs in PROCS.get(name, [2]):
            cmd = launch.launch_command(vendor, launcher, procs, path, [],
                                        env_names=launch.scopedsm_env_names(os.environ))
            env = dict(os.environ, SCOPEDSM_SUMMARY="off")
            code, stdout, stderr, wall = runner.execute(cmd, env, timeout)
            objects = results.parse_json_objects(stdout)
            entry = {"program": name, "procs": procs, "wall_s": round(wall, 3), "exit_code": code,
                     "results": objects, "ok": code == 0 and bool(objects)}
            if not entry["ok"]:
                entry["error"] = "timed out" if code is None else (
                    f"exit status {launch.exit_status(code)}" if code else "printed no JSON object")
                entry["output_tail"] = (stdout + stderr).splitlines()[-runner.TAIL_LINES:]
            state = "ok" if entry["ok"] else f"FAILED: {entry['error']}"
            print(f"[micro] {name} np={procs}  wall {wall:6.2f}s  {state}", flush=True)
            out.append(entry)
    return out
