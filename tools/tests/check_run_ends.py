"""tools.run_ends: an end asked of `scopedsm run` alone ends the whole job.

usage: check_run_ends.py SCOPEDSM

For each of SIGINT, SIGTERM and SIGKILL: starts `scopedsm run -n 2` on a
program that prints its pid and then waits, sends the signal to the
`scopedsm run` process only (as a workflow tool does; not to its group),
and checks that every rank is gone and the exit status: 130 and 143 with a
last line saying the job was interrupted, and death by SIGKILL for SIGKILL
(the launcher, whose parent died, then ends the job). Waits are bounded
only so that a failure does not hang: nothing here is timed."""
import os
import signal
import subprocess
import sys
import time

NP = 2
BOUND_S = 120  # a failure's bound, far above anything a passing run needs


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids):
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def one(scopedsm, sig):
    program = ["/bin/sh", "-c", "echo rank-pid $$; exec sleep 100000"]
    run = subprocess.Popen([scopedsm, "run", "-n", str(NP), "--quiet"] + program, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    ranks = []
    for line in run.stdout:
        if line.startswith("rank-pid "):
            ranks.append(int(line.split()[1]))
            if len(ranks) == NP:
                break
    problems = []
    if len(ranks) != NP:
        problems.append(f"only {len(ranks)} of {NP} ranks started")
    os.kill(run.pid, sig)  # the process alone, not its group
    try:
        _, err = run.communicate(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        run.kill()
        _, err = run.communicate()
        problems.append(f"scopedsm run did not end after {signal.Signals(sig).name}")
    left = wait_gone(ranks)
    if left:
        problems.append(f"ranks still running after scopedsm run ended: {left}")
        for p in left:
            os.kill(p, signal.SIGKILL)
    name = signal.Signals(sig).name
    if sig == signal.SIGKILL:
        if run.returncode != -signal.SIGKILL:
            problems.append(f"status {run.returncode}, expected death by SIGKILL")
    else:
        if run.returncode != 128 + sig:
            problems.append(f"exit status {run.returncode}, expected {128 + sig}")
        lines = [l for l in err.splitlines() if l.strip()]
        expected = f"scopedsm run: the job was interrupted by {name} and has ended (exit status {128 + sig})"
        if not lines or lines[-1] != expected:
            problems.append(f"last line of stderr is {lines[-1] if lines else None!r}, expected {expected!r}")
    for p in problems:
        print(f"{name}: {p}\n--- stderr ---\n{err}", flush=True)
    if not problems:
        print(f"{name}: ok (status {run.returncode}, {NP} ranks gone)", flush=True)
    return not problems


def main(argv):
    scopedsm = argv[1]
    results = [one(scopedsm, sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)]
    print("run_ends: ok" if all(results) else "run_ends: FAILED")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
