"""scopedsm-cc, scopedsm-c++ and scopedsm-fc: compiler wrappers in the manner of mpicc.

They add the ScopeDSM include path, and when linking -lscopedsm with its
rpath and MPI's link flags (or -lscopedsm_seq with --seq, which needs no
MPI).

scopedsm-cc compiles C as the compiler would, with one addition,
-fcommon (tentative definitions of globals in a header included by several
files link as they did before GCC 10 and Clang 11). Programs written for
JIAJIA-era compilers may need more: K&R definitions, implicit int and
function declarations, integers assigned to pointers. Those allowances (see
legacy_c.py, measured once by CMake for the configured compiler, or once per
compiler, cached, for one chosen with SCOPEDSM_CC) are applied:

  * with --legacy, always;
  * otherwise only when the compiler rejects the program for one of those
    reasons (GCC 14 and later, Clang 16 and later): the wrapper then
    compiles it again with them, saying so once on standard error.

A compiler that merely warns about legacy C (GCC 12, 13) compiles such a
program at once, and its warnings show, as they would without the wrapper.

scopedsm-fc (gfortran) adds -fcray-pointer, the path of jiaf.h and of the
module scopedsm, and links the module's library (libscopedsm_fortran).

With -fopenmp, all three build an OpenMP program whose team is the job's
processes (docs/OPENMP.md): they compile with -fno-inline-atomics (atomics
become library calls that ScopeDSM sends to the word's home), and link
ScopeDSM's OpenMP runtime instead of libgomp, as a non-PIE executable with
ScopeDSM's linker script (the program's globals in pages of their own) and
main and the malloc family redirected (--wrap) to the runtime.
"""
import hashlib
import json
import os
import shlex
import subprocess
import sys

from . import buildconfig, legacy_c

USAGE = """usage: {name} [--seq] [--legacy] [--show | --cflags | --libs] [compiler arguments...]

Compiles and links {what} programs for ScopeDSM, as mpicc does for MPI: adds
the include path, and when linking -lscopedsm, its rpath and the MPI
libraries.{legacy}

  --seq      link the sequential library (libscopedsm_seq, no MPI) instead:
             the one-process baseline of the same program{legacy_option}
  --show     print the compiler command instead of running it
  --cflags   print only the compile flags
  --libs     print only the link flags
  --help     this text

environment: {env}=compiler uses another compiler than {default}.
"""

FORTRAN_USAGE = """usage: scopedsm-fc [--show | --cflags | --libs] [compiler arguments...]

Compiles and links Fortran programs for ScopeDSM with gfortran: adds
-fcray-pointer and the path of jiaf.h (JIAJIA's Fortran 77 interface) and of
the module scopedsm (use scopedsm), and when linking the module's library,
-lscopedsm, its rpath and the MPI libraries. Fixed-form sources (.f, .for,
.f77, .F, ...) also get -fallow-argument-mismatch, which JIAJIA-era Fortran
77 needs (one buffer argument of several types); free-form sources do not.

  --show     print the compiler command instead of running it
  --cflags   print only the compile flags
  --libs     print only the link flags
  --help     this text

environment: SCOPEDSM_FC=compiler uses another gfortran than {default}.
"""

# The three wrappers: their names, the variable that picks another compiler,
# the build description's key of the configured one and the fallback.
LANGUAGES = {
    "c": ("scopedsm-cc", "SCOPEDSM_CC", "c_compiler", "cc"),
    "c++": ("scopedsm-c++", "SCOPEDSM_CXX", "cxx_compiler", "c++"),
    "fortran": ("scopedsm-fc", "SCOPEDSM_FC", "fortran_compiler", "gfortran"),
}

# Source suffixes gfortran reads as fixed form (Fortran 77).
FIXED_FORM = (".f", ".for", ".fpp", ".ftn", ".f77", ".F", ".FOR", ".FPP", ".FTN", ".F77")

LEGACY_NOTE = """

Compiles C as the compiler does, plus -fcommon (globals defined in a header
that several files include link as with the compilers of JIAJIA's day). A
program the compiler rejects as legacy C (K&R definitions, implicit int,
implicit function declarations, integers assigned to pointers) is compiled
again with the allowances for it, which the wrapper says once."""

LEGACY_OPTION = """
  --legacy   always compile with the allowances for legacy C (and quietly)"""

# The diagnostics, as GCC and Clang tag them, that legacy C draws: an error
# carrying one of them means the program needs the legacy allowances.
LEGACY_WARNINGS = ("implicit-int", "implicit-function-declaration", "int-conversion", "incompatible-pointer-types",
                   "deprecated-non-prototype", "return-mismatch")
