"""Several "hosts" on one machine: `scopedsm run --hosts N` and `scopedsm cleanup`.

Each host is a network namespace with its own hostname (a UTS namespace
entered by the launch agent), joined to the others by a veth pair whose
outer end is a port of one bridge in the root namespace. The MPI launcher
starts one daemon per host through an agent script that it calls as it
would ssh (Open MPI's plm_rsh_agent, Hydra's -launcher-exec), which runs
the daemon inside the host's namespaces. Processes of one host share memory
(ScopeDSM's node sharing, and Open MPI's vader); processes
of different hosts only talk TCP over the veths (Open MPI: btl
tcp,self,vader with pml ob1, oob and btl restricted to the hosts' subnet;
MPICH: Hydra's proxies reach mpiexec on the bridge; for both, UCX is held
to tcp on the veth, since it takes the machine for the host and would
otherwise carry traffic between the hosts through shared memory, which
Debian's MPICH, ch4:ucx, does: tools/tests/hosts_check.py catches it by the
bytes that cross the links). The MPI library puts processes of different
daemons on different nodes, so MPI_COMM_TYPE_SHARED, and with it ScopeDSM's
NodeTopology, sees each host as a node.

Names, all derived from the launcher's pid so that concurrent launchers do
not collide and leftovers can be told apart:
  namespaces   scopedsm-<pid>-h<i>      (ip netns list)
  bridge       sdsm<pid36>b             (<pid36>: the pid in base 36)
  veth, outer  sdsm<pid36>v<i>          (the inner end is eth0 in the namespace)
  hostnames    scopedsm-h<i>
  files        <tmp>/scopedsm-hosts-<pid>-*/ (the agent and the host file)
  subnet       10.213.<k>.0/24, the first k no interface of the root
               namespace uses; the bridge is .254, host i is .<i+1>
Everything is removed when the launcher ends (normally, on an error, or on
SIGINT, SIGTERM or SIGHUP). A launcher killed by SIGKILL leaves them:
`scopedsm cleanup` removes those whose launcher is gone.

SCOPEDSM_IP names the ip command (default: ip from PATH).
"""
import fcntl
import os
import re
import shutil
import signal
import subprocess
import tempfile

NS_PREFIX = "scopedsm-"
LINK_PREFIX = "sdsm"
SUBNET_BASE = "10.213"
MAX_HOSTS = 250
LOCK_PATH = "/run/lock/scopedsm-hosts.lock"
TMP_PREFIX = "scopedsm-hosts-"  # the agent and host file: <tmp>/scopedsm-hosts-<pid>-XXXX
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


class HostsError(Exception):
    """Namespaced hosts cannot be set up here; the message says why."""


def base36(n):
    out = ""
    while True:
        n, d = divmod(n, 36)
        out = _DIGITS[d] + out
        if n == 0:
            return out


def hostname(i):
    return f"scopedsm-h{i}"


def namespace(pid, i):
    return f"{NS_PREFIX}{pid}-h{i}"


def bridge(pid):
    return f"{LINK_PREFIX}{base36(pid)}b"


def veth(pid, i):
    return f"{LINK_PREFIX}{base36(pid)}v{i}"


def ip_command():
    """The ip command as an absolute path, or HostsError."""
    name = os.environ.get("SCOPEDSM_IP") or "ip"
    path = name if os.sep in name else shutil.which(name)
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise HostsError(f"--hosts needs the ip command ('{name}' not found; install iproute2)")
    return path


def _run(ip, args, check=True):
    out = subprocess.run([ip] + args, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30,
                         check=False)
    if check and out.returncode != 0:
        why = (out.stderr.strip() or out.stdout.strip() or f"exit status {out.returncode}").splitlines()[0]
        raise HostsError(f"'ip {' '.join(args)}' failed: {why}")
    return out


