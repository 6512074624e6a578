"""Bilas and Singh's study of communication parameters (issue 12; digest
seed-002 §3, §5, §6): the `scopedsm bench` configurations of its sweeps,
generated from one table, and its Table 2 and Table 3 from bench results.

The paper's four costs are in cycles of a 1-IPC 200 MHz processor (5 ns)
and its bandwidth in MB/s per MHz. The digest (§6.3) translates them to
today in two mappings, and both are generated:
  absolute  (no suffix)  the paper's values at 200 MHz: a cycle is 5 ns,
                         0.5 MB/MHz is 100 MB/s
  relative  (-rel)       a cycle is one instruction of today's core at
                         RELATIVE_MHZ (R = 5 G instructions/s, the low
                         end of the digest's 5-10: 0.2 ns, and 0.5 MB/MHz
                         is 2500 MB/s; this machine's 2.6 GHz cores at
                         about 1.9 instructions per cycle. Its virtual
                         machine has no hardware counters to count R by:
                         docs/STUDIES.md §6)
Each sweep varies one parameter over the paper's points with the other
three at "achievable" (overhead 600 cycles, occupancy 1000 cycles per
packet, 0.5 MB/MHz, interrupt 500 cycles each for issue and delivery).
Configuration names carry the point in the paper's unit:
`net-achievable`, `net-overhead-600`, `net-bandwidth-0.25`,
`net-interrupt-50000-rel`, ... Packets are SCOPEDSM_NET's default MTU,
4096 bytes (the paper gives none); link latency is not injected (the
paper holds it constant).

A sweep name given to `--configs` (SWEEPS: `sweep-interrupt`,
`sweep-bandwidth-rel`, `sweep-unit`, `sweep-node-procs`, ...) stands for
`default` (no injected cost: the baseline of Table 2) and its points.
"""
from . import figures, results

ABSOLUTE_MHZ = 200
RELATIVE_MHZ = 5000
# suffix of the configuration names -> (mapping, MHz a paper cycle runs at)
MAPPINGS = [("", "absolute", ABSOLUTE_MHZ), ("-rel", "relative", RELATIVE_MHZ)]

# (parameter = SCOPEDSM_NET key, the paper's unit, its sweep points in
# the order of its figures (cheap end first), the achievable point)
PARAMETERS = [
    ("overhead", "cycles per message", [0, 600, 1000, 5000, 10000], 600),
    ("occupancy", "cycles per packet", [50, 250, 500, 1000, 2000, 10000], 1000),
    ("bandwidth", "MB/s per MHz", [2, 1, 0.5, 0.25], 0.5),
    ("interrupt", "cycles each for issue and delivery", [0, 500, 1000, 2500, 5000, 10000, 50000], 500),
]
PARAMETER_TITLES = {"overhead": "host overhead", "occupancy": "NI occupancy", "bandwidth": "I/O bandwidth",
                    "interrupt": "interrupt cost"}

# The granularity sweeps, as configuration names in order (first = the
# paper's small end): the coherence unit (4 KiB OS pages) and processes per
# node (SCOPEDSM_NODE_PROCS).
UNIT_PAGES = [2, 4, 8, 16]
NODE_PROCS = [1, 2, 4, 8]
GRANULARITY = [("page size", ["default"] + [f"unit{k}" for k in UNIT_PAGES]),
               ("procs/node", [f"node-procs-{k}" for k in NODE_PROCS])]

# Table 2's unit: events per processor per 10^7 paper cycles of compute
# time, a paper cycle being one of the relative mapping (2 ms at 5000 MHz).
EVENTS_PER_CYCLES = 1e7


def point_text(v):
    """600 -> '600', 0.5 -> '0.5', 2.0 -> '2'."""
    return f"{v:g}"


def net_value(param, point, mhz):
    """A point in the paper's unit as SCOPEDSM_NET's value: ns, or MB/s for bandwidth."""
    if param == "bandwidth":
        return max(1, round(point * mhz))
    return round(point * 1000.0 / mhz)


