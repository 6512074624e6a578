"""`scopedsm bench`: runs applications x process counts x configurations,
one line of progress per run, and writes everything to one JSON file.

  scopedsm bench --quick      every app at its test size on 1, 2 and 4
                              processes, once; fails if any run fails or
                              does not verify (a correctness sweep)
  scopedsm bench              benchmark sizes, --reps repetitions each
                              (median, min, max), speedup over <app>_seq

Bilas and Singh's sweeps (commparams.py, docs/STUDIES.md §6): one command
each, e.g. `scopedsm bench --configs sweep-interrupt --hosts 2 --procs 8`;
`--set SCOPEDSM_FETCH=message` adds a setting to every configuration.
"""
import argparse
import contextlib
import datetime
import json
import os
import platform
import shlex
import signal
import sys
import tempfile
import time

from . import apps, commparams, hosts, launch, load, micro, results, runner

# The loop-scheduling study's configurations: sched-<scheme> -> its
# SCOPEDSM_SCHEDULE, in the order of the dissertation's tables.
SCHED_SCHEMES = [("static", "static"), ("ss", "ss"), ("bss", "bss"), ("gss", "gss"), ("fs", "fs"),
                 ("tss", "tss"), ("sss", "sss,0.90625"), ("afs", "afs"), ("aafs", "aafs"), ("abs", "abs")]
SCHED_CONFIGS = {f"sched-{name}": {"SCOPEDSM_SCHEDULE": text} for name, text in SCHED_SCHEMES}

# Named configurations: SCOPEDSM_* settings for the DSM runs, and optionally
# "args", options appended to the app's own in those runs (for configurations
# that are an app's switch, such as ooc's -H). Under first-touch, apps that
# place homes explicitly (jia_alloc3) stop with an error.
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
    "jia-w-c-b": {"SCOPEDSM_WRITE_DETECT": "cache-only", "SCOPEDSM_BARRIER": "dissemination"},
    "jia-w-b": {"SCOPEDSM_BARRIER": "dissemination"},
    "hmig": {"SCOPEDSM_HOME_MIGRATION": "on"},
    # Remote-aware replacement against FIFO: a small cache, with homes on
    # this node and on another (nodes of 2 processes).
    "small-cache-np2": {"SCOPEDSM_CACHE_PAGES": "256", "SCOPEDSM_NODE_PROCS": "2"},
    "small-cache-np2-remote": {"SCOPEDSM_CACHE_PAGES": "256", "SCOPEDSM_NODE_PROCS": "2",
                               "SCOPEDSM_CACHE_POLICY": "remote"},
    # Task migration (jia_lbarrier; docs/STUDIES.md, the dissertation's
    # §6.7): static allocation, computation-only migration (CompMig), and
    # computation plus data migration (TaskMig). Run with --load 2,1,3,1.
    # taskmig-dedicated: static allocation with the ranks pinned as under
    # --load but with no load beside them (the dissertation's T_Static on a
    # dedicated machine, from which T_Ideal follows).
    "taskmig-dedicated": {"SCOPEDSM_TASK_MIGRATION": "off"},
    "taskmig-static": {"SCOPEDSM_TASK_MIGRATION": "off"},
    "taskmig-compute": {"SCOPEDSM_TASK_MIGRATION": "compute"},
    "taskmig-data": {"SCOPEDSM_TASK_MIGRATION": "data"},
    # The granularity sweeps (issue 12): coherence units of 2, 4, 8 and 16
    # OS pages (unit2..unit16, SCOPEDSM_UNIT_PAGES; "default" is 1) and
    # nodes of 1, 2, 4 and 8 processes on one machine (node-procs-1..8,
    # SCOPEDSM_NODE_PROCS). One command each: --configs sweep-unit, sweep-node-procs.
    **commparams.granularity_configs(),
    # Bilas and Singh's communication costs (SCOPEDSM_NET): net-achievable
    # and each sweep's points, in the absolute and relative (-rel) mappings.
    **commparams.configs(),
    # Loop scheduling (docs/STUDIES.md §4, the dissertation's §6.6): every
    # scheme of Tab 5.1 on the DOALL loops of apps/loops, with the
    # dissertation's parameters (BSS K = N/4P, SSS alpha = 0.90625, AFS and
    # AAFS k = P, ABS with GSS locally, chunk R_i/P: the runtime's defaults,
    # docs/SCHEDULING.md). Dedicated set-up: no --load; loaded: --load 0,2,0,1.
    **SCHED_CONFIGS,
    # Write vectors (JIAJIA's WVEC): refetches by message bring written
    # blocks only; they act where pages travel by message (node sharing off).
    "wvec": {"SCOPEDSM_WRITE_VECTOR": "on"},
    # The out-of-core study (docs/STUDIES.md §5), for --apps ooc: demand
    # paging alone, the kernel's explicit hints (ooc -H 1), the runtime's
    # automatic hints (SCOPEDSM_AUTO_HINTS), and both; the -sync ones wait
    # for every prefetched run before the hint returns (SCOPEDSM_PREFETCH=sync),
    # to show what leaving runs in flight buys.
    "ooc-demand": {"SCOPEDSM_AUTO_HINTS": "off"},
    "ooc-explicit": {"SCOPEDSM_AUTO_HINTS": "off", "args": ["-H", "1"]},
    "ooc-explicit-sync": {"SCOPEDSM_AUTO_HINTS": "off", "SCOPEDSM_PREFETCH": "sync", "args": ["-H", "1"]},
    "ooc-auto": {"SCOPEDSM_AUTO_HINTS": "on"},
    "ooc-auto-sync": {"SCOPEDSM_AUTO_HINTS": "on", "SCOPEDSM_PREFETCH": "sync"},
    "ooc-both": {"SCOPEDSM_AUTO_HINTS": "on", "args": ["-H", "1"]},
}
# Names that stand for a list of configurations (`--configs sweep-interrupt`).
SWEEPS = commparams.sweeps()
VARIANTS = ["seq", "dsm", "mpi", "omp"]
# Configurations whose DSM runs are pinned as under --load, with no load.
DEDICATED_CONFIGS = {"taskmig-dedicated"}


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


