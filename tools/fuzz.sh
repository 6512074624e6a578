#!/usr/bin/env bash
# Fuzzes with libFuzzer (tests/fuzz, clang, ASan+UBSan) two targets: the
# message decoders (codec_fuzz) and the arithmetic of the allocation API
# (alloc_fuzz: sizes, blocks, homes, ranges, alloc_array byte counts).
#
#   tools/fuzz.sh [SECONDS]  build, then fuzz for SECONDS in all (default 60):
#                            two thirds to codec_fuzz from a copy of its
#                            corpus, the rest to alloc_fuzz; prints the
#                            executions of each
#   tools/fuzz.sh --quick    build, then run the codec corpus and
#                            tests/fuzz/crashes once each, and alloc_fuzz on
#                            its saved crashes and 20000 inputs of a fixed
#                            seed (no open-ended fuzzing; a regression check)
#   tools/fuzz.sh --regen    rewrite tests/fuzz/corpus/codec with make_corpus
#
# Exits non-zero if an input crashes a target or breaks one of its
# properties; libFuzzer saves that input under build-fuzz/artifacts/.
# FUZZ_ARGS adds libFuzzer flags to both targets (e.g. FUZZ_ARGS=-seed=1).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=fuzz
seconds=60
case "${1:-}" in
  --quick) mode=quick ;;
  --regen) mode=regen ;;
  "") ;;
  *[!0-9]*) echo "usage: tools/fuzz.sh [SECONDS | --quick | --regen]" >&2; exit 2 ;;
  *) seconds=$1 ;;
esac

tools/bootstrap.sh
build=build-fuzz
cmake -S . -B "$build" -G Ninja -DSCOPEDSM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build"

fuzzer=$build/tests/fuzz/codec_fuzz
corpus=tests/fuzz/corpus/codec
crashes=tests/fuzz/crashes
alloc_fuzzer=$build/tests/fuzz/alloc_fuzz
alloc_crashes=tests/fuzz/crashes-alloc
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

if [ "$mode" = regen ]; then
  rm -f "$corpus"/*
  mkdir -p "$corpus"
  "$build/tests/fuzz/make_corpus" "$corpus"
  exit 0
fi

log=$build/fuzz.log
if [ "$mode" = quick ]; then
  inputs=("$corpus"/*)
  compgen -G "$crashes/*" >/dev/null && inputs+=("$crashes"/*)
  # Given files, libFuzzer runs each once and stops at the first failure.
  if ! "$fuzzer" "${inputs[@]}" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: FAILED on a saved input (see above)" >&2
    exit 1
  fi
  echo "fuzz: ${#inputs[@]} saved inputs pass"
  alloc_inputs=()
  compgen -G "$alloc_crashes/*" >/dev/null && alloc_inputs+=("$alloc_crashes"/*)
  if ((${#alloc_inputs[@]})) && ! "$alloc_fuzzer" "${alloc_inputs[@]}" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: alloc_fuzz FAILED on a saved input (see above)" >&2
    exit 1
  fi
  mkdir -p "$build/alloc-quick"
  rm -rf "${build:?}/alloc-quick/"*
  if ! "$alloc_fuzzer" -runs=20000 -seed=1 "$build/alloc-quick" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: alloc_fuzz FAILED within 20000 inputs of seed 1 (see above)" >&2
    exit 1
  fi
  echo "fuzz: alloc_fuzz passes ${#alloc_inputs[@]} saved inputs and 20000 of seed 1"
  exit 0
fi

# The budget is shared: CI's smoke run of 60 s stays 60 s with two targets.
alloc_seconds=$((seconds / 3))
((alloc_seconds >= 1)) || alloc_seconds=1
codec_seconds=$((seconds - alloc_seconds))
((codec_seconds >= 1)) || codec_seconds=1

# Fuzz from a scratch copy: the committed corpus, fresh encodings from the
# current encoders, and every input that once crashed (kept as regressions).
work=$build/fuzz-run
rm -rf "$work"
mkdir -p "$work/corpus" "$work/fresh" "$build/artifacts"
cp "$corpus"/* "$work/corpus/"
"$build/tests/fuzz/make_corpus" "$work/fresh" >/dev/null
dirs=("$work/corpus" "$work/fresh")
[ -d "$crashes" ] && dirs+=("$crashes")
# run_target NAME FUZZER SECONDS LOG CORPUS_DIR [libFuzzer flags...] -- DIRS...
# Fuzzes for SECONDS, prints the executions, and exits the script with the
# tail of the log if the target failed.
run_target() {
  local name=$1 fuzzer=$2 secs=$3 tlog=$4 counted=$5
  shift 5
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  local rc=0
  # shellcheck disable=SC2086
  "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${flags[@]}" \
    -artifact_prefix="$build/artifacts/" ${FUZZ_ARGS:-} "$@" >"$tlog" 2>&1 || rc=$?
  local execs rate cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tlog" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tlog" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$tlog" | tail -n 1 || true)
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$tlog" >&2
    echo "fuzz: $name FAILED (libFuzzer exit $rc) after ${execs:-?} executions; input saved in $build/artifacts/:" >&2
    ls -t "$build/artifacts" | head -n 5 >&2
    exit 1
  fi
  echo "fuzz: $name ${execs:-?} executions in $secs s (${rate:-?}/s), ${cov:-no coverage line}," \
    "corpus $(ls "$counted" | wc -l) files; log $tlog"
}

run_target codec_fuzz "$fuzzer" "$codec_seconds" "$log" "$work/corpus" -max_len=8192 -dict=tests/fuzz/codec.dict \
  -- "${dirs[@]}"

# The allocation arithmetic needs no seed corpus: its inputs are a handful
# of 64-bit numbers, and the target itself steers them to the edges.
mkdir -p "$work/alloc-corpus"
adirs=("$work/alloc-corpus")
[ -d "$alloc_crashes" ] && adirs+=("$alloc_crashes")
run_target alloc_fuzz "$alloc_fuzzer" "$alloc_seconds" "$build/fuzz-alloc.log" "$work/alloc-corpus" -max_len=512 \
  -- "${adirs[@]}"
