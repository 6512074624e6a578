"""The out-of-core study (docs/STUDIES.md §5; issue 10) from `scopedsm bench`
results of `--apps ooc` with the configurations ooc-demand, ooc-explicit,
ooc-auto and ooc-both (and ooc-explicit-sync, ooc-auto-sync: the hints waiting
for their runs, SCOPEDSM_PREFETCH=sync): per kernel and case, the stall, the total time, the
hints issued and filtered, late and wasted prefetches, pages released, and
the fraction of the demand case's stall that each hinted case removes.

The case is read from each run's statistics: "home" when the homes were in
files (`home_backing` file:DIR), else "remote" (pages homed at another
process, cached in a page cache smaller than the data), each marked "node
sharing off" when every process was a node of its own (pages fetched across
nodes rather than copied from the home's memory), and "by message" when
SCOPEDSM_FETCH=message kept those fetches off one-sided reads. The kernel and size
come from the result line's size string, without its `hints=` and `chunk=`
fields; runs with explicit hints are told apart by their chunk (`ooc -c`, the
pages one hint names), so a study may compare chunk sizes side by side.
"""
import statistics

from . import figures, results

CASES = ["ooc-demand", "ooc-explicit-sync", "ooc-explicit", "ooc-auto-sync", "ooc-auto", "ooc-both"]
LABEL = {"ooc-demand": "demand", "ooc-explicit-sync": "explicit, sync", "ooc-explicit": "explicit",
         "ooc-auto-sync": "auto, sync", "ooc-auto": "auto", "ooc-both": "both"}

# Counters summed over processes, from the statistics of every run of a case
# (medians over the runs).
COUNTERS = {
    "faults": ("read_faults", "write_faults"),
    "transfers": ("remote_fetches",),
    # Pages named: the program's hints count them as named; the engine's own
    # as fetched, filtered or dropped.
    "issued": ("hint_prefetch_pages", "auto_prefetches", "auto_prefetch_filtered", "auto_prefetch_dropped"),
    "filtered": ("hint_prefetch_filtered", "auto_prefetch_filtered"),
    "requests": ("hint_prefetch_requests", "auto_prefetch_requests"),
    "late": ("hint_prefetch_late", "auto_prefetch_late"),
    "wasted": ("hint_prefetch_wasted", "auto_prefetch_wasted"),
    "released": ("pages_released",),
}


def _kernel(entry):
    size = str(entry.get("size") or "")
    return " ".join(f for f in size.split() if not f.startswith(("hints=", "chunk="))) or "?"


def _chunk(entry):
    """The pages one explicit hint names, or None without explicit hints
    (results from before `ooc -c` say hints=1 alone: their chunk was 8)."""
    fields = str(entry.get("size") or "").split()
    for f in fields:
        if f.startswith("chunk=") and f[6:].isdigit():
            return int(f[6:])
    return 8 if "hints=1" in fields else None


def _label(case):
    config, chunk = case
    return LABEL[config] + (f" ({chunk}-page hints)" if chunk is not None else "")


def _case(stats):
    config = (stats or {}).get("config") or {}
    case = "home" if str(config.get("home_backing") or "memory").startswith("file") else "remote"
    # Pages copied from a home on the node, or fetched across nodes (one-sided
    # where the start-up check allows, or by message when SCOPEDSM_FETCH says so).
    if config.get("node_sharing") == "off":
        case += ", node sharing off" + (", by message" if config.get("fetch") == "message" else "")
    return case


def _run_metrics(run):
    """Stall (the slowest process's data time), total (the run's compute time)
    and the summed counters of one run, or None without statistics."""
    stats = run.get("stats")
    if not run.get("ok") or not isinstance(stats, dict) or not stats.get("ranks"):
        return None
    ranks = stats["ranks"]
    out = {"stall": max(float((r.get("time_s") or {}).get("data", 0.0)) for r in ranks),
           "total": run.get("time_s"), "case": _case(stats)}
    for key, names in COUNTERS.items():
        out[key] = sum(int((r.get("counters") or {}).get(n, 0)) for r in ranks for n in names)
    return out