# Names for several configurations at once: --configs sched runs every
# scheme of the loop-scheduling study; a sweep's name (SWEEPS) stands for its
# configurations.
CONFIG_GROUPS = {"sched": list(SCHED_CONFIGS), **SWEEPS}


def split_config(settings):
    """(env, extra app arguments) of a configuration."""
    return {k: v for k, v in settings.items() if k != "args"}, list(settings.get("args", []))


def known_configs_text():
    """The configurations' names, the cost model's points as patterns, and the groups."""
    named = [c for c in CONFIGS if not c.startswith("net-")]
    return (", ".join(named) + ", net-achievable[-rel], net-<overhead|occupancy|bandwidth|interrupt>-<point>[-rel] "
            f"(scopedsm_tools/commparams.py), or a group: {', '.join(CONFIG_GROUPS)}")


def scopedsm_setting(text):
    """(name, value) of 'SCOPEDSM_VAR=VALUE', None for anything else."""
    name, eq, value = text.partition("=")
    return (name, value) if eq and name.startswith("SCOPEDSM_") else None


def parse_configs(text):
    """{name: settings} from 'default,first-touch,SCOPEDSM_CACHE_PAGES=64+SCOPEDSM_LOG=info'
    (a group name of CONFIG_GROUPS stands for its configurations)."""
    configs = {}
    items = []
    for item in parse_list(text, "configs"):
        items += CONFIG_GROUPS.get(item, [item])
    for item in items:
        if item in CONFIGS:
            configs[item] = dict(CONFIGS[item])
            continue
        env = {}
        for assignment in item.split("+"):
            setting = scopedsm_setting(assignment)
            if setting is None:
                raise BenchError(f"--configs: '{item}' is neither a known configuration "
                                 f"({known_configs_text()}) nor SCOPEDSM_VAR=VALUE[+SCOPEDSM_VAR=VALUE...]")
            env[setting[0]] = setting[1]
        configs[item] = env
    return configs


