"""ScopeDSM jobs under Slurm (label slurm): batch jobs, failures,
cancellation and time limits, on the cluster tools/slurm_cluster.sh starts
(SLURM_CONF must name its configuration).

  slurm_check.py batch MPI_PLUGIN SCOPEDSM PROGRAM [ARGS...]
      an sbatch job script of 2 tasks that runs PROGRAM with `srun`, then
      with `scopedsm run -n 2` inside the same allocation: the job completes
      with exit code 0, its output file has both runs' output, the
      statistics name the Slurm node, and no process of the job is left.
  slurm_check.py fail MPI_PLUGIN VICTIM MISUSE
      a process of a 3-task srun is killed (VICTIM kill_compute): srun ends
      non-zero within seconds and no process is left; a batch job whose
      program misuses the API (MISUSE lock_out_of_range) ends FAILED with
      exit code 1 and the ScopeDSM line in its output.
  slurm_check.py cancel MPI_PLUGIN VICTIM
      a batch job whose processes wait forever (VICTIM hang_at_barrier) is
      cancelled with scancel once running: it ends CANCELLED and no
      process is left, within seconds.
  slurm_check.py timelimit MPI_PLUGIN VICTIM
      the same job with a time limit of one minute: Slurm ends it at the
      limit (TIMEOUT), and no process is left.

Every check prints "ok" or "FAIL"; the exit status is 1 if any failed.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def job_info(job):
    """scontrol's fields of `job` as a dict (empty once Slurm forgot it)."""
    out = subprocess.run(["scontrol", "-o", "show", "job", str(job)], capture_output=True, text=True).stdout
    fields = {}
    for tok in out.split():
        key, eq, value = tok.partition("=")
        if eq:
            fields.setdefault(key, value)
    return fields


def wait_state(job, states, limit):
    """Waits up to `limit` s for the job to reach one of `states`; its fields."""
    end = time.monotonic() + limit
    info = {}
    while time.monotonic() < end:
        info = job_info(job)
        if info.get("JobState") in states:
            return info
        time.sleep(0.2)
    return info


def submit(script, tmp, extra=()):
    path = os.path.join(tmp, "job.sh")
    with open(path, "w") as f:
        f.write(script)
    out = subprocess.run(["sbatch", "--parsable", *extra, path], capture_output=True, text=True)
    check(out.returncode == 0, f"sbatch accepts the job ({out.stderr.strip()})")
    return out.stdout.strip().split(";")[0]


def left_over(tag):
    """Processes whose command line holds `tag` (this check's own excluded)."""
    out = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True).stdout.split()
    return [p for p in out if int(p) != os.getpid()]


