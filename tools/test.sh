#!/usr/bin/env bash
# Builds ScopeDSM and runs its test suite (unit tests, multi-process tests at
# 1, 2 and 4 processes, misuse death tests, applications at test size).
#
#   tools/test.sh              the normal build, warnings as errors
#   tools/test.sh --sanitize   the same suite built with ASan and UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh

build=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOPEDSM_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  build=build-asan
  flags+=(-DSCOPEDSM_SANITIZE=ON)
  # Open MPI's own allocations are not ours to report.
  export ASAN_OPTIONS="detect_leaks=0:allow_user_segv_handler=1:handle_segv=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S . -B "$build" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j2 --timeout 300