def net_setting(points, mhz):
    """SCOPEDSM_NET for {param: point in the paper's unit}."""
    return ",".join(f"{p}={net_value(p, points[p], mhz)}" for p, _, _, _ in PARAMETERS)


def achievable():
    return {p: a for p, _, _, a in PARAMETERS}


def config_name(param, point, suffix):
    return f"net-{param}-{point_text(point)}{suffix}"


def configs():
    """{name: {SCOPEDSM_NET: ...}}: the achievable point and every sweep point, in both mappings."""
    out = {}
    for suffix, _, mhz in MAPPINGS:
        out[f"net-achievable{suffix}"] = {"SCOPEDSM_NET": net_setting(achievable(), mhz)}
        for param, _, points, _ in PARAMETERS:
            for v in points:
                out[config_name(param, v, suffix)] = {"SCOPEDSM_NET": net_setting(dict(achievable(), **{param: v}),
                                                                                  mhz)}
    return out


def granularity_configs():
    """The configurations of the granularity sweeps (bench.py merges them into CONFIGS)."""
    out = {f"unit{k}": {"SCOPEDSM_UNIT_PAGES": str(k)} for k in UNIT_PAGES}
    out.update({f"node-procs-{k}": {"SCOPEDSM_NODE_PROCS": str(k)} for k in NODE_PROCS})
    return out


def parameter_sweeps():
    """[(sweep title, parameter, mapping, [configuration names, cheap end first])]."""
    return [(f"{PARAMETER_TITLES[p]} ({mapping})", p, mapping, [config_name(p, v, suffix) for v in points])
            for suffix, mapping, _ in MAPPINGS for p, _, points, _ in PARAMETERS]


def sweeps():
    """{sweep name: [configuration names]} for `--configs`: `default`, then the points."""
    out = {}
    for suffix, _, _ in MAPPINGS:
        for p, _, points, _ in PARAMETERS:
            out[f"sweep-{p}{suffix}"] = ["default"] + [config_name(p, v, suffix) for v in points]
    out["sweep-unit"] = GRANULARITY[0][1]
    out["sweep-node-procs"] = ["default"] + GRANULARITY[1][1]
    return out


# ---- Table 3: maximum slowdown over each sweep ----

def settings_tag(settings):
    """What sets a bench file's runs apart besides their configurations: its
    --set settings and --hosts ('SCOPEDSM_FETCH=message hosts=2'), '' if none."""
    settings = settings if isinstance(settings, dict) else {}
    parts = [str(s) for s in settings.get("set") or []]
    if settings.get("hosts"):
        parts.append(f"hosts={settings['hosts']}")
    return " ".join(parts)


def _key(e):
    """(configuration, tag) of a summary entry: the name bench gave it (not
    the '@file' one report gives when several files are merged), and the settings tag
    report records from the entry's file. Files of one tag (one sweep each)
    fill one row; the first file's run of a configuration counts."""
    return results.base_config(e), str(e.get("tag") or "")


def _medians(summary):
    """{(app, procs, tag): {configuration: median compute time}} of the DSM runs that went well."""
    out = {}
    for e in summary:
        t = (e.get("time_s") or {}).get("median") if isinstance(e.get("time_s"), dict) else None
        if e.get("variant") != "dsm" or not e.get("ok", True) or not isinstance(t, (int, float)) or t <= 0:
            continue
        base, tag = _key(e)
        out.setdefault((str(e.get("app")), e.get("procs"), tag), {}).setdefault(base, t)
    return out


def slowdown(t_first, t_last):
    """The paper's maximum slowdown in percent, from the two ends of a sweep:
    1 - S(last)/S(first) = 1 - T(first)/T(last); negative is a speedup."""
    return 100.0 * (1.0 - t_first / t_last)


def table3_columns():
    """[(column title, [configuration names in order])]."""
    cols = [(f"{PARAMETER_TITLES[p]} ({m[:3]})", names) for _, p, m, names in parameter_sweeps()]
    return cols + [(title, names) for title, names in GRANULARITY]


