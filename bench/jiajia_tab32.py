#!/usr/bin/env python3
"""Runs the applications that JIAJIA's Tab 3.2 reports on, at 8 processes and
the same problem sizes, and prints ScopeDSM's message, byte, SIGSEGV and
remote-fetch counts beside JIAJIA's published ones.

    bench/jiajia_tab32.py BUILD_DIR [--out FILE.json] [--md FILE.md]

The runs go through `scopedsm bench` (one verified DSM run each); counts are
summed over all ranks from their statistics, over the region each
application measures (jia_startstat/jia_stopstat around its parallel
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
    ("sor", "-n 2048 -i 100", "SOR2048", (8412, 11763, 2800, 2800)),
    ("lu", "-n 2048 -b 32", "LU2048", (25992, 99950, 32663, 12072)),
    ("ep", "-m 24", "EP 2^24", (77, 60, 22, 14)),
    ("is", f"-n {1 << 24} -k 1024 -i 10 -f 0", "IS 2^24", (1050, 896, 230, 140)),
    ("water", "-n 1728 -s 5", "Water 1728", (10828, 16850, 4892, 2847)),
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


def run_bench(build, cases, timeout):
    """One verified DSM run of each case on PROCS processes, through `scopedsm bench`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        cmd = [os.path.join(build, "bin", "scopedsm"), "bench", "--variants", "dsm", "--procs", str(PROCS),
               "--reps", "1", "--timeout", str(timeout), "--out", out,
               "--apps", ",".join(app for app, _, _, _ in cases)]
        cmd += [f"--args={app}={args}" for app, args, _, _ in cases]
        env = dict(os.environ)
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        if subprocess.run(cmd, env=env).returncode != 0:
            sys.exit("jiajia_tab32: scopedsm bench failed (see above)")
        with open(out) as f:
            return {r["app"]: r for r in json.load(f)["runs"]}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build")
    p.add_argument("--out", help="write the rows as JSON here")
    p.add_argument("--md", help="write a Markdown table here")
    p.add_argument("--apps", help="comma-separated subset (sor,lu,ep,is,water)")
    p.add_argument("--timeout", type=float, default=1800)
    a = p.parse_args()
    wanted = set(a.apps.split(",")) if a.apps else None
    cases = [c for c in CASES if not wanted or c[0] in wanted]
    runs = run_bench(a.build, cases, a.timeout)
    rows = []
    for app, args, label, jia in cases:
        run = runs[app]
        rows.append({"app": app, "label": label, "args": args.split(), "procs": PROCS,
                     "time_s": run.get("time_s"), "scopedsm": totals(run["stats"]),
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
