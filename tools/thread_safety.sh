#!/usr/bin/env bash
# Checks the thread contracts the sources state (src/common/thread_annotations.h;
# docs/ARCHITECTURE.md, "Thread contracts the compiler checks"): builds
# libscopedsm and libscopedsm_seq (not the OpenMP runtime, which needs GCC's
# omp.h) with clang and -Wthread-safety as errors (CMake option SCOPEDSM_THREAD_SAFETY), in
# build-tsa, at -O0 without debug information (the analysis is clang's
# front end; code generation adds nothing to it). Every other warning is an
# error too (SCOPEDSM_WERROR). Exits non-zero on any; prints the time taken.
#
#   tools/thread_safety.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh

build=build-tsa
start=$(date +%s)
mkdir -p "$build"
log=$build/thread_safety.log
# Open MPI's wrapper compiles with clang here (OMPI_CC): CMake learns MPI's
# include directories and libraries from it.
export OMPI_CC=clang OMPI_CXX=clang++
mpicc=mpicc
[ -x /usr/bin/mpicc.openmpi ] && mpicc=/usr/bin/mpicc.openmpi
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DMPI_C_COMPILER="$mpicc" \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
  -DSCOPEDSM_THREAD_SAFETY=ON -DSCOPEDSM_WERROR=ON -DSCOPEDSM_FORTRAN=OFF -DSCOPEDSM_BUILD_TESTS=OFF \
  -DSCOPEDSM_BUILD_APPS=OFF -DSCOPEDSM_BUILD_BENCH=OFF "${launcher[@]}" >"$log" 2>&1 ||
  { cat "$log" >&2; echo "thread_safety: configuring $build failed" >&2; exit 1; }
if ! cmake --build "$build" --target scopedsm scopedsm_seq >>"$log" 2>&1; then
  grep -E '(error|warning):' "$log" | head -n 40 >&2
  echo "thread_safety: FAILED: the clang build with -Wthread-safety has errors (log: $log)" >&2
  exit 1
fi
echo "thread_safety: libscopedsm and libscopedsm_seq build with clang -Wthread-safety -Werror" \
  "in $(($(date +%s) - start)) s"
