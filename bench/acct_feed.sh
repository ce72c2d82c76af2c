#!/bin/bash
# acct_feed.sh - how fast rotadbd stores what the controller finishes
# (issue 11, point 8: "rotadbd stores records at least 10x faster than the
# controller can finish jobs"), through the real commands: on a local
# cluster, rotadbd is stopped, an array of JOBS jobs is run to its end (the
# controller's rate: jobs finished a second), then rotadbd is started and
# sacct polled until it lists them all (rotadbd's rate, its start included).
#
# Usage: bench/acct_feed.sh [JOBS=3000]   (after make)
set -u
JOBS=${1:-3000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$SRC/build/bin
D=${BENCH_DIR:-/tmp/rota-acct-feed}
export PATH=$BIN:$PATH

F=$D
export SLURM_CONF=$F/slurm.conf
"$BIN/rota" down --dir "$F" >/dev/null 2>&1
rm -rf "$F"
"$BIN/rota" up --dir "$F" --nodes 4 --cpus 64 >/dev/null || exit 1
pid=$(pgrep -f "rotadbd -f $F/slurm.conf" | head -1)
[ -n "$pid" ] && kill "$pid"
while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
t0=$(date +%s.%N)
left=$JOBS # arrays of at most 1000 tasks (MaxArraySize's default is 1001)
while [ "$left" -gt 0 ]; do
	n=$((left > 1000 ? 1000 : left))
	sbatch --array=1-"$n" -o /dev/null --wrap true >/dev/null || exit 1
	left=$((left - n))
done
while [ "$(squeue -h -t PD,R,CG | wc -l)" != 0 ]; do sleep 0.2; done
ctld_s=$(echo "$(date +%s.%N) - $t0" | bc)
t0=$(date +%s.%N)
"$BIN/rota" up --dir "$F" >/dev/null 2>&1 # starts what is not running: rotadbd
until [ "$(sacct -n -X -s CD -o JobID 2>/dev/null | wc -l)" -ge "$JOBS" ]; do
	sleep 0.1
done
dbd_s=$(echo "$(date +%s.%N) - $t0" | bc)
printf 'controller finished %d jobs at %.0f jobs/s; rotadbd, started after, stored ' \
	"$JOBS" "$(echo "$JOBS / $ctld_s" | bc -l)"
printf 'them in %.2f s (%.0f jobs/s, %.1fx)\n' "$dbd_s" \
	"$(echo "$JOBS / $dbd_s" | bc -l)" "$(echo "$ctld_s / $dbd_s" | bc -l)"
"$BIN/rota" down --dir "$F" >/dev/null
