#!/bin/bash
# submit_floor.sh - the floor under compare.sh's "sbatch, jobs running" figure:
# the harness's loop of N `timeout 30 CMD` while N contained, supervised tasks
# (bench/launch_floor supervised: fork, cgroups, a supervisor, /bin/sh -c true)
# run beside it - what the loop could do under a workload manager that cost
# nothing beyond the kernel's work for each job.  Prints the loop's rate alone,
# with the tasks beside it, and the goal compare.sh sets (half the loop alone).
#
#   bench/submit_floor.sh [-n N] [-c CMD]     (root: launch_floor makes cgroups)
set -u
N=400
CMD=/bin/true
while getopts n:c: o; do
	case $o in
	n) N=$OPTARG ;;
	c) CMD=$OPTARG ;;
	*) echo "usage: $0 [-n N] [-c CMD]" >&2; exit 2 ;;
	esac
done
LF=${LAUNCH_FLOOR:-$(dirname "$0")/../build/bench/launch_floor}
[ -x "$LF" ] || { echo "$0: no $LF (make bench-build)" >&2; exit 1; }
loop() { local i; for ((i = 0; i < N; i++)); do timeout 30 $CMD >/dev/null 2>&1; done; }
rate() { awk -v n="$N" -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", n / (b - a) }'; }

t0=$EPOCHREALTIME; loop; t1=$EPOCHREALTIME
alone=$(rate "$t0" "$t1")
done_file=$(mktemp)
t0=$EPOCHREALTIME
("$LF" -n "$N" -j 2 supervised >/dev/null && echo "$EPOCHREALTIME" >"$done_file") &
loop; t1=$EPOCHREALTIME
wait
t2=$(cat "$done_file"); rm -f "$done_file"
[ -n "$t2" ] || { echo "$0: launch_floor failed" >&2; exit 1; }
tend=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print (a > b ? a : b) }')
echo "loop of 'timeout 30 $CMD' alone: $alone /s (goal: half, $(awk -v r="$alone" 'BEGIN { printf "%.1f", r / 2 }') /s)"
echo "the same loop, $N supervised tasks beside: $(rate "$t0" "$t1") /s (tasks $(rate "$t0" "$t2") /s, both done $(rate "$t0" "$tend") /s)"
