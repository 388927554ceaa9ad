#!/usr/bin/env bash
# A one-node SLURM cluster on localhost for the tests (no systemd: daemons started directly).
#   tests/slurm/cluster.sh start DIR   writes /etc/slurm/slurm.conf, starts munged (unless one
#                                      is running), slurmctld and slurmd; state, spool and
#                                      logs go to DIR
#   tests/slurm/cluster.sh stop [DIR]  stops what `start` started (DIR is not needed)
# The configuration goes to /etc/slurm/slurm.conf (job steps started by srun inside a batch
# job read only that path), unless a foreign one is there already.
#
# Pidfiles: the daemons write theirs to /run/colme-slurm-test (one place whatever DIR, so
# `stop` finds a cluster left over by an earlier run, even one whose `start` was killed),
# next to `owner`, the pid of the process the cluster belongs to ($COLME_SLURM_OWNER,
# else the caller of `start`).  `stop` signals only those pids, and only while each is still
# the daemon it names: SIGTERM, a bounded wait (15 s) for them to exit, then SIGKILL for any
# left and a second bounded wait (5 s); munged (when `start` started it) last.  Jobs still in
# its cluster (an interrupted test) are cancelled first.  Other SLURM daemons and munged
# instances are never touched.
#
# `start` refuses to start over a running cluster, with a message naming it and how to stop
# it, and exit status
#   3  a SLURM that this helper did not start (slurmctld/slurmd running, or their ports
#      6817/6818 in use, or a foreign slurm.conf), or one it started for a process that is
#      still running (another test run): leave it alone;
#   4  one it started for a process that has exited (a leftover of an earlier run):
#      `cluster.sh stop` stops it, then `start` can be run again.
# A `start` that fails stops what it had started.  Every wait is bounded.
set -euo pipefail
readonly BUSY=3 LEFTOVER=4
readonly run=/run/colme-slurm-test lock=/run/colme-slurm-test.lock
readonly conf=/etc/slurm/slurm.conf marker="# written by colme tests/slurm/cluster.sh"
readonly ctld_port=6817 slurmd_port=6818
readonly term_wait=15 kill_wait=5
self=$0

usage() { echo "usage: $self start DIR | $self stop [DIR]" >&2; exit 2; }

