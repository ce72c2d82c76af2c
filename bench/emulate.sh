#!/bin/bash
# emulate.sh - one controller driven by a site's number of nodes (issue 10,
# point 5): NODES emulated nodes of CPUS CPUs each, served by one
# `rotad --emulate` (noded/emulate.h: real registrations, pings and
# completions over one connection per node; jobs "run" as timers).
#
# Printed:
#   - registration: seconds from the emulator's start until sinfo shows every
#     node idle;
#   - heartbeats: the controller's CPU per second with every node pinging and
#     nothing queued (its utime+stime over HB seconds);
#   - fill: JOBS runnable whole-node jobs (-c CPUS, `sleep RUN`) sent by
#     bench/submit_flood (4 clients, 64 requests in flight each); how long
#     until every node runs one, jobs started/s meanwhile;
#   - with the queue at JOBS (JOBS - NODES pending): sbatch processes/s (one
#     submitter), squeue (all rows) and sinfo latency (median of 5), scontrol
#     show job;
#   - turnover: when the first wave ends (RUN s after it started), the seconds
#     until NODES more jobs have started (jobs started/s with the queue deep),
#     squeue and sinfo latency sampled meanwhile (max);
#   - the controller's CPU and RSS at the end.
#
# Usage: bench/emulate.sh [NODES=10000] [CPUS=64] [JOBS=100000] [RUN=60]
#   (after make, as root; needs NODES + 100 descriptors in each daemon: the
#   hard RLIMIT_NOFILE must allow it)
set -u
NODES=${1:-10000}
CPUS=${2:-64}
JOBS=${3:-100000}
RUN=${4:-60}
HB=${HB:-20}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${ROTA_BUILD:-$SRC/build}
BIN=$BUILD/bin
D=${BENCH_DIR:-/tmp/rota-emulate-bench}
export PATH=$BIN:$PATH SLURM_CONF=$D/slurm.conf
LIST="emu[$(printf '%05d' 1)-$(printf '%05d' "$NODES")]"

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l | xargs printf '%.2f'; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
sdiag_get() { sdiag | awk -v k="$1" -F: '$1 == k {gsub(/ /, "", $2); print $2}'; }
ms() { # ms CMD...: wall milliseconds of one run
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
median5() { # median5 CMD...
	for _ in 1 2 3 4 5; do ms "$@"; done | sort -n | sed -n 3p
}

stop() {
	[ -n "${EMU:-}" ] && kill "$EMU" 2>/dev/null
	[ -n "${CTLD:-}" ] && kill "$CTLD" 2>/dev/null
	wait 2>/dev/null
}
trap stop EXIT

ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" -lt $((NODES + 100)) ]; then
	echo "emulate.sh: $NODES nodes need $((NODES + 100)) descriptors, the limit is $(ulimit -n)" >&2
	exit 1
fi
"$BIN/rota" down --dir "$D" >/dev/null 2>&1
rm -rf "$D"
# a key and a local cluster's settings, then the emulated nodes instead
"$BIN/rota" up --dir "$D" --nodes 1 >/dev/null || exit 1
"$BIN/rota" down --dir "$D" >/dev/null
rm -rf "$D/state" "$D/log"/*
sed -i -e "s/^NodeName=.*/NodeName=$LIST CPUs=$CPUS RealMemory=$((CPUS * 4000)) State=UNKNOWN/" \
	-e "s/^PartitionName=.*/PartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP/" \
	"$SLURM_CONF"
echo "MaxJobCount=$((JOBS * 2 + 10000))" >>"$SLURM_CONF"

echo "== $NODES emulated nodes x $CPUS CPUs, $JOBS jobs of sleep $RUN (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
rotactld -f "$SLURM_CONF" &
CTLD=$!
for _ in $(seq 100); do sinfo -h >/dev/null 2>&1 && break; sleep 0.1; done
t0=$(now)
rotad -f "$SLURM_CONF" --emulate "$LIST" -L "$D/log/emulate.log" &
EMU=$!
for _ in $(seq 1200); do
	[ "$(sinfo -h -t idle -o %D)" = "$NODES" ] && break
	sleep 0.1
done
t1=$(now)
idle=$(sinfo -h -t idle -o %D)
echo "registration: $idle of $NODES nodes idle after $(secs "$t0" "$t1") s"

sleep 2
c0=$(ticks "$CTLD")
e0=$(ticks "$EMU")
sleep "$HB"
c1=$(ticks "$CTLD")
e1=$(ticks "$EMU")
hz=$(getconf CLK_TCK)
ping_s=10
pings=$(echo "$NODES / $ping_s" | bc -l)
cpu_ms=$(echo "($c1 - $c0) * 1000 / $hz / $HB" | bc -l)
printf "heartbeats: %.0f pings/s; controller CPU %.1f ms/s (%.1f us per ping); emulator %.1f ms/s\n" \
	"$pings" "$cpu_ms" "$(echo "$cpu_ms * 1000 / $pings" | bc -l)" \
	"$(echo "($e1 - $e0) * 1000 / $hz / $HB" | bc -l)"

# fill: sampled every 0.5 s meanwhile
(
	while :; do
		echo "$(now) $(sdiag_get 'Jobs started')"
		sleep 0.5
	done
) >"$D/fill.samples" 2>/dev/null &
SAMPLER=$!
c0=$(ticks "$CTLD")
t0=$(now)
"$BUILD/bench/submit_flood" -n "$JOBS" -c 4 -d 64 -r -C "$CPUS" -s "sleep $RUN" ||
	echo "fill: submit_flood failed"
t1=$(now)
for _ in $(seq 600); do
	[ "$(sdiag_get 'Jobs started')" -ge "$NODES" ] && break
	sleep 0.1
done
t2=$(now)
kill "$SAMPLER"
wave_start=$t0
echo "fill: $JOBS submitted in $(secs "$t0" "$t1") s, $(sdiag_get 'Jobs started') started" \
	"(controller CPU $(echo "($(ticks "$CTLD") - $c0) / $hz" | bc -l | xargs printf '%.1f') s)"
awk -v t0="$t0" -v n="$NODES" -v end="$t2" '
     NR > 1 && $2 > p { r = ($2 - p) / ($1 - t); if (r > m) m = r }
     $2 >= n && !busy { busy = $1 }
     { t = $1; p = $2 }
     END { if (!busy) busy = end
           printf "fill: every node busy %.2f s after the first submission; peak start rate %.0f jobs/s (0.5 s samples)\n", busy - t0, m }' \
	"$D/fill.samples"

echo "queued: $(sdiag_get 'Jobs pending') pending, $(sdiag_get 'Jobs running') running"
n=100
t0=$(now)
for _ in $(seq $n); do sbatch -c "$CPUS" -o /dev/null --wrap "sleep $RUN" >/dev/null || echo "sbatch failed"; done
t1=$(now)
printf "sbatch (one submitter, %d jobs): %.0f/s\n" "$n" "$(echo "$n / ($t1 - $t0)" | bc -l)"
echo "squeue (all $(squeue -h | wc -l) rows): $(median5 squeue) ms; squeue -t R: $(median5 squeue -t R) ms;" \
	"sinfo: $(median5 sinfo) ms; scontrol show job: $(median5 scontrol show job $((JOBS / 2))) ms"

# turnover: the first wave ends RUN s after it started
started0=$(sdiag_get 'Jobs started')
left=$(echo "$wave_start + $RUN - $(now)" | bc -l)
[ "${left%.*}" -gt 0 ] 2>/dev/null && sleep "$left"
c0=$(ticks "$CTLD")
t0=$(now)
sq=0
si=0
target=$((started0 + NODES))
while :; do
	s=$(sdiag_get 'Jobs started')
	[ "$s" -ge "$target" ] && break
	[ "$(echo "$(now) - $t0 > 120" | bc)" = 1 ] && break
	a=$(ms squeue)
	b=$(ms sinfo)
	[ "$a" -gt "$sq" ] && sq=$a
	[ "$b" -gt "$si" ] && si=$b
done
t1=$(now)
printf "turnover: %d more jobs started in %s s (%.0f jobs/s, each after one ended); squeue max %d ms, sinfo max %d ms meanwhile; controller CPU %.1f s\n" \
	"$((s - started0))" "$(secs "$t0" "$t1")" "$(echo "($s - $started0) / ($t1 - $t0)" | bc -l)" \
	"$sq" "$si" "$(echo "($(ticks "$CTLD") - $c0) / $hz" | bc -l)"
echo "controller: RSS $(($(rss_kb "$CTLD") / 1024)) MiB, CPU $(echo "$(ticks "$CTLD") / $hz" | bc -l | xargs printf '%.1f') s in all;" \
	"emulator: RSS $(($(rss_kb "$EMU") / 1024)) MiB"
grep -c "error" "$D/log/rotactld.log" | xargs echo "controller log errors:"