def pid_alive(pid):
    """True if process `pid` exists (also when it is not ours to signal)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_inside(ip, ns):
    """SIGKILL to every process still in namespace `ns` (processes this
    launcher started there), so that deleting it frees it."""
    out = _run(ip, ["netns", "pids", ns], check=False)
    for word in out.stdout.split():
        if word.isdigit():
            try:
                os.kill(int(word), 9)
            except OSError:
                pass


def _free_subnet(ip):
    used = _run(ip, ["-4", "-o", "addr", "show"]).stdout + _run(ip, ["-4", "route", "show"]).stdout
    for k in range(256):
        if f"{SUBNET_BASE}.{k}." not in used:
            return k
    raise HostsError(f"no free subnet {SUBNET_BASE}.K.0/24 for the hosts")


class Hosts:
    """The namespaces, veths and bridge of one launcher; a context manager
    that removes them on the way out."""

    def __init__(self, count, pid=None):
        if count < 1 or count > MAX_HOSTS:
            raise HostsError(f"the host count must be 1 to {MAX_HOSTS}, not {count}")
        self.count = count
        self.pid = os.getpid() if pid is None else pid
        self.ip = ip_command()
        self.unshare = shutil.which("unshare")
        if not self.unshare:
            raise HostsError("--hosts needs the unshare command (util-linux)")
        self.subnet = None
        self.created_ns = []
        self.created_bridge = False
        self.tmpdir = None
        self.link_bytes = 0

    def names(self):
        return [hostname(i) for i in range(self.count)]

    def __enter__(self):
        try:
            self._setup()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def _setup(self):
        try:
            lock = open(LOCK_PATH, "a")  # two launchers must not pick one subnet
        except OSError:
            lock = None  # (not root: making the first namespace fails below)
        try:
            if lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
            self._create()
        except HostsError as e:
            if os.geteuid() != 0:
                raise HostsError(f"{e} (network namespaces need root)") from None
            raise
        finally:
            if lock:
                lock.close()

    def _create(self):
        ip, pid = self.ip, self.pid
        # The first step shows whether namespaces work here at all.
        first = namespace(pid, 0)
        _run(ip, ["netns", "add", first])
        self.created_ns.append(first)
        k = _free_subnet(ip)
        net = f"{SUBNET_BASE}.{k}"
        br = bridge(pid)
        _run(ip, ["link", "add", br, "type", "bridge"])
        self.created_bridge = True
        _run(ip, ["addr", "add", f"{net}.254/24", "dev", br])
        _run(ip, ["link", "set", br, "up"])
        for i in range(self.count):
            ns = namespace(pid, i)
            if i > 0:
                _run(ip, ["netns", "add", ns])
                self.created_ns.append(ns)
            _run(ip, ["link", "add", veth(pid, i), "type", "veth", "peer", "name", "eth0", "netns", ns])
            _run(ip, ["link", "set", veth(pid, i), "master", br, "up"])
            _run(ip, ["-n", ns, "addr", "add", f"{net}.{i + 1}/24", "dev", "eth0"])
            _run(ip, ["-n", ns, "link", "set", "eth0", "up"])
            _run(ip, ["-n", ns, "link", "set", "lo", "up"])
        self.subnet = f"{net}.0/24"
        self.tmpdir = tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{pid}-")
        self.agent = os.path.join(self.tmpdir, "agent")
        # The launcher calls the agent as it would ssh, `agent [-x] HOST
        # COMMAND...`: the command runs in HOST's network namespace, under
        # its own hostname.
        with open(self.agent, "w") as f:
            f.write("#!/bin/sh\n"
                    "# scopedsm run --hosts: starts the MPI launcher's daemon for a host in its namespace\n"
                    'while [ "${1#-}" != "$1" ]; do shift; done  # ssh options (MPICH passes -x)\n'
                    'host="$1"; shift\n'
                    'case "$host" in scopedsm-h[0-9]*) ;; *) echo "scopedsm agent: unknown host $host" >&2; exit 1;; esac\n'
                    f'exec {ip} netns exec "{NS_PREFIX}{pid}-${{host#scopedsm-}}" {self.unshare} --uts '
                    "sh -c 'hostname \"$0\" && exec sh -c \"$1\"' \"$host\" \"$*\"\n")
        os.chmod(self.agent, 0o755)
        self.hostfile = os.path.join(self.tmpdir, "hostfile")

    @staticmethod
    def environment(env):
        """`env` with UCX held to TCP on each host's veth (unless set): UCX
        (MPICH's ch4:ucx, Open MPI's ucx components) judges shared memory
        reachable by the machine, not the host, and would carry traffic
        between the hosts through it; within a host it goes by TCP too."""
        out = dict(env)
        out.setdefault("UCX_TLS", "tcp,self")
        out.setdefault("UCX_NET_DEVICES", "eth0")
        return out

    def launcher_args(self, vendor, per_host):
        """Writes the host file; returns the launcher's options that place
        the job on the hosts and keep every cross-host path on TCP over the
        veths (`vendor` is launch.OPENMPI or launch.MPICH)."""
        openmpi = vendor == "Open MPI"
        with open(self.hostfile, "w") as f:
            for name in self.names():
                f.write(f"{name} slots={per_host}\n" if openmpi else f"{name}:{per_host}\n")
        if openmpi:
            return ["--hostfile", self.hostfile,
                    "-x", "UCX_TLS", "-x", "UCX_NET_DEVICES",
                    "--mca", "pml", "ob1",
                    "--mca", "plm_rsh_agent", self.agent,
                    "--mca", "plm_rsh_no_tree_spawn", "1",
                    "--mca", "oob_tcp_if_include", self.subnet,
                    "--mca", "btl_tcp_if_include", self.subnet,
                    "--mca", "btl", "tcp,self,vader"]
        # Hydra: its proxies reach mpiexec on the bridge; inside a host the
        # only interface besides lo is eth0, which the netmod then uses.
        return ["-f", self.hostfile, "-launcher", "ssh", "-launcher-exec", self.agent, "-iface", bridge(self.pid)]

    def _count_bytes(self):
        total = 0
        for i in range(self.count):
            try:
                with open(f"/sys/class/net/{veth(self.pid, i)}/statistics/rx_bytes") as f:
                    total += int(f.read())
            except (OSError, ValueError):
                pass
        self.link_bytes = total

    def remove(self):
        """Removes whatever this launcher created; safe to call more than once.
        Ends asked of us meanwhile wait until it is done."""
        ends = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, ends)
        try:
            self._remove()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def _remove(self):
        if self.created_ns or self.created_bridge:
            self._count_bytes()
        for i, ns in enumerate(self.created_ns):
            _kill_inside(self.ip, ns)
            # The veth first: a deleted namespace takes its pair with it, but
            # only once the kernel has finished tearing it down.
            _run(self.ip, ["link", "delete", veth(self.pid, i)], check=False)
            _run(self.ip, ["netns", "delete", ns], check=False)
        self.created_ns = []
        if self.created_bridge:
            _run(self.ip, ["link", "delete", bridge(self.pid)], check=False)
            self.created_bridge = False
        if self.tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


# Open MPI's shared-memory segments of processes on the namespaced hosts are
# named after the host: /dev/shm/vader_segment.scopedsm-h<i>.<job>.<rank>.
# A job ended by SIGKILL or SIGTERM leaves them behind.
SHM_SEGMENT = re.compile(r"^vader_segment\.scopedsm-h\d+\.")


def _launcher_dirs(tmp=None):
    """(path, launcher pid) of every launcher's agent and host-file directory."""
    tmp = tmp or tempfile.gettempdir()
    for name in os.listdir(tmp):
        pid, dash, _rest = name[len(TMP_PREFIX):].partition("-")
        if name.startswith(TMP_PREFIX) and dash and pid.isdigit():
            yield os.path.join(tmp, name), int(pid)


