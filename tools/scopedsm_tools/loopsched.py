"""The loop-scheduling study (the JIAJIA dissertation's §6.6; docs/STUDIES.md
§4) from `scopedsm bench` results: for each kernel, process count and
set-up (dedicated, or loaded with `--load`), the schemes ranked by median
time, with what their loops cost, from the loop counters of the median run's
statistics summed over processes: chunks taken (grabs), of them stolen
(steals), lock acquisitions per grab (syncs/grab) and messages per grab.

A scheme is a bench configuration sched-<scheme> (bench.SCHED_CONFIGS).
When several bench files are read together, report names their
configurations <config>@<file> (results.base_config gives the scheme's
name back); the set-up is told by each run's --load, and the file is kept
apart (two dedicated files are two rankings).
"""
from . import bench, figures, results

PREFIX = "sched-"
# The dissertation's names for the schemes, in its tables' order.
NAMES = {"static": "Static", "ss": "SS", "bss": "BSS", "gss": "GSS", "fs": "FS", "tss": "TSS", "sss": "SSS",
         "afs": "AFS", "aafs": "AAFS", "abs": "ABS"}
COUNTERS = ("loop_grabs", "loop_steals", "loop_syncs", "loop_messages")


def scheme_of(config):
    """'abs' for 'sched-abs'; None for other configurations."""
    config = str(config or "")
    if not config.startswith(PREFIX) or config not in bench.SCHED_CONFIGS:
        return None
    return config[len(PREFIX):]


def setup_of(load):
    """'dedicated', or 'loaded 0,2,0,1' for a run made with --load."""
    if isinstance(load, list) and any(isinstance(n, int) and n > 0 for n in load):
        return "loaded " + ",".join(str(n) for n in load)
    return "dedicated"


def loop_counters(stats):
    """{counter: sum over ranks} of the loop counters of a statistics object."""
    totals = dict.fromkeys(COUNTERS, 0)
    for r in (stats or {}).get("ranks") or []:
        c = r.get("counters") if isinstance(r, dict) and isinstance(r.get("counters"), dict) else {}
        for k in COUNTERS:
            v = c.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                totals[k] += v
    return totals


def rankings(summary, runs):
    """[((app, procs, setup, source), [row, ...])]: per kernel, process count,
    set-up and file with DSM runs of at least two schemes, the schemes from
    fastest to slowest (median time; failed schemes last, without a time).
    Each row: scheme, name, time_s, ratio (to the fastest), ok, grabs,
    steals, syncs_per_grab, msgs_per_grab (None without statistics)."""
    groups = {}
    for e in summary:
        scheme = scheme_of(results.base_config(e))
        if scheme is None or e.get("variant") != "dsm" or not isinstance(e.get("procs"), int):
            continue
        time = (e.get("time_s") or {}).get("median") if e.get("ok") else None
        i = e.get("stats_run")
        stats = runs[i].get("stats") if isinstance(i, int) and 0 <= i < len(runs) else None
        row = {"scheme": scheme, "name": NAMES[scheme], "time_s": time, "ok": bool(e.get("ok")),
               "grabs": None, "steals": None, "syncs_per_grab": None, "msgs_per_grab": None}
        if stats:
            c = loop_counters(stats)
            row["grabs"], row["steals"] = c["loop_grabs"], c["loop_steals"]
            if c["loop_grabs"]:
                row["syncs_per_grab"] = c["loop_syncs"] / c["loop_grabs"]
                row["msgs_per_grab"] = c["loop_messages"] / c["loop_grabs"]
        key = (str(e.get("app")), e["procs"], setup_of(e.get("load")), e.get("source"))
        groups.setdefault(key, []).append(row)
    out = []
    for key in sorted(groups, key=lambda k: tuple(map(str, k))):
        rows = groups[key]
        if len(rows) < 2:
            continue
        rows.sort(key=lambda r: (r["time_s"] is None, r["time_s"] or 0.0, list(NAMES).index(r["scheme"])))
        best = rows[0]["time_s"]
        for r in rows:
            r["ratio"] = r["time_s"] / best if r["time_s"] is not None and best else None
        out.append((key, rows))
    return out


def ranking_line(rows):
    """'ABS < Static < GSS ...': the schemes from fastest to slowest."""
    return " < ".join(r["name"] for r in rows if r["time_s"] is not None)


def _num(v, digits=3):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return f"{v:,}"


def markdown(ranked):
    """The report's section: one ranking table per kernel, process count and set-up."""
    if not ranked:
        return []
    out = ["## Loop scheduling: the schemes ranked (the dissertation's §6.6)", "",
           "Per kernel, process count and set-up, the schemes of the `sched-*` configurations from fastest to "
           "slowest by median compute time; × best is the time over the fastest. The loop counters come from "
           "the median run's statistics, summed over processes: grabs (chunks taken), steals (of them, from "
           "another process's queue or segment), syncs/grab and messages/grab (lock acquisitions and messages "
           "to take chunks, per chunk; Static takes its block without either).", ""]
    sources = {key[3] for key, _ in ranked}
    out += ["| kernel | np | set-up | ranking |", "|---|---|---|---|"]
    for (app, procs, setup, source), rows in ranked:
        where = f" (`{source}`)" if len(sources) > 1 and source else ""
        out.append(f"| {app} | {procs} | {setup}{where} | {ranking_line(rows)} |")
    out.append("")
    for (app, procs, setup, source), rows in ranked:
        where = f", `{source}`" if len(sources) > 1 and source else ""
        out += [f"### {app}, np={procs}, {setup}{where}", "",
                "| rank | scheme | time (s) | × best | grabs | steals | syncs/grab | msgs/grab |",
                "|---|---|---|---|---|---|---|---|"]
        for i, r in enumerate(rows, 1):
            state = "" if r["ok"] else " (failed)"
            out.append(f"| {i if r['time_s'] is not None else '–'} | {r['name']}{state} | {_num(r['time_s'])} | "
                       f"{_num(r['ratio'])} | {_num(r['grabs'])} | {_num(r['steals'])} | "
                       f"{_num(r['syncs_per_grab'])} | {_num(r['msgs_per_grab'])} |")
        out.append("")
    return out


def plot(plt, ranked, path):
    """Bars: each scheme's time over the fastest of its group (log scale),
    one group per kernel, process count and set-up, the schemes in the
    dissertation's order."""
    if not ranked:
        return False
    schemes = [s for s in NAMES if any(r["scheme"] == s for _, rows in ranked for r in rows)]
    fig, ax = plt.subplots(figsize=(max(7, 1.1 * len(ranked) + 2), 4.5))
    width = 0.8 / len(schemes)
    x = list(range(len(ranked)))
    for j, s in enumerate(schemes):
        vals = []
        for _, rows in ranked:
            r = next((r for r in rows if r["scheme"] == s), None)
            vals.append(r["ratio"] if r and r["ratio"] else 0)
        ax.bar([i + (j - (len(schemes) - 1) / 2) * width for i in x], vals, width, label=NAMES[s])
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("time / fastest scheme")
    ax.set_title("Loop schedules: each scheme's time over the fastest (1 = fastest)")
    ax.legend(fontsize="small", ncol=5)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{app}\nnp={procs}\n{setup}" for (app, procs, setup, _), _ in ranked], fontsize="small")
    return figures.save(plt, fig, path)
