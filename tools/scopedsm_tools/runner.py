"""Running one application once for `scopedsm bench`: the command, a time
limit, the statistics file, and the parsed SCOPEDSM_RESULT line."""
import os
import signal
import subprocess
import time

from . import abort_noise, apps, launch, load, results

TAIL_LINES = 15


def command_for(variant, binary, args, procs, launcher, vendor, env, loads=None, launcher_args=()):
    """The command that runs one variant of an app on `procs` processes (threads for omp);
    `loads`: each rank started beside its competing load, as `scopedsm run --load` does;
    `launcher_args`: options for the MPI launcher (the namespaced hosts' placement)."""
    if variant == "seq":
        return [binary] + list(args)
    if variant == "omp":
        return [binary] + apps.with_threads(args, procs)
    program, program_args = binary, list(args)
    if loads:
        wrapped = load.command(loads, binary, args)
        program, program_args = wrapped[0], wrapped[1:]
    return launch.launch_command(vendor, launcher, procs, program, program_args,
                                 env_names=launch.scopedsm_env_names(env), extra_launcher_args=launcher_args)


def _stop(proc):
    """Ends a timed-out run: TERM to its process group, then KILL."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        try:
            return proc.communicate(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return "", ""


def execute(cmd, env, timeout):
    """(exit code or None if timed out, stdout, stderr, wall seconds)."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                stdin=subprocess.DEVNULL, start_new_session=True, errors="replace")
    except OSError as e:
        return -1, "", f"cannot start {cmd[0]}: {e.strerror}", 0.0
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        out, err = _stop(proc)
        code = None
    return code, out or "", err or "", time.monotonic() - start


def run_once(spec, launcher, vendor, timeout, stats_path, extra_env, launcher_args=()):
    """Runs spec (app, variant, procs, config, args, binary, env) once; returns its record.
    `launcher_args` go to the MPI launcher (bench --hosts)."""
    env = dict(os.environ)
    env.update(extra_env)
    env.update(spec.get("env", {}))
    env["SCOPEDSM_SUMMARY"] = "off"
    env.setdefault("SCOPEDSM_TIMEOUT", str(max(10, int(timeout))))
    if spec["variant"] == "omp":
        env["OMP_NUM_THREADS"] = str(spec["procs"])
    if stats_path:
        env["SCOPEDSM_STATS_FILE"] = stats_path
        if os.path.exists(stats_path):
            os.remove(stats_path)
    cmd = command_for(spec["variant"], spec["binary"], spec["args"], spec["procs"], launcher, vendor, env,
                      spec.get("loads"), launcher_args)
    code, out, err, wall = execute(cmd, env, timeout)
    found = [r for r in results.parse_result_lines(out) if r.get("variant", spec["variant"]) == spec["variant"]]
    result = found[0] if found else None
    record = {
        "app": spec["app"], "variant": spec["variant"], "procs": spec["procs"], "config": spec["config"],
        "args": list(spec["args"]), "size": (result or {}).get("size"), "rep": spec["rep"],
        "load": spec.get("loads"),
        "command": cmd, "exit_code": code, "timed_out": code is None, "wall_s": round(wall, 6),
        "time_s": (result or {}).get("time_s"), "verified": results.is_verified(result),
        "result": result, "stats": None, "error": None,
    }
    if code is None:
        record["error"] = f"timed out after {timeout:g} s"
    elif code != 0:
        record["error"] = f"exit status {launch.exit_status(code)}"
    elif result is None:
        record["error"] = "printed no SCOPEDSM_RESULT line"
    elif not record["verified"]:
        record["error"] = "did not verify its result"
    if stats_path:
        stats, why = results.load_stats(stats_path)
        record["stats"] = stats
        if stats is None and record["error"] is None:
            record["stats_error"] = why
        try:
            os.remove(stats_path)
        except OSError:
            pass
    record["ok"] = record["error"] is None
    if not record["ok"]:
        # The runtime's error last, not the MPI library's account of the abort.
        lines = (out + abort_noise.filter_text(err)).splitlines()
        record["output_tail"] = lines[-TAIL_LINES:]
    return record
