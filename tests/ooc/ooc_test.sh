#!/bin/bash
# Out-of-core homes (SCOPEDSM_HOME_BACKING=file:DIR), run by ctest (label ooc):
#   exit       the backing files are gone after a normal exit
#   kill       ... and after SIGKILL (they never have a name while running)
#   disk-full  a full disk ends the job with one line naming the rank and
#              the file, never a SIGBUS
#   cgroup DIR a 2 GiB shared space under a 512 MiB memory cgroup runs to a
#              verified result with its homes in DIR, and is killed with
#              memory backing (the negative control: the limit bites)
# The first three watch a small tmpfs mounted for the test (root, or a user
# namespace of our own); the last needs a memory cgroup (v1 or v2). Where
# neither can be had the test prints why and exits 77 (ctest: skipped).
# Environment: OOC_SWEEP (tests/ooc/ooc_sweep.c), OOC_MPIEXEC, OOC_MPIEXEC_FLAGS.
set -u
what=$1
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
run() { "$OOC_MPIEXEC" $OOC_MPIEXEC_FLAGS "$@"; }
work=$(mktemp -d /tmp/scopedsm-ooc-work.XXXXXX)
mnt=""
cleanup() {
  if [ -n "$mnt" ]; then umount "$mnt" 2>/dev/null; rmdir "$mnt"; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A tmpfs of $1 at $mnt, whose use we can watch.
mount_small() {
  mnt=$(mktemp -d /tmp/scopedsm-ooc-mnt.XXXXXX)
  if mount -t tmpfs -o "size=$1" scopedsm-ooc "$mnt" 2>"$work/mount.err"; then return; fi
  rmdir "$mnt"
  mnt=""
  if [ -z "${OOC_IN_NAMESPACE:-}" ] && unshare -rm true 2>/dev/null; then
    rm -rf "$work"
    OOC_IN_NAMESPACE=1 exec unshare -rm "$0" "$what"
  fi
  skip "cannot mount a small tmpfs to watch disk use ($(cat "$work/mount.err")); needs root or user namespaces"
}
used_kb() { df --output=used "$mnt" | tail -1 | tr -d ' '; }
no_names() { [ -z "$(ls -A "$mnt")" ] || fail "files in $mnt: $(ls -A "$mnt")"; }

case "$what" in
exit)
  mount_small 512m
  before=$(used_kb)
  SCOPEDSM_HOME_BACKING="file:$mnt" SCOPEDSM_REGION_SIZE=1G run -n 2 "$OOC_SWEEP" 128M >"$work/out" 2>&1
  status=$?
  cat "$work/out"
  [ $status -eq 0 ] && grep -q "ooc ok" "$work/out" || fail "the run failed (status $status)"
  no_names
  after=$(used_kb)
  [ "$after" -le $((before + 1024)) ] || fail "$((after - before)) KiB still used in $mnt after the run"
  echo "PASSED: 128 MiB of homes in $mnt during the run, nothing left after it"
  ;;
kill)
  mount_small 512m
  before=$(used_kb)
  SCOPEDSM_HOME_BACKING="file:$mnt" SCOPEDSM_REGION_SIZE=1G run -n 2 "$OOC_SWEEP" 128M hold "$work/pids" >"$work/out" 2>&1 &
  launcher=$!
  for _ in $(seq 600); do
    [ "$(wc -l <"$work/pids" 2>/dev/null || echo 0)" -ge 2 ] && break
    sleep 0.1
  done
  [ "$(wc -l <"$work/pids" 2>/dev/null || echo 0)" -ge 2 ] || { kill "$launcher"; cat "$work/out"; fail "the processes never got ready"; }
  during=$(used_kb)
  no_names  # even while running: the files have no name
  [ "$during" -ge $((before + 120 * 1024)) ] || fail "only $((during - before)) KiB in $mnt while running; the homes are not in files there"
  kill -9 $(cat "$work/pids")
  wait "$launcher"
  after=$(used_kb)
  for _ in $(seq 100); do
    [ "$after" -le $((before + 1024)) ] && break
    sleep 0.1
    after=$(used_kb)
  done
  no_names
  [ "$after" -le $((before + 1024)) ] || fail "$((after - before)) KiB still used in $mnt after SIGKILL"
  echo "PASSED: $((during - before)) KiB in unnamed files while running, all of it freed by SIGKILL"
  ;;
disk-full)
  mount_small 16m
  start=$(date +%s)
  # A 1 GiB region: its home records fit, the 256 MiB of homes do not.
  SCOPEDSM_HOME_BACKING="file:$mnt" SCOPEDSM_REGION_SIZE=1G SCOPEDSM_TIMEOUT=20 run -n 2 "$OOC_SWEEP" 256M \
    >"$work/out" 2>&1
  status=$?
  cat "$work/out"
  [ $status -ne 0 ] || fail "a 256 MiB space fitted in a 16 MiB disk?"
  grep -Eq "rank [0-9]+: .*the disk is full.*$mnt.*No space left on device" "$work/out" ||
    fail "no line naming the rank, the file in $mnt and the cause"
  grep -Eq "scopedsm_alloc_cyclic" "$work/out" || fail "the error does not name the allocation"
  ! grep -Eiq "bus error|SIGBUS|signal 7" "$work/out" || fail "a SIGBUS reached the application"
  [ $(($(date +%s) - start)) -le 30 ] || fail "took more than 30 s to end"
  no_names
  echo "PASSED: one clear line, no SIGBUS"
  ;;
cgroup)
  dir=$2
  # tools/ooc_cgroup.sh makes the cgroup (v2 or v1), runs the command in it,
  # removes it, and exits 77 where no memory cgroup can be made.
  capped="$(dirname "$0")/../../tools/ooc_cgroup.sh"
  SCOPEDSM_HOME_BACKING="file:$dir" SCOPEDSM_CACHE_PAGES=4096 SCOPEDSM_RELEASE_POLICY=aggressive SCOPEDSM_TIMEOUT=300 \
    "$capped" 512M "$OOC_MPIEXEC" $OOC_MPIEXEC_FLAGS -n 2 "$OOC_SWEEP" 2G >"$work/out" 2>&1
  status=$?
  cat "$work/out"
  [ $status -eq 77 ] && skip "$(grep ooc_cgroup: "$work/out")"
  [ $status -eq 0 ] && grep -q "ooc ok: 2147483648 bytes" "$work/out" || fail "2 GiB with file backing under the limit failed (status $status)"
  # The negative control: the same space in memory does not fit the limit.
  SCOPEDSM_HOME_BACKING=memory SCOPEDSM_CACHE_PAGES=4096 SCOPEDSM_TIMEOUT=60 \
    "$capped" 512M "$OOC_MPIEXEC" $OOC_MPIEXEC_FLAGS -n 2 "$OOC_SWEEP" 2G >"$work/out2" 2>&1
  status2=$?
  tail -3 "$work/out2"
  [ $status2 -ne 0 ] || fail "2 GiB in memory fitted a 512 MiB cgroup: the limit does not bite, the test proves nothing"
  echo "PASSED: 2 GiB verified with file backing under a 512 MiB cgroup; with memory backing the run failed (status $status2)"
  ;;
*)
  fail "unknown test $what"
  ;;
esac
