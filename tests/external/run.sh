#!/usr/bin/env bash
# The external-project test: installs ScopeDSM from a build tree into a fresh
# prefix, then, as a project outside the tree would,
#   1. configures tests/external/consumer with find_package(ScopeDSM) and
#      CMAKE_PREFIX_PATH=<prefix> alone, builds it, and runs its C and C++
#      programs on 2 processes and the sequential one on 1;
#   2. builds consumer/hello.c with pkg-config alone (pkgconfig/Makefile) and
#      runs it on 2 processes.
# Every program must load libscopedsm from the prefix, not the build tree.
# Any failure (package not found, missing include path or MPI dependency,
# link error, wrong result) fails the test with the step that broke.
#
#   run.sh CMAKE BUILD_DIR WORK_DIR MPIEXEC [LAUNCHER_FLAG...]
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 CMAKE BUILD_DIR WORK_DIR MPIEXEC [LAUNCHER_FLAG...]" >&2
  exit 2
fi
cmake=$1 build=$2 work=$3 mpiexec=$4
shift 4
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
         lib/pkgconfig/scopedsm.pc include/scopedsm.h include/scopedsm.hpp include/jia.h bin/scopedsm; do
  [ -e "$prefix/$f" ] || fail "the installation has no $f"
done

step "find_package(ScopeDSM): configure, build"
# Only the prefix: no package registry, no MPI hints, a generator of CMake's choosing.
"$cmake" -S "$here/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release || fail "configuring the find_package project"
"$cmake" --build "$work/cmake-build" || fail "building the find_package project"
for p in hello_c hello_cxx hello_cxx_seq; do loads_installed "$work/cmake-build/$p"; done

step "find_package(ScopeDSM): run"
launch 2 "$work/cmake-build/hello_c" "hello_c: ok on 2 processes"
launch 2 "$work/cmake-build/hello_cxx" "hello_cxx: ok on 2 processes"
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
step "ok"
