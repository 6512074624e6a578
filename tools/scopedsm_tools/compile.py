"""scopedsm-cc, scopedsm-c++ and scopedsm-fc: compiler wrappers in the manner of mpicc.

They add the ScopeDSM include path, and when linking -lscopedsm with its
rpath and MPI's link flags (or -lscopedsm_seq with --seq, which needs no
MPI). scopedsm-cc also adds the flags that make the compiler accept
JIAJIA-era C (see legacy_c.py), measured once by CMake for the configured
compiler, or once per compiler (cached) for one chosen with SCOPEDSM_CC.
scopedsm-fc (gfortran) adds -fcray-pointer, the path of jiaf.h and of the
module scopedsm, and links the module's library (libscopedsm_fortran).
"""
import hashlib
import json
import os
import shlex
import subprocess
import sys

from . import buildconfig, legacy_c

USAGE = """usage: {name} [--seq] [--show | --cflags | --libs] [compiler arguments...]

Compiles and links {what} programs for ScopeDSM, as mpicc does for MPI: adds
the include path, and when linking -lscopedsm, its rpath and the MPI
libraries.{legacy}

  --seq      link the sequential library (libscopedsm_seq, no MPI) instead:
             the one-process baseline of the same program
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
Accepts JIAJIA-era C: K&R definitions, implicit int, implicit function
declarations and integers assigned to pointers."""

# Options after which the compiler does not link.
NO_LINK = {"-c", "-S", "-E", "-M", "-MM", "-fsyntax-only"}


def compile_flags(config, lang, seq):
    flags = list(config.get("sanitize_flags", []))
    flags += [f"-I{d}" for d in config.get("include_dirs", [])]
    if lang == "fortran":
        # jiaf.h's Cray pointers; the module's .mod files are found on -I.
        return ["-fcray-pointer"] + flags + [f"-I{d}" for d in config.get("fortran_module_dirs", [])]
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


def build_command(config, lang, args, compiler, seq, legacy):
    """The compiler command for `args` (the user's arguments without our options)."""
    link = not any(a in NO_LINK for a in args)
    cmd = [compiler]
    cmd += legacy
    cmd += compile_flags(config, lang, seq)
    cmd += args
    if link:
        cmd += link_flags(config, seq, lang)
    return cmd


def main(lang, argv, build_json):
    name, env_var, key, fallback = LANGUAGES[lang]
    try:
        config = buildconfig.load(build_json)
    except buildconfig.BuildConfigError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    default = config.get(key) or fallback
    compiler = os.environ.get(env_var) or default
    mode, seq, args = "run", False, []
    for a in argv:
        if a == "--seq":
            seq = True
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
                                legacy=LEGACY_NOTE if lang == "c" else "")
        print(text, end="", file=sys.stdout if mode == "help" else sys.stderr)
        if mode == "run":
            print(f"{name}: no input files; give source files or objects to compile", file=sys.stderr)
        return 0 if mode == "help" else 2
    legacy = []
    if lang == "c":
        legacy = legacy_flags(config, compiler, args)
    elif lang == "fortran":
        legacy = fortran_legacy_flags(args)
    if mode == "cflags":
        print(" ".join(shlex.quote(f) for f in legacy + compile_flags(config, lang, seq)))
        return 0
    if mode == "libs":
        print(" ".join(shlex.quote(f) for f in link_flags(config, seq, lang)))
        return 0
    cmd = build_command(config, lang, args, compiler, seq, legacy)
    if mode == "show":
        print(" ".join(shlex.quote(c) for c in cmd))
        return 0
    try:
        return subprocess.run(cmd, check=False).returncode
    except FileNotFoundError:
        print(f"{name}: the compiler '{compiler}' was not found; install it or set {env_var} to one that "
              "exists", file=sys.stderr)
        return 127
    except KeyboardInterrupt:
        return 130
