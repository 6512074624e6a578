"""The `scopedsm` command: dispatches to its subcommands."""
import sys

from . import buildconfig

USAGE = """usage: scopedsm <command> [arguments]

commands:
  run [-n N] program [args...] run a ScopeDSM program on N local processes
                               (default: one per physical core; --hostfile
                               FILE: on its hosts; --hosts H: on H
                               network-namespace hosts)
  cleanup                      remove what a killed `run --hosts` left behind
  cleanup DIR...               remove backing files (SCOPEDSM_HOME_BACKING) of dead processes
  info                         show the build, MPI library and configuration
  bench [--quick] [options]    run the applications and write one JSON file
  report FILE.json [-o DIR]    Markdown tables and PNG plots from bench results
  version                      print the ScopeDSM version

'scopedsm <command> --help' explains a command. Compile programs with
scopedsm-cc / scopedsm-c++ (add --seq for the sequential library).
"""


def main(argv, build_json):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0 if argv else 2
    try:
        config = buildconfig.load(build_json)
    except buildconfig.BuildConfigError as e:
        print(f"scopedsm: {e}", file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "run":
        from . import run_cmd
        return run_cmd.main(rest, config)
    if command == "info":
        from . import info
        return info.main(rest, config)
    if command == "bench":
        from . import bench
        return bench.main(rest, config)
    if command == "report":
        from . import report
        return report.main(rest, config)
    if command == "cleanup":
        from . import cleanup
        return cleanup.main(rest, config)
    if command in ("version", "--version"):
        print(config.get("version"))
        return 0
    print(f"scopedsm: unknown command '{command}'; the commands are run, cleanup, info, bench, report, version "
          "(scopedsm --help)", file=sys.stderr)
    return 2
