#!/usr/bin/env python3
"""Prints a table of micro-benchmark results (files written by run_micro.sh).

    bench/summarize_micro.py [--md] RUN1.json [RUN2.json ...]

--md prints a Markdown table instead of aligned columns.

One row per benchmark: the median of each run's median, of its 90th
percentile (`extra.p90`, where the program reports one), of its baseline
median and of its ratio (one value per run, so with several runs the spread
between runs shows), the target and whether the median ratio meets it.
"""
import json
import statistics
import sys


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 1000:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def main(paths, markdown=False):
    rows = {}
    order = []
    for path in paths:
        with open(path) as f:
            for entry in json.load(f):
                name = entry.get("run", entry["bench"])
                if name not in rows:
                    rows[name] = []
                    order.append(name)
                rows[name].append(entry)
    header = ["bench", "unit", "runs", "median", "(per run)", "p90", "baseline", "ratio", "(per run)", "target",
              "meets"]
    table = [header]
    for name in order:
        ok = [e for e in rows[name] if "error" not in e]
        if not ok:
            table.append([name, "", str(len(rows[name])), "error"] + [""] * 7)
            continue
        med = [e["median"] for e in ok]
        p90 = [e["extra"]["p90"] for e in ok if isinstance(e.get("extra"), dict) and "p90" in e["extra"]]
        base = [e["baseline"]["median"] for e in ok if e.get("baseline")]
        ratio = [e["ratio"] for e in ok if e.get("ratio") is not None]
        target = ok[0].get("target_ratio")
        m_ratio = statistics.median(ratio) if ratio else None
        meets = "-" if target is None or m_ratio is None else ("yes" if m_ratio <= target else "NO")
        table.append([
            name, ok[0]["unit"], str(len(ok)), fmt(statistics.median(med)), " ".join(fmt(x) for x in med),
            fmt(statistics.median(p90)) if p90 else "-", fmt(statistics.median(base)) if base else "-", fmt(m_ratio), " ".join(fmt(x) for x in ratio),
            fmt(target), meets,
        ])
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in table[1:]:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


if __name__ == "__main__":
    args = sys.argv[1:]
    md = "--md" in args
    args = [a for a in args if a != "--md"]
    if not args:
        sys.exit(__doc__)
    main(args, md)
