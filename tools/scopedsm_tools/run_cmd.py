"""`scopedsm run`: start a program on N local processes with the launcher the
build was configured with. The exit status is the job's.

The launcher's error output passes through AbortNoise (abort_noise.py): when
the runtime ends the job with a fatal error, the MPI library's account of
the abort is left out and one runtime line is printed, the last."""
import os
import shlex
import signal
import subprocess
import sys
import threading

from . import abort_noise, hosts, launch, load

USAGE = """usage: scopedsm run [-n N] [options] program [args...]

Runs program on N processes of this machine (no host file needed), or of
the machines a host file names, through the MPI launcher ScopeDSM was built
with. SCOPEDSM_* variables of the environment reach every process. The exit
status is the job's.

options:
  -n, --np N          number of processes (at least 1); without it, the
                      number of physical cores this process may run on, or
                      with --hostfile the number of slots the file names
  --hostfile FILE     run on the hosts FILE names, in Open MPI's form
                      ("host slots=4") or MPICH's ("host:4"; a host alone
                      is one slot); passed to the launcher as Open MPI's
                      --hostfile or MPICH's -f
  --stats FILE        write every process's statistics as JSON to FILE
                      (sets SCOPEDSM_STATS_FILE)
  --trace FILE        write every process's events to FILE, a trace that
                      Perfetto and chrome://tracing open (sets SCOPEDSM_TRACE)
  --quiet             no statistics table at exit (SCOPEDSM_SUMMARY=off)
  --restart DIR       start from the last complete checkpoint in DIR, which
                      the program's scopedsm_checkpoint calls wrote
                      (SCOPEDSM_RESTART; the same number of processes)
  --strict            a SCOPEDSM_* variable ScopeDSM does not know (a
                      misspelling) is an error, not a warning (SCOPEDSM_STRICT=on)
  --timeout SECONDS   longest single wait before the job reports who waits
                      for whom and ends (SCOPEDSM_TIMEOUT; default 0, no
                      limit: only a death or a deadlock ends a wait)
  --load L0,L1,...    competing load, reproducibly: pin rank r to one CPU (the
                      r-th it may use, round robin) and run Lr busy processes
                      pinned beside it, so it gets about 1/(1+Lr) of that CPU
                      (the JIAJIA dissertation's loads 2,1,3,1: --load 0,2,0,1,
                      0,3,0,1 on 8 ranks); ranks not listed get no load
  -x, --env VAR=VALUE set an environment variable for the processes
  --launcher-arg ARG  pass ARG to the MPI launcher (repeatable)
  --raw-errors        pass the launcher's error output through untouched; by
                      default, when ScopeDSM ends the job with an error, one
                      ScopeDSM line (the first to come) is printed, last, and
                      the MPI library's account of the end (Open MPI's
                      MPI_ABORT banner and exit boxes, MPICH's BAD
                      TERMINATION box) is left out
  --hosts H           spread the processes over H "hosts" of this machine:
                      network namespaces joined by a bridge, with their own
                      hostnames; processes of different hosts share no
                      memory and talk TCP over veth pairs, and ScopeDSM sees
                      each host as a node (Open MPI or MPICH's Hydra; needs
                      root and iproute2; removed at exit; `scopedsm cleanup`
                      removes what a launcher killed by SIGKILL left)
  --per-host P        processes per host with --hosts (default: N / H,
                      rounded up; -n defaults to H * P); ranks fill the
                      hosts in order
  --dry-run           print the launch command instead of running it
  -h, --help          this text

SIGINT (Ctrl-C), SIGTERM and SIGHUP sent to scopedsm run are passed on to the
launcher; a job not ended 10 s later is killed, launcher and all. The exit
status is then 130, 143 or 129 and the last line says the job was
interrupted. Killed by SIGKILL, scopedsm run takes the job with it.

environment: SCOPEDSM_MPIEXEC=path overrides the MPI launcher; SCOPEDSM_IP=path
the ip command --hosts uses.
"""


class UsageError(Exception):
    pass


