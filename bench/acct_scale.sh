#!/bin/bash
# acct_scale.sh - accounting at site scale (issue 11, point 8), through the
# real commands: with N job runs in the store (default 1,000,000, each with
# its batch and extern steps), how long `sacct -j ID`, a one-user one-day
# `sacct` and `sreport cluster utilization` over the month take; then how
# fast rotadbd stores what the controller finishes, against how fast the
# controller finishes it.
#
# Printed: the median and the slowest of R runs of each query (wall clock of
# the command, start to exit), the rows each returned, and for the feed the
# controller's jobs a second while rotadbd was stopped, the seconds rotadbd
# took to store them when started, and the ratio.
#
# Usage: bench/acct_scale.sh [N=1000000] [R=20] [JOBS=3000]   (after make)
set -u
N=${1:-1000000}
R=${2:-20}
JOBS=${3:-3000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$SRC/build/bin
D=${BENCH_DIR:-/tmp/rota-acct-bench}
export SLURM_CONF=$D/slurm.conf PATH=$BIN:$PATH

"$BIN/rota" down --dir "$D" >/dev/null 2>&1
rm -rf "$D"
"$BIN/rota" up --dir "$D" --nodes 4 --cpus 64 >/dev/null || exit 1
"$BIN/rota" down --dir "$D" >/dev/null
START=$(date -d 2026-11-01T00:00:00 +%s)
END=$(date -d 2026-12-01T00:00:00 +%s)
t0=$(date +%s.%N)
"$SRC/bench/acct_fill.sh" "$D/state/rota_acct.db" "$N" "$START" "$END" || exit 1
printf 'store filled with %d runs (and %d steps) in %.1f s\n' "$N" $((2 * N)) \
	"$(echo "$(date +%s.%N) - $t0" | bc)"
"$BIN/rota" up --dir "$D" >/dev/null 2>&1 || exit 1
for _ in $(seq 120); do # rotadbd's sreport copy is built a second after start
	grep -q "runs of the last" "$D"/log/rotadbd.log 2>/dev/null && break
	sleep 1
done

# time_it NAME CMD...: R runs, median and max in ms, rows of the last
time_it() {
	local name=$1 rows t ms=()
	shift
	for _ in $(seq "$R"); do
		t=$(date +%s%N)
		rows=$("$@" | wc -l)
		ms+=($((($(date +%s%N) - t) / 1000000)))
	done
	printf '%-44s median %4d ms  max %4d ms  (%d lines)\n' "$name" \
		"$(printf '%s\n' "${ms[@]}" | sort -n | sed -n "$(((R + 1) / 2))p")" \
		"$(printf '%s\n' "${ms[@]}" | sort -n | tail -1)" "$rows"
}
ID=$((N / 2 + 17))
time_it "sacct -j $ID" sacct -j "$ID"
time_it "sacct -u 1042 -S 2026-11-15 -E 2026-11-16 -X" \
	sacct -u 1042 -S 2026-11-15T00:00:00 -E 2026-11-16T00:00:00 -X
time_it "sacct -u 1042 (the same day, with steps)" \
	sacct -u 1042 -S 2026-11-15T00:00:00 -E 2026-11-16T00:00:00
time_it "sreport cluster utilization (month)" \
	sreport -nP cluster utilization start=2026-11-01 end=2026-12-01
time_it "sreport cluster AccountUtilizationByUser" \
	sreport -nP cluster accountutilizationbyuser start=2026-11-01 end=2026-12-01

"$BIN/rota" down --dir "$D" >/dev/null

# the feed, on a cluster of its own (no million runs for rotadbd to load):
# jobs finished while rotadbd is stopped, then stored when it starts
F=$D-feed
export SLURM_CONF=$F/slurm.conf
"$BIN/rota" down --dir "$F" >/dev/null 2>&1
rm -rf "$F"
"$BIN/rota" up --dir "$F" --nodes 4 --cpus 64 >/dev/null || exit 1
pid=$(pgrep -f "rotadbd -f $F/slurm.conf" | head -1)
[ -n "$pid" ] && kill "$pid"
while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
t0=$(date +%s.%N)
sbatch --array=1-"$JOBS" -o /dev/null --wrap true >/dev/null || exit 1
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
