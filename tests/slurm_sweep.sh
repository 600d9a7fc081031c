#!/usr/bin/env bash
# tools/sweep --slurm through a real scheduler (issue 12): Debian's slurm-wlm (slurmctld and slurmd
# on this machine, authenticated by munge) started here with a configuration of its own, a 2 x 2
# sweep of the lubricated slider-guide case submitted as a 4-task job array, one task requeued
# while it runs (as a preemption would), and the summary collected.  Checks:
#   - the 4 tasks end complete and summary.csv has one row each;
#   - the requeued task continued from its checkpoint (-restart), and its histories equal the
#     same run made locally without interruption to 1e-10;
#   - each task ran with the CPUs SLURM gave it (OMP_NUM_THREADS = SLURM_CPUS_PER_TASK).
# Needs root (it installs slurm-wlm and munge if missing and starts their daemons).  Label slow:
# tools/test-slow, or ctest -R slurm_sweep.  Usage: slurm_sweep.sh TRIBODYN_EXE SOURCE_DIR
set -euo pipefail
exe=$(readlink -f "$1")
src=$(readlink -f "$2")
if [ "$(id -u)" -ne 0 ]; then echo "slurm_sweep.sh: needs root to start slurmctld, slurmd and munged" >&2; exit 1; fi
need=()
for p in slurm-wlm munge; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q && apt-get install -y -q --no-install-recommends "${need[@]}"
fi

work=$(mktemp -d /tmp/tribodyn_slurm_XXXXXX)
pids=()
cleanup() {
  scancel --quiet --name=tribodyn-sweep 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
mkdir -p "$work"/{state,spool,log}
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" <<EOF
ClusterName=tribodyn-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
KillWait=30
JobRequeue=1
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

# munge: a key of its own unless the machine has one
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
[ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; }
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
if ! munge -n >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged --foreground > "$work/log/munged.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.2; done
fi
munge -n | unmunge >/dev/null || { echo "slurm_sweep.sh: munge does not work" >&2; exit 1; }

/usr/sbin/slurmctld -D -i -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
pids+=($!)
/usr/sbin/slurmd -D -f "$SLURM_CONF" > "$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  state=$(sinfo -h -o %t 2>/dev/null || true)
  [[ "$state" == idle* ]] && break
  sleep 1
done
if [[ "$state" != idle* ]]; then
  echo "slurm_sweep.sh: the node did not come up (sinfo state '$state'); logs:" >&2
  tail -20 "$work"/log/* >&2
  exit 1
fi
echo "slurm_sweep.sh: SLURM $(sinfo -V) up on $host with $cpus CPUs"

out=$work/sweep
case_file=$src/cases/slider_guide_lubricated.opts
"$src/tools/sweep" --tribodyn "$exe" --case "$case_file" --set film_mu=0.03,0.045 --set hammer_duration=0.01,0.005 \
  --out "$out" --slurm --cpus-per-task 1 --checkpoint_dt 0.0005 -- -t_final 0.003 | tee "$work/submit.txt"
job=$(sed -n 's/.*submitted job array \([0-9]*\).*/\1/p' "$work/submit.txt")
[ -n "$job" ] || { echo "slurm_sweep.sh: no job id in the output of tools/sweep --slurm" >&2; exit 1; }

# requeue task 0 once it has written a checkpoint (what a preemption does)
t0=$SECONDS
requeued=0
while [ $((SECONDS - t0)) -lt 300 ]; do
  h5=$(ls "$out"/runs/r000_*.h5 2>/dev/null | head -1 || true)
  if [ -n "$h5" ] && /usr/bin/python3 -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    sys.exit(0 if 'checkpoint/valid' in f and f['checkpoint/valid'][1] > 0 and f.attrs['status'] == 'running' else 1)" "$h5" 2>/dev/null; then
    echo "slurm_sweep.sh: requeueing task ${job}_0 while it runs (it has a checkpoint)"
    scontrol requeue "${job}_0"
    requeued=1
    break
  fi
  sleep 0.5
done
[ $requeued -eq 1 ] || { echo "slurm_sweep.sh: task 0 never had a checkpoint while running" >&2; squeue; exit 1; }

while [ $((SECONDS - t0)) -lt 900 ] && [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do sleep 2; done
if [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; then echo "slurm_sweep.sh: the array did not finish in 15 min" >&2; squeue; exit 1; fi
echo "slurm_sweep.sh: job array $job done; tasks:"
sacct -j "$job" 2>/dev/null || true
"$src/tools/sweep" --collect "$out" || true

# the checks, against a local run of task 0's combination
h5=$(ls "$out"/runs/r000_*.h5)
ref=$work/reference.h5
OMP_NUM_THREADS=1 "$exe" -options_file "$case_file" -film_mu 0.03 -hammer_duration 0.01 -t_final 0.003 -output "$ref" -progress false > /dev/null
/usr/bin/python3 - "$out" "$h5" "$ref" <<'EOF'
import csv, glob, os, sys
import h5py, numpy as np
out, h5, ref = sys.argv[1:4]
failed = 0
def check(name, ok):
    global failed
    print("  %-100s %s" % (name, "ok" if ok else "FAIL"))
    failed += not ok
rows = list(csv.DictReader(open(os.path.join(out, "summary.csv"))))
check("summary.csv: %d rows, status %s" % (len(rows), [r["status"] for r in rows]), len(rows) == 4 and all(r["status"] == "complete" for r in rows))
log0 = open(h5[:-3] + ".log").read()
check("task 0 was requeued and continued from its checkpoint (-restart)", "-restart" in log0 and "continuing from the checkpoint" in log0)
slurm_out = "".join(open(f).read() for f in glob.glob(os.path.join(out, "runs", "slurm-*_0.out")))
check("task 0's SLURM output shows a restart count of 1", "restart count 1" in slurm_out)
def hist(p):
    d = {}
    with h5py.File(p, "r") as f:
        f.visititems(lambda n, o: d.__setitem__(n, np.array(o)) if isinstance(o, h5py.Dataset) and not n.startswith(("checkpoint", "solver/")) and o.maxshape and o.maxshape[0] is None else None)
    return d
a, b = hist(ref), hist(h5)
worst = max((np.nanmax(np.abs(a[k] - b[k])) / max(np.nanmax(np.abs(a[k])), 1e-300) if a[k].size else 0) if k in b and b[k].shape == a[k].shape else np.inf for k in a)
check("requeued task's histories = the uninterrupted local run's: worst %.1e <= 1e-10" % worst, worst <= 1e-10)
threads = [l for l in open(h5[:-3] + ".log") if "threads" in l]
check("the tasks ran with SLURM's CPU count (--cpus-per-task 1): %s" % (threads[-1].strip() if threads else "?"), bool(threads) and " 1 " in threads[-1])
print("%d failed" % failed)
sys.exit(1 if failed else 0)
EOF
