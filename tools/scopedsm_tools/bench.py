"""`scopedsm bench`: runs applications x process counts x configurations,
one line of progress per run, and writes everything to one JSON file.

  scopedsm bench --quick      every app at its test size on 1, 2 and 4
                              processes, once; fails if any run fails or
                              does not verify (a correctness sweep)
  scopedsm bench              benchmark sizes, --reps repetitions each
                              (median, min, max), speedup over <app>_seq
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import sys
import tempfile
import time

from . import apps, launch, load, micro, results, runner

# Named configurations: SCOPEDSM_* settings for the DSM runs. Under
# first-touch, apps that place homes explicitly (jia_alloc3) stop with an error.
CONFIGS = {
    "default": {},
    "first-touch": {"SCOPEDSM_HOME_POLICY": "first-touch"},
    "write-all": {"SCOPEDSM_WRITE_DETECT": "all"},
    "small-cache": {"SCOPEDSM_CACHE_PAGES": "256"},
    # Every process a node of its own: pages and diffs through messages.
    "node-sharing-off": {"SCOPEDSM_NODE_SHARING": "off"},
    # Home migration at barriers (JIAJIA's HMIG), in both node modes.
    "home-migration": {"SCOPEDSM_HOME_MIGRATION": "on"},
    "home-migration-node-sharing-off": {"SCOPEDSM_HOME_MIGRATION": "on", "SCOPEDSM_NODE_SHARING": "off"},
    # The JIAJIA dissertation's ablation (Tab 4.5; docs/STUDIES.md), each
    # step adding optimisations to the one before. JIA_base: every home
    # write trapped, grants carry every notice, a writer drops its own copy,
    # barrier rounds meet at rank 0. JIA_w: + adaptive write detection,
    # lock incarnations and single-writer retention (read notices,
    # PROTOCOL.md §6b). JIA_w+c: + cache-only write detection (CO-WD).
    # JIA_w+c+b: + the dissemination barrier. JIA_w+b: adaptive detection
    # instead of CO-WD (ScopeDSM's defaults). HMIG: the defaults + home
    # migration (which cache-only detection rules out, PROTOCOL.md §6b).
    "jia-base": {"SCOPEDSM_WRITE_DETECT": "all", "SCOPEDSM_LOCK_INCARNATIONS": "off",
                 "SCOPEDSM_WRITER_RETENTION": "off", "SCOPEDSM_BARRIER": "central"},
    "jia-w": {"SCOPEDSM_BARRIER": "central"},
    "jia-w-c": {"SCOPEDSM_WRITE_DETECT": "cache-only", "SCOPEDSM_BARRIER": "central"},
    "jia-w-c-b": {"SCOPEDSM_WRITE_DETECT": "cache-only"},
    "jia-w-b": {},
    "hmig": {"SCOPEDSM_HOME_MIGRATION": "on"},
    # Processes per node (issue 12): nodes of 2 processes on one machine.
    "node-procs-2": {"SCOPEDSM_NODE_PROCS": "2"},
    # Remote-aware replacement against FIFO: a small cache, with homes on
    # this node and on another (nodes of 2 processes).
    "small-cache-np2": {"SCOPEDSM_CACHE_PAGES": "256", "SCOPEDSM_NODE_PROCS": "2"},
    "small-cache-np2-remote": {"SCOPEDSM_CACHE_PAGES": "256", "SCOPEDSM_NODE_PROCS": "2",
                               "SCOPEDSM_CACHE_POLICY": "remote"},
    # Task migration (jia_lbarrier; docs/STUDIES.md, the dissertation's
    # §6.7): static allocation, computation-only migration (CompMig), and
    # computation plus data migration (TaskMig). Run with --load 2,1,3,1.
    "taskmig-static": {"SCOPEDSM_TASK_MIGRATION": "off"},
    "taskmig-compute": {"SCOPEDSM_TASK_MIGRATION": "compute"},
    "taskmig-data": {"SCOPEDSM_TASK_MIGRATION": "data"},
    # The page-size sweep: coherence units of 2, 4, 8 and 16 OS pages
    # (SCOPEDSM_UNIT_PAGES; "default" is 1). One command runs it:
    # scopedsm bench --configs default,unit2,unit4,unit8,unit16
    **{f"unit{k}": {"SCOPEDSM_UNIT_PAGES": str(k)} for k in (2, 4, 8, 16)},
    # Write vectors (JIAJIA's WVEC): refetches by message bring written
    # blocks only; they act where pages travel by message (node sharing off).
    "wvec": {"SCOPEDSM_WRITE_VECTOR": "on"},
}
VARIANTS = ["seq", "dsm", "mpi", "omp"]


class BenchError(Exception):
    pass


def parse_list(text, what, convert=str):
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise BenchError(f"--{what} needs a comma-separated list")
    try:
        return [convert(t) for t in items]
    except ValueError:
        raise BenchError(f"--{what}: '{text}' is not a list of numbers") from None


def parse_configs(text):
    """{name: env} from 'default,first-touch,SCOPEDSM_CACHE_PAGES=64+SCOPEDSM_LOG=info'."""
    configs = {}
    for item in parse_list(text, "configs"):
        if item in CONFIGS:
            configs[item] = dict(CONFIGS[item])
            continue
        env = {}
        for assignment in item.split("+"):
            name, eq, value = assignment.partition("=")
            if not eq or not name.startswith("SCOPEDSM_"):
                raise BenchError(f"--configs: '{item}' is neither a known configuration "
                                 f"({', '.join(CONFIGS)}) nor SCOPEDSM_VAR=VALUE[+SCOPEDSM_VAR=VALUE...]")
            env[name] = value
        configs[item] = env
    return configs


def build_parser():
    p = argparse.ArgumentParser(prog="scopedsm bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="test sizes, one run each, correctness only")
    p.add_argument("--apps", help="comma-separated applications (default: every one built)")
    p.add_argument("--procs", default="1,2,4", help="process counts (default 1,2,4)")
    p.add_argument("--reps", type=int, help="repetitions per point (default 3; --quick: 1)")
    p.add_argument("--configs", default="default",
                   help=f"configurations of the DSM runs: {', '.join(CONFIGS)} or SCOPEDSM_VAR=VALUE[+...] "
                        "(default: default; under first-touch, apps that place homes explicitly fail)")
    p.add_argument("--variants", default=",".join(VARIANTS),
                   help="variants to run where built (default seq,dsm,mpi,omp; seq is the baseline)")
    p.add_argument("--args", action="append", default=[], metavar="APP=ARGS",
                   help="size options for one app, e.g. 'sor=-n 512 -i 20' (repeatable)")
    p.add_argument("--out", help="JSON file to write (default scopedsm-bench[-quick].json)")
    p.add_argument("--timeout", type=float, help="seconds per run before it is stopped (default 60; 900 without --quick)")
    p.add_argument("--apps-dir", help="where the application binaries are (default: this build's apps/)")
    p.add_argument("--micro", action="store_true", help="also run the micro-benchmarks in bench/micro")
    p.add_argument("--list", action="store_true", help="list the applications found and their sizes, then exit")
    p.add_argument("--load", help="competing load beside the DSM runs' ranks, as `scopedsm run --load` "
                                  "(e.g. 2,1,3,1); the other variants run without it")
    return p


def plan(found, selected, opts, ctest_args):
    """The runs to make, in order: per app its seq baseline first."""
    mode = "test" if opts.quick else "bench"
    overrides = {}
    for item in opts.args:
        app, eq, text = item.partition("=")
        if not eq:
            raise BenchError(f"--args takes APP=ARGS, not '{item}'")
        if app not in found:
            raise BenchError(f"--args: no application '{app}' here; found: {', '.join(found)}")
        overrides[app] = shlex.split(text)
    specs = []
    for app in selected:
        variants = found[app]
        if app in overrides:
            args, source = overrides[app], "--args"
        else:
            args, source = apps.size_args(app, variants, mode, ctest_args)
        for variant in VARIANTS:
            if variant not in opts.variant_list or variant not in variants:
                continue
            counts = [1] if variant == "seq" else opts.proc_list
            configs = opts.config_map.items() if variant == "dsm" else [("default", {})]
            for config, env in configs:
                for procs in counts:
                    for rep in range(1, opts.reps + 1):
                        specs.append({"app": app, "variant": variant, "procs": procs, "config": config,
                                      "env": env, "args": args, "size_source": source,
                                      "binary": variants[variant], "rep": rep,
                                      "loads": opts.load_list if variant == "dsm" else None})
    return specs


def progress_line(i, total, rec, speedup):
    label = f"{rec['app']} {rec['variant']} np={rec['procs']}"
    if rec["config"] != "default":
        label += f" [{rec['config']}]"
    t = rec.get("time_s")
    timing = f"time {t:8.4f}s" if isinstance(t, (int, float)) else "time        -"
    sp = f"x{speedup:<6.3g}" if speedup else "       "
    state = "ok" if rec["ok"] else f"FAILED: {rec['error']}"
    return f"[{i:>{len(str(total))}}/{total}] {label:<28} {timing}  wall {rec['wall_s']:7.2f}s  {sp}  {state}"


def summarize(runs, baselines):
    """One entry per (app, variant, config, procs): median/min/max over
    repetitions. Apps without a baseline get one from their ok seq runs."""
    baselines = dict(baselines)
    for app in {r.get("app") for r in runs} - set(baselines):
        base = results.spread([r.get("time_s") for r in runs
                               if r.get("app") == app and r.get("variant") == "seq" and r.get("ok")])
        if base:
            baselines[app] = base["median"]
    groups = {}
    for r in runs:
        key = (r.get("app"), r.get("variant"), r.get("config", "default"), r.get("procs"))
        groups.setdefault(key, []).append(r)
    summary = []
    for (app, variant, config, procs), rs in groups.items():
        ok = [r for r in rs if r.get("ok") and isinstance(r.get("time_s"), (int, float))]
        times = results.spread([r["time_s"] for r in ok])
        entry = {"app": app, "variant": variant, "config": config, "procs": procs, "size": rs[0].get("size"),
                 "reps": len(rs), "ok": all(r.get("ok") for r in rs),
                 "verified": all(r.get("verified") for r in rs), "time_s": times,
                 "wall_s": results.spread([r.get("wall_s") for r in ok]), "speedup": None, "stats_run": None}
        base = baselines.get(app)
        if times and base and times["median"] > 0:
            entry["speedup"] = base / times["median"]
        if times:
            median_run = min(ok, key=lambda r: abs(r["time_s"] - times["median"]))
            entry["stats_run"] = next(i for i, r in enumerate(runs) if r is median_run)
        summary.append(entry)
    return summary


# The JIAJIA dissertation's task-migration efficiency (digest §5.8): with
# loads 2, 1, 3, 1 on alternate processors the machine keeps 0.6975 of its
# power, so E = T_Ideal / T_TaskMig = 1.43 x T_Static / T_TaskMig.
TASKMIG_POWER_FACTOR = 1.43


def taskmig_efficiency(summary):
    """E = 1.43 x T_Static / T for the taskmig-compute and taskmig-data
    configurations of every (app, procs) also run under taskmig-static
    (medians of DSM runs)."""
    median = {(e["app"], e["procs"], e["config"]): e["time_s"]["median"] for e in summary
              if e["variant"] == "dsm" and e["ok"] and e["time_s"]}
    out = []
    for (app, procs, config), t_static in sorted(median.items()):
        if config != "taskmig-static":
            continue
        for mode in ("taskmig-compute", "taskmig-data"):
            t = median.get((app, procs, mode))
            if t:
                out.append({"app": app, "procs": procs, "config": mode, "t_static_s": t_static, "t_s": t,
                            "efficiency": TASKMIG_POWER_FACTOR * t_static / t})
    return out


def main(argv, config):
    parser = build_parser()
    opts = parser.parse_args(argv)
    try:
        opts.proc_list = parse_list(opts.procs, "procs", int)
        if any(p < 1 for p in opts.proc_list):
            raise BenchError("--procs: process counts must be at least 1")
        opts.config_map = parse_configs(opts.configs)
        opts.variant_list = parse_list(opts.variants, "variants")
        unknown = [v for v in opts.variant_list if v not in VARIANTS]
        if unknown:
            raise BenchError(f"--variants: unknown {', '.join(unknown)} (known: {', '.join(VARIANTS)})")
        opts.reps = opts.reps if opts.reps is not None else (1 if opts.quick else 3)
        if opts.reps < 1:
            raise BenchError("--reps must be at least 1")
        opts.timeout = opts.timeout or (60.0 if opts.quick else 900.0)
        try:
            opts.load_list = load.parse_loads(opts.load) if opts.load else None
        except load.LoadError as e:
            raise BenchError(str(e)) from None
        return run(opts, config)
    except BenchError as e:
        print(f"scopedsm bench: {e}", file=sys.stderr)
        return 2
    except launch.LaunchError as e:
        print(f"scopedsm bench: {e}", file=sys.stderr)
        return 2


def run(opts, config):
    apps_dir = opts.apps_dir or config.get("apps_dir")
    found = apps.discover(apps_dir)
    if not found:
        raise BenchError(f"no applications found in {apps_dir or '(no apps directory)'}; build them "
                         "(cmake --build <build>) or point --apps-dir at them")
    selected = parse_list(opts.apps, "apps") if opts.apps else list(found)
    missing = [a for a in selected if a not in found]
    if missing:
        raise BenchError(f"--apps: {', '.join(missing)} not built here; found: {', '.join(found)}")
    binaries = [p for a in selected for p in found[a].values()]
    ctest_args = apps.ctest_test_args(config.get("build_dir"), binaries) if opts.quick else {}
    specs = plan(found, selected, opts, ctest_args)
    if opts.list:
        for app in selected:
            args = next((s["args"] for s in specs if s["app"] == app), [])
            source = next((s["size_source"] for s in specs if s["app"] == app), "-")
            print(f"{app:<10} {' '.join(sorted(found[app])):<18} size: {' '.join(args) or '(defaults)'}"
                  f"  [{source}]")
        return 0
    launcher = launch.find_launcher(config.get("mpiexec"))
    vendor = launch.detect_vendor(launcher, config.get("mpiexec"), config.get("mpi_vendor"))
    out_path = opts.out or ("scopedsm-bench-quick.json" if opts.quick else "scopedsm-bench.json")
    started = time.monotonic()
    print(f"scopedsm bench: {len(specs)} runs of {len(selected)} applications "
          f"({'quick, test sizes' if opts.quick else 'benchmark sizes'}), results to {out_path}", flush=True)
    runs, seq_times = [], {}
    with tempfile.TemporaryDirectory(prefix="scopedsm-bench-") as tmp:
        for i, spec in enumerate(specs, 1):
            stats_path = os.path.join(tmp, "stats.json") if spec["variant"] == "dsm" else None
            rec = runner.run_once(spec, launcher, vendor, opts.timeout, stats_path, {})
            rec["size_source"] = spec["size_source"]
            runs.append(rec)
            if rec["variant"] == "seq" and rec["ok"]:
                seq_times.setdefault(rec["app"], []).append(rec["time_s"])
            base = results.spread(seq_times.get(rec["app"], []))
            speedup = base["median"] / rec["time_s"] if base and rec["ok"] and rec["time_s"] else None
            rec["speedup"] = speedup
            print(progress_line(i, len(specs), rec, speedup), flush=True)
            if not rec["ok"]:
                for line in rec.get("output_tail", []):
                    print(f"    | {line}", flush=True)
        micro_results = micro.run_all(config, launcher, vendor, opts.timeout) if opts.micro else []
    baselines = {app: results.spread(ts)["median"] for app, ts in seq_times.items() if ts}
    failures = [r for r in runs if not r["ok"]]
    failures += [dict(m, app=m["program"], variant="micro", config="default") for m in micro_results
                 if not m["ok"]]
    doc = {
        "scopedsm_bench": 1,
        "mode": "quick" if opts.quick else "bench",
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": {"hostname": platform.node(), "cores": launch.physical_cores(), "cpus": os.cpu_count(),
                 "platform": platform.platform()},
        "build": {k: config.get(k) for k in ("version", "tree", "build_type", "build_dir", "mpiexec", "mpi_vendor")},
        "settings": {"apps": selected, "procs": opts.proc_list, "reps": opts.reps, "timeout_s": opts.timeout,
                     "load": opts.load_list,
                     "configs": opts.config_map, "variants": opts.variant_list},
        "elapsed_s": round(time.monotonic() - started, 3),
        "baselines": baselines,
        "failures": len(failures),
        "runs": runs,
        "summary": summarize(runs, baselines),
        "micro": micro_results,
    }
    doc["taskmig_efficiency"] = taskmig_efficiency(doc["summary"])
    write_json(out_path, doc)
    for e in doc["taskmig_efficiency"]:
        print(f"task migration: {e['app']} np={e['procs']} {e['config']}: T_Static {e['t_static_s']:.3f} s, "
              f"T {e['t_s']:.3f} s, E = 1.43 x T_Static / T = {e['efficiency']:.2f}")
    total = len(runs) + len(micro_results)
    print(f"scopedsm bench: {total - len(failures)}/{total} runs ok in {doc['elapsed_s']:.0f} s; "
          f"wrote {out_path}" + (f" (make tables and plots: scopedsm report {out_path})" if runs else ""))
    if failures:
        print(f"scopedsm bench: {len(failures)} run(s) failed:", file=sys.stderr)
        for r in failures:
            print(f"  {r['app']} {r['variant']} np={r['procs']} [{r['config']}]: {r['error']}", file=sys.stderr)
        return 1
    return 0


def write_json(path, doc):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
