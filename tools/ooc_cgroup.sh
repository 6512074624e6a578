#!/usr/bin/env bash
# Runs a command under a memory cap: a memory cgroup of its own, made for
# the run and always removed after it (normal end, failure, Ctrl-C, TERM).
#
#   tools/ooc_cgroup.sh LIMIT COMMAND [ARGS...]
#
# LIMIT is bytes or a size with K, M or G (512M). cgroup v2 (the unified
# hierarchy at /sys/fs/cgroup with the memory controller) is used where the
# machine has it, else cgroup v1's memory hierarchy (/sys/fs/cgroup/memory);
# swap is capped too where the kernel offers it, so the cap is memory, not
# memory plus swap. Needs root (or a delegated cgroup tree). Everything the
# command starts (mpiexec and its ranks) inherits the cgroup.
#
# Exit status: the command's; 77 when no memory cgroup can be made here
# (one line on stderr says why); 2 for bad usage. The cgroup's peak memory
# is printed on stderr at the end. The out-of-core study (docs/STUDIES.md
# §5) and the test ooc.cgroup (tests/ooc/ooc_test.sh) use it.
set -u

usage() { echo "usage: $0 LIMIT COMMAND [ARGS...]   (LIMIT: bytes, or a size such as 512M or 2G)" >&2; exit 2; }
[ $# -ge 2 ] || usage
case $1 in
  *[kK]) limit=$(( ${1%[kK]} << 10 )) ;;
  *[mM]) limit=$(( ${1%[mM]} << 20 )) ;;
  *[gG]) limit=$(( ${1%[gG]} << 30 )) ;;
  *) limit=$1 ;;
esac 2>/dev/null
case ${limit:-x} in ''|*[!0-9]*) echo "ooc_cgroup: '$1' is not a size (bytes, or a number with K, M or G)" >&2; exit 2 ;; esac
[ "$limit" -gt 0 ] || { echo "ooc_cgroup: the limit must be above 0" >&2; exit 2; }
shift

unavailable() { echo "ooc_cgroup: $*" >&2; exit 77; }

name=scopedsm-ooc-$$
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
  version=2
  cg=/sys/fs/cgroup/$name
  grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
    echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
    unavailable "cannot enable the cgroup v2 memory controller in /sys/fs/cgroup"
  mkdir "$cg" 2>/dev/null || unavailable "cannot create $cg (not root?)"
elif [ -d /sys/fs/cgroup/memory ]; then
  version=1
  cg=/sys/fs/cgroup/memory/$name
  mkdir "$cg" 2>/dev/null || unavailable "cannot create $cg (not root?)"
else
  unavailable "no memory cgroup here (neither cgroup v2 with the memory controller nor v1's /sys/fs/cgroup/memory)"
fi

remove() {
  # The command's processes have ended (or are ending): wait until the
  # cgroup is empty, then remove it.
  for _ in $(seq 100); do
    [ -z "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] && break
    sleep 0.1
  done
  if [ $version = 1 ]; then peak=$(cat "$cg/memory.max_usage_in_bytes" 2>/dev/null)
  else peak=$(cat "$cg/memory.peak" 2>/dev/null); fi
  echo "ooc_cgroup: cgroup v$version, limit $limit bytes, peak ${peak:-unknown} bytes" >&2
  rmdir "$cg" 2>/dev/null || echo "ooc_cgroup: warning: could not remove $cg" >&2
}
trap remove EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ $version = 2 ]; then
  echo "$limit" >"$cg/memory.max" || unavailable "cannot set $cg/memory.max"
  [ -f "$cg/memory.swap.max" ] && echo 0 >"$cg/memory.swap.max"
  [ "$(cat "$cg/memory.max")" = "$limit" ] || unavailable "memory.max did not take the limit"
else
  echo "$limit" >"$cg/memory.limit_in_bytes" || unavailable "cannot set $cg/memory.limit_in_bytes"
  [ -f "$cg/memory.memsw.limit_in_bytes" ] && echo "$limit" >"$cg/memory.memsw.limit_in_bytes" 2>/dev/null
  # The kernel rounds the limit to pages.
  [ "$(cat "$cg/memory.limit_in_bytes")" -le "$limit" ] || unavailable "memory.limit_in_bytes did not take the limit"
fi

# The command runs in a child that first moves itself into the cgroup; this
# shell stays outside, so that it can remove the cgroup afterwards.
bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@" &
child=$!
trap 'kill -TERM $child 2>/dev/null; wait $child; exit 130' INT
trap 'kill -TERM $child 2>/dev/null; wait $child; exit 143' TERM
wait $child
