"""Runs one command and checks its exit status, its output and the files it
made; the tools tests in CTest use it where a plain exit code says too little.

usage: check_command.py [--status N | --fails] [--regex RE]... [--no-regex RE]...
                        [--last-line RE] [--file PATH]... [--skip-unless-exists PATH]
                        [--env VAR=VALUE]... -- command [args...]

--status N      the exit status must be N (default 0); --fails: anything but 0
--regex RE      stdout+stderr must match RE (Python re, multiline search)
--no-regex RE   stdout+stderr must not match RE
--last-line RE  the last non-empty line of stderr must match RE from its start
--file PATH     PATH must exist and be non-empty afterwards (a glob: at least one match)
--skip-unless-exists PATH  exit 77 (CTest SKIP_RETURN_CODE) if PATH (a glob, ** allowed)
                matches nothing
"""
import glob
import os
import re
import subprocess
import sys


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    want_status, fails, regexes, antiregexes, files, env = 0, False, [], [], [], dict(os.environ)
    last_line = None
    i = 0
    while i < len(opts):
        o = opts[i]
        if o == "--fails":
            fails = True
            i += 1
            continue
        v = opts[i + 1]
        if o == "--status":
            want_status = int(v)
        elif o == "--regex":
            regexes.append(v)
        elif o == "--no-regex":
            antiregexes.append(v)
        elif o == "--last-line":
            last_line = v
        elif o == "--file":
            files.append(v)
        elif o == "--skip-unless-exists":
            if not glob.glob(v, recursive=True):
                print(f"skipped: {v} does not exist")
                return 77
        elif o == "--env":
            name, _, value = v.partition("=")
            env[name] = value
        else:
            print(f"check_command.py: unknown option {o}", file=sys.stderr)
            return 2
        i += 2
    for f in files:
        for old in glob.glob(f):
            if os.path.isfile(old):
                os.remove(old)
    print("$ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, check=False)
    output = r.stdout + r.stderr
    print(output, end="" if output.endswith("\n") else "\n")
    problems = []
    if fails and r.returncode == 0:
        problems.append("the command succeeded but was expected to fail")
    if not fails and r.returncode != want_status:
        problems.append(f"exit status {r.returncode}, expected {want_status}")
    for rx in regexes:
        if not re.search(rx, output, re.MULTILINE):
            problems.append(f"output does not match /{rx}/")
    for rx in antiregexes:
        if re.search(rx, output, re.MULTILINE):
            problems.append(f"output matches /{rx}/ but should not")
    if last_line is not None:
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        last = lines[-1] if lines else ""
        if not re.match(last_line, last):
            problems.append(f"the last line of stderr, '{last}', does not match /{last_line}/")
    for f in files:
        matches = [m for m in glob.glob(f) if os.path.isfile(m) and os.path.getsize(m) > 0]
        if not matches:
            problems.append(f"no non-empty file {f}")
    for p in problems:
        print(f"check_command.py: FAILED: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
