#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for the tests (run as root): installs
# Debian's slurmctld, slurmd, slurm-client and munge if missing, writes a config
# with count-only GRES (rdu:8, ipu:4), starts munge and both daemons, and waits
# until the node is idle. Safe to run again: a running cluster is left alone.
set -euo pipefail

if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
        || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=accelbench-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=rdu,ipu
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=600
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
NodeName=localhost CPUs=${cpus} RealMemory=${mem} Gres=rdu:8,ipu:4 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
cat > /etc/slurm/gres.conf <<CONF
NodeName=localhost Name=rdu Count=8
NodeName=localhost Name=ipu Count=4
CONF

[ -s /etc/munge/munge.key ] || mungekey --create --force 2>/dev/null || \
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 0400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd -N localhost

for _ in $(seq 1 60); do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1 || true)
    case "$state" in
        idle|mixed|allocated) exit 0 ;;
        down*|drain*) scontrol update nodename=localhost state=resume 2>/dev/null || true ;;
    esac
    sleep 1
done
echo "start-cluster: the Slurm node did not become idle (state: ${state:-none})" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