now() { echo "${EPOCHREALTIME:-$SECONDS}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

wait_for() {  # wait_for SECONDS COMMAND...: poll (each try at most 5 s) until COMMAND succeeds
  wait_up "" "$@"
}

wait_up() {  # wait_up NAME SECONDS COMMAND...: wait_for, but give up as soon as the daemon
  local name=$1 deadline=$((SECONDS + $2)); shift 2  # NAME (once its pidfile exists) has exited
  until timeout 5 "$@" >/dev/null 2>&1; do
    if [ -n "$name" ] && [ -s "$run/$name.pid" ] && ! recorded "$name" >/dev/null; then
      echo "$name exited while waiting for: $*" >&2; return 1
    fi
    if ((SECONDS >= deadline)); then echo "timed out waiting for: $*" >&2; return 1; fi
    sleep 0.2
  done
}

take_lock() {  # one start/stop at a time (fd 9; the daemons are started with it closed)
  exec 9>"$lock"
  if ! flock -w 10 9; then
    echo "another $self start/stop holds $lock (10 s): try again later" >&2; exit "$BUSY"
  fi
}

alive() {  # alive NAME PID: PID is a live (not zombie) process whose name is NAME
  local stat
  [[ $2 =~ ^[0-9]+$ ]] || return 1
  [ "$(cat "/proc/$2/comm" 2>/dev/null)" = "$1" ] || return 1
  stat=$(cat "/proc/$2/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

start_time() {  # start_time PID: the process's start time (clock ticks since boot)
  local stat fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  read -ra fields <<<"${stat##*) }"
  echo "${fields[19]}"
}

describe() {  # describe PID: "pid PID: its command line"
  local cmd
  cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || true
  echo "pid $1: ${cmd% }"
}

recorded() {  # recorded NAME: the pid in NAME's pidfile, if that process is still NAME
  local pid
  pid=$(head -n 1 "$run/$1.pid" 2>/dev/null) || return 1
  alive "$1" "$pid" && echo "$pid"
}

ours() {  # the live daemons this helper started: lines "NAME PID"
  local name pid
  for name in slurmd slurmctld munged; do
    if pid=$(recorded "$name"); then echo "$name $pid"; fi
  done
}

owner_alive() {  # the process the recorded cluster belongs to is still running
  local pid started
  read -r pid started <"$run/owner" 2>/dev/null || return 1
  [[ $pid =~ ^[0-9]+$ ]] && [ "$(start_time "$pid")" = "$started" ]
}

listening() {  # listening PORT: a TCP socket is listening on PORT
  local hex files=()
  hex=$(printf ':%04X' "$1")
  for f in /proc/net/tcp /proc/net/tcp6; do [ -r "$f" ] && files+=("$f"); done
  ((${#files[@]})) || return 1
  awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
    "${files[@]}"
}

preflight() {  # refuse (exit BUSY or LEFTOVER) when a SLURM is running or the ports are taken
  local name pid mine foreign=() port
  mine=$(ours)
  for name in slurmctld slurmd; do
    for pid in $(pgrep -x "$name" || true); do
      alive "$name" "$pid" || continue  # a zombie (exited, not yet reaped) is harmless
      grep -qx "$name $pid" <<<"$mine" || foreign+=("$name ($(describe "$pid"))")
    done
  done
  if ((${#foreign[@]} == 0)) && [ -z "$mine" ]; then
    for port in "$ctld_port" "$slurmd_port"; do
      if listening "$port"; then
        foreign+=("TCP port $port in use$(command -v ss >/dev/null &&
          ss -Hltnp "sport = :$port" 2>/dev/null | awk '{ printf " (%s)", $NF }')")
      fi
    done
  fi
  if ((${#foreign[@]})); then
    {
      echo "refusing to start: SLURM is already running here and was not started by $self:"
      printf '  %s\n' "${foreign[@]}"
      echo "Stop it first (e.g. \`systemctl stop slurmd slurmctld\`, or kill the pids above)," \
        "or run the SLURM test on a machine without one."
    } >&2
    exit "$BUSY"
  fi
  if [ -n "$mine" ]; then
    local owner pids
    pids=$(named <<<"$mine")
    read -r owner _ <"$run/owner" 2>/dev/null || owner="?"
    if owner_alive; then
      {
        echo "refusing to start: the cluster $self started for $(describe "$owner")"
        echo "(state in $(cat "$run/dir" 2>/dev/null)) is running and still in use: $pids."
        echo "Wait for that run to finish, or stop the cluster with: $self stop"
      } >&2
      exit "$BUSY"
    fi
    {
      echo "refusing to start: a cluster $self started earlier is still running: $pids"
      echo "(state in $(cat "$run/dir" 2>/dev/null); the process it was started for, pid $owner,"
      echo "has exited).  Stop it with: $self stop"
    } >&2
    exit "$LEFTOVER"
  fi
}

left_of() {  # left_of NAME PID...: the NAME PID pairs still alive
  while (($# >= 2)); do
    if alive "$1" "$2"; then printf '%s %s\n' "$1" "$2"; fi
    shift 2
  done
}

wait_gone() {  # wait_gone SECONDS NAME PID...: wait up to about SECONDS for them all to exit
  local tries=$(($1 * 10)); shift
  while [ -n "$(left_of "$@")" ]; do
    ((tries-- > 0)) || return 1
    sleep 0.1
  done
}

named() { awk '{ printf "%s%s (pid %s)", (NR > 1 ? ", " : ""), $1, $2 }'; }  # "NAME PID" lines

terminate() {  # terminate NAME PID...: SIGTERM, bounded wait; SIGKILL those left, bounded wait
  local t0 name pid left
  t0=$(now)
  while read -r name pid; do kill -TERM "$pid" 2>/dev/null || true; done < <(left_of "$@")
  if wait_gone "$term_wait" "$@"; then
    echo "$(printf '%s %s\n' "$@" | named) exited on SIGTERM within $(since "$t0")"
    return 0
  fi
  left=$(left_of "$@")
  echo "still running $(since "$t0") after SIGTERM: $(named <<<"$left"); sending SIGKILL to it" >&2
  while read -r name pid; do
    if alive "$name" "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done <<<"$left"
  if wait_gone "$kill_wait" "$@"; then
    echo "$(printf '%s %s\n' "$@" | named) exited, $(named <<<"$left") on SIGKILL, within $(since "$t0")"
    return 0
  fi
  echo "still running after SIGKILL: $(left_of "$@" | named)" >&2
  return 1
}

stop_recorded() {  # stop the daemons recorded in $run, then forget them
  local slurm=() munge=() name pid status=0
  while read -r name pid; do
    [ -n "$name" ] || continue
    if [ "$name" = munged ]; then munge=("$name" "$pid"); else slurm+=("$name" "$pid"); fi
  done <<<"$(ours)"
  if recorded slurmctld >/dev/null && grep -qF "$marker" "$conf" 2>/dev/null; then
    # Jobs still running (an interrupted test) end with the cluster: cancel them, and give
    # slurmd a bounded time to reap them.
    if timeout 10 scancel --quiet --user="$(id -un)" 2>/dev/null; then
      # shellcheck disable=SC2016  # expanded by the inner bash, at each try
      wait_for 15 bash -c '[ -z "$(squeue -h -t running,completing -o %i)" ]' || true
    fi
  fi
  if ((${#slurm[@]})); then terminate "${slurm[@]}" || status=1; fi
  # munged last: slurmd and slurmctld use it until they exit.
  if ((${#munge[@]})); then terminate "${munge[@]}" || status=1; fi
  if ((status == 0)); then
    rm -f "$run"/{slurmctld,slurmd,munged}.pid "$run"/{owner,dir}
    rmdir "$run" 2>/dev/null || true
    if grep -qF "$marker" "$conf" 2>/dev/null; then rm -f "$conf"; fi
  fi
  return "$status"
}

failed_start() {
  trap - EXIT
  echo "start failed: stopping what it started (logs in $dir/log)" >&2
  tail -n 20 "$dir"/log/*.log >&2 2>/dev/null || true
  stop_recorded >&2 || true
  exit 1
}

start() {
  take_lock
  preflight
  if [ -e "$conf" ] && ! grep -qF "$marker" "$conf"; then
    echo "refusing to start: $conf exists and was not written by $self (a SLURM" \
      "installation of this machine); move it away to run the SLURM test here" >&2
    exit "$BUSY"
  fi
  # Nothing of ours is alive: forget any stale record, then record the new cluster.
  rm -rf "$run"
  mkdir -p "$run"
  local owner=${COLME_SLURM_OWNER:-$PPID}
  echo "$owner $(start_time "$owner")" >"$run/owner"
  echo "$dir" >"$run/dir"
  trap failed_start EXIT
  trap 'exit 1' INT TERM HUP
  mkdir -p "$dir"/{state,spool,log} /run/munge /var/log/munge /var/lib/munge /etc/munge /etc/slurm
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chmod 700 /etc/munge; chmod 400 /etc/munge/munge.key
  if ! pgrep -x munged >/dev/null; then
    timeout 10 munged --force --pid-file="$run/munged.pid" </dev/null >>"$dir/log/munged.out" 2>&1 9>&-
  fi
  wait_up munged 10 munge -n
  local host node
  host=$(hostname -s)
  node=$(timeout 10 slurmd -C | head -n 1)
  cat >"$conf" <<CONF
$marker
ClusterName=colme-test
SlurmctldHost=${host}(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
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
  timeout 10 slurmctld </dev/null >>"$dir/log/slurmctld.out" 2>&1 9>&-
  wait_up slurmctld 20 scontrol ping
  timeout 10 slurmd </dev/null >>"$dir/log/slurmd.out" 2>&1 9>&-
  wait_up slurmd 30 bash -c "sinfo -h -o %T | grep -Eq '^(idle|mixed|allocated)'"
  trap - EXIT INT TERM HUP
  echo "SLURM up ($conf; $(ours | named))"
}

stop() {
  take_lock
  if [ -z "$(ours)" ]; then
    echo "nothing to stop: no daemon started by $self is running"
    rm -rf "$run"
    local others
    others=$(for name in slurmctld slurmd; do
      for pid in $(pgrep -x "$name" || true); do
        if alive "$name" "$pid"; then echo "$name $pid"; fi
      done
    done)
    if [ -n "$others" ]; then
      echo "(left alone, not started by it: $(named <<<"$others"))"
    elif grep -qF "$marker" "$conf" 2>/dev/null; then
      rm -f "$conf"
    fi
    return 0
  fi
  stop_recorded
}

case ${1:-} in
  start) (($# == 2)) || usage; dir=$(realpath -m "$2"); start ;;
  stop) (($# <= 2)) || usage; stop ;;
  *) usage ;;
esac
