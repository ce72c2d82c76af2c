#!/bin/bash
# standby_bench.sh - a hot standby's cost and its takeover time (issue 9).
#
# A local cluster with a backup controller (rota up --standby,
# SlurmctldTimeout=T).  Printed:
#   - held submissions/s through the socket (bench/submit_flood, 8 clients),
#     with the backup following, without and with
#     SchedulerParameters=replicate_sync (answers wait for the backup's disk);
#   - takeover after kill -9 of the primary: seconds from the kill until an
#     sbatch is answered again (one submitter in a loop), which is about
#     SlurmctldTimeout by design, and the same for `scontrol takeover`.
# Slurm's backup needs SlurmctldTimeout too (default 120 s) and resumes from
# its last state save on the shared disk.
#
# Usage: bench/standby_bench.sh [N=20000] [T=2]   (after make, as root)
set -u
N=${1:-20000}
T=${2:-2}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$SRC/build/bin
D=${BENCH_DIR:-/tmp/rota-standby-bench}
export PATH=$BIN:$PATH SLURM_CONF=$D/slurm.conf

start() { # start [extra slurm.conf lines]
	"$BIN/rota" down --dir "$D" >/dev/null 2>&1
	rm -rf "$D"
	"$BIN/rota" up --dir "$D" --nodes 4 --cpus 8 --standby >/dev/null || exit 1
	"$BIN/rota" down --dir "$D" >/dev/null
	sed -i "s/^SlurmctldTimeout=.*/SlurmctldTimeout=$T/" "$D/slurm.conf"
	echo "MaxJobCount=$((N * 3))" >>"$D/slurm.conf"
	[ -n "${1:-}" ] && echo "$1" >>"$D/slurm.conf"
	"$BIN/rota" up --dir "$D" >/dev/null || exit 1
	for _ in $(seq 100); do
		grep -q "follows from event" "$D/log/rotactld.log" && return
		sleep 0.1
	done
}
trap '"$BIN/rota" down --dir "$D" >/dev/null 2>&1' EXIT

# seconds from now until an sbatch is answered again, while `$1` is done
outage() {
	local t0 t1
	t0=$(date +%s.%N)
	eval "$1"
	while ! sbatch -H -o /dev/null --wrap=true >/dev/null 2>&1; do sleep 0.05; done
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}

echo "== submissions with a backup following ($N held jobs, 8 clients)"
start
printf "asynchronous:   "
"$SRC/build/bench/submit_flood" -n "$N" -c 8 -d 64
start "SchedulerParameters=replicate_sync"
printf "replicate_sync: "
"$SRC/build/bench/submit_flood" -n "$N" -c 8 -d 64

echo "== takeover (SlurmctldTimeout=$T)"
start
sbatch -o /dev/null --wrap=true >/dev/null
printf "kill -9 of the primary -> sbatch answered again: %.2f s\n" \
	"$(outage 'kill -9 $(cat $D/run/rotactld.pid)')"
start
sbatch -o /dev/null --wrap=true >/dev/null
printf "scontrol takeover -> sbatch answered again:      %.2f s\n" \
	"$(outage 'scontrol takeover')"
