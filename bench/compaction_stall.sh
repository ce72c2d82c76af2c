#!/bin/bash
# compaction_stall.sh - does compacting the journal stop the controller?
# (issue 9, point 3: durability off the event loop)
#
# A local cluster (rota up); compactions are started on purpose (SIGUSR1 to
# rotactld: the snapshot is written by a child process while the loop goes
# on), and the controller's log gives their own figures (time in fork, time
# switching files, total).
#   1. At N2 held jobs, with 8 `sbatch -H` loops submitting and `squeue` (full
#      listing) in a loop, four compactions 9 s apart: squeue's p50/p99 while
#      a compaction runs, against the rest of the time.
#   2. Filled to N held jobs (bench/submit_flood), with only bench/loop_stall
#      pinging the controller (one request in flight): the longest round trip
#      while a compaction runs, against the same figure just before it.
#
# Usage: bench/compaction_stall.sh [N=200000] [N2=20000]   (after make, as root)
set -u
N=${1:-200000}
N2=${2:-20000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$SRC/build/bin
B=$SRC/build/bench
D=${BENCH_DIR:-/tmp/rota-compaction-bench}
"$BIN/rota" down --dir "$D" >/dev/null 2>&1
rm -rf "$D"
"$BIN/rota" up --dir "$D" --nodes 4 --cpus 8 >/dev/null || exit 1
"$BIN/rota" down --dir "$D" >/dev/null
{
	echo "MaxJobCount=$((N * 2 + 10000))"
	# no compaction but the ones this script asks for
	echo "SchedulerParameters=journal_compact_mb=65536"
} >>"$D/slurm.conf"
"$BIN/rota" up --dir "$D" >/dev/null || exit 1
export SLURM_CONF=$D/slurm.conf
trap '"$BIN/rota" down --dir "$D" >/dev/null 2>&1' EXIT
LOG=$D/log/rotactld.log
pid=$(cat "$D/run/rotactld.pid")

# wait for the next "journal compacted" line after line $1 of the log
compacted_after() {
	for _ in $(seq 600); do
		tail -n +"$(($1 + 1))" "$LOG" | grep -q "journal compacted\|compaction.*failed" && return 0
		sleep 0.2
	done
	return 1
}
# the compactions' windows (clock seconds: start end, one a line) from the
# log lines after line $1
windows() {
	tail -n +"$(($1 + 1))" "$LOG" | awk '
		/journal compaction started|journal compacted/ {
			ts = substr($1, 2, 23); gsub(/T/, " ", ts)
			cmd = "date -d \"" ts "\" +%s.%N"; cmd | getline s; close(cmd)
			if ($0 ~ /started/) start = s; else print start, s
		}'
}

pct() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
	i50 = int(NR * 0.5); if (i50 < 1) i50 = 1; i99 = int(NR * 0.99 + 0.999); if (i99 > NR) i99 = NR
	printf "%d runs, p50 %.0f ms, p99 %.0f ms", NR, v[i50], v[i99] }'; }
# a run overlaps a compaction if it ends after it starts and starts before it ends
during() { awk -v want="$1" 'NR == FNR { ws[NR] = $1; we[NR] = $2; n = NR; next }
	{ o = 0; for (i = 1; i <= n; i++) if ($2 >= ws[i] && $1 <= we[i]) o = 1
	  if (o == want) print ($2 - $1) * 1000 }' "$D/windows.txt" "$D/squeue.txt"; }
echo "== 1. squeue (full listing) at $N2 jobs, 8 sbatch submitters, compactions"
"$B/submit_flood" -n "$N2" -c 8 -d 64 >/dev/null || exit 1
for i in 1 2 3 4 5 6 7 8; do
	(while :; do "$BIN/sbatch" -H -o /dev/null --wrap=true >/dev/null || sleep 0.1; done) &
	echo $! >>"$D/submitters"
done
(
	end=$((SECONDS + 50))
	while [ $SECONDS -lt $end ]; do
		s=$(date +%s.%N)
		"$BIN/squeue" >/dev/null
		echo "$s $(date +%s.%N)"
	done
) >"$D/squeue.txt" &
sq=$!
sleep 5
mark=$(wc -l <"$LOG")
for i in 1 2 3 4; do
	m=$(wc -l <"$LOG")
	kill -USR1 "$pid"
	compacted_after "$m" || echo "no compaction finished"
	sleep 9
done
wait $sq
kill $(cat "$D/submitters") 2>/dev/null
wait 2>/dev/null
windows "$mark" >"$D/windows.txt"
grep -h "journal compacted" "$LOG" | tail -n 4
echo "squeue while compacting: $(during 1 | pct)"
echo "squeue otherwise:        $(during 0 | pct)"

echo "== 2. the loop while a compaction runs, at $N jobs"
have=$("$BIN/squeue" -h -o %i | wc -l)
"$B/submit_flood" -n "$((N > have ? N - have : 1))" -c 8 -d 64 || exit 1
echo "controller RSS at $N jobs: $(awk '/VmRSS/ { print $2 " kB" }' /proc/$pid/status)"
"$B/loop_stall" -t 1000 -s 5 -o "$D/ping.txt" >/dev/null &
pinger=$!
sleep 3
mark=$(wc -l <"$LOG")
asked=$(date +%s.%N) # the window opens here: the fork is the loop's too
kill -USR1 "$pid"
compacted_after "$mark" || echo "no compaction finished"
sleep 2
kill -INT $pinger 2>/dev/null
wait $pinger 2>/dev/null
read -r ws we < <(windows "$mark" | tail -n 1)
ws=$asked
grep -h "journal compaction started\|journal compacted" "$LOG" | tail -n 2
awk -v ws="$ws" -v we="$we" '
	$1 < ws { if ($2 > bmax) bmax = $2; bn++ }
	$1 >= ws && $1 <= we { if ($2 > dmax) dmax = $2; dn++ }
	END { printf "ping round trip, longest: %.1f ms while compacting (%d pings, %.2f s), %.1f ms before (%d pings)\n",
		dmax, dn, we - ws, bmax, bn }' "$D/ping.txt"

