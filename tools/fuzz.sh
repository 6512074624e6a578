#!/usr/bin/env bash
# Fuzzes the message decoders with libFuzzer (tests/fuzz, clang, ASan+UBSan).
#
#   tools/fuzz.sh [SECONDS]  build, then fuzz for SECONDS (default 60) from a
#                            copy of the corpus; prints the executions
#   tools/fuzz.sh --quick    build, then run the corpus and tests/fuzz/crashes
#                            once each (no fuzzing; a regression check)
#   tools/fuzz.sh --regen    rewrite tests/fuzz/corpus/codec with make_corpus
#
# Exits non-zero if an input crashes the target or breaks one of its
# properties; libFuzzer saves that input under build-fuzz/artifacts/.
# FUZZ_ARGS adds libFuzzer flags (e.g. FUZZ_ARGS=-seed=1).
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
  exit 0
fi

# Fuzz from a scratch copy: the committed corpus, fresh encodings from the
# current encoders, and every input that once crashed (kept as regressions).
work=$build/fuzz-run
rm -rf "$work"
mkdir -p "$work/corpus" "$work/fresh" "$build/artifacts"
cp "$corpus"/* "$work/corpus/"
"$build/tests/fuzz/make_corpus" "$work/fresh" >/dev/null
dirs=("$work/corpus" "$work/fresh")
[ -d "$crashes" ] && dirs+=("$crashes")
rc=0
# shellcheck disable=SC2086
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
  -dict=tests/fuzz/codec.dict -artifact_prefix="$build/artifacts/" ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1 || rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1 || true)
if [ "$rc" -ne 0 ]; then
  tail -n 60 "$log" >&2
  echo "fuzz: FAILED (libFuzzer exit $rc) after ${execs:-?} executions; input saved in $build/artifacts/:" >&2
  ls -t "$build/artifacts" | head -n 5 >&2
  exit 1
fi
echo "fuzz: ${execs:-?} executions in ${seconds} s (${rate:-?}/s), ${cov:-no coverage line}," \
  "corpus $(ls "$work/corpus" | wc -l) files; log $log"
