"""Which flags make a C compiler accept JIAJIA-era C: K&R function
definitions, implicit int, implicit function declarations and integers
assigned to pointers (jia_alloc returns an integer).

GCC 12 only warns about these in its default gnu17 mode; GCC 14 makes them
errors unless -fpermissive (or the -Wno-... flags); GCC 15 defaults to C23,
which has no K&R definitions at all, so -std=gnu17 is needed there. -std=gnu89
would break `for (int i = ...)` and is never used.

Run as a script, it prints the flags for the compiler named on its command
line as a CMake list (CMake calls it once at configure time):
    python3 legacy_c.py /usr/bin/cc
"""
import os
import subprocess
import sys
import tempfile

# Each -Wno-X is added only when the compiler knows -WX: GCC accepts any
# -Wno-X silently, then notes the unknown ones next to every warning.
WARNING_FLAGS = ["implicit-int", "implicit-function-declaration", "int-conversion",
                 "incompatible-pointer-types", "deprecated-non-prototype"]

PROBE = r"""
static twice(x)
int x;
{ return 2 * x; }

static char *
first(v)
char **v;
{ return v[0]; }

main(argc, argv)
int argc;
char **argv;
{
  char *p;
  int *q;
  unsigned long address = (unsigned long)argv;
  int total = 0;
  p = address;
  q = argv;
  for (int i = 0; i < 2; i++) total += twice(i);
  total += atoi("1");
  return (total == 3 && p != 0 && q != 0 && first(argv) != 0) ? 0 : 1;
}
"""


def _compile(cc, flags, source, workdir, link):
    src = os.path.join(workdir, "probe.c")
    with open(src, "w") as f:
        f.write(source)
    out = os.path.join(workdir, "probe.out" if link else "probe.o")
    cmd = [cc] + flags + ([] if link else ["-c"]) + [src, "-o", out]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                           check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False, ""
    return r.returncode == 0, r.stderr


def accepts_flag(cc, flag, workdir):
    """True if `cc` takes `flag` for C without any complaint."""
    ok, err = _compile(cc, [flag], "int scopedsm_probe;\n", workdir, link=False)
    return ok and not err.strip()


def probe(cc):
    """(flags, std): the flags that let `cc` compile and link legacy C quietly,
    and "-std=gnu17" if the compiler's default standard rejects K&R C, else ""."""
    with tempfile.TemporaryDirectory(prefix="scopedsm-cc-probe-") as workdir:
        flags = [f"-Wno-{w}" for w in WARNING_FLAGS if accepts_flag(cc, f"-W{w}", workdir)]
        if accepts_flag(cc, "-fpermissive", workdir):
            flags.append("-fpermissive")
        ok, _ = _compile(cc, flags, PROBE, workdir, link=True)
        if ok:
            return flags, ""
        ok, _ = _compile(cc, flags + ["-std=gnu17"], PROBE, workdir, link=True)
        if ok:
            return flags, "-std=gnu17"
        return flags, ""


def main(argv):
    if len(argv) != 1:
        print("usage: legacy_c.py C-COMPILER", file=sys.stderr)
        return 2
    flags, std = probe(argv[0])
    print(";".join(flags + ([std] if std else [])), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
