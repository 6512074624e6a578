"""`scopedsm report FILE.json... [-o DIR]`: Markdown tables and PNG plots.

Reads `scopedsm bench` JSON files, and also micro-benchmark output (one JSON
object per line, or a JSON array of them), runtime statistics files
(SCOPEDSM_STATS_FILE) and traces (SCOPEDSM_TRACE). Whatever is missing is
left out of the report. Writes DIR/report.md and, with matplotlib,
DIR/speedup.png, breakdown.png, traffic.png and micro.png (and ablation.png,
loopsched.png, ooc.png and commparams.png for those studies' configurations), and for each
statistics file ranks-NAME.png: where each process spent its time.
"""
import argparse
import json
import os
import sys

from . import ablation, bench, commparams, loopsched, ooc, plots, results, taskmig


class ReportError(Exception):
    pass


def load_inputs(paths):
    """Merges the inputs into {"runs", "summary", "micro", "sources", "failures"}."""
    merged = {"runs": [], "summary": [], "micro": [], "sources": [], "per_rank": [], "traces": []}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise ReportError(f"cannot read {path}: {e.strerror}") from e
        try:
            data = json.loads(text)
        except ValueError:
            data = results.parse_json_objects(text)
            if not data:
                raise ReportError(f"{path} is neither JSON nor JSON lines; give a scopedsm bench result, "
                                  "micro-benchmark output or a statistics file") from None
        add_document(merged, data, path)
    benches = [s for s in merged["sources"] if s.get("mode") in ("quick", "bench")]
    if len(benches) > 1:  # tell the files apart: "default" becomes "default@before"
        for item in merged["runs"] + merged["summary"]:
            if item.get("source"):
                # The studies' sections pair configurations across files by
                # the name bench gave them (results.base_config).
                item["base_config"] = item.get("config")
                item["config"] = f"{item.get('config')}@{item['source']}"
    return merged


def add_document(merged, data, path):
    name = os.path.basename(path)
    if isinstance(data, dict) and "runs" in data:
        offset = len(merged["runs"])
        stem = os.path.splitext(name)[0]
        # Files written before runs recorded their --load: the file's setting.
        settings = data.get("settings") if isinstance(data.get("settings"), dict) else {}
        file_load = settings.get("load")
        tag = commparams.settings_tag(data.get("settings"))
        runs = [dict(r, source=stem, tag=tag) for r in data.get("runs", []) if isinstance(r, dict)]
        for r in runs:
            if "load" not in r and r.get("variant") == "dsm":
                r["load"] = file_load
        merged["runs"] += runs
        summary = data.get("summary")
        if not isinstance(summary, list):
            summary = bench.summarize(runs, data.get("baselines") or {})
        for entry in summary:
            if isinstance(entry, dict):
                entry = dict(entry, source=stem, tag=tag)
                if "load" not in entry and entry.get("variant") == "dsm":
                    entry["load"] = file_load
                if isinstance(entry.get("stats_run"), int):
                    entry["stats_run"] += offset
                merged["summary"].append(entry)
        for m in data.get("micro") or []:
            if isinstance(m, dict):
                merged["micro"] += [dict(o, program=m.get("program")) for o in m.get("results", [])
                                    if isinstance(o, dict)]
        merged["sources"].append({"file": name, "mode": data.get("mode"), "created": data.get("created"),
                                  "host": data.get("host"), "build": data.get("build")})
    elif isinstance(data, dict) and "ranks" in data:
        app = results.stats_program(data, name)
        run = {"app": app, "variant": "dsm", "procs": data.get("processes") or len(data["ranks"]),
               "config": "stats file", "ok": True, "verified": None, "time_s": None, "stats": data}
        merged["runs"].append(run)
        merged["summary"].append({"app": app, "variant": "dsm", "config": "stats file", "procs": run["procs"],
                                  "ok": True, "time_s": None, "stats_run": len(merged["runs"]) - 1})
        # Two files of one name (before/stats.json, after/stats.json) must
        # not share a picture: the second gets -2, and so on.
        stem = base = os.path.splitext(name)[0]
        taken = {p["stem"] for p in merged["per_rank"]}
        n = 1
        while stem in taken:
            n += 1
            stem = f"{base}-{n}"
        merged["per_rank"].append({"app": app, "file": name, "stem": stem, "ranks": results.stats_ranks(data)})
        merged["sources"].append({"file": name, "mode": "statistics", "program": app,
                                  "created": data.get("started"), "argv": data.get("argv")})
    elif results.is_trace(data):
        other = data.get("otherData") if isinstance(data, dict) and isinstance(data.get("otherData"), dict) else {}
        merged["traces"].append({"app": other.get("program") or name, "file": name,
                                 "dropped": other.get("dropped_events"), "ranks": results.trace_summary(data),
                                 "round_trips": results.trace_round_trips(data)})
        merged["sources"].append({"file": name, "mode": "trace", "program": other.get("program")})
    else:
        objects = data if isinstance(data, list) else [data]
        micro = [o for o in objects if isinstance(o, dict) and "median" in o]
        if not micro:
            raise ReportError(f"{path} has no bench runs, statistics or micro-benchmark results")
        merged["micro"] += micro
        merged["sources"].append({"file": name, "mode": "micro-benchmarks"})


