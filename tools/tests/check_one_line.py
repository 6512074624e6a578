"""tools.run_one_line: a job that every rank ends with the same mistake shows
one line of ScopeDSM's, printed last, every time.

usage: check_one_line.py SCOPEDSM MISUSE [ROUNDS]

Runs `scopedsm run -n 4 MISUSE CASE` ROUNDS times (default 9) for each of
lock_out_of_range (every rank aborts), before_init and after_exit (every
rank exits with status 1, no MPI_Abort: Open MPI's "Primary job terminated
normally" and "exited with non-zero status" boxes). Each run must exit
non-zero with exactly one "scopedsm:" line on standard error, as its last
line, and none of the MPI library's account of the end."""
import re
import subprocess
import sys

CASES = {
    "lock_out_of_range": r"scopedsm: rank [0-3]: jia_lock\(1024\): lock id out of range",
    "before_init": r"scopedsm: rank [0-3]: jia_lock: called before jia_init",
    "after_exit": r"scopedsm: rank [0-3]: jia_lock: called after jia_exit",
}
NOISE = re.compile(r"MPI_ABORT|Primary job|non-zero status|\[warn\] Epoll|ORTE_ERROR_LOG|BAD TERMINATION")


def main(argv):
    scopedsm, misuse = argv[1], argv[2]
    rounds = int(argv[3]) if len(argv) > 3 else 9
    failures = 0
    for case, expected in CASES.items():
        for i in range(rounds):
            run = subprocess.run([scopedsm, "run", "-n", "4", "--quiet", misuse, case], capture_output=True,
                                 text=True, stdin=subprocess.DEVNULL, timeout=300, check=False)
            lines = [l for l in run.stderr.splitlines() if l.strip()]
            ours = [l for l in lines if l.startswith("scopedsm:")]
            problems = []
            if run.returncode == 0:
                problems.append("exit status 0")
            if len(ours) != 1:
                problems.append(f"{len(ours)} lines of ScopeDSM's, not 1")
            if not lines or not re.match(expected, lines[-1]):
                problems.append("the last line is not the case's")
            if NOISE.search(run.stderr):
                problems.append("the MPI library's account of the end is shown")
            if problems:
                failures += 1
                print(f"{case} run {i + 1}: {'; '.join(problems)}\n--- stderr ---\n{run.stderr}", flush=True)
    total = rounds * len(CASES)
    print(f"run_one_line: {total - failures} of {total} runs printed one line, last")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