def table3(summary):
    """[(app, procs, tag, [slowdown % or None per column])] for every group
    with at least one sweep of which two points (the ends present) ran."""
    rows = []
    for (app, procs, tag), times in sorted(_medians(summary).items(), key=lambda kv: tuple(map(str, kv[0]))):
        cells = []
        for _, names in table3_columns():
            present = [times[n] for n in names if n in times]
            cells.append(slowdown(present[0], present[-1]) if len(present) >= 2 else None)
        if any(c is not None for c in cells):
            rows.append((app, procs, tag, cells))
    return rows


def sweep_points(summary):
    """[(sweep title, names, [(app, procs, tag, [T/T(first point) or None])])] for
    the sweeps with at least two points run: the paper's figures as numbers."""
    medians = _medians(summary)
    out = []
    sweeps_all = [(t, n) for t, _, _, n in parameter_sweeps()] + GRANULARITY
    for title, names in sweeps_all:
        lines = []
        for (app, procs, tag), times in sorted(medians.items(), key=lambda kv: tuple(map(str, kv[0]))):
            present = [n for n in names if n in times]
            if len(present) < 2:
                continue
            first = times[present[0]]
            lines.append((app, procs, tag, [times[n] / first if n in times else None for n in names]))
        if lines:
            out.append((title, names, lines))
    return out


# ---- Table 2: protocol events per processor per unit of compute ----

EVENTS = [("faults", "page faults"), ("fetches", "page fetches"), ("node_pages", "of them node copies (pages)"),
          ("locks", "lock acquires"), ("remote_locks", "remote lock acquires"), ("barriers", "barriers"),
          ("requests", "requests served"), ("diffs", "diffs"), ("messages", "messages"), ("kib", "KiB sent")]


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def injected(stats):
    """Whether a statistics object's run had SCOPEDSM_NET on."""
    net = ((stats or {}).get("config") or {}).get("net") if isinstance((stats or {}).get("config"), dict) else None
    if net not in (None, "off"):
        return True
    return any(_num(v) > 0 for r in (stats or {}).get("ranks") or [] if isinstance(r, dict)
               for v in (r.get("injected_s") or {}).values())


def events(stats):
    """({event: count summed over processes}, compute seconds summed over
    processes (busy time), processes, processes per node)."""
    totals = {k: 0.0 for k, _ in EVENTS}
    busy, ranks, node_procs = 0.0, 0, None
    for r in (stats or {}).get("ranks") or []:
        if not isinstance(r, dict):
            continue
        c = r.get("counters") if isinstance(r.get("counters"), dict) else {}
        t = r.get("time_s") if isinstance(r.get("time_s"), dict) else {}
        ranks += 1
        busy += _num(t.get("busy"))
        node_procs = node_procs if node_procs is not None else c.get("node_procs")
        totals["faults"] += _num(c.get("read_faults")) + _num(c.get("write_faults"))
        totals["fetches"] += _num(c.get("remote_fetches"))
        totals["node_pages"] += _num(c.get("node_fetches"))
        totals["locks"] += _num(c.get("locks"))
        totals["remote_locks"] += _num(c.get("msgs_sent_ACQ"))
        totals["barriers"] += _num(c.get("barriers"))
        totals["requests"] += _num(c.get("requests_served"))
        totals["diffs"] += _num(c.get("diffs_made"))
        totals["messages"] += _num(r.get("messages_sent"))
        totals["kib"] += _num(r.get("bytes_sent")) / 1024.0
    return totals, busy, ranks, node_procs


