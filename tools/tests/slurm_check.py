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
      a non-zero exit code and the ScopeDSM line in its output.
  slurm_check.py cancel MPI_PLUGIN VICTIM
      a batch job whose processes wait forever (VICTIM hang_at_barrier) is
      cancelled with scancel once running: it ends CANCELLED and no
      process is left, within seconds.
  slurm_check.py timelimit MPI_PLUGIN VICTIM
      the same job with a time limit of one minute: Slurm ends it at the
      limit (TIMEOUT), and no process is left.

  slurm_check.py hosts MPI_PLUGIN PORT PROGRAM [ARGS...]
      a Slurm cluster of 2 nodes on namespaced hosts (scopedsm run --hosts's
      namespaces: each host a network namespace with its own hostname and
      slurmd, the controller on the bridge; port PORT and PORT + 1):
      `srun -N 2 --ntasks-per-node=2` runs PROGRAM on both, its statistics
      show 2 nodes named after the hosts, its pages cross the hosts' links,
      and nothing is left. Exits 77 (skipped) where namespaces cannot be
      made (not root).

Every check prints "ok" or "FAIL"; the exit status is 1 if any failed.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scopedsm_tools import hosts  # noqa: E402

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
    # Open MPI's abort ends the step with the program's status (1:0); MPICH's,
    # through PMI-2, has Slurm cancel the step, which kills the tasks (137:0).
    check(info.get("ExitCode") in ("1:0", "137:0"), f"with exit code 1:0 or 137:0 ({info.get('ExitCode')})")
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


def start_cluster(d, port, nodes, controller, node_addr, enter):
    """Starts munged, slurmctld and a slurmd per node name in `nodes`
    (`enter(i)`: the command prefix that runs node i's slurmd in its host);
    returns the environment that reaches the cluster, or None."""
    os.makedirs(os.path.join(d, "munge"), mode=0o700, exist_ok=True)
    key = os.path.join(d, "munge", "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    subprocess.run(["munged", "--force", f"--key-file={key}", f"--socket={d}/munge/socket",
                    f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log", f"--seed-file={d}/munge/seed"],
                   check=True)
    lines = [f"NodeName={n} NodeAddr={node_addr(i)} CPUs=4 Port={port + 1} State=UNKNOWN" for i, n in enumerate(nodes)]
    user = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    conf = "\n".join([
        "ClusterName=scopedsmhosts", f"SlurmctldHost={controller}", f"SlurmUser={user}", f"SlurmdUser={user}",
        "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={d}/munge/socket",
        f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool-%n", f"TmpFS={d}/tmp-%n",
        f"SlurmctldPidFile={d}/slurmctld.pid", f"SlurmdPidFile={d}/slurmd-%n.pid",
        f"SlurmctldLogFile={d}/slurmctld.log", f"SlurmdLogFile={d}/slurmd-%n.log", f"SlurmctldPort={port}",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SwitchType=switch/none", "MpiDefault=none",
        "SchedulerType=sched/backfill", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
        "SlurmdParameters=config_overrides", "ReturnToService=2", "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none", *lines,
        "PartitionName=hosts Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4", ""])
    os.makedirs(os.path.join(d, "state"), exist_ok=True)
    with open(os.path.join(d, "slurm.conf"), "w") as f:
        f.write(conf)
    env = dict(os.environ, SLURM_CONF=os.path.join(d, "slurm.conf"))
    subprocess.run(["slurmctld", "-i"], env=env, check=True)
    for i, n in enumerate(nodes):
        for sub in ("spool", "tmp"):
            os.makedirs(os.path.join(d, f"{sub}-{n}"), exist_ok=True)
        subprocess.run([*enter(i), "sh", "-c", f'hostname "{n}" && exec slurmd -N "{n}"'], env=env, check=True)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        states = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %t"], env=env, capture_output=True,
                                text=True).stdout.split()
        if sum(1 for st in states[1::2] if st in ("idle", "mix")) == len(nodes):
            return env
        time.sleep(0.2)
    return None


def stop_cluster(d, nodes):
    pids = [os.path.join(d, f) for f in ["slurmctld.pid", "munged.pid"] + [f"slurmd-{n}.pid" for n in nodes]]
    for path in pids:
        try:
            with open(path) as f:
                os.kill(int(f.read().split()[0]), 15)
        except (OSError, ValueError, IndexError):
            pass
    time.sleep(0.5)


def on_hosts(plugin, port, program, args, tmp):
    if os.geteuid() != 0:
        print("skipped: namespaced hosts need root")
        return 77
    names = [hosts.hostname(i) for i in range(2)]
    try:
        h = hosts.Hosts(2)
        h.__enter__()
    except hosts.HostsError as e:
        print(f"skipped: {e}")
        return 77
    net = h.subnet.rsplit(".", 1)[0]
    controller = f"{os.uname().nodename.split('.')[0]}({net}.254)"
    try:
        env = start_cluster(tmp, port, names, controller, lambda i: f"{net}.{i + 1}",
                            lambda i: ["nsenter", f"--net=/run/netns/{hosts.namespace(h.pid, i)}", "unshare", "--uts"])
        check(env is not None, "a slurmd on each of 2 namespaced hosts joins the cluster")
        if env is None:
            return 1
        # Each host's processes reach the others' by TCP on the hosts' subnet.
        env = hosts.Hosts.environment(env)
        env.update(SCOPEDSM_SUMMARY="on", OMPI_MCA_pml="ob1", OMPI_MCA_btl="tcp,self,vader",
                   OMPI_MCA_btl_tcp_if_include=h.subnet, OMPI_MCA_oob_tcp_if_include=h.subnet)
        before = link_bytes(h)
        run = subprocess.run(["srun", f"--mpi={plugin}", "-N", "2", "--ntasks-per-node=2", program, *args], env=env,
                             capture_output=True, text=True, timeout=240)
        crossed = link_bytes(h) - before
        text = run.stdout + run.stderr
        check(run.returncode == 0, f"srun -N 2 runs the program on both hosts (status {run.returncode})")
        check(re.search(r"^layout: 4 processes on 2 nodes, at most 2 per node", text, re.M) is not None,
              "its statistics show 4 processes on 2 nodes")
        check(re.search(rf"^nodes: {names[0]} \(ranks 0, 1\), {names[1]} \(ranks 2, 3\)$", text, re.M) is not None,
              "and name each host and its ranks")
        check(crossed > 64 * 1024, f"its traffic crossed the hosts' links ({crossed} bytes)")
        if failures:
            print(text[-6000:])
    finally:
        stop_cluster(tmp, names)
        h.__exit__(None, None, None)
    return 0


def link_bytes(h):
    total = 0
    for i in range(h.count):
        for what in ("rx_bytes", "tx_bytes"):
            try:
                with open(f"/sys/class/net/{hosts.veth(h.pid, i)}/statistics/{what}") as f:
                    total += int(f.read())
            except (OSError, ValueError):
                pass
    return total


def main(argv):
    if len(argv) < 3 or ("SLURM_CONF" not in os.environ and argv[1] != "hosts"):
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
        elif what == "hosts":
            rc = on_hosts(plugin, int(argv[3]), argv[4], argv[5:], tmp)
            if rc == 77:
                return 77
        else:
            print(__doc__, file=sys.stderr)
            return 2
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