def parse_args(argv):
    """Options up to the program name; everything after belongs to the program."""
    opts = {"nprocs": None, "env": {}, "launcher_args": [], "dry_run": False, "help": False,
            "raw_errors": False, "program": None, "args": [], "hosts": None, "per_host": None, "loads": None,
            "hostfile": None}

    def value(i, name):
        if i + 1 >= len(argv):
            raise UsageError(f"option {name} needs a value")
        return argv[i + 1]

    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            opts["help"] = True
            return opts
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        name, eq, inline = a.partition("=")
        if name in ("-n", "--np", "-np") or (a.startswith("-n") and a[2:].isdigit()):
            if a.startswith("-n") and a[2:].isdigit():
                text, step = a[2:], 1
            elif eq:
                text, step = inline, 1
            else:
                text, step = value(i, name), 2
            try:
                opts["nprocs"] = int(text)
            except ValueError:
                raise UsageError(f"the process count must be a whole number, not '{text}'") from None
            i += step
            continue
        if name in ("--hosts", "--per-host"):
            text, step = (inline, 1) if eq else (value(i, name), 2)
            try:
                opts[name[2:].replace("-", "_")] = int(text)
            except ValueError:
                raise UsageError(f"{name} takes a whole number, not '{text}'") from None
            i += step
            continue
        takes_value = {"--stats", "--trace", "--timeout", "-x", "--env", "--launcher-arg", "--load", "--hostfile",
                       "--restart"}
        if name in takes_value:
            if eq and name != "-x":
                v, step = inline, 1
            else:
                v, step = value(i, name), 2
            if name == "--stats":
                opts["env"]["SCOPEDSM_STATS_FILE"] = os.path.abspath(v)
            elif name == "--trace":
                opts["env"]["SCOPEDSM_TRACE"] = os.path.abspath(v)
            elif name == "--restart":
                opts["env"]["SCOPEDSM_RESTART"] = os.path.abspath(v)
            elif name == "--load":
                try:
                    opts["loads"] = load.parse_loads(v)
                except load.LoadError as e:
                    raise UsageError(str(e)) from None
            elif name == "--timeout":
                opts["env"]["SCOPEDSM_TIMEOUT"] = v
            elif name == "--hostfile":
                opts["hostfile"] = os.path.abspath(v)
            elif name in ("-x", "--env"):
                var, has_eq, val = v.partition("=")
                if not has_eq or not var:
                    raise UsageError(f"{name} takes VAR=VALUE, not '{v}'")
                opts["env"][var] = val
            else:
                opts["launcher_args"].append(v)
            i += step
            continue
        if a == "--quiet":
            opts["env"]["SCOPEDSM_SUMMARY"] = "off"
        elif a == "--strict":
            opts["env"]["SCOPEDSM_STRICT"] = "on"
        elif a == "--dry-run":
            opts["dry_run"] = True
        elif a == "--raw-errors":
            opts["raw_errors"] = True
        else:
            raise UsageError(f"unknown option '{a}' (options go before the program name; see scopedsm run --help)")
        i += 1
    if i < len(argv):
        opts["program"] = argv[i]
        opts["args"] = argv[i + 1:]
    return opts