def table2(summary, runs):
    """[(app, procs, tag, config, processes per node, compute s per process, {event: rate})]:
    the events of each DSM run without injected costs, and of the achievable
    points, per processor per 10^7 paper cycles of compute (relative mapping).
    The compute time is always one measured without injected costs: the
    run's own, or for an achievable point that of `default` in the same group."""
    cycle_s = 1.0 / (RELATIVE_MHZ * 1e6)
    entries = {}
    for e in summary:
        i = e.get("stats_run")
        stats = runs[i].get("stats") if isinstance(i, int) and 0 <= i < len(runs) else None
        if e.get("variant") != "dsm" or not isinstance(stats, dict):
            continue
        base, tag = _key(e)
        entries.setdefault((str(e.get("app")), e.get("procs"), tag, base), stats)
    rows = []
    for (app, procs, tag, config), stats in sorted(entries.items(), key=lambda kv: tuple(map(str, kv[0]))):
        totals, busy, ranks, node_procs = events(stats)
        if injected(stats):
            if not config.startswith("net-achievable"):
                continue
            baseline = entries.get((app, procs, tag, "default"))
            if baseline is None or injected(baseline):
                continue
            _, busy, _, _ = events(baseline)
        if busy <= 0 or ranks == 0:
            continue
        per = EVENTS_PER_CYCLES * cycle_s / busy  # events summed / compute summed = per processor
        rows.append((app, procs, tag, config, node_procs, busy / ranks, {k: totals[k] * per for k, _ in EVENTS}))
    return rows


# The paper's tables (digest §4 and §5), for the report and docs/STUDIES.md.
PAPER_TABLE3 = {
    "FFT": (22.6, 11.9, 40.8, 86.6, 72.6, 13.8), "LU (contig)": (17.9, 7.5, 15.9, 70.8, 34.4, -35.3),
    "Ocean (contig)": (4.5, 2.8, 6.5, 35.2, 19.6, 63.2), "Water-nsquared": (32.4, 16.6, 10.8, 83.2, 62.2, -87.1),
    "Water-spatial": (23.7, 8.5, 8.9, 67.9, 51.0, -87.5), "Radix": (35.8, -31.8, 77.6, 58.7, -368.2, -699.4),
    "Volrend": (34.7, 12.8, 15.7, 91.3, 63.9, -68.1), "Raytrace": (8.2, 2.9, 8.9, 52.3, 9.1, -16.1),
    "Barnes-rebuild": (40.7, 21.8, 44.8, 80.3, 71.5, -383.4), "Barnes-space": (4.4, -0.6, 27.5, 59.0, -109.6, -49.4),
}


def _pct(v):
    return "–" if v is None else f"{v:+.1f}%"


def _rate(v):
    return "–" if v is None else (f"{v:.3g}" if abs(v) < 1e4 else f"{v:,.0f}")


def _label(app, procs, tag):
    return f"| {app} | {procs} | {tag or '–'} |"


