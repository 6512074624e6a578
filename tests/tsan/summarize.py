#!/usr/bin/env python3
"""Summarizes ThreadSanitizer logs (log_path=DIR/tsan -> DIR/tsan.<pid>).

Every report is classified: "ours" if any frame of any of its stacks is in
ScopeDSM's sources (src/ or tests/, in the tree or in tools/tsan.sh's copies), "other" if none is. Distinct reports are printed once with a count.
Exit status 1 if any report was left (suppressed ones do not appear in logs;
the suppressions TSan matched are listed at the end).
"""
import argparse
import collections
import os
import re
import sys

FRAME = re.compile(r"^\s+#(\d+) (.*?) (\S+?):(\d+)(?::\d+)? \((\S+)\)$|^\s+#(\d+) (.*) \((\S+)\)$")
HEADER = re.compile(r"^WARNING: ThreadSanitizer: (.*?) \(pid=(\d+)\)")
SUPP_USED = re.compile(r"^\s*(\d+) (\w+):(.*)$")


def parse_reports(text):
    """Yields (kind, lines) for each report in one log file."""
    current = None
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            current = (m.group(1), [])
            continue
        if current is None:
            continue
        if line.startswith("=================="):
            yield current
            current = None
            continue
        current[1].append(line)
    if current is not None:
        yield current


def frames(lines):
    for line in lines:
        m = FRAME.match(line)
        if not m:
            continue
        if m.group(1) is not None:
            yield m.group(2), m.group(3), int(m.group(4)), m.group(5)
        else:
            yield m.group(7), "", 0, m.group(8)


def own_path(path, roots):
    for root in roots:
        for sub in ("src/", "tests/"):
            prefix = os.path.join(root, sub)
            if path.startswith(prefix):
                return os.path.relpath(path, root)
    return None


def signature(kind, lines, roots):
    """The report's kind and, per stack, its first frame in our code (or its
    top frame): the same race seen twice prints once."""
    own = []
    for func, path, line, module in frames(lines):
        rel = own_path(path, roots)
        if rel:
            own.append(f"{func} {rel}:{line}")
    summary = next((l for l in lines if l.startswith("SUMMARY:")), "")
    return kind, tuple(dict.fromkeys(own[:6])), summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True, help="the repository root")
    ap.add_argument("logdir")
    args = ap.parse_args()
    root = os.path.abspath(args.src)
    roots = [root] + [os.path.join(root, "build-tsan", d) for d in ("patched-src", "control-src")]

    reports = collections.Counter()
    examples = {}
    suppressed = collections.Counter()
    for name in sorted(os.listdir(args.logdir)):
        if not name.startswith("tsan."):
            continue
        text = open(os.path.join(args.logdir, name), errors="replace").read()
        for kind, lines in parse_reports(text):
            sig = signature(kind, lines, roots)
            reports[sig] += 1
            examples.setdefault(sig, (name, lines))
        in_supp = False
        for line in text.splitlines():
            if line.startswith("ThreadSanitizer: Matched"):
                in_supp = True
                continue
            m = SUPP_USED.match(line) if in_supp else None
            if m:
                suppressed[f"{m.group(2)}:{m.group(3)}"] += int(m.group(1))
            elif in_supp and line.strip() == "":
                in_supp = False

    ours = {s: n for s, n in reports.items() if s[1]}
    other = {s: n for s, n in reports.items() if not s[1]}
    where = os.path.relpath(args.logdir)
    print(f"tsan: {sum(ours.values())} reports ({len(ours)} distinct) involve ScopeDSM code; "
          f"{sum(other.values())} ({len(other)} distinct) do not; logs in {where}")
    for group, title in ((ours, "ScopeDSM"), (other, "other")):
        for sig, n in sorted(group.items(), key=lambda kv: -kv[1]):
            kind, own, summary = sig
            print(f"  [{title}] x{n} {kind}: {summary}")
            for frame in own:
                print(f"      {frame}")
            print(f"      first seen in {examples[sig][0]}")
    if suppressed:
        print("tsan: suppressions matched: " + ", ".join(f"{k} x{v}" for k, v in sorted(suppressed.items())))
    return 1 if reports else 0


if __name__ == "__main__":
    sys.exit(main())
