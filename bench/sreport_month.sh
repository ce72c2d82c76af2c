#!/bin/bash
# sreport_month.sh - sreport over a month of a busy cluster (issue 11: "with
# 1,000,000 job records, sreport cluster utilization for a month in <= 1 s").
#
# A local cluster (rota up) whose accounting store is filled, while rotadbd
# is stopped, with N finished job runs spread over November 2026 (1 to 64
# CPUs, 1 s to 2 h, 50 accounts, 200 users), written straight into the
# SQLite file with the schema rotadbd made.  Printed: how long rotadbd took
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
sqlite3 "$DB" >/dev/null <<SQL || exit 1
PRAGMA journal_mode=WAL;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
INSERT INTO job(job_id, submit, restarts, array_job_id, array_task_id, name, uid,
                gid, user, grp, account, partition, qos, state, reason, exit_code,
                derived_exit, cancel_by, eligible, start, end_time, time_limit,
                priority, nodes, nnodes, ncpus, req_cpus, req_nodes, req_mem,
                work_dir, batch, batch_cpus, superseded)
SELECT i, s - 60, 0, 0, 4294967294, 'job' || (i % 97), 1000 + i % 200, 1000,
       'u' || (i % 200), 'g', 'a' || (i % 50), 'debug', 'normal', 3, 0, 0, 0, 0,
       s - 60, s, s + 1 + (i * 7919) % 7200, 120, 1, 'node01', 1, 1 + i % 64,
       1 + i % 64, 1, 1000, '/tmp', 1, 1 + i % 64, 0
FROM (SELECT i, $START + (i * 2592000 / $N) AS s FROM n);
SQL
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