def markdown(summary, runs):
    """The report's sections: Table 3, the sweeps point by point, Table 2."""
    out = []
    t3 = table3(summary)
    if t3:
        cols = table3_columns()
        out += ["## Bilas and Singh's Table 3: maximum slowdown over each sweep", "",
                "As the paper computes it: from the two ends of each sweep (the cheapest and the dearest point "
                "run; for page size 4 KiB and the largest unit, for processes per node the fewest and the most), "
                "slowdown = 1 - T(cheap end) / T(dear end) of the median compute times, the other parameters at "
                "their achievable values; negative is a speedup. (abs): the paper's values at 200 MHz; (rel): a "
                f"paper cycle is an instruction at {RELATIVE_MHZ} MHz. `tag`: the bench options `--set` and "
                "`--hosts` of the input files (e.g. SCOPEDSM_FETCH=rma against message); the files of one tag, "
                "one sweep each, fill one row.", ""]
        out.append("| app | np | tag | " + " | ".join(t for t, _ in cols) + " |")
        out.append("|---|---|---|" + "|".join("---" for _ in cols) + "|")
        out += [_label(app, procs, tag) + " " + " | ".join(_pct(c) for c in cells) + " |"
                for app, procs, tag, cells in t3]
        out += ["", "The paper's (16 simulated processors, 4 per node; page size 2 to 32 KiB, procs/node 1 to 16):",
                "", "| app | host overhead | NI occupancy | I/O bandwidth | interrupt cost | page size | procs/node |",
                "|---|---|---|---|---|---|---|"]
        out += [f"| {app} | " + " | ".join(_pct(v) for v in vals) + " |" for app, vals in PAPER_TABLE3.items()]
        out.append("")
        for title, names, lines in sweep_points(summary):
            out += [f"### {title}: compute time relative to the first point", ""]
            out.append("| app | np | tag | " + " | ".join(f"`{n}`" for n in names) + " |")
            out.append("|---|---|---|" + "|".join("---" for _ in names) + "|")
            out += [_label(app, procs, tag) + " " + " | ".join("–" if v is None else f"{v:.3f}" for v in vals) + " |"
                    for app, procs, tag, vals in lines]
            out.append("")
    t2 = table2(summary, runs)
    if t2:
        ms = EVENTS_PER_CYCLES * 1e3 / (RELATIVE_MHZ * 1e6)
        out += ["## Bilas and Singh's Table 2: protocol events per processor per 10^7 compute cycles", "",
                f"Summed over processes and divided by the processes' summed compute (busy) time, with 10^7 paper "
                f"cycles = {ms:g} ms of compute (relative mapping, {RELATIVE_MHZ} MHz; multiply by "
                f"{1e3 / ms:g} for events per second of compute). The compute time is always one measured without "
                "injected costs: the run's own, or for `net-achievable*` that of `default` of the same tag. "
                "Oversubscription inflates compute time, and so deflates these rates. Fetches count fetch "
                "operations (a run of pages is one), node copies included; remote lock acquires are ACQ messages "
                "(the lock's home is another process); requests served are what the cost model's interrupt is "
                "charged to when they come from another node.", ""]
        out.append("| app | np | tag | config | procs/node | compute s/proc | " + " | ".join(t for _, t in EVENTS)
                   + " |")
        out.append("|---|---|---|---|---|---|" + "|".join("---" for _ in EVENTS) + "|")
        for app, procs, tag, config, node_procs, busy, rates in t2:
            out.append(f"{_label(app, procs, tag)} {config} | {node_procs if node_procs is not None else '–'} | "
                       f"{busy:.3g} | " + " | ".join(_rate(rates[k]) for k, _ in EVENTS) + " |")
        out.append("")
    return out


def _short_tag(tag):
    """A tag for a plot's label: SCOPEDSM_ dropped, a long value elided."""
    parts = []
    for part in tag.split():
        name, _, value = part.removeprefix("SCOPEDSM_").partition("=")
        parts.append(name + ("=" + (value if len(value) <= 12 else "…") if value else ""))
    return " ".join(parts)


def plot(plt, t3, path):
    """Table 3 as a heat map: a row per (app, np, tag), a column per sweep
    with a value, each cell the slowdown in percent (red: slower at the dear
    end, blue: faster; the colour saturates at +-100%)."""
    rows = [r for r in (t3 or []) if any(c is not None for c in r[3])]
    if not rows:
        return False
    titles = [t for t, _ in table3_columns()]
    used = [i for i in range(len(titles)) if any(r[3][i] is not None for r in rows)]
    grid = [[r[3][i] if r[3][i] is not None else float("nan") for i in used] for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(used) + 3), 0.42 * len(rows) + 2.2))
    ax.imshow(grid, cmap="RdBu_r", vmin=-100, vmax=100, aspect="auto")
    for y, line in enumerate(grid):
        for x, v in enumerate(line):
            ax.text(x, y, "–" if v != v else f"{v:+.0f}%", ha="center", va="center", fontsize="x-small")
    ax.set_xticks(range(len(used)))
    ax.set_xticklabels([titles[i] for i in used], rotation=35, ha="right", fontsize="small")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{a} np={p}" + (f" {_short_tag(t)}" if t else "") for a, p, t, _ in rows],
                       fontsize="x-small")
    ax.set_title("Table 3: maximum slowdown over each sweep", fontsize="medium")
    return figures.save(plt, fig, path)