# Errors without a tag that K&R C draws under C23, where it is gone.
LEGACY_WORDS = ("old-style", "K&R", "without a prototype", "identifier list")

# Options after which the compiler does not link.
NO_LINK = {"-c", "-S", "-E", "-M", "-MM", "-fsyntax-only"}

# What the compiler driver compiles (rather than links).
SOURCE_SUFFIXES = (".c", ".i", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".ii", ".f", ".for", ".ftn", ".f90",
                   ".f95", ".f03", ".f08", ".F", ".FOR", ".FTN", ".F90", ".F95", ".F03", ".F08", ".fpp", ".FPP")

# What an OpenMP program's own calls are redirected to (omp/program_abi.cc).
OMP_WRAPPED = ("main", "malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign", "aligned_alloc",
               "memalign", "valloc", "malloc_usable_size", "sigaction", "signal",
               # C++'s new and delete (Itanium ABI names)
               "_Znwm", "_Znam", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t", "_ZnwmRKSt9nothrow_t",
               "_ZnamRKSt9nothrow_t", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvSt11align_val_t",
               "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t")
# Fortran's main also sets the Fortran runtime's options (and its SIGSEGV handler).
OMP_WRAPPED_FORTRAN = ("_gfortran_set_options",)


def openmp(args):
    """Whether the user asked for OpenMP: -fopenmp (not -fopenmp-simd, which needs no runtime), or, at a link
    without it, an OpenMP runtime named among the libraries (CMake's OpenMP::OpenMP_C links the libraries
    its check found, libgomp or ScopeDSM's, without -fopenmp)."""
    for a in args:
        if a == "-fopenmp" or a.startswith("-fopenmp=") or a == "-lgomp":
            return True
        base = os.path.basename(a)
        if base.startswith(("libgomp.so", "libgomp.a", "libscopedsm_omp")):
            return True
    return False


def omp_plugin(config):
    """The flush plugin (omp/plugin) if this build has it, else None."""
    path = os.path.join(config.get("lib_dir") or "", "scopedsm_omp_plugin.so")
    return path if os.path.exists(path) else None


def omp_compile_flags(config, compiler, name):
    # -fstack-clash-protection: frames larger than a page touch every page, so
    # that an overflow of the master's stack (in the shared region) hits its
    # guard instead of jumping over it into the program's globals.
    flags = ["-fno-inline-atomics", "-fstack-clash-protection"]
    plugin = omp_plugin(config)
    if plugin and "clang" not in os.path.basename(compiler):
        flags.append(f"-fplugin={plugin}")
    else:
        print(f"{name}: warning: without ScopeDSM's GCC plugin (a GCC build of ScopeDSM with "
              "gcc-N-plugin-dev installed), '#pragma omp flush' does not order memory between processes; "
              "locks, critical sections, barriers and atomics still do", file=sys.stderr)
    return flags


def omp_link_flags(config, lang="c"):
    lib = config.get("lib_dir")
    wrapped = OMP_WRAPPED + (OMP_WRAPPED_FORTRAN if lang == "fortran" else ())
    # --no-as-needed: the runtime's libraries come first in the process's
    # symbol search order, before the C and C++ libraries (their operator
    # new, sigaction and signal take the place of those libraries' own),
    # whether or not the program calls them directly.
    return ["-no-pie", "-Wl,--no-as-needed", f"-Wl,-T,{lib}/scopedsm_omp.ld",
            "-Wl," + ",".join(f"--wrap={f}" for f in wrapped),
            f"{lib}/libscopedsm_omp_start.a", f"-L{lib}", "-lscopedsm_omp"]


def compile_flags(config, lang, seq):
    flags = list(config.get("sanitize_flags", []))
    flags += [f"-I{d}" for d in config.get("include_dirs", [])]
    if lang == "fortran":
        # jiaf.h's Cray pointers; the module's .mod files are found on -I.
        return ["-fcray-pointer"] + flags + [f"-I{d}" for d in config.get("fortran_module_dirs", [])]
    if lang == "c":
        flags.append("-fcommon")
    if lang == "c++":
        flags += ["-DOMPI_SKIP_MPICXX=1", "-DMPICH_SKIP_MPICXX=1"]
    if not seq:
        flags += [f"-I{d}" for d in config.get("mpi_include_dirs", [])]
        flags += [f"-D{d}" for d in config.get("mpi_compile_definitions", [])]
        flags += list(config.get("mpi_compile_options", []))
    return flags


