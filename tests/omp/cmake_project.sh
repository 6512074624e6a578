#!/usr/bin/env bash
# Configures tests/omp/cmake_project with CC=scopedsm-cc (CMake's FindOpenMP
# then finds ScopeDSM's runtime), builds it, and runs it on NP processes.
#
#   cmake_project.sh CMAKE SCOPEDSM_CC WORK_DIR NP MPIEXEC [LAUNCHER_FLAG...]
set -euo pipefail
cmake=$1 cc=$2 work=$3 np=$4 mpiexec=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
CC="$cc" "$cmake" -S "$here/cmake_project" -B "$work" >"$work.configure.log" 2>&1 || { cat "$work.configure.log"; exit 1; }
"$cmake" --build "$work"
"$mpiexec" -n "$np" "$@" "$work/omp_cmake_hello"
