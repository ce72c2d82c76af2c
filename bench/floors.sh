#!/bin/bash
# floors.sh - this machine's floors under compare.sh's figures, measured
# right after it (the machine's speed at making processes moves from hour to
# hour: a floor is only comparable with figures of the same hour).
#
#   bench/floors.sh [-n N]            (root: launch_floor makes cgroups)
#
# Prints, each one line:
#   - a serial loop of `timeout 30 /bin/true` (the harness's way of running a
#     command): the ceiling of any serial loop of CLI calls, so of
#     "sbatch, jobs running" (goal: half of it) and of "1,000 jobs submitted
#     -> completed" (the jobs come from such a loop);
#   - the same loop of `sbatch --version` (Rota's CLI starting and exiting,
#     no request), 1 and 8 loops side by side: the ceiling of the held
#     submission figures;
#   - one `timeout 30 CMD` for /bin/true, `squeue --version` and `srun
#     --version`, median of 21: the floor under every latency figure;
#   - bench/launch_floor spawn, cgroup, supervised: what the kernel charges for
#     a job's shell, contained and supervised (the ceiling of the completion
#     figures: jobs/s and CPU per job).
set -u
N=400
while getopts n: o; do
	case $o in
	n) N=$OPTARG ;;
	*) echo "usage: $0 [-n N]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
BIN=${ROTA_BIN:-$here/../build/bin}
LF=${LAUNCH_FLOOR:-$here/../build/bench/launch_floor}
[ -x "$LF" ] || { echo "$0: no $LF (make bench-build)" >&2; exit 1; }
[ -x "$BIN/sbatch" ] || { echo "$0: no $BIN/sbatch (make)" >&2; exit 1; }

loop() { # loop N CMD...: N serial `timeout 30 CMD`
	local i n=$1
	shift
	for ((i = 0; i < n; i++)); do timeout 30 "$@" >/dev/null 2>&1; done
}
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", n / (b - a) }'; }
median_ms() { # median_ms CMD...: one `timeout 30 CMD`, median of 21, in ms
	local i t0
	for ((i = 0; i < 21; i++)); do
		t0=$EPOCHREALTIME
		timeout 30 "$@" >/dev/null 2>&1
		awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }'
	done | sort -g | sed -n 11p
}

echo "floors on $(hostname) at $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$EPOCHREALTIME
loop "$N" /bin/true
echo "serial loop of 'timeout 30 /bin/true': $(rate "$N" "$t0" "$EPOCHREALTIME") /s"
t0=$EPOCHREALTIME
loop "$N" "$BIN/sbatch" --version
echo "serial loop of 'timeout 30 sbatch --version': $(rate "$N" "$t0" "$EPOCHREALTIME") /s"
t0=$EPOCHREALTIME
for ((k = 0; k < 8; k++)); do loop $((N / 8)) "$BIN/sbatch" --version & done
wait
echo "8 such loops side by side: $(rate $((N / 8 * 8)) "$t0" "$EPOCHREALTIME") /s in all"
echo "one 'timeout 30 /bin/true': $(median_ms /bin/true) ms (median of 21)"
echo "one 'timeout 30 squeue --version': $(median_ms "$BIN/squeue" --version) ms"
echo "one 'timeout 30 srun --version': $(median_ms "$BIN/srun" --version) ms"
for m in spawn cgroup supervised; do
	echo "launch_floor -n $N -j 2 $m: $("$LF" -n "$N" -j 2 "$m" | tr '\n' ' ')"
done