def link_flags(config, seq, lang="c"):
    flags = list(config.get("sanitize_flags", []))
    if lang == "fortran" and config.get("fortran_lib_dir"):
        flags += [f"-L{config['fortran_lib_dir']}", "-lscopedsm_fortran"]
    if seq:
        lib = config.get("seq_lib_dir") or config.get("lib_dir")
        return flags + [f"-L{lib}", f"-Wl,-rpath,{lib}", "-lscopedsm_seq"]
    lib = config.get("lib_dir")
    flags += [f"-L{lib}", f"-Wl,-rpath,{lib}", "-lscopedsm"]
    flags += list(config.get("mpi_link_flags", []))
    rpaths = []
    for path in config.get("mpi_libraries", []):
        flags.append(path)
        d = os.path.dirname(path)
        if os.path.isabs(path) and d not in rpaths:
            rpaths.append(d)
    flags += [f"-Wl,-rpath,{d}" for d in rpaths]
    flags.append("-pthread")
    return flags


def legacy_flags(config, compiler, user_args):
    """The flags that make `compiler` accept legacy C, minus a -std= the user chose."""
    configured = config.get("c_compiler")
    if configured and os.path.realpath(_which(compiler)) == os.path.realpath(_which(configured)):
        flags = list(config.get("c_legacy_flags", []))
    else:
        flags = cached_probe(compiler)
    if any(a.startswith("-std=") or a in ("-ansi",) for a in user_args):
        flags = [f for f in flags if not f.startswith("-std=")]
    return flags


def _which(name):
    if os.sep in name:
        return name
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return name


def cached_probe(compiler):
    """legacy_c.probe for a compiler other than the configured one, cached per compiler binary."""
    path = os.path.realpath(_which(compiler))
    try:
        st = os.stat(path)
        key = hashlib.sha1(f"{path}:{st.st_mtime_ns}:{st.st_size}".encode()).hexdigest()[:16]
    except OSError:
        key = None
    cache_dir = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "scopedsm")
    cache = os.path.join(cache_dir, f"legacy-c-{key}.json") if key else None
    if cache:
        try:
            with open(cache) as f:
                return json.load(f)
        except (OSError, ValueError):
            pass
    flags, std = legacy_c.probe(compiler)
    flags = flags + ([std] if std else [])
    if cache:
        try:
            os.makedirs(cache_dir, exist_ok=True)
            with open(cache, "w") as f:
                json.dump(flags, f)
        except OSError:
            pass
    return flags


def fortran_legacy_flags(user_args):
    """-fallow-argument-mismatch when a fixed-form (Fortran 77) source is compiled."""
    outputs = {b for a, b in zip(user_args, user_args[1:]) if a == "-o"}
    if any(a.endswith(FIXED_FORM) and not a.startswith("-") and a not in outputs for a in user_args):
        return ["-fallow-argument-mismatch"]
    return []


def without_libgomp(args):
    """The user's arguments without libgomp (-lgomp, a path to libgomp.so or .a) and ScopeDSM's own OpenMP
    libraries (which the wrapper adds where they belong): an OpenMP program links ScopeDSM's runtime instead,
    and libgomp earlier on the line would take its place."""
    return [a for a in args if a != "-lgomp" and
            not os.path.basename(a).startswith(("libgomp.so", "libgomp.a", "libscopedsm_omp"))]


def build_command(config, lang, args, compiler, seq, legacy, name="scopedsm-cc"):
    """The compiler command for `args` (the user's arguments without our options)."""
    link = not any(a in NO_LINK for a in args)
    omp = openmp(args) and not seq
    if omp:
        args = without_libgomp(args)
    compiles = any(not a.startswith("-") and a.endswith(SOURCE_SUFFIXES) for a in args)
    cmd = [compiler]
    cmd += legacy
    cmd += compile_flags(config, lang, seq)
    if omp and compiles:
        cmd += omp_compile_flags(config, compiler, name)
    cmd += args
    if link:
        if omp:
            cmd += omp_link_flags(config, lang)
        cmd += link_flags(config, seq, lang)
        if omp:
            # libgomp, which -fopenmp adds last, is not needed: ScopeDSM's runtime
            # defines everything the program calls, so --as-needed drops it.
            cmd += ["-Wl,--as-needed"]
    return cmd


