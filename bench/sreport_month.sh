#!/bin/bash
# sreport_month.sh - sreport over a month of a busy cluster (issue 11: "with
# 1,000,000 job records, sreport cluster utilization for a month in <= 1 s").
#
# A local cluster (rota up) whose accounting store is filled, while rotadbd
# is stopped, with N finished job runs spread over November 2026 (1 to 64
# CPUs, 1 s to 2 h, 50 accounts, 200 users), written straight into the
# SQLite file with the schema rotadbd made (bench/acct_fill.sh).  Printed: how long rotadbd took
# to build its copy of the recent runs after it started, the wall-clock time
# of each report over the month (3 runs), and the one report's figures.
#
# Usage: bench/sreport_month.sh [N=1000000]   (after make)
set -u
N=${1:-1000000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$SRC/build/bin
D=${BENCH_DIR:-/tmp/rota-sreport-bench}
"$BIN/rota" down --dir "$D" >/dev/null 2>&1
rm -rf "$D"
"$BIN/rota" up --dir "$D" --nodes 4 --cpus 64 >/dev/null || exit 1
"$BIN/rota" down --dir "$D" >/dev/null
DB=$D/state/rota_acct.db
START=$(date -d 2026-11-01T00:00:00 +%s)
END=$(date -d 2026-12-01T00:00:00 +%s)
"$SRC/bench/acct_fill.sh" "$DB" "$N" "$START" "$END" || exit 1
"$BIN/rota" up --dir "$D" >/dev/null 2>&1 || exit 1
# rotadbd builds its copy of the recent runs a second after it starts
for _ in $(seq 120); do
	grep -q "runs of the last" "$D"/log/rotadbd.log 2>/dev/null && break
	sleep 1
done
grep -o "sreport: .*" "$D"/log/rotadbd.log
export SLURM_CONF=$D/slurm.conf PATH=$BIN:$PATH
TIMEFORMAT=%R
for rep in "cluster utilization" "cluster accountutilizationbyuser" "user top" \
	"job sizesbyaccount"; do
	times=
	for _ in 1 2 3; do
		t=$( { time sreport -nP $rep start=2026-11-01 end=2026-12-01 >/dev/null; } 2>&1)
		times="$times $t"
	done
	best=$(printf '%s\n' $times | sort -n | head -1)
	printf '%-34s %s s (best of%s; %d runs)\n' "$rep" "$best" "$times" "$N"
done
sreport -t hours cluster utilization start=2026-11-01 end=2026-12-01
"$BIN/rota" down --dir "$D" >/dev/null
