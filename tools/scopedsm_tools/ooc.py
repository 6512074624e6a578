"""The out-of-core study (docs/STUDIES.md §5; issue 10) from `scopedsm bench`
results of `--apps ooc` with the configurations ooc-demand, ooc-explicit,
ooc-auto and ooc-both: per kernel and case, the stall, the total time, the
hints issued and filtered, late and wasted prefetches, pages released, and
the fraction of the demand case's stall that each hinted case removes.

The case is read from each run's statistics: "home" when the homes were in
files (`home_backing` file:DIR), else "remote" (pages homed at another
process, cached in a page cache smaller than the data). The kernel and size
come from the result line's size string, without its `hints=` field.
"""
import statistics

from . import figures, results

CASES = ["ooc-demand", "ooc-explicit", "ooc-auto", "ooc-both"]
LABEL = {"ooc-demand": "demand", "ooc-explicit": "explicit", "ooc-auto": "auto", "ooc-both": "both"}

# Counters summed over processes, from the statistics of every run of a case
# (medians over the runs).
COUNTERS = {
    "faults": ("read_faults", "write_faults"),
    "transfers": ("remote_fetches",),
    "issued": ("hint_prefetch_pages", "auto_prefetches"),
    "filtered": ("hint_prefetch_filtered", "auto_prefetch_filtered"),
    "requests": ("hint_prefetch_requests", "auto_prefetch_requests"),
    "late": ("hint_prefetch_late", "auto_prefetch_late"),
    "wasted": ("hint_prefetch_wasted", "auto_prefetch_wasted"),
    "released": ("pages_released",),
}


def _kernel(entry):
    size = str(entry.get("size") or "")
    return " ".join(f for f in size.split() if not f.startswith("hints=")) or "?"


def _case(stats):
    backing = str(((stats or {}).get("config") or {}).get("home_backing") or "memory")
    return "home" if backing.startswith("file") else "remote"


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
    """[(kernel, case, procs, {config: metrics})]: metrics are medians over the
    runs of each configuration, plus "removed", 1 - stall / stall(demand)."""
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
        found.setdefault((_kernel(e), ms[0]["case"], e.get("procs")), {})[config] = med
    out = []
    for (kernel, case, procs), by in sorted(found.items(), key=lambda kv: (kv[0][1], kv[0][0], str(kv[0][2]))):
        base = (by.get("ooc-demand") or {}).get("stall")
        for m in by.values():
            m["removed"] = (1.0 - m["stall"] / base) if base else None
        out.append((kernel, case, procs, by))
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
        for config in CASES:
            m = by.get(config)
            if m is None:
                continue
            out.append(f"| {kernel} | {case} | {procs} | {LABEL[config]} | {_f(m.get('stall'))} | "
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
    fig, axes = plt.subplots(2, 1, figsize=(max(7, 1.1 * len(table_rows) + 2), 5.5), sharex=True)
    x = list(range(len(table_rows)))
    width = 0.8 / len(CASES)
    for ax, key, title in ((axes[0], "stall", "stall / demand"), (axes[1], "total", "total / demand")):
        for j, config in enumerate(CASES):
            vals = []
            for _, _, _, by in table_rows:
                base = (by.get("ooc-demand") or {}).get(key)
                m = by.get(config)
                vals.append(m[key] / base if m and base else 0)
            ax.bar([i + (j - (len(CASES) - 1) / 2) * width for i in x], vals, width, label=LABEL[config])
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel(title, fontsize="small")
    axes[0].set_title("Out of core: each case relative to demand paging (lower is better)")
    axes[0].legend(fontsize="small", ncol=len(CASES))
    axes[1].set_xticks(x)
    axes[1].set_xticklabels([f"{k.split()[0].replace('kernel=', '')}\n{c} np={p}" for k, c, p, _ in table_rows],
                            fontsize="small")
    return figures.save(plt, fig, path)
