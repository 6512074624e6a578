"""Checks the files a ScopeDSM run wrote at exit; the tools tests in CTest
run it after a small job.

usage: check_output_files.py stats FILE --procs N --program NAME [--setting KEY=VALUE]...
       check_output_files.py trace FILE --procs N --categories fault,fetch,...

stats: the statistics file (SCOPEDSM_STATS_FILE) names the program, its
command line, start time, hosts and nodes, has a structured config (with
each --setting's value), and one record per rank.
trace: the trace (SCOPEDSM_TRACE) is trace-event JSON with a named process
per rank, and complete events of every given category with sane fields.
Prints what is wrong and exits 1, or prints a summary and exits 0.
"""
import argparse
import json
import re
import sys

X_FIELDS = {"name": str, "cat": str, "ph": str, "ts": (int, float), "dur": (int, float), "pid": int, "tid": int}


def check_stats(doc, procs, program, settings=()):
    problems = []
    if doc.get("scopedsm_stats") != 2:
        problems.append(f"scopedsm_stats is {doc.get('scopedsm_stats')!r}, expected 2")
    if doc.get("program") != program:
        problems.append(f"program is {doc.get('program')!r}, expected {program!r}")
    argv = doc.get("argv")
    if not (isinstance(argv, list) and argv and str(argv[0]).endswith(program)):
        problems.append(f"argv {argv!r} does not start with the program")
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", str(doc.get("started"))):
        problems.append(f"started {doc.get('started')!r} is not ISO 8601 UTC")
    config = doc.get("config")
    if not isinstance(config, dict) or config.get("log") not in ("error", "warn", "info", "debug"):
        problems.append(f"config is not an object of settings with a log level: {config!r}")
    for setting in settings:
        key, _, value = setting.partition("=")
        if not isinstance(config, dict) or config.get(key) != value:
            problems.append(f"config's {key} is {(config or {}).get(key)!r}, expected {value!r}")
    ranks = doc.get("ranks") or []
    if len(ranks) != procs or doc.get("processes") != procs:
        problems.append(f"{len(ranks)} rank records, processes {doc.get('processes')}, expected {procs}")
    if any(not r.get("host") for r in ranks):
        problems.append("a rank has no host")
    nodes = doc.get("nodes") or []
    if sorted(rank for n in nodes for rank in n.get("ranks", [])) != list(range(procs)):
        problems.append(f"the nodes {nodes!r} do not hold every rank once")
    if any(not n.get("host") for n in nodes):
        problems.append("a node has no host")
    return problems, f"{program}: {procs} ranks on {len(nodes)} node(s), {len(config or {})} settings"


def check_trace(doc, procs, categories):
    problems = []
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        return ["no traceEvents list"], ""
    named = {e.get("pid") for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    if named != set(range(procs)):
        problems.append(f"processes named {sorted(named)}, expected ranks 0 to {procs - 1}")
    counts = {}
    for e in events:
        if e.get("ph") != "X":
            continue
        for field, kind in X_FIELDS.items():
            if not isinstance(e.get(field), kind) or isinstance(e.get(field), bool):
                problems.append(f"event {e} has no proper {field}")
        if not (isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0 and e.get("dur", -1) >= 0):
            problems.append(f"event {e} has a negative time")
        if e.get("pid") not in range(procs) or e.get("tid") not in (0, 1):
            problems.append(f"event {e} names no rank's thread")
        counts[(e.get("pid"), e.get("cat"))] = counts.get((e.get("pid"), e.get("cat")), 0) + 1
        if len(problems) > 10:
            break
    for cat in categories:
        if not any(c == cat for _, c in counts):
            problems.append(f"no {cat} event")
    summary = ", ".join(f"{c}: {sum(n for (_, k), n in counts.items() if k == c)}" for c in sorted({c for _, c in counts}))
    return problems, summary


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["stats", "trace"])
    p.add_argument("file")
    p.add_argument("--procs", type=int, required=True)
    p.add_argument("--program")
    p.add_argument("--categories", default="")
    p.add_argument("--setting", action="append", default=[], help="KEY=VALUE the config must hold")
    opts = p.parse_args(argv)
    try:
        with open(opts.file, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_output_files.py: {opts.file}: {e}", file=sys.stderr)
        return 1
    if opts.kind == "stats":
        problems, summary = check_stats(doc, opts.procs, opts.program, opts.setting)
    else:
        problems, summary = check_trace(doc, opts.procs, [c for c in opts.categories.split(",") if c])
    for problem in problems:
        print(f"check_output_files.py: {opts.file}: {problem}", file=sys.stderr)
    if not problems:
        print(f"{opts.file}: ok ({summary})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
