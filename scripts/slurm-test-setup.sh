#!/usr/bin/env bash
# Starts a real single-node Slurm cluster on this machine for the Slurm
# campaign test (cmd/weft/slurm_linux_test.go): munged, slurmctld and slurmd
# from Debian's slurm-wlm and munge packages (scripts/setup.sh installs them).
# The node is "localhost" with 2 CPUs in partition "weft"; no cgroups
# (proctrack/linuxproc, task/none), so it runs inside a container too.
# Daemons run as root; state lives in /var/spool/slurmctld and
# /var/spool/slurmd, logs in /var/log/slurm.
#
# Idempotent: daemons already running with the same configuration are left
# alone; a changed configuration restarts them. Needs root (or sudo).
set -euo pipefail

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi

for cmd in munged mungekey slurmctld slurmd sbatch scontrol sinfo; do
  if ! command -v "$cmd" >/dev/null; then
    echo "slurm-test-setup: $cmd not found: run scripts/setup.sh (installs slurm-wlm and munge)" >&2
    exit 2
  fi
done

conf=/etc/slurm/slurm.conf
want=$(cat <<'EOF'
# Written by weft's scripts/slurm-test-setup.sh: a single-node test cluster.
ClusterName=weft
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=300
SlurmdTimeout=300
InactiveLimit=0
KillWait=5
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=weft Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
)

# munge: a key, then munged as the munge user.
$sudo mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [[ ! -s /etc/munge/munge.key ]]; then
  $sudo mungekey --create --keyfile=/etc/munge/munge.key
fi
$sudo chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
$sudo chmod 0700 /etc/munge
$sudo chmod 0400 /etc/munge/munge.key
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  echo "slurm-test-setup: starting munged"
  $sudo runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do
    munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.1
  done
  munge -n </dev/null | unmunge >/dev/null
fi

# running NAME PIDFILE: the daemon NAME whose pid PIDFILE holds is alive
# (a stale pid file may name a reused pid: the name must match too).
running() {
  local pid
  pid=$($sudo cat "$2" 2>/dev/null || true)
  [[ -n $pid ]] && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$1" ]]
}

# stop_daemon NAME PIDFILE: ends a daemon this script started earlier.
stop_daemon() {
  local pid
  pid=$($sudo cat "$2" 2>/dev/null || true)
  if running "$1" "$2"; then
    echo "slurm-test-setup: stopping $1 (pid $pid) for the new configuration"
    $sudo kill "$pid"
    for _ in $(seq 100); do $sudo kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
}

$sudo mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
if [[ ! -f $conf ]] || [[ "$($sudo cat "$conf")" != "$want" ]]; then
  echo "slurm-test-setup: writing $conf"
  stop_daemon slurmd /run/slurmd.pid
  stop_daemon slurmctld /run/slurmctld.pid
  printf '%s\n' "$want" | $sudo tee "$conf" >/dev/null
fi

if ! running slurmctld /run/slurmctld.pid; then
  # -c: a fresh test cluster; jobs of an earlier boot (whose files are gone)
  # are not recovered.
  echo "slurm-test-setup: starting slurmctld"
  $sudo slurmctld -c
fi
for _ in $(seq 100); do
  scontrol ping 2>/dev/null | grep -q "is UP" && break
  sleep 0.2
done
if ! scontrol ping | grep -q "is UP"; then
  echo "slurm-test-setup: slurmctld did not come up; see /var/log/slurm/slurmctld.log" >&2
  $sudo tail -20 /var/log/slurm/slurmctld.log >&2 || true
  exit 1
fi

if ! running slurmd /run/slurmd.pid; then
  echo "slurm-test-setup: starting slurmd"
  $sudo slurmd -N localhost
fi
state=""
for _ in $(seq 100); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  case $state in
    idle* | mixed* | allocated* | completing*) break ;;
    down* | drain*) $sudo scontrol update nodename=localhost state=resume 2>/dev/null || true ;;
  esac
  sleep 0.2
done
case $state in
  idle* | mixed* | allocated* | completing*) ;;
  *)
    echo "slurm-test-setup: node localhost is '$state'; see /var/log/slurm/slurmd.log" >&2
    $sudo tail -20 /var/log/slurm/slurmd.log >&2 || true
    exit 1
    ;;
esac
echo "slurm-test-setup: Slurm is up (partition weft, node localhost $state)"
