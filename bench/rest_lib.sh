# rest_lib.sh - sourced by bench/rest_bench.sh and bench/rest_compare.sh: the
# same requests, through the same client (build/bench/rest_load), whichever
# daemon answers them.  Needs LOAD (the rest_load binary).
# shellcheck shell=bash
V=/slurm/v0.0.38
CLIENTS=${CLIENTS:-4} N=${N:-4000}

rss_kib() { awk '/^VmRSS:/{print $2}' "/proc/$1/status" 2>/dev/null || echo "?"; }

# rest_measure LABEL ADDR TOKEN QUEUED FIRST_JOB REST_PID CTLD_PID
# ping and job/{id} from CLIENTS keep-alive clients (N requests each figure),
# GET jobs 5 times from one client, then the daemons' RSS after it.
rest_measure() {
	echo "== $1, $4 jobs queued, load $(cut -d' ' -f1 /proc/loadavg)"
	"$LOAD" -c "$CLIENTS" -n "$N" -U root -t "$3" -a "$2" "$V/ping"
	if [ -n "$5" ]; then
		"$LOAD" -c "$CLIENTS" -n "$N" -U root -t "$3" -a "$2" "$V/job/$5"
	fi
	"$LOAD" -c 1 -n 5 -U root -t "$3" -a "$2" "$V/jobs"
	echo "$1 RSS: $(rss_kib "$6") KiB, controller $(rss_kib "$7") KiB"
}