def fmt(v, digits=3):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}g}" if abs(v) < 1e4 else f"{v:,.0f}"
    return str(v)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def stats_of(entry, runs):
    i = entry.get("stats_run")
    if isinstance(i, int) and 0 <= i < len(runs) and runs[i].get("stats"):
        return runs[i]["stats"]
    return None


def speedup_rows(summary):
    """(procs list, rows of app, variant, config, speedup per procs, time per procs, source file).
    Lines with neither a speedup nor a time (a statistics file alone) are
    left out, and so are process counts that only they had."""
    lines = {}
    for e in summary:
        if e.get("variant") == "seq" or not isinstance(e.get("procs"), int):
            continue
        if e.get("speedup") is None and (e.get("time_s") or {}).get("median") is None:
            continue
        key = (e.get("app"), e.get("variant"), e.get("config"), e.get("source"))
        lines.setdefault(key, {})[e["procs"]] = e
    procs = sorted({p for by_procs in lines.values() for p in by_procs})
    rows = []
    for (app, variant, config, source), by_procs in sorted(lines.items(), key=lambda kv: tuple(map(str, kv[0]))):
        sp = [by_procs.get(p, {}).get("speedup") for p in procs]
        times = [((by_procs.get(p) or {}).get("time_s") or {}).get("median") for p in procs]
        rows.append((app, variant, config, sp, times, source))
    return procs, rows


def breakdown_rows(summary, runs):
    rows = []
    for e in summary:
        stats = stats_of(e, runs)
        if e.get("variant") != "dsm" or not stats:
            continue
        t = results.stats_totals(stats)
        rows.append({"app": e.get("app"), "config": e.get("config"), "procs": e.get("procs"),
                     "time_s": t["time_s"], "messages": t["messages"], "bytes": t["bytes"]})
    return sorted(rows, key=lambda r: (str(r["app"]), str(r["config"]), r["procs"] or 0))


def micro_rows(micro):
    rows = []
    for obj in micro:
        parsed = results.micro_ratio(obj)
        if parsed is None:
            continue
        name, median, base_median, ratio, unit = parsed
        base = obj.get("baseline") if isinstance(obj.get("baseline"), dict) else {}
        rows.append({"name": name, "procs": obj.get("procs"), "unit": unit, "median": median,
                     "baseline": base.get("what"), "baseline_median": base_median, "ratio": ratio,
                     "target": obj.get("target_ratio"), "meets": obj.get("meets_target")})
    return rows


def per_rank_picture(per):
    return f"ranks-{per['stem']}"


def per_rank_section(per, pictures):
    """Where each process of one statistics file spent its time."""
    rows = per["ranks"]
    if not rows:
        return []
    out = [f"## Where each process spent its time: {per['app']} (`{per['file']}`)", "",
           "Seconds per process. busy + data + segv + syn + atomic = total, the application thread's time; server (the "
           "service thread) and diff (made during data and syn, applied while serving) run beside it. "
           "Messages and KiB are those the process sent.", ""]
    out.append(table(["rank", "host", "total"] + results.TIME_CATEGORIES + ["faults", "fetches", "messages sent",
                                                                          "KiB sent"],
                     [(r["rank"], r["host"], r["total"], *[r["time_s"][c] for c in results.TIME_CATEGORIES],
                       r["faults"], r["fetches"], r["messages"], r["bytes"] / 1024.0) for r in rows]))
    out.append("")
    name = per_rank_picture(per)
    if name in pictures:
        out += [f"![{name}]({name}.png)", ""]
    return out


