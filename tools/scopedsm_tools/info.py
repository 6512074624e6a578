"""`scopedsm info`: the build, the MPI library and launcher, and the
configuration the SCOPEDSM_* environment variables select.

The runtime's part comes from the scopedsm-info helper (scopedsm_describe()
of the library itself, so it reports the MPI library actually linked and
validates the variables with the runtime's own parser)."""
import json
import os
import shlex
import shutil
import subprocess
import sys

from . import launch


def parse_describe(text):
    """scopedsm_describe() output as (fields, variables): fields maps each
    "key: value" key to its value, except "unknown_variable" lines, which are
    collected in order under "unknown_variables", and "setting" lines (the
    runtime's declaration of each setting: name, group, default, accepted
    values and meaning, tab-separated), collected as dicts under "settings";
    variables is a list of (name, value, is_default)."""
    fields = {"unknown_variables": [], "settings": []}
    variables = []
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if not sep:
            continue
        if key == "unknown_variable":
            fields["unknown_variables"].append(value)
        elif key == "setting":
            parts = value.split("\t")
            if len(parts) == 5:
                fields["settings"].append(dict(zip(("name", "group", "default", "accepted", "meaning"), parts)))
        elif key == "variable":
            name, _, val = value.partition("=")
            is_default = val.startswith("(default ")
            if is_default:
                val = val[len("(default "):-1] if val.endswith(")") else val[len("(default "):]
            variables.append((name, val, is_default))
        else:
            fields[key] = value
    return fields, variables


def run_helper(config):
    """(exit code, stdout) of the scopedsm-info helper; raises OSError if it cannot run."""
    helper = config.get("info_helper")
    if not helper or not os.path.isfile(helper):
        raise OSError(f"the helper scopedsm-info is missing (expected at {helper or '?'}); "
                      "build the 'scopedsm-info' target (cmake --build <build>)")
    out = subprocess.run([helper], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                         check=False)
    if out.returncode not in (0, 1):
        raise OSError(f"{helper} failed with status {out.returncode}: {out.stderr.strip()}")
    return out.returncode, out.stdout


def launch_preview(config, nprocs=4):
    """(launcher, vendor, command) of `scopedsm run -n nprocs`, or (None, None, why it cannot)."""
    try:
        launcher = launch.find_launcher(config.get("mpiexec"))
    except launch.LaunchError as e:
        return None, None, str(e)
    vendor = launch.detect_vendor(launcher, config.get("mpiexec"), config.get("mpi_vendor"))
    cmd = launch.launch_command(vendor, launcher, nprocs, "PROGRAM", [])
    return launcher, vendor, " ".join(shlex.quote(c) for c in cmd)


def srun_mpi_plugin(vendor):
    """The `srun --mpi=` plugin that starts this build's MPI library: PMIx for
    Open MPI, PMI-2 for MPICH (docs/CLUSTER.md)."""
    return "pmix" if vendor == "Open MPI" else "pmi2"


def slurm_info(vendor, environ=None, which=None):
    """What `scopedsm info` says about Slurm: srun's path (or None), the
    command that starts 4 processes of this build, and the allocation this
    shell is in (None outside a Slurm job): its job id, nodes and tasks as
    Slurm's variables name them."""
    environ = os.environ if environ is None else environ
    srun = (which or shutil.which)("srun")
    plugin = srun_mpi_plugin(vendor)
    job = None
    if environ.get("SLURM_JOB_ID"):
        job = {"job_id": environ.get("SLURM_JOB_ID"),
               "nodes": environ.get("SLURM_JOB_NODELIST") or environ.get("SLURM_NODELIST") or "?",
               "tasks": environ.get("SLURM_NTASKS") or "?"}
    return {"srun": srun, "mpi_plugin": plugin, "command": f"srun --mpi={plugin} -n 4 PROGRAM", "allocation": job}


USAGE = "usage: scopedsm info [--json | --variables]"


