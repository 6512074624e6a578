"""Tests of `scopedsm run --hosts` and `scopedsm cleanup` (label hosts).

  hosts_check.py SCOPEDSM suite PROGRAM [ARGS...]
      runs PROGRAM on 2 hosts of 2 processes with statistics, and checks
      that it passed, that each host is a node of its own (two nodes, ranks
      {0,1} and {2,3}, on hosts scopedsm-h0 and scopedsm-h1, each sharing
      memory within itself), that the pages fetched across hosts crossed
      the hosts' links (at least a page of bytes left the hosts per page
      fetched from another host),
      and that no namespace or bridge is left.
  hosts_check.py SCOPEDSM ends
      ends launchers running `sleep` on 2 hosts by SIGTERM, SIGINT and
      SIGKILL: the first two leave nothing behind, the last leaves its
      namespaces and bridge (its job goes with it), which `scopedsm
      cleanup` removes; a running launcher's are left alone.
  hosts_check.py SCOPEDSM bench APPS_DIR
      `scopedsm bench --hosts 2` runs fft (from APPS_DIR) on 2 processes
      under the cost model: the run verifies, its statistics show two
      nodes on the two hosts with costs injected between them, and nothing
      is left.
  hosts_check.py SCOPEDSM refuse
      where the ip command is missing or fails (SCOPEDSM_IP), the launcher
      refuses in one line with status 2 and leaves nothing.

Exits 77 (skipped) where namespaced hosts cannot be made: not root, no ip or
unshare (refuse runs everywhere).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scopedsm_tools import hosts  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def ours(pid):
    """Namespaces and links named after launcher `pid`."""
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    found = [line.split()[0] for line in ns.splitlines() if line.startswith(f"{hosts.NS_PREFIX}{pid}-")]
    prefix = f"{hosts.LINK_PREFIX}{hosts.base36(pid)}"
    for line in links.splitlines():
        name = line.split(":")[1].strip().split("@")[0] if ":" in line else ""
        if name.startswith(prefix) and name[len(prefix):len(prefix) + 1] in ("b", "v"):
            found.append(name)
    return found


def skip_unless_possible(scopedsm):
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("unshare"):
        print("skipped: namespaced hosts need root, ip and unshare")
        sys.exit(77)


def run_shown(cmd, seconds=240):
    """Runs `cmd` to its end, shows the tails of its output; (the finished Popen, its output, its error output).
    A run still going after `seconds` is ended (SIGTERM: the launcher removes its hosts) and what it printed
    so far is shown, so that a hang says where it hung before CTest's limit cuts the test off silently."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        print(f"still running after {seconds} s: ended")
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    sys.stdout.write(out[-3000:])
    sys.stdout.write(err[-3000:])
    return proc, out, err


def suite(scopedsm, program, args):
    skip_unless_possible(scopedsm)
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        proc, out, err = run_shown([scopedsm, "run", "--hosts", "2", "--per-host", "2", "--stats", stats, program] + args)
        check(proc.returncode == 0, f"the program passes on 2 hosts of 2 processes (status {proc.returncode})")
        # A process whose MPI library hangs in MPI_Finalize leaves with status
        # 0 (SCOPEDSM_TIMEOUT): the tests' own verdict must say passed too.
        check("[  FAILED  ]" not in out and ": Failure" not in err, "no test failed on any process")
        check(ours(proc.pid) == [], "no namespace or link of the launcher is left")
        summary = [line for line in err.splitlines() if line.startswith("scopedsm run: 2 hosts")]
        check(len(summary) == 1, "the launcher reports the hosts' traffic")
        link_bytes = int(summary[0].split(": ")[2].split()[0]) if summary else 0
        try:
            with open(stats) as f:
                j = json.load(f)
        except (OSError, ValueError) as e:
            check(False, f"statistics written ({e})")
            return
        nodes = j["nodes"]
        check([n["ranks"] for n in nodes] == [[0, 1], [2, 3]], f"two nodes, ranks 0,1 and 2,3 ({nodes})")
        check([n["host"] for n in nodes] == ["scopedsm-h0", "scopedsm-h1"], "each node is one host, by its hostname")
        check(all(n["shared"] for n in nodes), "processes of one host share memory")
        # Pages fetched (faults and the runs they brought) less those copied
        # from a node peer's memory: the pages that came from another host.
        fetched = sum(r["counters"]["remote_fetches"] + r["counters"]["prefetched"] - r["counters"]["node_fetches"]
                      for r in j["ranks"])
        page = 4096
        check(fetched > 0, f"pages were fetched across hosts ({fetched})")
        check(link_bytes >= fetched * page,
              f"the fetched pages crossed the hosts' links ({link_bytes} bytes >= {fetched} pages)")