def apply_settings(configs, settings):
    """Every configuration with the --set settings ['SCOPEDSM_VAR=VALUE', ...]
    added; a configuration that sets the variable otherwise is an error."""
    extra = {}
    for item in settings:
        setting = scopedsm_setting(item)
        if setting is None:
            raise BenchError(f"--set takes SCOPEDSM_VAR=VALUE, not '{item}'")
        name, value = setting
        if name in extra and extra[name] != value:
            raise BenchError(f"--set gives {name} twice ({extra[name]} and {value})")
        extra[name] = value
    out = {}
    for config, env in configs.items():
        for name, value in extra.items():
            if name in env and env[name] != value:
                raise BenchError(f"--set {name}={value} contradicts configuration '{config}', which sets "
                                 f"{name}={env[name]}; leave one out")
        out[config] = dict(env, **extra)
    return out


def check_hosts(count, proc_list):
    """Every process count must fill `count` namespaced hosts (as scopedsm run --hosts spreads them)."""
    if count < 1:
        raise BenchError(f"--hosts takes a host count of at least 1, not {count}")
    for procs in proc_list:
        if procs < count:
            raise BenchError(f"--hosts {count}: {procs} processes leave a host empty; give --procs of at "
                             f"least {count}")
        per_host = -(-procs // count)
        if procs < 1 + (count - 1) * per_host:
            raise BenchError(f"--hosts {count}: {procs} processes leave a host empty at {per_host} per host")


def build_parser():
    p = argparse.ArgumentParser(prog="scopedsm bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="test sizes, one run each, correctness only")
    p.add_argument("--apps", help="comma-separated applications (default: every one built)")
    p.add_argument("--procs", default="1,2,4", help="process counts (default 1,2,4)")
    p.add_argument("--reps", type=int, help="repetitions per point (default 3; --quick: 1)")
    p.add_argument("--configs", default="default",
                   help=f"configurations of the DSM runs: {known_configs_text()}; or SCOPEDSM_VAR=VALUE[+...] "
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
    p.add_argument("--set", action="append", default=[], metavar="SCOPEDSM_VAR=VALUE",
                   help="add a setting to every configuration's DSM runs, e.g. SCOPEDSM_FETCH=message "
                        "(repeatable; a configuration that sets the variable otherwise is an error)")
    p.add_argument("--hosts", type=int, help="run the DSM runs on this many namespaced hosts of this machine, as "
                                             "`scopedsm run --hosts` (root; processes spread evenly)")
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
        args = apps.kernel_args(app) + args
        for variant in VARIANTS:
            if variant not in opts.variant_list or variant not in variants:
                continue
            counts = [1] if variant == "seq" else opts.proc_list
            configs = opts.config_map.items() if variant == "dsm" else [("default", {})]
            for config, settings in configs:
                env, extra = split_config(settings)
                for procs in counts:
                    for rep in range(1, opts.reps + 1):
                        specs.append({"app": app, "variant": variant, "procs": procs, "config": config,
                                      "env": env, "args": args + extra, "size_source": source,
                                      "binary": variants[variant], "rep": rep,
                                      "loads": run_loads(opts.load_list, variant, config, procs)})
    return specs


def run_loads(load_list, variant, config, procs):
    """The busy processes beside each rank of one run: --load for DSM runs,
    none (but pinned alike) for a dedicated configuration, nothing else."""
    if variant != "dsm":
        return None
    if config in DEDICATED_CONFIGS:
        return [0] * procs
    return load_list


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
                 "reps": len(rs), "ok": all(r.get("ok") for r in rs), "load": rs[0].get("load"),
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


# The JIAJIA dissertation's task-migration efficiency (digest §5.8):
# T_Ideal x Power' = T_Static x Power, T_Static the static allocation's time
# on the dedicated machine, Power' the power the loads leave. With loads 2,
# 1, 3, 1 on alternate processors of 8, Power' = 0.6975 Power, so
# E = T_Ideal / T_TaskMig = 1.43 x T_Static / T_TaskMig.


def power_left(loads, procs, cpus):
    """Power' / Power for `procs` ranks pinned round robin to `cpus` CPUs
    (scopedsm run --load) with loads[r] busy processes beside rank r: each
    rank's share of its CPU loaded over its share dedicated, averaged over
    the ranks. One rank per CPU: the mean of 1 / (1 + L_r)."""
    loads = list(loads or []) + [0] * procs
    ranks_on, load_on = [0] * cpus, [0] * cpus
    for r in range(procs):
        ranks_on[r % cpus] += 1
        load_on[r % cpus] += loads[r]
    return sum(ranks_on[r % cpus] / (ranks_on[r % cpus] + load_on[r % cpus]) for r in range(procs)) / procs


def taskmig_efficiency(summary, loads=None, cpus=None):
    """For every (app, procs) run under taskmig-dedicated (pinned, no load):
    T_Ideal = T_dedicated / Power', and for taskmig-static, -compute and
    -data E = T_Ideal / T and the gain over static (medians of DSM runs)."""
    cpus = cpus or len(os.sched_getaffinity(0))
    median = {(e["app"], e["procs"], e["config"]): e["time_s"]["median"] for e in summary
              if e.get("variant") == "dsm" and e.get("ok") and e.get("time_s")}
    out = []
    for (app, procs, config), t_dedicated in sorted(median.items()):
        if config != "taskmig-dedicated":
            continue
        power = power_left(loads, procs, cpus)
        t_ideal = t_dedicated / power
        t_static = median.get((app, procs, "taskmig-static"))
        for mode in ("taskmig-static", "taskmig-compute", "taskmig-data"):
            t = median.get((app, procs, mode))
            if t:
                out.append({"app": app, "procs": procs, "config": mode, "t_dedicated_s": t_dedicated,
                            "power_left": power, "t_ideal_s": t_ideal, "t_static_s": t_static, "t_s": t,
                            "efficiency": t_ideal / t,
                            "gain_over_static": (t_static / t - 1) if t_static else None})
    return out


def main(argv, config):
    parser = build_parser()
    opts = parser.parse_args(argv)
    try:
        opts.proc_list = parse_list(opts.procs, "procs", int)
        if any(p < 1 for p in opts.proc_list):
            raise BenchError("--procs: process counts must be at least 1")
        opts.config_map = apply_settings(parse_configs(opts.configs), opts.set)
        if opts.hosts is not None:
            check_hosts(opts.hosts, opts.proc_list)
            if opts.load:
                raise BenchError("--load and --hosts cannot be combined")
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
    except hosts.HostsError as e:
        print(f"scopedsm bench: {e}; run without --hosts", file=sys.stderr)
        return 2


def _raise_exit(sig, _frame):
    raise SystemExit(128 + sig)


def run(opts, config):
    apps_dir = opts.apps_dir or config.get("apps_dir")
    found = apps.discover(apps_dir)
    if not found:
        raise BenchError(f"no applications found in {apps_dir or '(no apps directory)'}; build them "
                         "(cmake --build <build>) or point --apps-dir at them")
    selected, missing = apps.select(parse_list(opts.apps, "apps"), found) if opts.apps else (list(found), [])
    if missing:
        raise BenchError(f"--apps: {', '.join(missing)} not built here; found: {', '.join(found)}")
    binaries = [p for a in selected for p in found[a].values()]
    ctest_args = apps.ctest_test_args(config.get("build_dir"), binaries) if opts.quick else {}
    specs = plan(found, selected, opts, ctest_args)
    if opts.list:
        for app in selected:
            args = next((s["args"] for s in specs if s["app"] == app), [])
            source = next((s["size_source"] for s in specs if s["app"] == app), "-")
            print(f"{app:<12} {' '.join(sorted(found[app])):<18} size: {' '.join(args) or '(defaults)'}"
                  f"  [{source}]")
        return 0
    launcher = launch.find_launcher(config.get("mpiexec"))
    vendor = launch.detect_vendor(launcher, config.get("mpiexec"), config.get("mpi_vendor"))
    out_path = opts.out or ("scopedsm-bench-quick.json" if opts.quick else "scopedsm-bench.json")
    started = time.monotonic()
    print(f"scopedsm bench: {len(specs)} runs of {len(selected)} applications "
          f"({'quick, test sizes' if opts.quick else 'benchmark sizes'}), results to {out_path}", flush=True)
    runs, seq_times = [], {}
    # The namespaced hosts live as long as the bench, and are removed at any
    # end asked of us (as scopedsm run --hosts does).
    previous = {sig: signal.signal(sig, _raise_exit) for sig in (signal.SIGTERM, signal.SIGHUP)} if opts.hosts else {}
    try:
        with tempfile.TemporaryDirectory(prefix="scopedsm-bench-") as tmp, \
                (hosts.Hosts(opts.hosts) if opts.hosts else contextlib.nullcontext()) as h:
            micro_results = run_specs(specs, opts, config, launcher, vendor, tmp, h, runs, seq_times)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
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
                     "load": opts.load_list, "set": opts.set, "hosts": opts.hosts,
                     "configs": opts.config_map, "variants": opts.variant_list},
        "elapsed_s": round(time.monotonic() - started, 3),
        "baselines": baselines,
        "failures": len(failures),
        "runs": runs,
        "summary": summarize(runs, baselines),
        "micro": micro_results,
    }
    doc["taskmig_efficiency"] = taskmig_efficiency(doc["summary"], opts.load_list)
    write_json(out_path, doc)
    for e in doc["taskmig_efficiency"]:
        print(f"task migration: {e['app']} np={e['procs']} {e['config']}: T_dedicated {e['t_dedicated_s']:.3f} s, "
              f"Power' {e['power_left']:.3f}, T_Ideal {e['t_ideal_s']:.3f} s, T {e['t_s']:.3f} s, "
              f"E = T_Ideal / T = {e['efficiency']:.2f}")
    total = len(runs) + len(micro_results)
    print(f"scopedsm bench: {total - len(failures)}/{total} runs ok in {doc['elapsed_s']:.0f} s; "
          f"wrote {out_path}" + (f" (make tables and plots: scopedsm report {out_path})" if runs else ""))
    if failures:
        print(f"scopedsm bench: {len(failures)} run(s) failed:", file=sys.stderr)
        for r in failures:
            print(f"  {r['app']} {r['variant']} np={r['procs']} [{r['config']}]: {r['error']}", file=sys.stderr)
        return 1
    return 0


def run_specs(specs, opts, config, launcher, vendor, tmp, host_set, runs, seq_times):
    """Runs every spec in turn (the DSM runs on `host_set`, namespaced hosts,
    when not None), appending to `runs` and `seq_times`; then the
    micro-benchmarks if asked. Returns their results."""
    for i, spec in enumerate(specs, 1):
        dsm = spec["variant"] == "dsm"
        stats_path = os.path.join(tmp, "stats.json") if dsm else None
        placement = None
        if dsm and host_set is not None:
            per_host = -(-spec["procs"] // host_set.count)
            placement = (host_set.launcher_args(vendor, per_host), host_set.environment(dict(os.environ)))
        rec = runner.run_once(spec, launcher, vendor, opts.timeout, stats_path, placement[1] if placement else {},
                              launcher_args=placement[0] if placement else ())
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
    return micro.run_all(config, launcher, vendor, opts.timeout) if opts.micro else []


def write_json(path, doc):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
