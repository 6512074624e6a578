#!/usr/bin/env bash
# A one-machine Slurm cluster for ScopeDSM's Slurm tests (label slurm) and
# for trying `srun` and `sbatch` by hand: munge, slurmctld and one slurmd,
# configured in a directory of their own (nothing under /etc/slurm changes;
# clients find it through SLURM_CONF).
#
#   tools/slurm_cluster.sh start [DIR]   installs Debian's slurmd, slurmctld,
#                                        munge and slurm-client if missing,
#                                        writes DIR/slurm.conf, starts the
#                                        daemons, waits until the node is idle,
#                                        and prints `export SLURM_CONF=...`
#   tools/slurm_cluster.sh stop [DIR]    stops the daemons it started
#
# DIR defaults to /tmp/scopedsm-slurm. The node offers 8 CPUs whatever the
# machine has (SlurmdParameters=config_overrides), so that jobs of 1 to 8
# tasks run oversubscribed: counts, not speed. Jobs may share the node.
set -euo pipefail

cmd=${1:-}
dir=${2:-/tmp/scopedsm-slurm}
cpus=${SCOPEDSM_SLURM_CPUS:-8}

stop() {
  for d in slurmd slurmctld munged; do
    if [ -f "$dir/$d.pid" ]; then
      kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
    fi
  done
  for d in slurmd slurmctld munged; do
    for _ in $(seq 50); do
      [ -f "$dir/$d.pid" ] && kill -0 "$(cat "$dir/$d.pid")" 2>/dev/null || break
      sleep 0.1
    done
    rm -f "$dir/$d.pid"
  done
}

case "$cmd" in
  start) ;;
  stop) stop; exit 0 ;;
  *) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
esac

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v srun >/dev/null ||
   ! command -v munged >/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "slurm_cluster: installing slurmd slurmctld slurm-client munge" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends slurmd slurmctld slurm-client munge >/dev/null ||
    { $sudo apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends slurmd slurmctld slurm-client munge >/dev/null; }
fi

stop  # a cluster this script started before, in the same DIR
mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
chmod 700 "$dir/munge"
host=$(hostname -s)
user=$(id -un)

# munge: a key of our own and a socket in DIR, so that a system munged (if
# any) is left alone. Slurm's clients and daemons find the socket through
# AuthInfo.
if [ ! -f "$dir/munge/munge.key" ]; then
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
fi
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"

cat >"$dir/slurm.conf" <<EOF
ClusterName=scopedsm
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=${SCOPEDSM_SLURM_PORT:-6817}
SlurmdPort=$(( ${SCOPEDSM_SLURM_PORT:-6817} + 1 ))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
InactiveLimit=0
KillWait=5
MinJobAge=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF

export SLURM_CONF=$dir/slurm.conf
slurmctld -i
slurmd
for _ in $(seq 100); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  case "$state" in idle | mix | alloc) break ;; esac
  sleep 0.2
done
if ! sinfo -h -n "$host" -o %t 2>/dev/null | grep -qE 'idle|mix|alloc'; then
  echo "slurm_cluster: the node did not come up (state '${state:-none}'); see $dir/log" >&2
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
  stop
  exit 1
fi
echo "export SLURM_CONF=$dir/slurm.conf"
