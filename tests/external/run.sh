#!/usr/bin/env bash
# The external-project test: installs ScopeDSM from a build tree into a fresh
# prefix, then, as a project outside the tree would,
#   1. configures tests/external/consumer with find_package(ScopeDSM) and
#      CMAKE_PREFIX_PATH=<prefix> alone, builds it, and runs its C and C++
#      programs on 2 processes and the sequential one on 1;
#   2. builds consumer/hello.c with pkg-config alone (pkgconfig/Makefile) and
#      runs it on 2 processes;
#   3. with FORTRAN=ON (the build has a Fortran compiler):
#      the consumer's Fortran programs (the package's Fortran component and
#      jiaf.h) in step 1, consumer/hello.f90 built with pkg-config's
#      scopedsm-fortran alone, and consumer/hello_f77.f built with the
#      installed scopedsm-fc, each run on 2 processes; and a project that
#      asks for the Fortran component without enabling Fortran must fail,
#      saying so;
#   4. the installation has README.md and every docs/*.md in
#      share/doc/scopedsm, the man pages scopedsm(1), scopedsm-cc(1),
#      scopedsm-c++(1), scopedsm-fc(1) and scopedsm(3), which groff renders
#      without a warning, and a bad setting's error names the installed
#      CONFIG.md.
# Every program must load libscopedsm from the prefix, not the build tree.
# Any failure (package not found, missing include path or MPI dependency,
# link error, wrong result) fails the test with the step that broke.
#
#   run.sh CMAKE BUILD_DIR WORK_DIR FORTRAN MPIEXEC [LAUNCHER_FLAG...]
set -euo pipefail
if [ $# -lt 5 ]; then
  echo "usage: $0 CMAKE BUILD_DIR WORK_DIR ON|OFF MPIEXEC [LAUNCHER_FLAG...]" >&2
  exit 2
fi
cmake=$1 build=$2 work=$3 fortran=$4 mpiexec=$5
shift 5
launcher_flags=("$@")
here=$(cd "$(dirname "$0")" && pwd)
prefix=$work/prefix

step() { echo "external: $*"; }
fail() { echo "external: FAILED: $*" >&2; exit 1; }

# The libscopedsm a program loads must be the prefix's.
loads_installed() {
  local lib
  lib=$(ldd "$1" | awk '$1 ~ /^libscopedsm/ { print $3 }')
  [ -n "$lib" ] || fail "$1 does not link libscopedsm"
  case "$(readlink -f "$lib")" in
    "$(readlink -f "$prefix")"/lib/*) ;;
    *) fail "$1 loads $lib, not the installed copy under $prefix/lib" ;;
  esac
}

# launch NP PROGRAM EXPECTED: runs PROGRAM on NP processes; its output must contain EXPECTED.
launch() {
  local np=$1 prog=$2 want=$3 out status=0
  out=$("$mpiexec" -n "$np" "${launcher_flags[@]}" "$prog" 2>&1) || status=$?
  echo "$out"
  [ "$status" = 0 ] || fail "$prog on $np processes exited with status $status"
  grep -qF "$want" <<<"$out" || fail "$prog on $np processes did not print '$want'"
}

rm -rf "$work"
mkdir -p "$work"
step "installing $build into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
for f in lib/cmake/ScopeDSM/ScopeDSMConfig.cmake lib/cmake/ScopeDSM/ScopeDSMConfigVersion.cmake \
         lib/pkgconfig/scopedsm.pc include/scopedsm.h include/scopedsm.hpp include/scopedsm_mpi.h include/jia.h include/jiaf.h \
         bin/scopedsm bin/scopedsm-fc; do
  [ -e "$prefix/$f" ] || fail "the installation has no $f"
done
if [ "$fortran" = ON ]; then
  for f in include/scopedsm.mod lib/libscopedsm_fortran.a lib/pkgconfig/scopedsm-fortran.pc; do
    [ -e "$prefix/$f" ] || fail "the installation has no $f"
  done
fi

step "find_package(ScopeDSM): configure, build"
# Only the prefix: no package registry, no MPI hints, a generator of CMake's choosing.
"$cmake" -S "$here/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release -DCONSUMER_FORTRAN="$fortran" \
  || fail "configuring the find_package project"
"$cmake" --build "$work/cmake-build" || fail "building the find_package project"
programs=(hello_c hello_cxx hello_cxx_seq)
[ "$fortran" = ON ] && programs+=(hello_f90 hello_f77)
for p in "${programs[@]}"; do loads_installed "$work/cmake-build/$p"; done

step "find_package(ScopeDSM): run"
launch 2 "$work/cmake-build/hello_c" "hello_c: ok on 2 processes"
launch 2 "$work/cmake-build/hello_cxx" "hello_cxx: ok on 2 processes"
if [ "$fortran" = ON ]; then
  launch 2 "$work/cmake-build/hello_f90" "hello_f90: ok on 2 processes"
  launch 2 "$work/cmake-build/hello_f77" "hello_f77: ok on 2 processes"
fi
status=0
out=$("$work/cmake-build/hello_cxx_seq" 2>&1) || status=$?
echo "$out"
[ "$status" = 0 ] || fail "hello_cxx_seq exited with status $status"
grep -qF "hello_cxx: ok on 1 processes" <<<"$out" || fail "hello_cxx_seq did not print its result"

step "pkg-config: flags, build"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg-config --print-errors --cflags --libs scopedsm || fail "pkg-config cannot read scopedsm.pc"
pkg-config --print-errors --cflags --libs scopedsm-seq || fail "pkg-config cannot read scopedsm-seq.pc"
mkdir -p "$work/pc-build"
make -C "$work/pc-build" -f "$here/pkgconfig/Makefile" SRC="$here/consumer" || fail "building with pkg-config"
loads_installed "$work/pc-build/hello_c"

step "pkg-config: run"
launch 2 "$work/pc-build/hello_c" "hello_c: ok on 2 processes"

if [ "$fortran" = ON ]; then
  step "pkg-config scopedsm-fortran: build, run"
  pkg-config --print-errors --cflags --libs scopedsm-fortran || fail "pkg-config cannot read scopedsm-fortran.pc"
  make -C "$work/pc-build" -f "$here/pkgconfig/Makefile" SRC="$here/consumer" hello_f90 \
    || fail "building hello.f90 with pkg-config scopedsm-fortran"
  loads_installed "$work/pc-build/hello_f90"
  launch 2 "$work/pc-build/hello_f90" "hello_f90: ok on 2 processes"
fi

step "documents and man pages"
docs="$prefix/share/doc/scopedsm"
[ -e "$docs/README.md" ] || fail "the installation has no share/doc/scopedsm/README.md"
for doc in "$here"/../../docs/*.md; do
  [ -e "$docs/$(basename "$doc")" ] || fail "the installation has no share/doc/scopedsm/$(basename "$doc")"
done
pages=(man1/scopedsm.1 man1/scopedsm-cc.1 man1/scopedsm-c++.1 man1/scopedsm-fc.1 man3/scopedsm.3)
for page in "${pages[@]}"; do
  [ -e "$prefix/share/man/$page" ] || fail "the installation has no share/man/$page"
done
if command -v groff >/dev/null; then
  for page in "${pages[@]}"; do
    # .so links resolve from the man directory, as man(1) reads them.
    warnings=$(cd "$prefix/share/man" && groff -man -ww -z -Tutf8 "$page" 2>&1) || fail "groff cannot render $page"
    [ -z "$warnings" ] || fail "groff warns about $page: $warnings"
  done
else
  step "groff is not installed: the man pages' rendering is not checked"
fi

step "a bad setting names the installed CONFIG.md"
status=0
out=$(SCOPEDSM_CACHE_PAGES=0 "$work/cmake-build/hello_c" 2>&1) || status=$?
echo "$out"
[ "$status" != 0 ] || fail "hello_c with SCOPEDSM_CACHE_PAGES=0 exited with status 0"
grep -qF "(see $(readlink -f "$prefix")/share/doc/scopedsm/CONFIG.md)" <<<"$out" \
  || fail "the error does not name $prefix/share/doc/scopedsm/CONFIG.md"

if [ "$fortran" = ON ]; then
  step "scopedsm-fc: build, run"
  mkdir -p "$work/fc-build"
  "$prefix/bin/scopedsm-fc" "$here/consumer/hello_f77.f" -o "$work/fc-build/hello_f77" \
    || fail "building hello_f77.f with the installed scopedsm-fc"
  "$prefix/bin/scopedsm-fc" "$here/consumer/hello.f90" -o "$work/fc-build/hello_f90" \
    || fail "building hello.f90 with the installed scopedsm-fc"
  for p in hello_f77 hello_f90; do
    loads_installed "$work/fc-build/$p"
    launch 2 "$work/fc-build/$p" "$p: ok on 2 processes"
  done

  step "find_package(ScopeDSM COMPONENTS Fortran) without Fortran enabled: refused"
  status=0
  out=$("$cmake" -S "$here/fortran_not_enabled" -B "$work/no-fortran-build" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF 2>&1) || status=$?
  echo "$out"
  [ "$status" != 0 ] || fail "a project without Fortran got the Fortran component"
  grep -q "the Fortran component needs Fortran enabled in the project first" <<<"$out" \
    || fail "the refusal does not say to enable Fortran"
fi
step "ok"
