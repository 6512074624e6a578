#!/usr/bin/env bash
# Runs every ScopeDSM micro-benchmark and writes their reports, one JSON
# array, to OUTPUT. Builds nothing: build first, e.g.
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build-bench
#
#   bench/run_micro.sh [--quick] OUTPUT.json [BUILD_DIR]
#
# BUILD_DIR defaults to build-bench next to this script's parent. --quick
# runs tiny sizes (a check that everything works, not a measurement).
# Each entry gets "commit" (the source tree's git commit) and "loadavg" (the
# 1-minute load when it started: the machine is shared, so read figures with
# it). A benchmark that fails becomes {"bench":..,"error":..} and the script
# exits non-zero after running the rest.
set -uo pipefail

quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 [--quick] OUTPUT.json [BUILD_DIR]" >&2
  exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/../build-bench}
bin=$build/bench/micro
if [ ! -x "$bin/read_fault" ]; then
  echo "$0: no benchmarks in $bin; build them first" >&2
  exit 2
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SCOPEDSM_SUMMARY=off
mpirun=(mpirun --oversubscribe --bind-to none)
# The source version measured; set SCOPEDSM_BENCH_COMMIT when the build is
# not of this tree (e.g. of an exported snapshot).
commit=${SCOPEDSM_BENCH_COMMIT:-}
if [ -z "$commit" ]; then
  commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if ! git -C "$here" diff --quiet HEAD -- "$here/../src" "$here/../include" 2>/dev/null; then commit="$commit+dirty"; fi
fi

if [ $quick = 1 ]; then
  sizes=(--reps=20 --rounds=2 --warmup=5)
  contended=(--iters=20 --rounds=2 --warmup=5)
  idle=(--reps=1 --rounds=1 --busy-ms=20)
  atomics=(--ops=50 --rounds=2 --warmup=0)
else
  atomics=()
  idle=()
  sizes=()
  contended=()
fi

# name | processes (0: no launcher) | program and arguments. A name ending
# in _off runs with SCOPEDSM_NODE_SHARING=off (every process a node of its
# own: the cross-node path); one ending in _traced with SCOPEDSM_TRACE set
# (its median beside the untraced run's is the cost of tracing); one
# containing _message with SCOPEDSM_FETCH=message (pages by GETP, not
# one-sided); one containing _slice with SCOPEDSM_SERVICE_SLICE_US=200 (its
# median beside the same run's without is what a short service-thread slice
# changes where requests wait for another process's CPU).
runs=(
  "read_fault|2|read_fault ${sizes[*]}"
  "read_fault_home_busy|2|read_fault --home-busy ${sizes[*]}"
  "read_refetch|2|read_fault --refetch ${sizes[*]}"
  "read_refetch_home_busy|2|read_fault --refetch --home-busy ${sizes[*]}"
  "read_fault_off|2|read_fault ${sizes[*]}"
  "read_fault_home_busy_off|2|read_fault --home-busy ${sizes[*]}"
  "read_refetch_home_busy_off|2|read_fault --refetch --home-busy ${sizes[*]}"
  "write_fault_release_off|2|write_fault_release ${sizes[*]}"
  "write_fault_release|2|write_fault_release ${sizes[*]}"
  "lock_uncontended|2|lock_uncontended ${sizes[*]}"
  "receive_modes|2|receive_modes ${sizes[*]}"
  "interpose|1|interpose"
  "barrier_np2|2|barrier ${sizes[*]}"
  "barrier_np4|4|barrier ${sizes[*]}"
  "amo_barrier_np2|2|amo_barrier ${sizes[*]}"
  "amo_barrier_np4|4|amo_barrier ${sizes[*]}"
  "amo_barrier_np8|8|amo_barrier ${sizes[*]}"
  "amo_barrier_np4_off|4|amo_barrier ${sizes[*]}"
  "diff_25pct|0|diff --percent=25 ${sizes[*]}"
  "diff_100pct|0|diff --percent=100 ${sizes[*]}"
  "lock_contended_np4|4|lock_contended ${contended[*]}"
  "lock_contended_np4_slice|4|lock_contended ${contended[*]}"
  "read_fault_home_busy_slice|2|read_fault --home-busy ${sizes[*]}"
  "read_fault_home_busy_slice_off|2|read_fault --home-busy ${sizes[*]}"
  "barrier_np4_slice|4|barrier ${sizes[*]}"
  "idle_wait|2|idle_wait ${idle[*]}"
  "cache_replacement_reuse|2|cache_replacement --pattern=reuse ${sizes[*]}"
  "cache_replacement_cyclic|2|cache_replacement --pattern=cyclic ${sizes[*]}"
  "cache_policy_np4|4|cache_policy ${sizes[*]}"
  "read_fault_traced|2|read_fault ${sizes[*]}"
  "write_fault_release_traced|2|write_fault_release ${sizes[*]}"
  "lock_uncontended_traced|2|lock_uncontended ${sizes[*]}"
  "barrier_np2_traced|2|barrier ${sizes[*]}"
  "net_model_off|2|net_model ${sizes[*]}"
  "net_model_message_off|2|net_model ${sizes[*]}"
  "next_touch|2|next_touch"
  "next_touch_off|2|next_touch"
)
# Counter, histogram and work queue, by locks and by atomics at the home,
# at 1, 2 and 4 processes on one node and at 2 and 4 nodes of one process.
for workload in counter histogram queue; do
  for np in 1 2 4; do runs+=("atomics_${workload}_np${np}|${np}|atomics --workload=${workload} ${atomics[*]}"); done
  for np in 2 4; do runs+=("atomics_${workload}_np${np}_off|${np}|atomics --workload=${workload} ${atomics[*]}"); done
done

tmp=$(mktemp)
trace=$(mktemp --suffix=.json)
trap 'rm -f "$tmp" "$trace"' EXIT
failed=0
entries=()
for run in "${runs[@]}"; do
  IFS='|' read -r name np cmd <<<"$run"
  read -r -a argv <<<"$cmd"
  argv[0]=$bin/${argv[0]}
  if [ "$np" -gt 0 ]; then argv=("${mpirun[@]}" -n "$np" "${argv[@]}"); fi
  sharing=on
  case "$name" in *_off) sharing=off ;; esac
  traced=false
  env=(env -u SCOPEDSM_TRACE)
  case "$name" in *_traced) traced=true; env=(env "SCOPEDSM_TRACE=$trace") ;; esac
  case "$name" in *_message*) env+=(SCOPEDSM_FETCH=message) ;; esac
  case "$name" in *_slice*) env+=(SCOPEDSM_SERVICE_SLICE_US=200) ;; esac
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "== $name (load $load, node sharing $sharing, traced $traced): ${argv[*]}" >&2
  if "${env[@]}" SCOPEDSM_NODE_SHARING=$sharing "${argv[@]}" >"$tmp" && [ -s "$tmp" ]; then
    line=$(head -n1 "$tmp")
    entries+=("{\"run\":\"$name\",\"node_sharing\":\"$sharing\",\"traced\":$traced,\"commit\":\"$commit\",\"loadavg\":$load,${line#\{}")
  else
    failed=1
    entries+=("{\"bench\":\"$name\",\"commit\":\"$commit\",\"loadavg\":$load,\"error\":\"failed; see stderr\"}")
  fi
done

{
  echo "["
  for i in "${!entries[@]}"; do
    sep=","
    [ "$i" -eq $((${#entries[@]} - 1)) ] && sep=""
    echo "${entries[$i]}$sep"
  done
  echo "]"
} >"$out"
echo "wrote ${#entries[@]} reports to $out" >&2
exit $failed
