"""The PNG plots of `scopedsm report` (matplotlib, Agg backend). Without
matplotlib the report still has its tables, and says so."""
import os

from . import ablation, commparams, figures, loopsched, ooc, results, taskmig

# Colours of the JIAJIA categories, in results.TIME_CATEGORIES order.
CATEGORY_COLOURS = ["#4c72b0", "#dd8452", "#c44e52", "#8172b3", "#da8bc3", "#937860", "#55a868"]
VARIANT_STYLES = {"dsm": "-", "mpi": "--", "omp": ":"}
# The speedup plot's series: colour i % 10 and marker i % 7 (7 and 10 share
# no factor, so the first 70 series all differ in colour or marker).
SERIES_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf"]
SERIES_MARKERS = ["o", "s", "^", "D", "v", "P", "X"]


def series_styles(n):
    """(colour, marker) of each of n series of a plot, distinct for n <= 70."""
    return [(SERIES_COLOURS[i % len(SERIES_COLOURS)], SERIES_MARKERS[i % len(SERIES_MARKERS)]) for i in range(n)]


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def draw_all(out_dir, data):
    """Draws what `data` has; returns (names of the PNGs written, notes for the reader)."""
    plt = _pyplot()
    if plt is None:
        return [], ["matplotlib is not installed, so there are no plots (apt-get install python3-matplotlib, "
                    "or pip install matplotlib)"]
    drawn = []
    drawers = (("speedup", speedup), ("breakdown", breakdown), ("traffic", traffic), ("micro", micro),
               ("ablation", ablation.plot), ("loopsched", loopsched.plot),
               ("taskmig", taskmig.plot), ("ooc", ooc.plot),
               ("commparams", commparams.plot))
    jobs = [(name, draw, data.get(name if name != "traffic" else "breakdown")) for name, draw in drawers]
    jobs += [(name, ranks, per) for name, per in data.get("ranks", [])]
    for name, draw, what in jobs:
        path = os.path.join(out_dir, f"{name}.png")
        if draw(plt, what, path):
            drawn.append(name)
        elif os.path.exists(path):
            os.remove(path)
    return drawn, []


def speedup(plt, speedup_data, path):
    procs, rows = speedup_data
    rows = [r for r in rows if any(s is not None for s in r[3])]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(procs, procs, color="grey", linewidth=0.8, label="ideal")
    for (app, variant, config, sp, _, _), (colour, marker) in zip(rows, series_styles(len(rows))):
        pts = [(p, s) for p, s in zip(procs, sp) if s is not None]
        label = app if variant == "dsm" else f"{app} ({variant})"
        if config not in ("default", None):
            label += f" [{config}]"
        ax.plot([p for p, _ in pts], [s for _, s in pts], color=colour, marker=marker,
                linestyle=VARIANT_STYLES.get(variant, "-."), label=label)
    ax.set_xlabel("processes")
    ax.set_ylabel("speedup over the sequential build")
    ax.set_xticks(procs)
    ax.set_title("Speedup")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=2)
    return figures.save(plt, fig, path)


def _labels(rows):
    configs = {r["config"] for r in rows}
    return [f"{r['app']}\nnp={r['procs']}" + (f"\n{r['config']}" if len(configs) > 1 else "") for r in rows]


def breakdown(plt, rows, path):
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows) + 2), 4.5))
    x = range(len(rows))
    bottom = [0.0] * len(rows)
    # Each bar is scaled to its own total, so that applications whose times
    # differ a hundredfold can be compared; the table gives the seconds.
    totals = [sum(r["time_s"][c] for c in results.TIME_CATEGORIES) or 1.0 for r in rows]
    for cat, colour in zip(results.TIME_CATEGORIES, CATEGORY_COLOURS):
        vals = [100.0 * r["time_s"][cat] / t for r, t in zip(rows, totals)]
        ax.bar(x, vals, bottom=bottom, color=colour, label=cat)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(list(x))
    ax.set_xticklabels(_labels(rows), fontsize="small")
    ax.set_ylabel("% of the bar's time (mean over processes)")
    ax.set_title("Overhead breakdown (server runs beside the others)")
    ax.legend(fontsize="small")
    return figures.save(plt, fig, path)


def traffic(plt, rows, path):
    if not rows:
        return False
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(6, 0.7 * len(rows) + 2), 6), sharex=True)
    x = list(range(len(rows)))
    top.bar(x, [r["messages"] for r in rows], color="#4c72b0")
    top.set_ylabel("messages sent")
    bottom.bar(x, [r["bytes"] / 1024.0 for r in rows], color="#dd8452")
    bottom.set_ylabel("KiB sent")
    bottom.set_xticks(x)
    bottom.set_xticklabels(_labels(rows), fontsize="small")
    top.set_title("Messages and bytes, all processes")
    return figures.save(plt, fig, path)


def micro(plt, rows, path):
    rows = [r for r in rows if r["ratio"] is not None]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(7, max(3, 0.4 * len(rows) + 1.5)))
    y = list(range(len(rows)))
    colours = ["#55a868" if r["meets"] is True else "#c44e52" if r["meets"] is False else "#8c8c8c" for r in rows]
    ratios = [r["ratio"] for r in rows]
    ax.barh(y, ratios, color=colours)
    positive = [v for v in ratios if v > 0]
    if positive and max(positive) / min(positive) > 20:
        ax.set_xscale("log")
    for i, r in enumerate(rows):
        if isinstance(r["target"], (int, float)) and r["target"] > 0:
            ax.plot([r["target"]], [i], marker="|", color="black", markersize=14)
    ax.axvline(1.0, color="grey", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{r['name']} (np={r['procs']})" for r in rows], fontsize="small")
    ax.set_xlabel("median / baseline median (black mark: target; green meets it, red misses it)")
    ax.set_title("Micro-benchmarks against their baselines")
    return figures.save(plt, fig, path)


def ranks(plt, per, path):
    """One statistics file: a bar per process of where its application
    thread's time went (busy, data, segv, syn, atomic: they add up to its total),
    and beside it the service thread's serving and the diffs."""
    rows = per["ranks"]
    if not rows:
        return False
    fig, (app, beside) = plt.subplots(1, 2, figsize=(10, max(3.2, 0.45 * len(rows) + 2.2)), sharey=True,
                                      gridspec_kw={"width_ratios": [3, 1]})
    y = list(range(len(rows)))
    left = [0.0] * len(rows)
    colours = dict(zip(results.TIME_CATEGORIES, CATEGORY_COLOURS))
    for cat in results.APP_THREAD_CATEGORIES:
        vals = [r["time_s"][cat] for r in rows]
        app.barh(y, vals, left=left, color=colours[cat], label=cat)
        left = [a + v for a, v in zip(left, vals)]
    app.set_yticks(y)
    app.set_yticklabels([f"rank {r['rank']}" + (f"\n{r['host']}" if r.get("host") else "") for r in rows],
                        fontsize="small")
    app.invert_yaxis()
    app.set_xlabel("seconds")
    app.set_title("application thread")
    app.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=4)
    height = 0.4
    for k, cat in enumerate(("server", "diff")):
        beside.barh([v + (k - 0.5) * height for v in y], [r["time_s"][cat] for r in rows], height=height,
                    color=colours[cat], label=cat)
    beside.set_xlabel("seconds")
    beside.set_title("beside it")
    beside.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2)
    fig.suptitle(f"Where each process spent its time: {per['app']}")
    return figures.save(plt, fig, path)
