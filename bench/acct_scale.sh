#!/bin/bash
# acct_scale.sh - sacct at site scale on both accounting back ends (issue 11:
# with 1,000,000 job records, `sacct -j ID` in <= 10 ms, a one-user one-day
# sacct in <= 100 ms).
#
# N job records (each with one step and its usage row, 100 users, one job
# every 30 s: about a year) are written straight into rotadbd's tables, in
# SQLite and then in a throwaway PostgreSQL (initdb + pg_ctl in a temp dir, as
# tests/integration/pgserver.py does); rotadbd is started alone on each and
# sacct timed, the CLI's own start included:
#   - `sacct -j ID` (a job in the middle), its steps too;
#   - `sacct -u root -S DAY -E DAY+1` (one user, one day: ~29 jobs);
#   - `sacct -X -a -S DAY -E DAY+1` (every user, one day: ~2,880 jobs).
# Each figure: the median and the worst of REPS runs, in ms; `sacct -e`
# (no query) is the floor the CLI's start sets on this machine.
#
# Usage: bench/acct_scale.sh [N=1000000] [REPS=20]   (after make, as root)
set -u
N=${1:-1000000}
REPS=${2:-20}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$SRC/build/bin
D=${BENCH_DIR:-/tmp/rota-acct-bench}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PGBIN/initdb" ] || { echo "acct_scale: PostgreSQL not installed" >&2; exit 1; }

cleanup() {
	[ -n "${DBD_PID:-}" ] && kill "$DBD_PID" 2>/dev/null && wait "$DBD_PID" 2>/dev/null
	[ -d "$D/pg/data" ] && runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D/pg/data" \
		-m immediate stop >/dev/null 2>&1
	rm -rf "$D"
}
trap cleanup EXIT
[ -n "${BENCH_KEEP:-}" ] && trap - EXIT
cleanup
mkdir -p "$D/state"
cat >"$D/slurm.conf" <<CONF
ClusterName=bench
SlurmctldHost=localhost
SlurmctldPort=16817
StateSaveLocation=$D/state
AccountingStorageType=accounting_storage/slurmdbd
NodeName=node01 CPUs=8
PartitionName=debug Nodes=node01 Default=YES
CONF
export SLURM_CONF=$D/slurm.conf
T0=$(($(date +%s) - N * 30))
DAY=$(date -d "@$((T0 + N * 15))" +%Y-%m-%d)
NEXT=$(date -d "$DAY + 1 day" +%Y-%m-%d)
MID=$((N / 2))

# the rows: a job every 30 s, uid i % 100 (0: root), a step and its usage
JOBS_SQL="INSERT INTO job(job_id, submit, restarts, array_job_id, array_task_id,
 name, uid, gid, \"user\", grp, account, partition, qos, state, reason, exit_code,
 derived_exit, cancel_by, eligible, start, end_time, time_limit, priority, nodes,
 nnodes, ncpus, req_cpus, req_nodes, req_mem, work_dir, batch, batch_cpus, superseded)
 SELECT i, $T0 + i * 30, 0, 0, 0, 'job' || i, i % 100, i % 100,
 CASE WHEN i % 100 = 0 THEN 'root' ELSE 'u' || (i % 100) END, 'g', 'root', 'debug',
 'normal', 3, 0, 0, 0, 0, $T0 + i * 30, $T0 + i * 30 + 5, $T0 + i * 30 + 600, 60, 1,
 'node01', 1, 1, 1, 1, 0, '/tmp', 1, 1, 0 FROM"
STEPS_SQL="INSERT INTO step SELECT db_id, 0, 'step', 'node01', 1, 1, 1, start,
 end_time, 3, 0, 0, 0, 0, 1000, 1000 FROM job;
 INSERT INTO usage SELECT db_id, 0, 'node01', 1048576, 1000, 1000 FROM job;"

start_dbd() {
	"$BIN/rotadbd" -f "$D/slurm.conf" -L "$D/rotadbd.log" &
	DBD_PID=$!
	for _ in $(seq 600); do
		[ -S "$D/state/rotadbd.sock" ] && return 0
		sleep 0.1
	done
	echo "acct_scale: rotadbd did not start" >&2
	exit 1
}

stop_dbd() {
	kill "$DBD_PID" && wait "$DBD_PID"
	DBD_PID=
	rm -f "$D/state/rotadbd.sock"
}

# median and worst of REPS runs of sacct ARGS, in ms
timed() {
	local label=$1 rows
	shift
	rows=$("$BIN/sacct" -n -P "$@" | wc -l)
	# bash's own clock ($EPOCHREALTIME, microseconds): no date process in
	# the figure, only sacct's fork, exec, run and exit
	for _ in $(seq "$REPS"); do
		local t0=${EPOCHREALTIME/./} t1
		"$BIN/sacct" -n -P "$@" >/dev/null
		t1=${EPOCHREALTIME/./}
		echo $((t1 - t0))
	done | sort -n | awk -v l="$label" -v r="$rows" '{ v[NR] = $1 }
		END { printf "  %-34s %6d lines  median %7.1f ms  worst %7.1f ms\n",
		      l, r, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
}

measure() {
	echo "$1 ($N job records):"
	timed "sacct -e (no query: the CLI alone)" -e
	timed "sacct -j $MID" -j "$MID"
	timed "sacct -u root -S $DAY -E $NEXT" -u root -S "$DAY" -E "$NEXT"
	timed "sacct -X -a -S $DAY -E $NEXT" -X -a -S "$DAY" -E "$NEXT"
}

# ---- SQLite ----
# No ANALYZE: rotadbd never runs it, and with its statistics SQLite scans the
# table for -j (array_job_id is 0 in most rows: its index looks useless).
start_dbd # creates the tables
stop_dbd
t=$(date +%s)
python3 - "$D/state/rota_acct.db" <<PY || exit 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s
 WHERE i < $N) $JOBS_SQL s; $STEPS_SQL""")
db.commit()
PY
echo "sqlite: $N records written in $(($(date +%s) - t)) s"
start_dbd
measure "accounting_storage/sqlite"
stop_dbd

# ---- PostgreSQL ----
mkdir -p "$D/pg"
chown postgres: "$D/pg"
echo bench >"$D/pg/pw"
runuser -u postgres -- "$PGBIN/initdb" -D "$D/pg/data" -U rota --pwfile="$D/pg/pw" \
	--auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 \
	>/dev/null || exit 1
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D/pg/data" -l "$D/pg/log" -w \
	-o "-k $D/pg -c listen_addresses= -c shared_buffers=256MB" start >/dev/null || exit 1
printf 'StorageType=accounting_storage/pgsql\nStorageHost=%s\nStorageUser=rota\nStoragePass=bench\n' \
	"$D/pg" >"$D/slurmdbd.conf"
start_dbd # creates the database and the tables
stop_dbd
t=$(date +%s)
PGPASSWORD=bench "$PGBIN/psql" -q -h "$D/pg" -U rota -d slurm_acct_db -v ON_ERROR_STOP=1 \
	-c "$JOBS_SQL generate_series(1, $N) i; $STEPS_SQL" -c "VACUUM ANALYZE" || exit 1
echo "pgsql: $N records written in $(($(date +%s) - t)) s"
start_dbd
measure "accounting_storage/pgsql"
stop_dbd