def trace_section(trace):
    """Per rank of one trace: events and milliseconds in each category."""
    ranks = trace["ranks"]
    cats = list(results.TRACE_CATEGORIES)
    cats += sorted({c for r in ranks for c in r["categories"]} - set(cats))
    out = [f"## Trace: {trace['app']} (`{trace['file']}`)", "",
           "Events and their total milliseconds per rank and category. Events nest (a fetch inside a fault, "
           "serving inside a wait), so categories overlap.", ""]
    if trace.get("dropped"):
        out += [f"The trace misses {trace['dropped']} events: a thread's log was full.", ""]
    if not ranks:
        return out + ["The trace has no events.", ""]
    rows = []
    for r in ranks:
        row = [r["rank"]]
        for c in cats:
            got = r["categories"].get(c)
            row.append(f"{got['count']} / {got['ms']:.3g}" if got else None)
        rows.append(row)
    out.append(table(["rank"] + [f"{c} (n / ms)" for c in cats], rows))
    out.append("")
    trips = trace.get("round_trips") or []
    if trips:
        out += ["### Round trips", "",
                "Requests served for a rank of the same host, with the requester's event that waited for "
                "each (medians, µs): the request leg runs from the event's start to the serve's (encoding, "
                "sending, the home noticing), the reply leg from the serve's end to the event's end (the "
                "reply's delivery, the requester noticing, what it does after)."
                + ("" if all(t["aligned"] for t in trips) else
                   " This trace has no clock origins, so the split between the legs is off by the ranks' "
                   "start skew (their sum is exact)."), ""]
        out.append(table(["request", "requester's event", "n", "event", "request leg", "serve", "reply leg"],
                         [(t["request"], t["event"], t["count"], t["event_us"], t["request_us"], t["serve_us"],
                           t["reply_us"]) for t in trips]))
        out.append("")
    return out


def merged_cpus(merged):
    """The CPU count of the machine the first bench file ran on (None if unknown)."""
    for src in merged.get("sources", []):
        host = src.get("host") if isinstance(src, dict) else None
        if isinstance(host, dict) and isinstance(host.get("cpus"), int):
            return host["cpus"]
    return None


