#!/usr/bin/env bash
# Negative controls for the TSan run: each control removes one lock of the
# runtime in a copy of the sources (tools/tsan.sh, TSAN_MUTATE) and the run,
# with every exception of tests/tsan/mpi.supp in force, must report a race
# in ScopeDSM's code. Shows that the exceptions do not hide our own races.
# Node sharing is off: only then does one process's service thread record
# the copies its application thread drains (HomeShare), where TSan sees both.
#
#   bash tests/tsan/controls.sh [NP]     (default 2 processes)
set -uo pipefail
cd "$(dirname "$0")/../.."
np=${1:-2}

# name | file under src/ | exact text | replacement
controls=(
  "outbox-unlocked|transport/outbox.cc|  std::lock_guard<std::mutex> lock(mu_);
  int rc = MPI_Isend|  int rc = MPI_Isend"
  "serve-concurrently|runtime/service.cc|  if (!lock.owns_lock()) return false;
|"
  "retrap-ring-plain-read|memory/home_share.cc|while ((v = e.load(std::memory_order_acquire)) == 0)|while ((v = *reinterpret_cast<volatile uint32_t*>(&e)) == 0)"
)

caught=0 missed=0
for c in "${controls[@]}"; do
  name=${c%%|*}
  # A removed lock may also corrupt state and hang the job after the report.
  out=$(SCOPEDSM_NODE_SHARING=off TSAN_TIMEOUT=120 TSAN_MUTATE="${c#*|}" bash tools/tsan.sh --np "$np" 2>&1)
  line=$(grep -m1 '^tsan: [0-9]* reports' <<<"$out")
  ours=$(sed -n 's/^tsan: \([0-9]*\) reports.*/\1/p' <<<"$line")
  if [ "${ours:-0}" -gt 0 ]; then
    echo "control $name: caught: $line"
    grep -m3 -A2 '^  \[ScopeDSM\]' <<<"$out" | sed 's/^/    /'
    caught=$((caught + 1))
  else
    echo "control $name: MISSED: ${line:-no summary}"
    tail -n 5 <<<"$out"
    missed=$((missed + 1))
  fi
done
echo "controls: $caught caught, $missed missed"
[ "$missed" -eq 0 ]
