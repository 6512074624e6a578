"""`scopedsm cleanup DIR...`: removes backing files left by dead processes.
(`scopedsm cleanup` with no directory removes what a killed `scopedsm run
--hosts` left behind: hosts.cleanup_main.)

With SCOPEDSM_HOME_BACKING=file:DIR each process's file is created with
O_TMPFILE and never has a name. Where the file system has no O_TMPFILE it
is created as DIR/scopedsm-home-<pid>-XXXXXX and unlinked at once; only a
process killed between those two system calls leaves it behind. This
removes such files whose process no longer runs on this machine.
"""
import os
import re
import sys

from . import hosts

NAME = re.compile(r"^scopedsm-home-(\d+)-[A-Za-z0-9]{6}$")

USAGE = "usage: scopedsm cleanup DIR [DIR...]   (no DIR: the leftovers of `scopedsm run --hosts`)"


def leftovers(directory):
    """The leftover files in `directory` whose process is gone."""
    out = []
    for name in sorted(os.listdir(directory)):
        m = NAME.match(name)
        if m and not hosts.pid_alive(int(m.group(1))):
            out.append(os.path.join(directory, name))
    return out


def main(argv, config=None):
    del config
    if not argv:
        return hosts.cleanup_main([])
    if argv[0] in ("-h", "--help"):
        print(USAGE)
        print(__doc__.strip().split("\n\n", 1)[1])
        return 0
    status = 0
    for directory in argv:
        if not os.path.isdir(directory):
            print(f"scopedsm cleanup: {directory} is not a directory", file=sys.stderr)
            status = 2
            continue
        for path in leftovers(directory):
            os.unlink(path)
            print(f"removed {path}")
    return status