def check_configuration(config, env):
    """The runtime's own verdict on the SCOPEDSM_* variables, or None if valid
    (or if the info helper is missing, in which case the job will say)."""
    helper = config.get("info_helper")
    if not helper or not os.access(helper, os.X_OK):
        return None
    try:
        out = subprocess.run([helper], capture_output=True, text=True, env=env, timeout=30,
                             stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode == 1:
        for line in out.stdout.splitlines():
            if line.startswith("config_error:"):
                return line.split(":", 1)[1].strip()
        return "invalid SCOPEDSM_* configuration"
    return None


def hostfile_slots(text):
    """The slots a host file names: Open MPI's form ("host slots=4",
    "max_slots=" ignored) or MPICH's ("host:4"); a host alone is one slot,
    and '#' starts a comment. UsageError for a line it cannot read."""
    total = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        host, _, count = words[0].partition(":")
        slots = None
        for w in words[1:]:
            key, eq, val = w.partition("=")
            if key == "slots" and eq:
                slots = val
            elif not (key == "max_slots" and eq):
                raise UsageError(f"host file line {number}: '{raw.strip()}' is neither 'host slots=N' nor 'host:N'")
        if count and slots is not None:
            raise UsageError(f"host file line {number}: '{raw.strip()}' gives its slots twice")
        text_count = count or slots or "1"
        if not host or not text_count.isdigit() or int(text_count) < 1:
            raise UsageError(f"host file line {number}: '{raw.strip()}' is neither 'host slots=N' nor 'host:N' "
                             "(N at least 1)")
        total += int(text_count)
    if total == 0:
        raise UsageError("the host file names no host")
    return total


def default_nprocs(opts):
    """-n when none is given: the host file's slots, else the physical cores."""
    if opts["hostfile"] is None:
        return launch.physical_cores()
    try:
        with open(opts["hostfile"], encoding="utf-8", errors="replace") as f:
            return hostfile_slots(f.read())
    except OSError as e:
        raise UsageError(f"cannot read the host file {opts['hostfile']}: {e.strerror}") from None


def hostfile_args(vendor, path):
    """The launcher's option for a host file: Open MPI's --hostfile, MPICH's -f."""
    return ["--hostfile", path] if vendor == launch.OPENMPI else ["-f", path]


def host_layout(opts):
    """(processes, per host) for --hosts, or UsageError."""
    count, per_host, nprocs = opts["hosts"], opts["per_host"], opts["nprocs"]
    if count < 1:
        raise UsageError(f"--hosts takes a host count of at least 1, not {count}")
    if per_host is not None and per_host < 1:
        raise UsageError(f"--per-host takes at least 1 process, not {per_host}")
    if nprocs is None:
        if per_host is None:
            raise UsageError("missing -n N or --per-host P (the number of processes)")
        nprocs = count * per_host
    if per_host is None:
        per_host = -(-nprocs // count)
    if nprocs > count * per_host:
        raise UsageError(f"{nprocs} processes do not fit {count} hosts of {per_host}")
    if nprocs < 1 + (count - 1) * per_host:
        raise UsageError(f"{nprocs} processes leave a host of the {count} empty at {per_host} per host")
    return nprocs, per_host


def main(argv, config):
    try:
        opts = parse_args(argv)
        if opts["help"]:
            print(USAGE, end="")
            return 0
        if opts["hosts"] is not None and opts["hostfile"] is not None:
            raise UsageError("--hosts makes its own hosts: it cannot be combined with --hostfile")
        if opts["hosts"] is not None:
            opts["nprocs"], opts["per_host"] = host_layout(opts)
        elif opts["per_host"] is not None:
            raise UsageError("--per-host needs --hosts")
        if opts["nprocs"] is None:
            opts["nprocs"] = default_nprocs(opts)
        if opts["nprocs"] < 1:
            raise UsageError(f"the process count must be at least 1, not {opts['nprocs']}")
        if opts["program"] is None:
            raise UsageError("missing the program to run (scopedsm run [-n N] program [args...])")
        if opts["loads"] is not None and len(opts["loads"]) > opts["nprocs"]:
            raise UsageError(f"--load names {len(opts['loads'])} ranks but the job has {opts['nprocs']}")
    except UsageError as e:
        print(f"scopedsm run: {e}", file=sys.stderr)
        print("usage: scopedsm run [-n N] [options] program [args...]  (scopedsm run --help for more)",
              file=sys.stderr)
        return 2
    try:
        launcher = launch.find_launcher(config.get("mpiexec"))
        program = launch.resolve_program(opts["program"])
    except launch.LaunchError as e:
        print(f"scopedsm run: {e}", file=sys.stderr)
        return 2
    env = dict(os.environ)
    env.update(opts["env"])
    vendor = launch.detect_vendor(launcher, config.get("mpiexec"), config.get("mpi_vendor"))

    args = opts["args"]
    if opts["loads"] is not None:
        wrapped = load.command(opts["loads"], program, args)
        program, args = wrapped[0], wrapped[1:]

    hostfile = hostfile_args(vendor, opts["hostfile"]) if opts["hostfile"] is not None else []

    def command(extra):
        return launch.launch_command(vendor, launcher, opts["nprocs"], program, args,
                                     env_names=launch.scopedsm_env_names(env),
                                     extra_launcher_args=extra + hostfile + opts["launcher_args"])

    if opts["dry_run"]:
        extra = []
        if opts["hosts"] is not None:
            extra = (["--hostfile", "HOSTFILE", "--mca", "plm_rsh_agent", "AGENT", "..."] if vendor == launch.OPENMPI
                     else ["-f", "HOSTFILE", "-launcher", "ssh", "-launcher-exec", "AGENT", "-iface", "BRIDGE"])
        print(" ".join(shlex.quote(c) for c in command(extra)))
        return 0
    problem = check_configuration(config, env)
    if problem:
        print(f"scopedsm run: {problem}; fix or unset the variable (scopedsm info lists them all)",
              file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    if opts["hosts"] is not None:
        return run_on_hosts(opts, command, env, vendor)
    try:
        return run_filtered(command([]), env, sys.stderr.buffer, filter_noise=not opts["raw_errors"])
    except OSError as e:
        print(f"scopedsm run: cannot start the launcher {launcher}: {e.strerror}", file=sys.stderr)
        return 127


def _raise_exit(sig, _frame):
    raise SystemExit(128 + sig)


def run_on_hosts(opts, command, env, vendor):
    """Sets up the hosts, runs the job on them and removes them, whatever happens."""
    # An end asked of us while the hosts are being made still removes them.
    previous = {sig: signal.signal(sig, _raise_exit) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        with hosts.Hosts(opts["hosts"]) as h:
            cmd = command(h.launcher_args(vendor, opts["per_host"]))
            try:
                status = run_filtered(cmd, h.environment(env), sys.stderr.buffer,
                                      filter_noise=not opts["raw_errors"])
            except OSError as e:
                print(f"scopedsm run: cannot start the launcher {cmd[0]}: {e.strerror}", file=sys.stderr)
                return 127
        print(f"scopedsm run: {h.count} hosts ({hosts.namespace(h.pid, 0)}..h{h.count - 1}, subnet {h.subnet}): "
              f"{h.link_bytes} bytes left the hosts over their links; namespaces removed", file=sys.stderr)
        return status
    except hosts.HostsError as e:
        print(f"scopedsm run: {e}; run without --hosts", file=sys.stderr)
        return 2
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _die_with_parent():
    """In the launcher's child: end with SIGTERM when the launcher dies
    (even by SIGKILL), so that the job does not outlive it."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def run_filtered(cmd, env, err, filter_noise=True):
    """Runs the launcher with its standard input and output ours and its error
    output through AbortNoise onto `err` (a binary stream, or untouched
    without filter_noise); returns the job's exit status.

    The launcher runs in a session of its own, so that an end asked of us
    reaches the job through us alone: SIGINT (Ctrl-C), SIGTERM and SIGHUP
    are passed on to it, and if the job has not ended END_GRACE_S seconds
    later the launcher and every process of its session are killed (MPICH's
    Hydra may not end on SIGTERM). The launcher is ended (SIGTERM) when we
    die, even by SIGKILL. After such an end the status is 128 + the signal
    (130, 143, 129) and the last line says that the job was interrupted."""
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_die_with_parent)
    received = []
    timers = []

    def pass_on(sig, _frame):
        received.append(sig)
        proc.send_signal(sig)
        if not timers:
            timers.append(threading.Timer(END_GRACE_S, _kill_session, (proc.pid,)))
            timers[0].daemon = True
            timers[0].start()

    previous = {sig: signal.signal(sig, pass_on) for sig in INTERRUPTIONS}
    noise = abort_noise.AbortNoise()

    def show(lines):
        for line in lines:
            err.write((line if line.endswith("\n") else line + "\n").encode("utf-8", "surrogateescape"))
        err.flush()

    try:
        for raw in proc.stderr:
            line = raw.decode("utf-8", "surrogateescape")
            show(noise.feed(line) if filter_noise else [line])
        proc.wait()
        show(noise.finish() if filter_noise else [])
        if received:
            # The launcher has gone: what is left of its session is the
            # job's, and nothing will end it now.
            _kill_session(proc.pid)
            show([interrupted_line(received[0])])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for timer in timers:
            timer.cancel()
        proc.stderr.close()
    return 128 + received[0] if received else launch.exit_status(proc.returncode)


END_GRACE_S = 10
INTERRUPTIONS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def interrupted_line(sig):
    """The last line of a job ended by `sig` sent to `scopedsm run`."""
    name = signal.Signals(sig).name
    return f"scopedsm run: the job was interrupted by {name} and has ended (exit status {128 + sig})\n"


def session_members(sid, proc_root="/proc"):
    """The processes of session `sid`, from /proc (the launcher's own session:
    it and every process it started that did not leave it)."""
    members = []
    for entry in os.listdir(proc_root):
        if not entry.isdigit():
            continue
        try:
            with open(os.path.join(proc_root, entry, "stat"), encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and fields[3] == str(sid):
            members.append(int(entry))
    return members


def _kill_session(sid):
    for pid in session_members(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
