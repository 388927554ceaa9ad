#!/usr/bin/env bash
# A one-node SLURM cluster on localhost for the tests (no systemd: daemons started directly).
#   tests/slurm/cluster.sh start DIR   writes DIR/slurm.conf, starts munged, slurmctld, slurmd
#   tests/slurm/cluster.sh stop DIR    stops them
# The configuration goes to /etc/slurm/slurm.conf (job steps started by srun inside a
# batch job read only that path), unless a foreign one is there already.  Every wait is
# bounded.
set -euo pipefail
action=$1
dir=$(realpath -m "$2")
conf=/etc/slurm/slurm.conf
marker="# written by colme tests/slurm/cluster.sh"

wait_for() {  # wait_for SECONDS COMMAND...: poll until COMMAND succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then echo "timed out waiting for: $*" >&2; return 1; fi
    sleep 0.2
  done
}

start() {
  if [ -e "$conf" ] && ! grep -qF "$marker" "$conf"; then
    echo "refusing to overwrite a foreign $conf" >&2; return 1
  fi
  mkdir -p "$dir"/{state,spool,log} /run/munge /var/log/munge /var/lib/munge /etc/munge /etc/slurm
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chmod 700 /etc/munge; chmod 400 /etc/munge/munge.key
  if ! pgrep -x munged >/dev/null; then munged --force; fi
  wait_for 10 munge -n
  local host node
  host=$(hostname -s)
  node=$(slurmd -C | head -n 1)
  cat >"$conf" <<CONF
$marker
ClusterName=colme-test
SlurmctldHost=${host}(127.0.0.1)
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
# squeue is the status command without slurmdbd: finished jobs must stay visible to it
# for longer than 3 x the executor's first-status-check delay.
MinJobAge=600
ReturnToService=2
MpiDefault=none
$node State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld
  wait_for 20 scontrol ping
  slurmd
  wait_for 30 bash -c "sinfo -h -o %T | grep -Eq '^(idle|mixed|allocated)'"
  echo "SLURM up ($conf)"
}

stop() {
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
    if [ -s "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  done
  local deadline=$((SECONDS + 15))
  while pgrep -x 'slurmd|slurmctld' >/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  pkill -9 -x slurmd 2>/dev/null || true
  pkill -9 -x slurmctld 2>/dev/null || true
  if [ -e "$conf" ] && grep -qF "$marker" "$conf"; then rm -f "$conf"; fi
}

"$action"