def bench(scopedsm, apps_dir):
    skip_unless_possible(scopedsm)
    with tempfile.TemporaryDirectory() as tmp:
        out_json = os.path.join(tmp, "bench.json")
        proc, _, _ = run_shown([scopedsm, "bench", "--apps-dir", apps_dir, "--apps", "fft", "--procs", "2", "--hosts", "2",
                                "--reps", "1", "--variants", "dsm", "--configs", "net-achievable", "--args", "fft=-m 10",
                                "--timeout", "120", "--out", out_json])
        check(proc.returncode == 0, f"bench --hosts 2 passes (status {proc.returncode})")
        check(ours(proc.pid) == [], "no namespace or link of the bench is left")
        try:
            with open(out_json) as f:
                runs = json.load(f)["runs"]
        except (OSError, ValueError, KeyError) as e:
            check(False, f"bench results written ({e})")
            return
        check(len(runs) == 1 and runs[0]["ok"], "the one run verified")
        stats = runs[0].get("stats") or {}
        nodes = stats.get("nodes") or []
        check([n.get("host") for n in nodes] == ["scopedsm-h0", "scopedsm-h1"], f"one node per host ({nodes})")
        injected = sum(r["counters"].get("net_interrupt_ns", 0) for r in stats.get("ranks", []))
        check(injected > 0, f"the achievable point's interrupts were injected between the hosts ({injected} ns)")


def wait_for(pred, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.2)
    return False


def ends(scopedsm):
    skip_unless_possible(scopedsm)

    def started():
        proc = subprocess.Popen([scopedsm, "run", "--hosts", "2", "-n", "2", "sleep", "60"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Running once both hosts have their sleep.
        up = wait_for(lambda: all(subprocess.run(["ip", "netns", "pids", hosts.namespace(proc.pid, i)],
                                                 capture_output=True, text=True).stdout.split()
                                  for i in range(2)), 30)
        return proc, up

    for sig in (signal.SIGTERM, signal.SIGINT):
        proc, up = started()
        check(up, f"the job runs on both hosts ({signal.Signals(sig).name})")
        proc.send_signal(sig)
        check(wait_for(lambda: proc.poll() is not None, 30), f"{signal.Signals(sig).name} ends the launcher")
        check(ours(proc.pid) == [], f"{signal.Signals(sig).name}: no namespace or link is left")
    proc, up = started()
    running, up2 = started()
    check(up and up2, "two launchers run at once")
    proc.kill()
    proc.wait()
    left = ours(proc.pid)
    check(len(left) == 5, f"SIGKILL leaves the 2 namespaces, 2 veths and the bridge ({left})")
    inside = [hosts.namespace(proc.pid, i) for i in range(2)]
    check(wait_for(lambda: not any(subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                                  text=True).stdout.split() for ns in inside), 30),
          "the killed launcher's job ends with it")
    out = subprocess.run([scopedsm, "cleanup"], capture_output=True, text=True)
    check(out.returncode == 0 and hosts.namespace(proc.pid, 0) in out.stdout, f"cleanup names what it removes ({out.stdout.strip()})")
    check(ours(proc.pid) == [], "cleanup removes them")
    check(not [d for d in os.listdir(tempfile.gettempdir()) if d.startswith(f"{hosts.TMP_PREFIX}{proc.pid}-")],
          "and the launcher's files")
    check(len(ours(running.pid)) == 5, "cleanup leaves a running launcher's hosts alone")
    running.terminate()
    running.wait()
    check(ours(running.pid) == [], "which it removes when it ends")


def refuse(scopedsm):
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "ip")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'mkdir /run/netns failed: Operation not permitted' >&2\nexit 1\n")
        os.chmod(fake, 0o755)
        cases = [("/nonexistent/ip", r"--hosts needs the ip command \('/nonexistent/ip' not found; install iproute2\)"),
                 (fake, "'ip netns add scopedsm-[0-9]+-h0' failed: mkdir /run/netns failed: Operation not permitted")]
        import re
        for ip, message in cases:
            env = dict(os.environ, SCOPEDSM_IP=ip)
            start = time.monotonic()
            proc = subprocess.Popen([scopedsm, "run", "--hosts", "2", "-n", "4", "true"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=env)
            _, err = proc.communicate(timeout=60)
            lines = err.splitlines()
            check(proc.returncode == 2, f"refused with status 2 ({proc.returncode}, SCOPEDSM_IP={ip})")
            check(len(lines) == 1 and re.match("^scopedsm run: " + message + r"( \(network namespaces need root\))?; run without --hosts$", lines[0])
                  is not None, f"in one line: {err.strip()}")
            check(time.monotonic() - start < 30, "within seconds")
            if os.geteuid() == 0 and shutil.which("ip"):
                check(ours(proc.pid) == [], "nothing left")


def main(argv):
    scopedsm, what = argv[0], argv[1]
    if what == "suite":
        suite(scopedsm, argv[2], argv[3:])
    elif what == "ends":
        ends(scopedsm)
    elif what == "bench":
        bench(scopedsm, argv[2])
    elif what == "refuse":
        refuse(scopedsm)
    else:
        sys.exit(f"unknown check {what}")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