def wait_gone(tag, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end and left_over(tag):
        time.sleep(0.2)
    return left_over(tag)


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def wait_for_text(path, pattern, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if re.search(pattern, read(path)):
            return True
        time.sleep(0.2)
    return False


def batch(plugin, scopedsm, program, args, tmp):
    out = os.path.join(tmp, "out.txt")
    cmd = " ".join([program, *args])
    script = f"""#!/bin/bash
#SBATCH -n 2
#SBATCH -o {out}
echo "== srun"
srun --mpi={plugin} env SCOPEDSM_SUMMARY=on {cmd}
echo "srun status $?"
echo "== scopedsm run"
SCOPEDSM_SUMMARY=on {scopedsm} run -n 2 {cmd}
echo "scopedsm run status $?"
"""
    job = submit(script, tmp)
    info = wait_state(job, ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"), 120)
    text = read(out)
    check(info.get("JobState") == "COMPLETED", f"the job completes (state {info.get('JobState')})")
    check(info.get("ExitCode") == "0:0", f"with exit code 0:0 ({info.get('ExitCode')})")
    check("srun status 0" in text, "srun ran the program with status 0")
    check("scopedsm run status 0" in text, "scopedsm run ran it inside the allocation with status 0")
    host = subprocess.run(["hostname", "-s"], capture_output=True, text=True).stdout.strip()
    layouts = re.findall(r"^layout: 2 processes on 1 node.*$", text, re.M)
    check(len(layouts) == 2, f"both runs' statistics show 2 processes on 1 node ({len(layouts)} layout lines)")
    check(re.search(rf"\b{re.escape(host)}\b", text) is not None, f"the statistics name the node {host}")
    check(not wait_gone(program, 10), "no process of the job is left")
    if failures:
        print(text)


def fail(plugin, victim, misuse, tmp):
    tag = f"slurmfail{os.getpid()}"
    start = time.monotonic()
    run = subprocess.run(["srun", f"--mpi={plugin}", "-n", "3", victim, "kill_compute", "1", tag],
                         capture_output=True, text=True, timeout=120)
    took = time.monotonic() - start
    print(run.stdout + run.stderr)
    check(run.returncode != 0, f"srun ends non-zero when a process is killed (status {run.returncode})")
    check("VICTIM rank 1" in run.stdout, "the victim was killed where the case says")
    check(took < 30, f"within seconds ({took:.1f} s)")
    check(not wait_gone(tag, 10), "no process of the job is left")

    out = os.path.join(tmp, "misuse.txt")
    job = submit(f"#!/bin/bash\n#SBATCH -n 2\n#SBATCH -o {out}\nsrun --mpi={plugin} {misuse} lock_out_of_range\n", tmp)
    info = wait_state(job, ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"), 60)
    text = read(out)
    check(info.get("JobState") == "FAILED", f"a misusing program's job ends FAILED (state {info.get('JobState')})")
    check(info.get("ExitCode") == "1:0", f"with exit code 1:0 ({info.get('ExitCode')})")
    check(re.search(r"^scopedsm: rank [01]: jia_lock\(1024\): lock id out of range", text, re.M) is not None,
          "its output has the ScopeDSM line naming the call")
    if failures:
        print(text)


def ends_by_slurm(plugin, victim, tmp, how):
    tag = f"slurm{how}{os.getpid()}"
    out = os.path.join(tmp, "hang.txt")
    extra = ("--time=1",) if how == "timelimit" else ()
    job = submit(f"#!/bin/bash\n#SBATCH -n 2\n#SBATCH -o {out}\n"
                 f"srun --mpi={plugin} env SCOPEDSM_TIMEOUT=0 {victim} hang_at_barrier 1 {tag}\n", tmp, extra)
    started = wait_for_text(out, r"PID 0 \d+[\s\S]*PID 1 \d+|PID 1 \d+[\s\S]*PID 0 \d+", 60)
    check(started, "the job runs (both processes printed their pids)")
    if how == "cancel":
        time.sleep(1)
        t0 = time.monotonic()
        subprocess.run(["scancel", job], check=False)
        info = wait_state(job, ("CANCELLED",), 30)
        check(info.get("JobState") == "CANCELLED", f"scancel ends it CANCELLED (state {info.get('JobState')})")
        gone = not wait_gone(tag, 20)
        check(gone, f"no process is left ({time.monotonic() - t0:.1f} s after scancel)")
    else:
        t0 = time.monotonic()
        info = wait_state(job, ("TIMEOUT", "COMPLETED", "FAILED", "CANCELLED"), 200)
        check(info.get("JobState") == "TIMEOUT", f"Slurm ends it at its time limit (state {info.get('JobState')}, "
                                                 f"{time.monotonic() - t0:.0f} s after it started)")
        check(not wait_gone(tag, 20), "no process is left")
    if failures:
        print(read(out))
        subprocess.run(["scancel", job], check=False)


def main(argv):
    if len(argv) < 3 or "SLURM_CONF" not in os.environ:
        print(__doc__, file=sys.stderr)
        return 2
    what, plugin = argv[1], argv[2]
    with tempfile.TemporaryDirectory(prefix="scopedsm-slurm-") as tmp:
        os.chmod(tmp, 0o755)
        if what == "batch":
            batch(plugin, argv[3], argv[4], argv[5:], tmp)
        elif what == "fail":
            fail(plugin, argv[3], argv[4], tmp)
        elif what in ("cancel", "timelimit"):
            ends_by_slurm(plugin, argv[3], tmp, what)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
