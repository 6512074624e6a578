#!/usr/bin/env bash
# Builds the runtime and the multi-process tests with ThreadSanitizer (gcc,
# build-tsan) and runs tests/mpi's mpi_tests under mpirun at 1 and 2
# processes, in the configurations below. Open MPI is not instrumented:
# tests/tsan/mpi.supp lists the exceptions, each with its reason.
# tests/tsan/summarize.py prints every report left, marks those touching
# ScopeDSM's code, and fails the run if any is left.
#
#   tools/tsan.sh                 every configuration
#   tools/tsan.sh --np N [ARGS]   plain, N processes; ARGS go to mpi_tests
#                                 (e.g. --gtest_filter=Locks.*)
#   TSAN_RAW=1 tools/tsan.sh ...  without the exceptions (to audit them)
#   TSAN_TIMEOUT=S                seconds before a run is stopped (1800)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# name | processes | environment | tests skipped (as tests/CMakeLists.txt)
# [| the only tests run, for the fast subsets]
# Memory.* is always skipped: it measures resident shared memory, not
# threads, and under TSan it fails about one full run in five (a few pages
# short of the home block); the normal and ASan suites run it.
always_skip="Memory.*"
runs=(
  "np1|1||"
  "np2|2||"
  "np2-tiny-cache|2|SCOPEDSM_CACHE_PAGES=4|LargeRegion.*"
  "np2-trap-all|2|SCOPEDSM_WRITE_DETECT=all|LargeRegion.*"
  "np2-first-touch|2|SCOPEDSM_HOME_POLICY=first-touch|LargeRegion.*:Alloc.JiajiaPlacementRules:Placement.JiajiaExplicitCalls"
  "np2-delays|2|SCOPEDSM_TEST_DELAY_US=200|LargeRegion.*"
  "np2-node-off|2|SCOPEDSM_NODE_SHARING=off|LargeRegion.*"
  "np3-migration-node-off|3|SCOPEDSM_HOME_MIGRATION=on SCOPEDSM_NODE_SHARING=off|LargeRegion.*"
  "np3-jia-base|3|SCOPEDSM_LOCK_INCARNATIONS=off SCOPEDSM_WRITER_RETENTION=off SCOPEDSM_WRITE_DETECT=all SCOPEDSM_BARRIER=central||Options.*:Locks.*:Visibility.*:Barrier.NoticesOfEveryProcessReachEveryProcess"
)
if [ "${1:-}" = --np ]; then
  runs=("np$2|$2||")
  shift 2
fi
extra_args=("$@")

tools/bootstrap.sh
build=$root/build-tsan
out=$build/direct
logroot=$build/logs
src=$root

# Copies the sources into $1, applying, for the
# negative controls (tests/tsan/controls.sh), TSAN_MUTATE="file|text|new".
# Only files whose content changed are rewritten (and so rebuilt).
copy_sources() {
  local stage=$build/stage dest=$1
  rm -rf "$stage"
  mkdir -p "$stage" "$dest"
  cp -a CMakeLists.txt cmake include src tools tests "$stage/"
  if [ -n "${TSAN_MUTATE:-}" ]; then
    python3 - "$stage" "$TSAN_MUTATE" <<'PY'
import sys
stage, spec = sys.argv[1:]
path, old, new = spec.split("|")
text = open(f"{stage}/src/{path}").read()
if text.count(old) != 1:
    sys.exit(f"tsan: TSAN_MUTATE text not found exactly once in src/{path}")
open(f"{stage}/src/{path}", "w").write(text.replace(old, new))
PY
  fi
  (cd "$stage" && find . -type f) | while read -r f; do
    if ! cmp -s "$stage/$f" "$dest/$f"; then
      mkdir -p "$(dirname "$dest/$f")"
      cp "$stage/$f" "$dest/$f"
    fi
  done
}

# (src/memory/region.cc picks its address range inside ThreadSanitizer's
# application range when built with it.)
if [ -n "${TSAN_MUTATE:-}" ]; then
  src=$build/control-src
  out=$build/control
  logroot=$build/control-logs
  copy_sources "$src"
fi

flags="-fsanitize=thread -fno-omit-frame-pointer -g"
cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOPEDSM_WERROR=ON \
  -DSCOPEDSM_BUILD_APPS=OFF -DSCOPEDSM_BUILD_BENCH=OFF -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build "$out" --target mpi_tests

mpiexec=$(command -v mpirun || command -v mpiexec)
launch=("$mpiexec" --oversubscribe --bind-to none)
"$mpiexec" --version 2>&1 | grep -q "Open MPI" || launch=("$mpiexec")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export SCOPEDSM_SUMMARY=off SCOPEDSM_TIMEOUT=300

# The exceptions (tests/tsan/mpi.supp explains each); TSAN_RAW=1 drops them.
except="suppressions=$root/tests/tsan/mpi.supp:ignore_noninstrumented_modules=1:"
[ -n "${TSAN_RAW:-}" ] && except=""
status=0
for run in "${runs[@]}"; do
  IFS='|' read -r name np env skip only <<<"$run"
  filter="--gtest_filter=${only}-$always_skip${skip:+:$skip}"
  logs=$logroot/$name
  rm -rf "$logs"
  mkdir -p "$logs"
  # exitcode=0: the summary below decides, from the reports themselves.
  export TSAN_OPTIONS="${except}log_path=$logs/tsan:halt_on_error=0:exitcode=0:second_deadlock_stack=1:history_size=4:print_suppressions=1"
  echo "tsan: $name: mpi_tests on $np process(es) ${env}"
  t0=$SECONDS
  envflags=()
  for kv in $env; do envflags+=(-x "$kv"); done
  rc=0
  # shellcheck disable=SC2086  # $env: zero or more VAR=value words
  env $env timeout "${TSAN_TIMEOUT:-1800}" "${launch[@]}" -n "$np" -x TSAN_OPTIONS "${envflags[@]}" "$out/tests/mpi_tests" \
    --gtest_color=no "$filter" "${extra_args[@]}" >"$logs/output.txt" 2>&1 || rc=$?
  grep -E '^\[  (PASSED|FAILED) ' "$logs/output.txt" || true
  echo "tsan: $name: $((SECONDS - t0)) s"
  if [ "$rc" -ne 0 ]; then
    tail -n 30 "$logs/output.txt" >&2
    echo "tsan: $name: mpi_tests failed (exit $rc)" >&2
    status=1
  fi
  python3 tests/tsan/summarize.py --src "$root" "$logs" || status=1
done
exit "$status"