def write_markdown(path, merged, pictures, notes):
    summary, runs = merged["summary"], merged["runs"]
    out = ["# ScopeDSM report", ""]
    for s in merged["sources"]:
        host = s.get("host") or {}
        build = s.get("build") or {}
        bits = [f"`{s['file']}`", s.get("mode") or "", f"`{s['program']}`" if s.get("program") else "",
                s.get("created") or "",
                f"{host.get('hostname', '')} ({host.get('cores', '?')} cores)" if host else "",
                f"ScopeDSM {build.get('version')}, {build.get('mpi_vendor') or ''}" if build else ""]
        out.append("- " + ", ".join(b for b in bits if b))
    out.append("")
    procs, srows = speedup_rows(summary)
    if srows:
        out += ["## Speedup over the sequential build", "",
                "Median compute time of `<app>_seq` divided by the median compute time of the run.", ""]
        out.append(table(["app", "variant", "config"] + [f"np={p}" for p in procs],
                         [(a, v, c, *sp) for a, v, c, sp, _, _ in srows]))
        out += ["", "## Compute time (s, median)", ""]
        seq = {(e.get("app"), e.get("source")): (e.get("time_s") or {}).get("median")
               for e in summary if e.get("variant") == "seq"}
        out.append(table(["app", "variant", "config", "seq"] + [f"np={p}" for p in procs],
                         [(a, v, c, seq.get((a, src)), *ts) for a, v, c, _, ts, src in srows]))
        out.append("")
        if "speedup" in pictures:
            out += ["![speedup](speedup.png)", ""]
    brows = breakdown_rows(summary, runs)
    if brows:
        out += ["## Overhead breakdown (s, mean over processes)", "",
                "JIAJIA's categories: busy computing, data (page faults served), segv (fault entry/exit), "
                "syn (locks, barriers), atomic (atomics and AMO calls at the home), server (service thread, runs beside the "
                "others), diff.", ""]
        out.append(table(["app", "config", "np"] + results.TIME_CATEGORIES,
                         [(r["app"], r["config"], r["procs"], *[r["time_s"][c] for c in results.TIME_CATEGORIES])
                          for r in brows]))
        out.append("")
        if "breakdown" in pictures:
            out += ["![breakdown](breakdown.png)", ""]
        out += ["## Messages and bytes sent (all processes)", ""]
        out.append(table(["app", "config", "np", "messages", "KiB"],
                         [(r["app"], r["config"], r["procs"], r["messages"], r["bytes"] / 1024.0) for r in brows]))
        out.append("")
        if "traffic" in pictures:
            out += ["![traffic](traffic.png)", ""]
    arows = ablation.rows(summary, runs)
    if arows:
        out += ablation.markdown(arows)
        if "ablation" in pictures:
            out += ["![ablation](ablation.png)", ""]
    trows = taskmig.rows(summary, merged_cpus(merged))
    out += taskmig.markdown(trows)
    if trows and "taskmig" in pictures:
        out += ["![task migration](taskmig.png)", ""]
    lrows = loopsched.rankings(summary, runs)
    out += loopsched.markdown(lrows)
    if lrows and "loopsched" in pictures:
        out += ["![loop schedules](loopsched.png)", ""]
    out += commparams.markdown(summary, runs)
    if "commparams" in pictures:
        out += ["![Table 3](commparams.png)", ""]
    orows = ooc.rows(summary, runs)
    out += ooc.markdown(orows)
    if orows and "ooc" in pictures:
        out += ["![out of core](ooc.png)", ""]
    for per in merged["per_rank"]:
        out += per_rank_section(per, pictures)
    for trace in merged["traces"]:
        out += trace_section(trace)
    mrows = micro_rows(merged["micro"])
    if mrows:
        out += ["## Micro-benchmarks against their baselines", "",
                "ratio = median / baseline median.", ""]
        out.append(table(["benchmark", "np", "unit", "median", "baseline", "baseline median", "ratio", "target",
                          "meets target"],
                         [(r["name"], r["procs"], r["unit"], r["median"], r["baseline"], r["baseline_median"],
                           r["ratio"], r["target"], r["meets"]) for r in mrows]))
        out.append("")
        if "micro" in pictures:
            out += ["![micro](micro.png)", ""]
    failed = [r for r in runs if r.get("ok") is False]
    if failed:
        out += ["## Failed runs", ""]
        out += [f"- {r.get('app')} {r.get('variant')} np={r.get('procs')} [{r.get('config')}]: {r.get('error')}"
                for r in failed]
        out.append("")
    if not (srows or brows or mrows or merged["traces"]):
        out += ["No speedups, statistics or micro-benchmark results were found in the input.", ""]
    out += [f"_{n}_" for n in notes]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out).rstrip() + "\n")


def main(argv, config):
    p = argparse.ArgumentParser(prog="scopedsm report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="FILE.json")
    p.add_argument("-o", "--out-dir", help="output directory (default: FILE-report beside the first input)")
    opts = p.parse_args(argv)
    out_dir = opts.out_dir or os.path.splitext(opts.inputs[0])[0] + "-report"
    try:
        merged = load_inputs(opts.inputs)
        os.makedirs(out_dir, exist_ok=True)
    except ReportError as e:
        print(f"scopedsm report: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"scopedsm report: cannot create {out_dir}: {e.strerror}", file=sys.stderr)
        return 2
    procs, srows = speedup_rows(merged["summary"])
    data = {"speedup": (procs, srows), "breakdown": breakdown_rows(merged["summary"], merged["runs"]),
            "micro": micro_rows(merged["micro"]), "ablation": ablation.rows(merged["summary"], merged["runs"]),
            "loopsched": loopsched.rankings(merged["summary"], merged["runs"]),
            "taskmig": taskmig.rows(merged["summary"], merged_cpus(merged)),
            "ooc": ooc.rows(merged["summary"], merged["runs"]),
            "commparams": commparams.table3(merged["summary"]),
            "ranks": [(per_rank_picture(per), per) for per in merged["per_rank"]]}
    pictures, notes = plots.draw_all(out_dir, data)
    md = os.path.join(out_dir, "report.md")
    write_markdown(md, merged, pictures, notes)
    # A statistics file's or a trace's tables are short: printed as well.
    for section in [per_rank_section(per, ()) for per in merged["per_rank"]] + \
            [trace_section(trace) for trace in merged["traces"]]:
        print("\n".join(section))
    for n in notes:
        print(f"scopedsm report: {n}", file=sys.stderr)
    written = [md] + [os.path.join(out_dir, f"{name}.png") for name in pictures]
    print("scopedsm report: wrote " + ", ".join(written))
    return 0
