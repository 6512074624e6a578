"""What `scopedsm run` leaves out of the launcher's error output.

A fatal error in the runtime prints one line, "scopedsm: rank R: ...", and
then ends the job with MPI_Abort, the one call that reliably ends every
process under every launcher. When every rank makes the same mistake,
every rank prints its line. The MPI library then adds its own account of
the abort: Open MPI an 8-line MPI_ABORT banner (and a count of the other
processes that sent it, and sometimes "ORTE_ERROR_LOG: Data unpack would
read past end of buffer" or another ORTE_ERROR_LOG in show_help.c from
processes killed while they reported), its "Primary job terminated
normally" and "exited with non-zero status" boxes, and libevent's
"[warn] Epoll ... failed" lines from connections torn down; MPICH an
"application called MPI_Abort" line per process and a BAD TERMINATION box.
None of it says more than the runtime's line, and it buries that line.

AbortNoise holds back every runtime fatal line and that account. If the
job printed a runtime fatal line, the account is dropped at the end and
exactly one fatal line, the first that arrived, is printed after
everything else: it is the last thing the user reads, and it is printed
once. Otherwise (a program that called MPI_Abort itself, or an MPI error
of its own) every held line is printed after all: only the account of an
abort the runtime has already explained is ever left out. Every other line,
the program's own output and Open MPI's other messages included, passes
through at once.
"""
import re

_RUNTIME_PREFIX = re.compile(r"scopedsm: (rank -?\d+: )?")
_LOG_LEVEL = re.compile(r"(error|warning|info|debug): ")
_DASHES = re.compile(r"^-{20,}$")
_OMPI_ABORT = re.compile(r"^MPI_ABORT was invoked on rank \d+ in communicator ")
_OMPI_HELP_COUNT = re.compile(r"^\[[^\]]*\] \d+ more process(es)? ha(s|ve) sent help message (\S+) / (\S+)$")
_OMPI_HELP_HINT = re.compile(r'^\[[^\]]*\] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help')
# Errors in relaying the help messages (the banner) of processes being
# killed: "Data unpack would read past end of buffer", "Out of resource in
# file .../util/show_help.c".
_OMPI_RELAY = re.compile(r"ORTE_ERROR_LOG: (Data unpack would read past end of buffer|.* in file \S*show_help\.c )")
# MPICH 4 prefixes "Abort(1) on node 1 (rank 1 in comm 0): ".
_MPICH_ABORT = re.compile(r"^(Abort\(-?\d+\) on node \d+ \(rank \d+ in comm \d+\): )?"
                          r"application called MPI_Abort\(\S+, -?\d+\) - process \d+$")
# The boxes Open MPI's mpiexec prints when a process ends with a non-zero
# status (the runtime's fatal exit, when MPI_Abort lost the race), and the
# lines libevent prints about connections of processes already gone.
_OMPI_EXIT_BOX = re.compile(r"^(Primary job\s+terminated normally, but|.*exited with non-zero status)")
_EPOLL_WARNING = re.compile(r"^\[warn\] Epoll ")
_MPICH_BOX_EDGE = re.compile(r"^={20,}$")
_MPICH_BOX_LINE = re.compile(r"^=   ")
BLOCK_LINES = 40  # a longer "box" is not one of MPI's: shown as it is


def filter_text(text):
    """`text`, a finished job's whole error output, through AbortNoise."""
    noise = AbortNoise()
    out = []
    for line in text.splitlines(keepends=True):
        out += noise.feed(line)
    return "".join(line if line.endswith("\n") else line + "\n" for line in out + noise.finish())


def is_runtime_fatal(line):
    """Whether `line` is what the runtime's fatal() prints: "scopedsm: rank
    R: <message>" ("scopedsm: <message>" before the rank is known), without
    the log level that warnings and other log lines carry after the rank."""
    m = _RUNTIME_PREFIX.match(line)
    if not m:
        return False
    rest = line[m.end():].rstrip("\n")
    return bool(rest) and not _LOG_LEVEL.match(rest)


class AbortNoise:
    """Feed it the job's error output line by line (lines keep their "\\n");
    feed() and finish() return the lines to print, in order."""

    def __init__(self):
        self.fatal = []      # the runtime's fatal lines, in order: the first is printed at the end
        self.held = []       # the abort's account, printed only if no fatal line came
        self.block = None    # a box being read: (kind, [lines]), kind "ompi" or "mpich"
        self.other_help = False  # Open MPI aggregated a help message other than the abort's

    def _box(self, line, text):
        """Reads one line into the box being read; returns the lines to print."""
        kind, lines = self.block
        if kind == "ompi":
            lines.append(line)
            if _DASHES.match(text):
                self.block = None
                if any(_OMPI_ABORT.match(b) or _OMPI_EXIT_BOX.match(b) for b in lines):
                    self.held += lines
                    return []
                return lines
        elif _MPICH_BOX_LINE.match(text):
            lines.append(line)
        elif _MPICH_BOX_EDGE.match(text):
            lines.append(line)
            self.block = None
            if any("BAD TERMINATION" in b for b in lines):
                self.held += lines
                return []
            return lines
        else:
            # Not a box after all: show what was read, then this line.
            self.block = None
            return lines + self.feed(line)
        if len(lines) > BLOCK_LINES:
            self.block = None
            return lines
        return []

    def feed(self, line):
        text = line.rstrip("\n")
        if self.block is not None:
            return self._box(line, text)
        if _DASHES.match(text):
            self.block = ("ompi", [line])
            return []
        if _MPICH_BOX_EDGE.match(text):
            self.block = ("mpich", [line])
            return []
        count = _OMPI_HELP_COUNT.match(text)
        if count and (count.group(3), count.group(4)) == ("help-mpi-api.txt", "mpi-abort"):
            self.held.append(line)
            return []
        if count:
            self.other_help = True
        if (_OMPI_HELP_HINT.match(text) and not self.other_help) or _OMPI_RELAY.search(text) \
                or _MPICH_ABORT.match(text) or _EPOLL_WARNING.match(text):
            self.held.append(line)
            return []
        if is_runtime_fatal(text):
            self.fatal.append(line)
            return []
        return [line]

    def finish(self):
        """The lines still to print once the job has ended."""
        unfinished = self.block[1] if self.block else []
        self.block = None
        if not self.fatal:
            return self.held + unfinished
        return unfinished + [self.fatal[0]]
