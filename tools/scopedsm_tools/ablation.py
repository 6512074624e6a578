"""The JIAJIA dissertation's ablation (Tab 4.5; issue 8 §4) from `scopedsm bench`
results: for each application and process count, the traffic, faults,
fetches and time of each configuration step, and each step's change over
the one before.

The steps are the named configurations of bench.py, in the dissertation's
order (JIA_base, JIA_w, JIA_w+c, JIA_w+c+b), then ScopeDSM's JIA_w+b
(adaptive write detection instead of CO-WD, with the dissemination
barrier: the defaults) and HMIG (the defaults + home migration). A step
missing from the results is skipped: each change is over the previous step
present.
"""
from . import figures, results

# (configuration name, the dissertation's name for the step)
STEPS = [("jia-base", "JIA_base"), ("jia-w", "JIA_w"), ("jia-w-c", "JIA_w+c"), ("jia-w-c-b", "JIA_w+c+b"),
         ("jia-w-b", "JIA_w+b"), ("hmig", "HMIG")]
METRICS = [("messages", "messages"), ("kib", "KiB sent"), ("faults", "SIGSEGVs"), ("fetches", "remote fetches"),
           ("time_s", "time (s)")]


def _metrics(entry, runs):
    """The metrics of one summary entry: counts from the statistics of its
    median run (summed over processes), time from the median."""
    i = entry.get("stats_run")
    stats = runs[i].get("stats") if isinstance(i, int) and 0 <= i < len(runs) else None
    time = (entry.get("time_s") or {}).get("median")
    if not stats:
        return None
    rows = results.stats_ranks(stats)
    return {"messages": sum(r["messages"] for r in rows), "kib": sum(r["bytes"] for r in rows) / 1024.0,
            "faults": sum(r["faults"] for r in rows), "fetches": sum(r["fetches"] for r in rows),
            "time_s": time}


def rows(summary, runs):
    """[(app, procs, {step: metrics or None})] for every app and process
    count that has DSM runs of at least two steps, in order."""
    names = [s for s, _ in STEPS]
    found = {}
    for e in summary:
        config = results.base_config(e)
        if e.get("variant") != "dsm" or config not in names or not isinstance(e.get("procs"), int):
            continue
        m = _metrics(e, runs)
        if m is not None:
            found.setdefault((str(e.get("app")), e["procs"]), {}).setdefault(config, m)
    return [(app, procs, by_step) for (app, procs), by_step in sorted(found.items()) if len(by_step) >= 2]


def change(before, after):
    """Relative change in percent, or None when there is no base to compare with."""
    if before is None or after is None or before == 0:
        return None
    return 100.0 * (after - before) / before


def step_changes(by_step):
    """{step: {metric: % change over the previous step present}} for every
    step after the first present."""
    out, prev = {}, None
    for step, _ in STEPS:
        cur = by_step.get(step)
        if cur is None:
            continue
        if prev is not None:
            out[step] = {k: change(prev.get(k), cur.get(k)) for k, _ in METRICS}
        prev = cur
    return out


def _pct(v):
    return "–" if v is None else f"{v:+.1f}%"


def _num(v):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1e4 else f"{v:,.0f}"
    return f"{v:,}"


def markdown(table_rows):
    """Markdown: per metric, a table of the value of each step and its change
    over the previous one."""
    if not table_rows:
        return []
    present = [s for s, _ in STEPS if any(s in r[2] for r in table_rows)]
    label = dict(STEPS)
    out = ["## The dissertation's ablation (Tab 4.5)", "",
           "Steps: " + ", ".join(f"`{s}` = {label[s]}" for s in present) +
           ". Each cell: the value, then its change over the previous step. Counts are summed over processes "
           "(from the median run's statistics); time is the median compute time.", ""]
    for key, title in METRICS:
        out += [f"### {title}", ""]
        out.append("| app | np | " + " | ".join(label[s] for s in present) + " |")
        out.append("|---|---|" + "|".join("---" for _ in present) + "|")
        for app, procs, by_step in table_rows:
            ch = step_changes(by_step)
            cells = []
            for s in present:
                m = by_step.get(s)
                if m is None:
                    cells.append("–")
                    continue
                c = ch.get(s, {}).get(key)
                cells.append(_num(m.get(key)) + ("" if s not in ch else f" ({_pct(c)})"))
            out.append(f"| {app} | {procs} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def plot(plt, table_rows, path):
    """Bars: each metric relative to JIA_base (or the first step present),
    one group per app and process count, one bar per step."""
    if not table_rows:
        return False
    present = [s for s, _ in STEPS if any(s in r[2] for r in table_rows)]
    label = dict(STEPS)
    fig, axes = plt.subplots(len(METRICS), 1, figsize=(max(7, 0.9 * len(table_rows) + 2), 2.2 * len(METRICS)),
                             sharex=True)
    width = 0.8 / len(present)
    x = list(range(len(table_rows)))
    for ax, (key, title) in zip(axes, METRICS):
        for j, s in enumerate(present):
            vals = []
            for _, _, by_step in table_rows:
                base = next((by_step[b] for b, _ in STEPS if b in by_step), None)
                m = by_step.get(s)
                b = base.get(key) if base else None
                vals.append(m[key] / b if m and m.get(key) is not None and b else 0)
            ax.bar([i + (j - (len(present) - 1) / 2) * width for i in x], vals, width, label=label[s])
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel(title, fontsize="small")
    axes[0].set_title("Each step relative to the first (1 = no change)")
    axes[0].legend(fontsize="small", ncol=len(present))
    axes[-1].set_xticks(x)
    axes[-1].set_xticklabels([f"{a}\nnp={p}" for a, p, _ in table_rows], fontsize="small")
    return figures.save(plt, fig, path)