def main(argv, config):
    as_json = False
    listing = False
    for a in argv:
        if a == "--json":
            as_json = True
        elif a == "--variables":
            listing = True
        elif a in ("-h", "--help"):
            print(f"{USAGE}\n\nPrints the build, the MPI library and launcher, and the configuration that the "
                  "SCOPEDSM_* environment variables select.\nExits 1 if one of them is invalid.\n\n"
                  "  --json       the same as JSON\n"
                  "  --variables  every SCOPEDSM_* setting: its group, default, accepted values and meaning "
                  "(docs/CONFIG.md has more)")
            return 0
        else:
            print(f"scopedsm info: unknown argument '{a}' ({USAGE})", file=sys.stderr)
            return 2
    try:
        rc, text = run_helper(config)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"scopedsm info: {e}", file=sys.stderr)
        return 2
    fields, variables = parse_describe(text)
    launcher, vendor, preview = launch_preview(config)
    if listing:
        print(format_settings(fields["settings"], {n: v for n, v, d in variables if not d}), end="")
    elif as_json:
        print(json.dumps({"describe": fields, "variables": [
            {"name": n, "value": v, "default": d} for n, v, d in variables],
            "launcher": {"path": launcher, "vendor": vendor, "command": preview},
            "slurm": slurm_info(vendor), "build": config}, indent=2))
    else:
        print_text(config, fields, variables, launcher, vendor, preview)
    if rc != 0:
        problem = fields.get("config_error", "a SCOPEDSM_* variable is invalid")
        print(f"scopedsm info: invalid configuration: {problem}; fix or unset that variable", file=sys.stderr)
        return 1
    return 0


def build_line(config):
    """The build type and where this copy lives, e.g. "Release, build tree
    /src/build" or "RelWithDebInfo, installed in /opt/scopedsm"."""
    build_type = config.get("build_type") or "no build type"
    if config.get("tree") == "install":
        return f"{build_type}, installed in {config.get('install_prefix') or '?'}"
    return f"{build_type}, build tree {config.get('build_dir') or '?'}"


def print_text(config, fields, variables, launcher, vendor, preview):
    def row(key, value):
        print(f"  {key + ':':<18} {value}")

    print(f"ScopeDSM {fields.get('version', config.get('version'))}")
    row("build", build_line(config))
    row("runtime compiler", fields.get("compiler", "?"))
    row("headers", " ".join(config.get("include_dirs", [])))
    row("library", config.get("lib_dir"))
    row("sequential lib", config.get("seq_lib_dir"))
    row("tools", config.get("bin_dir"))
    if config.get("tree") == "build":
        row("install prefix", config.get("install_prefix"))
    row("C compiler", f"{config.get('c_compiler')} (scopedsm-cc; legacy C flags: "
        f"{' '.join(config.get('c_legacy_flags', [])) or 'none'})")
    row("C++ compiler", f"{config.get('cxx_compiler')} (scopedsm-c++)")
    if config.get("apps_dir"):
        row("applications", config.get("apps_dir"))
    print("MPI")
    print(f"  {'MPI library:':<18} {fields.get('mpi_library', '?')}")
    row("MPI standard", fields.get("mpi_standard", "?"))
    row("launcher", f"{launcher} ({vendor})" if launcher else "none")
    row("run -n 4 starts", preview)
    slurm = slurm_info(vendor)
    print("Slurm")
    row("srun", slurm["srun"] or "not found")
    row("starts 4 with", slurm["command"])
    job = slurm["allocation"]
    row("allocation", f"job {job['job_id']}: nodes {job['nodes']}, {job['tasks']} tasks" if job
        else "none (not inside a Slurm job)")
    print("Configuration (SCOPEDSM_* environment variables)")
    if "config" in fields:
        row("effective", fields["config"])
    if "coherence_unit" in fields:
        row("coherence unit", fields["coherence_unit"])
    if "config_error" in fields:
        row("INVALID", fields["config_error"])
    for problem in fields.get("unknown_variables", []):
        row("UNKNOWN", problem)
    for name, value, is_default in variables:
        print(f"  {name:<22} {value}{'  (default)' if is_default else ''}")


def format_settings(settings, set_values):
    """The settings as `scopedsm info --variables` lists them: by group, each
    with its default (or the value the environment sets), what it accepts
    and what it does."""
    out = []
    group = None
    for s in settings:
        if s["group"] != group:
            group = s["group"]
            out.append(f"{'' if not out else chr(10)}{group}")
        value = f"{set_values[s['name']]} (set; default {s['default']})" if s["name"] in set_values \
            else f"{s['default']} (default)"
        out.append(f"  {s['name']} = {value}")
        out.append(f"      {s['meaning']}")
        out.append(f"      accepts: {s['accepted']}")
    return "\n".join(out) + "\n"
