#!/usr/bin/env bash
# Negative controls for the fuzz targets: each mutant removes or weakens one
# check of the codec (codec_fuzz) or of the allocation arithmetic (alloc_fuzz,
# mutants named alloc-*) in a scratch copy of the sources, and the fuzzer
# must catch it (crash or broken property) within SECONDS (default 120).
#
#   bash tests/fuzz/mutants.sh [SECONDS] [--no-corpus]
#   ONLY=diff-overlap-allowed bash tests/fuzz/mutants.sh 600 --no-corpus
#
# --no-corpus starts every run from an empty corpus, so the catch is the
# fuzzer's own and not the seed corpus's hand-made edge cases.
# A mutant whose text no longer occurs in src/ is reported as stale (the
# code moved); update its line below. Needs clang, as tools/fuzz.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-120}
seeds=yes
[ "${2:-}" = --no-corpus ] && seeds=no
scratch=$(mktemp -d /tmp/scopedsm-mutants.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# name | file under src/ (or ../include/) | exact text | replacement
mutants=(
  "diff-no-page-end-check|protocol/diff.cc|*run_end > words)|first > 65535 + words)"
  "diff-single-pass|protocol/diff.cc|for (int pass = 0; pass < 2; ++pass)|for (int pass = 1; pass < 2; ++pass)"
  "diff-overlap-allowed|protocol/diff.cc|if (first < next_word)|if (first + 1 < next_word)"
  "notices-writer-eq-ranks|protocol/notices.cc|n.writer >= ranks|n.writer > ranks"
  "notices-no-count-check|protocol/notices.cc|*need > in->remaining()|false"
  "rank-minus1-ok|protocol/messages.cc|get(&x) && (x < 0|get(&x) && (x < -1"
  "run-past-end-ok|protocol/messages.cc|first + static_cast<uint64_t>(n) > l_.pages|first + static_cast<uint64_t>(n) > l_.pages + 1"
  "trailing-bytes-ok|protocol/messages.cc|return r_->remaining() == 0 ? Status::Ok()|return r_->remaining() < 2 ? Status::Ok()"
  "page-eq-pages-ok|protocol/messages.cc|x >= l_.pages) fail|x > l_.pages) fail"
  "text-longer-than-max-ok|protocol/messages.cc|if (n > max) return fail|if (n > max + 1) return fail"
  "blobs-more-than-ranks-ok|protocol/messages.cc|count > static_cast<uint32_t>(l_.ranks)) return fail|count > static_cast<uint32_t>(l_.ranks) + 1) return fail"
  "header-length-short-ok|transport/wire.cc|if (h.payload_bytes != size_ - sizeof h)|if (h.payload_bytes > size_ - sizeof h)"
  "reader-overread|transport/wire.h|if (size_ - pos_ < sizeof(T))|if (size_ - pos_ + 1 < sizeof(T))"
  "stats-trailing-ok|stats/stats_record.cc|return pos == n;|return pos <= n;"
  "alloc-round-up-wraps|common/checked.h|bytes / page_size + (bytes % page_size != 0 ? 1 : 0)|(bytes + page_size - 1) / page_size"
  "alloc-no-page-number-limit|runtime/alloc_plan.cc|if (pages > nameable_free)|if (pages > nameable_free + kMaxPages)"
  "alloc-range-no-clip|runtime/alloc_plan.cc|const uint64_t hi = std::min(end, region_end);|const uint64_t hi = std::max(end, region_end);"
  "alloc-array-no-ptrdiff-limit|../include/scopedsm.hpp|if (b > static_cast<std::size_t>(PTRDIFF_MAX)) return false;|"
)

mkdir -p "$scratch/src" "$scratch/tests"
cp -r "$root/CMakeLists.txt" "$root/cmake" "$root/include" "$scratch/"
cp -r "$root/src/." "$scratch/src/"
cp -r "$root/tests/fuzz" "$root/tests/support" "$scratch/tests/"
build=$scratch/build
cmake -S "$scratch" -B "$build" -G Ninja -DSCOPEDSM_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
export ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

caught=0 missed=0 stale=0
for m in "${mutants[@]}"; do
  IFS='|' read -r name file from to <<<"$m"
  [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ] && continue
  cp "$root/src/$file" "$scratch/src/$file"
  if ! python3 - "$scratch/src/$file" "$from" "$to" <<'EOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
if text.count(old) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(old, new))
EOF
  then
    echo "mutant $name: STALE (text not found once in src/$file)"
    stale=$((stale + 1))
    continue
  fi
  target=codec_fuzz
  [[ $name == alloc-* ]] && target=alloc_fuzz
  if ! cmake --build "$build" --target "$target" >"$scratch/build.log" 2>&1; then
    tail -n 20 "$scratch/build.log"
    echo "mutant $name: does not build"
    cp "$root/src/$file" "$scratch/src/$file"
    stale=$((stale + 1))
    continue
  fi
  rm -rf "$scratch/corpus" "$scratch/art"
  mkdir -p "$scratch/corpus" "$scratch/art"
  # alloc_fuzz has no seed corpus: it always starts from nothing.
  flags=(-max_len=512)
  if [ "$target" = codec_fuzz ]; then
    [ "$seeds" = yes ] && cp "$root/tests/fuzz/corpus/codec/"* "$scratch/corpus/"
    flags=(-max_len=8192 -dict="$root/tests/fuzz/codec.dict")
  fi
  start=$(date +%s)
  if "$build/tests/fuzz/$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 "${flags[@]}" \
      -artifact_prefix="$scratch/art/" "$scratch/corpus" >"$scratch/log" 2>&1; then
    echo "mutant $name: MISSED in $secs s"
    missed=$((missed + 1))
  else
    why=$(grep -m1 -E 'fuzz property violated|ERROR: (AddressSanitizer|libFuzzer)|runtime error|out-of-memory' "$scratch/log" |
          sed 's/^==[0-9]*==//' | cut -c1-110)
    echo "mutant $name: caught after $(( $(date +%s) - start )) s: $why"
    caught=$((caught + 1))
  fi
  cp "$root/src/$file" "$scratch/src/$file"
done
echo "mutants: $caught caught, $missed missed, $stale stale"
[ "$missed" -eq 0 ] && [ "$stale" -eq 0 ]
