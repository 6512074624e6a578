#!/usr/bin/env python3
"""Runs the applications that JIAJIA's Tab 3.2 reports on, at 8 processes and
the same problem sizes, and prints ScopeDSM's message, byte, SIGSEGV and
remote-fetch counts beside JIAJIA's published ones.

    bench/jiajia_tab32.py BUILD_DIR [--out FILE.json] [--md FILE.md]

Counts are summed over all ranks from SCOPEDSM_STATS_FILE, over the region
each application measures (jia_startstat/jia_stopstat around its parallel
phase). Messages count everything a rank sends through the transport,
including those it addresses to itself (they go through a local mailbox,
not MPI); that figure is given separately. The published figures are from
the digest (../shared/reference/seed-003-jiajia.md §6.4, Tab 3.2); JIAJIA
ran on 8 workstations, with 4 KiB pages for SOR and 8 KiB pages for LU.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# name, arguments, JIAJIA's (messages, KB, SIGSEGVs, remote accesses)
CASES = [
    ("sor", ["-n", "2048", "-i", "100"], "SOR2048", (8412, 11763, 2800, 2800)),
    ("lu", ["-n", "2048", "-b", "32"], "LU2048", (25992, 99950, 32663, 12072)),
    ("ep", ["-m", "24"], "EP 2^24", (77, 60, 22, 14)),
    ("is", ["-n", str(1 << 24), "-k", "1024", "-i", "10", "-f", "0"], "IS 2^24", (1050, 896, 230, 140)),
    ("water", ["-n", "1728", "-s", "5"], "Water 1728", (10828, 16850, 4892, 2847)),
]
PROCS = 8


def totals(stats):
    msgs = nbytes = self_msgs = segv = fetches = 0
    for r in stats["ranks"]:
        c = r["counters"]
        for k, v in c.items():
            if k.startswith("msgs_sent_"):
                msgs += v
            elif k.startswith("bytes_sent_"):
                nbytes += v
        self_msgs += c["self_msgs_sent"]
        segv += c["read_faults"] + c["write_faults"]
        fetches += c["remote_fetches"]
    return {"msgs": msgs, "kb": round(nbytes / 1024.0), "segv": segv, "remote": fetches,
            "self_msgs": self_msgs}


def run_case(build, app, args, timeout):
    exe = os.path.join(build, "apps", app)
    tool = os.path.join(build, "bin", "scopedsm")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stats.json")
        env = dict(os.environ, SCOPEDSM_STATS_FILE=path, SCOPEDSM_SUMMARY="off")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        out = subprocess.run([tool, "run", "-n", str(PROCS), exe] + args, env=env,
                             capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            sys.exit(f"jiajia_tab32: {app} failed ({out.returncode}):\n{out.stderr[-2000:]}")
        result = None
        for line in out.stdout.splitlines():
            if line.startswith("SCOPEDSM_RESULT "):
                result = json.loads(line[len("SCOPEDSM_RESULT "):])
        if not result or not result.get("verified"):
            sys.exit(f"jiajia_tab32: {app} did not verify its result:\n{out.stdout[-2000:]}")
        with open(path) as f:
            stats = json.load(f)
    return result, totals(stats)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build")
    p.add_argument("--out", help="write the rows as JSON here")
    p.add_argument("--md", help="write a Markdown table here")
    p.add_argument("--apps", help="comma-separated subset (sor,lu,ep,is,water)")
    p.add_argument("--timeout", type=float, default=1800)
    a = p.parse_args()
    wanted = set(a.apps.split(",")) if a.apps else None
    rows = []
    for app, args, label, jia in CASES:
        if wanted and app not in wanted:
            continue
        print(f"jiajia_tab32: {label} on {PROCS} processes ...", file=sys.stderr, flush=True)
        result, ours = run_case(a.build, app, args, a.timeout)
        rows.append({"app": app, "label": label, "args": args, "procs": PROCS,
                     "time_s": result.get("time_s"), "scopedsm": ours,
                     "jiajia": dict(zip(("msgs", "kb", "segv", "remote"), jia))})
    lines = ["| Application | Msgs JIAJIA | Msgs ours (self) | KB JIAJIA | KB ours | SIGSEGVs JIAJIA | SIGSEGVs ours | Remote JIAJIA | Remote ours |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        j, o = r["jiajia"], r["scopedsm"]
        lines.append(f"| {r['label']} | {j['msgs']} | {o['msgs']} ({o['self_msgs']}) | {j['kb']} | {o['kb']} | "
                     f"{j['segv']} | {o['segv']} | {j['remote']} | {o['remote']} |")
    table = "\n".join(lines)
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"jiajia_tab32": 1, "rows": rows}, f, indent=1)
    if a.md:
        with open(a.md, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