def launcher_running(tmp=None):
    """True if a `scopedsm run --hosts` launcher is alive (its files' pid runs)."""
    return any(pid_alive(pid) for _, pid in _launcher_dirs(tmp))


def stale_segments(shm="/dev/shm", tmp=None):
    """The namespaced hosts' MPI segments in `shm`, when no launcher runs
    (hosts' names are shared by launchers, so while one runs, none is stale)."""
    if not os.path.isdir(shm) or launcher_running(tmp):
        return []
    return [os.path.join(shm, n) for n in sorted(os.listdir(shm)) if SHM_SEGMENT.match(n)]


def leftover_dirs():
    """The agent and host-file directories of launchers that are gone."""
    return [path for path, pid in _launcher_dirs() if not pid_alive(pid)]


def leftovers(ip):
    """(namespaces, links) named by scopedsm run --hosts whose launcher is
    gone (the links: bridges and the outer ends of veths)."""
    namespaces, links = [], []
    for line in _run(ip, ["netns", "list"]).stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        rest = name[len(NS_PREFIX):] if name.startswith(NS_PREFIX) else ""
        pid, dash, _host = rest.partition("-")
        if dash and pid.isdigit() and not pid_alive(int(pid)):
            namespaces.append(name)
    for line in _run(ip, ["-o", "link", "show"]).stdout.splitlines():
        parts = line.split(":")
        if len(parts) < 2:
            continue
        name = parts[1].strip().split("@")[0]
        body = name[len(LINK_PREFIX):] if name.startswith(LINK_PREFIX) else ""
        if body.endswith("b"):
            pid36 = body[:-1]
        elif "v" in body and body.rpartition("v")[2].isdigit():
            pid36 = body.rpartition("v")[0]
        else:
            continue
        try:
            pid = int(pid36, 36)
        except ValueError:
            continue
        if not pid_alive(pid):
            links.append(name)
    return namespaces, links


CLEANUP_USAGE = """usage: scopedsm cleanup

Removes the network namespaces (scopedsm-<pid>-h<i>), the bridge and veths
(sdsm<pid in base 36>b, ...v<i>) and the files (<tmp>/scopedsm-hosts-<pid>-*)
that a `scopedsm run --hosts` left behind when it was killed with SIGKILL,
with the processes still running inside the namespaces, and, when no
launcher is running, the MPI library's shared-memory segments named after
the hosts (/dev/shm/vader_segment.scopedsm-h<i>.*), which a job killed
with a signal leaves behind.
Those of launchers still running are left alone.
"""


def cleanup_main(argv):
    import sys
    if argv and argv[0] in ("-h", "--help"):
        print(CLEANUP_USAGE, end="")
        return 0
    if argv:
        print(f"scopedsm cleanup: takes no arguments (got '{argv[0]}')", file=sys.stderr)
        return 2
    try:
        ip = ip_command()
        namespaces, links = leftovers(ip)
    except HostsError as e:
        print(f"scopedsm cleanup: {e}", file=sys.stderr)
        return 2
    for ns in namespaces:
        _kill_inside(ip, ns)
        _run(ip, ["netns", "delete", ns], check=False)
    for link in links:
        _run(ip, ["link", "delete", link], check=False)
    dirs = leftover_dirs()
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)
    segments = stale_segments()
    for path in segments:
        try:
            os.unlink(path)
        except OSError:
            pass
    removed = namespaces + links + dirs + segments
    print("scopedsm cleanup: " + (f"removed {' '.join(removed)}" if removed else "nothing left behind"))
    return 0