def rows(summary, runs):
    """[(kernel, case, procs, {(config, chunk): metrics})], the cases in
    CASES order (then by chunk): metrics are medians over the runs of each,
    plus "removed", 1 - stall / stall(demand)."""
    found = {}
    for e in summary:
        config = results.base_config(e)
        if e.get("app") != "ooc" or e.get("variant") != "dsm" or config not in CASES:
            continue
        mine = [r for r in runs if r.get("app") == "ooc" and r.get("variant") == "dsm"
                and r.get("config") == e.get("config") and r.get("procs") == e.get("procs")
                and r.get("size") == e.get("size") and r.get("source") == e.get("source")]
        ms = [m for m in (_run_metrics(r) for r in mine) if m is not None]
        if not ms:
            continue
        med = {k: statistics.median(m[k] for m in ms if m[k] is not None)
               for k in ms[0] if k != "case" and any(m[k] is not None for m in ms)}
        med["runs"] = len(ms)
        found.setdefault((_kernel(e), ms[0]["case"], e.get("procs")), {})[(config, _chunk(e))] = med
    out = []
    for (kernel, case, procs), by in sorted(found.items(), key=lambda kv: (kv[0][1], kv[0][0], str(kv[0][2]))):
        base = (by.get(("ooc-demand", None)) or {}).get("stall")
        for m in by.values():
            m["removed"] = (1.0 - m["stall"] / base) if base else None
        order = sorted(by, key=lambda c: (CASES.index(c[0]), c[1] or 0))
        out.append((kernel, case, procs, {c: by[c] for c in order}))
    return out


def _f(v, fmt="{:.3f}"):
    return "–" if v is None else fmt.format(v)


def markdown(table_rows):
    if not table_rows:
        return []
    out = ["## Out of core: demand paging, explicit hints, automatic hints, both", "",
           "Medians over the runs of each case. stall: the slowest process's data time (waiting for pages, at "
           "faults and in prefetch hints); total: the compute time; faults: read and write faults; transfers: page "
           "fetches of every kind (one per run of pages, by fault or hint, copied on the node or fetched from "
           "another); issued and filtered: prefetch pages asked for "
           "by explicit and automatic hints, and those dropped as redundant without a message; requests: the "
           "fetches the hints made; late: pages a fault had fetched before their hint came (explicit) or stream "
           "steps a fault reached before any prefetch (auto); wasted: prefetched pages dropped untouched; "
           "released: pages given back; removed: 1 − stall / stall(demand).", ""]
    out.append("| kernel | case | np | hints | stall (s) | total (s) | faults | transfers | issued | filtered | requests "
               "| late | wasted | released | stall removed |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kernel, case, procs, by in table_rows:
        for c, m in by.items():
            out.append(f"| {kernel} | {case} | {procs} | {_label(c)} | {_f(m.get('stall'))} | "
                       f"{_f(m.get('total'))} | {m['faults']:,.0f} | {m['transfers']:,.0f} | {m['issued']:,.0f} | {m['filtered']:,.0f} | {m['requests']:,.0f} | "
                       f"{m['late']:,.0f} | {m['wasted']:,.0f} | {m['released']:,.0f} | "
                       f"{_f(m.get('removed'), '{:+.1%}')} |")
    out.append("")
    return out


def plot(plt, table_rows, path):
    """Bars: stall and total time of each case, relative to demand paging, one
    group per kernel and case."""
    if not table_rows:
        return False
    cases = sorted({c for *_, by in table_rows for c in by}, key=lambda c: (CASES.index(c[0]), c[1] or 0))
    fig, axes = plt.subplots(2, 1, figsize=(max(7, 1.1 * len(table_rows) + 2), 5.5), sharex=True)
    x = list(range(len(table_rows)))
    width = 0.8 / len(cases)
    for ax, key, title in ((axes[0], "stall", "stall / demand"), (axes[1], "total", "total / demand")):
        for j, c in enumerate(cases):
            vals = []
            for _, _, _, by in table_rows:
                base = (by.get(("ooc-demand", None)) or {}).get(key)
                m = by.get(c)
                vals.append(m[key] / base if m and base else 0)
            ax.bar([i + (j - (len(cases) - 1) / 2) * width for i in x], vals, width, label=_label(c))
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel(title, fontsize="small")
    axes[0].set_title("Out of core: each case relative to demand paging (lower is better)")
    axes[0].legend(fontsize="small", ncol=min(4, len(cases)))
    axes[1].set_xticks(x)
    axes[1].set_xticklabels([f"{k.split()[0].replace('kernel=', '')} np={p}\n" + c.replace(", ", "\n")
                             for k, c, p, _ in table_rows], fontsize="small")
    return figures.save(plt, fig, path)