def needs_legacy(diagnostics):
    """True if the compiler's `diagnostics` (text) reject legacy C: an error
    tagged with one of LEGACY_WARNINGS ([-Wx], or [-Werror=x] where the
    compiler was told to), or one naming LEGACY_WORDS."""
    tags = [f"[-W{w}]" for w in LEGACY_WARNINGS] + [f"[-Werror={w}]" for w in LEGACY_WARNINGS]
    for line in diagnostics.splitlines():
        if ": error:" in line and (any(t in line for t in tags) or any(w in line for w in LEGACY_WORDS)):
            return True
    return False


def _run(cmd, name, compiler, env_var, capture=False):
    """Runs `cmd`; returns (status, stdout bytes, stderr bytes) (empty unless captured)."""
    try:
        r = subprocess.run(cmd, check=False, capture_output=capture)
    except FileNotFoundError:
        print(f"{name}: the compiler '{compiler}' was not found; install it or set {env_var} to one that "
              "exists", file=sys.stderr)
        return 127, b"", b""
    return r.returncode, r.stdout or b"", r.stderr or b""


def compile_auto(config, lang, args, compiler, seq, name, env_var):
    """Compiles as the compiler does; if it rejects the program as legacy C,
    again with the legacy allowances, saying so once."""
    cmd = build_command(config, lang, args, compiler, seq, [], name)
    # A program read from standard input cannot be compiled twice.
    capture = "-" not in args
    rc, out, err = _run(cmd, name, compiler, env_var, capture)
    # A program built with -Werror asked for its warnings to be errors: the
    # wrapper does not take that back with the allowances.
    werror = any(a == "-Werror" or a.startswith("-Werror=") for a in args)
    if rc == 0 or not capture or werror or not needs_legacy(err.decode(errors="replace")):
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
        return rc
    sources = [a for a in args if a.endswith((".c", ".i"))]
    print(f"{name}: {' '.join(sources) or 'the program'} is legacy C (implicit declarations, implicit int, K&R "
          "definitions or integers assigned to pointers), which the compiler rejects: compiling it with the "
          "allowances for legacy C (--legacy)", file=sys.stderr, flush=True)
    legacy = legacy_flags(config, compiler, args)
    return _run(build_command(config, lang, args, compiler, seq, legacy, name), name, compiler, env_var)[0]


def main(lang, argv, build_json):
    name, env_var, key, fallback = LANGUAGES[lang]
    try:
        config = buildconfig.load(build_json)
    except buildconfig.BuildConfigError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    default = config.get(key) or fallback
    compiler = os.environ.get(env_var) or default
    mode, seq, legacy_mode, args = "run", False, False, []
    for a in argv:
        if a == "--seq":
            seq = True
        elif a == "--legacy" and lang == "c":
            legacy_mode = True
        elif a in ("--show", "--showme", "-show"):
            mode = "show"
        elif a == "--cflags":
            mode = "cflags"
        elif a == "--libs":
            mode = "libs"
        elif a in ("--help", "-help"):
            mode = "help"
        else:
            args.append(a)
    if lang == "fortran" and seq:
        print(f"{name}: --seq is for C and C++ only: the sequential library has no Fortran entry points; "
              "run the program on one process instead", file=sys.stderr)
        return 2
    if mode == "help" or (mode == "run" and not args):
        if lang == "fortran":
            text = FORTRAN_USAGE.format(default=default)
        else:
            text = USAGE.format(name=name, what="C" if lang == "c" else "C++", env=env_var, default=default,
                                legacy=LEGACY_NOTE if lang == "c" else "",
                                legacy_option=LEGACY_OPTION if lang == "c" else "")
        print(text, end="", file=sys.stdout if mode == "help" else sys.stderr)
        if mode == "run":
            print(f"{name}: no input files; give source files or objects to compile", file=sys.stderr)
        return 0 if mode == "help" else 2
    legacy = []
    if lang == "c" and legacy_mode:
        legacy = legacy_flags(config, compiler, args)
    elif lang == "fortran":
        legacy = fortran_legacy_flags(args)
    if mode == "cflags":
        print(" ".join(shlex.quote(f) for f in legacy + compile_flags(config, lang, seq)))
        return 0
    if mode == "libs":
        print(" ".join(shlex.quote(f) for f in link_flags(config, seq, lang)))
        return 0
    cmd = build_command(config, lang, args, compiler, seq, legacy, name)
    if mode == "show":
        print(" ".join(shlex.quote(c) for c in cmd))
        return 0
    try:
        if lang == "c" and not legacy_mode:
            return compile_auto(config, lang, args, compiler, seq, name, env_var)
        return _run(cmd, name, compiler, env_var)[0]
    except KeyboardInterrupt:
        return 130
