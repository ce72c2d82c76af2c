#!/bin/bash
# netns_latency.sh - the harness's submission, completion and srun figures
# (../shared/bench: bench-submit.sh, bench-complete.sh, bench-srun.sh) with a
# network hop in them: measured on a local cluster (`rota up`, every daemon
# and client on this host, the CLIs on the controller's unix socket) and on a
# namespaced one of the same shape (`rota up --netns`: control and node01..
# each in a network namespace of its own, on a bridge, one munged a host),
# there from `control` (the CLIs beside the controller) and from `node01`
# (the controller's directory hidden, so the CLIs go over TCP to control:6817
# with a munge credential).  Prints one table of medians and the load.
#
#   bench/netns_latency.sh            (root; ~10 min on 2 cores)
#   QUICK=1 bench/netns_latency.sh    (~2 min smoke)
#
# Env (the harness's names): N_SRUN (50), N_SUBMIT (1000), PARS ("1 8"),
# N_COMPLETE (500), REPS (2), QUICK=1 makes them 5, 60, "1 8", 40, 1; NODES (4), NODE_CPUS (8), NODE_MEM (32000);
# BENCH_HARNESS (../shared/bench beside the checkout); KEEP=1 keeps the
# clusters' directories (the results.tsv files are always kept).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/bin
ROTA=$BIN/rota
ADAPTOR=$ROOT/bench/netns-cluster.sh
HARNESS=${BENCH_HARNESS:-$(cd "$ROOT/../shared/bench" 2>/dev/null && pwd)}
NODES=${NODES:-4}
NODE_CPUS=${NODE_CPUS:-8}
NODE_MEM=${NODE_MEM:-32000}
if [ -n "${QUICK:-}" ]; then
	: "${N_SRUN:=5}" "${N_SUBMIT:=60}" "${PARS:=1 8}" "${N_COMPLETE:=40}" "${REPS:=1}"
fi
: "${N_SRUN:=50}" "${N_SUBMIT:=1000}" "${PARS:=1 8}" "${N_COMPLETE:=500}" "${REPS:=2}"
export N_SRUN N_SUBMIT PARS N_COMPLETE REPS

die() { echo "$0: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (rota up --netns)"
[ -x "$ROTA" ] || die "no $ROTA (make first)"
if [ -z "$HARNESS" ] || [ ! -f "$HARNESS/lib.sh" ]; then
	die "no harness (set BENCH_HARNESS)"
fi

W=$(mktemp -d /tmp/rota-nbench.XXXXXX) || exit 1
chmod 755 "$W" # jobs and the hosts' daemons read it
D1=$W/local
D2=$W/netns
cleanup() {
	"$ROTA" down --dir "$D1" >/dev/null 2>&1
	"$ROTA" down --dir "$D2" >/dev/null 2>&1
	[ -n "${KEEP:-}" ] || rm -rf "$D1" "$D2"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# as ../shared/bench/rota-cluster.sh: MaxJobCount=100000, since finished jobs
# stay MinJobAge (300 s) and the default 10,000 refuses the third place's jobs
"$ROTA" up --dir "$D1" --nodes "$NODES" --cpus "$NODE_CPUS" --mem "$NODE_MEM" \
	>/dev/null || die "rota up (local) failed"
"$ROTA" up --netns --dir "$D2" --nodes "$NODES" --cpus "$NODE_CPUS" \
	--mem "$NODE_MEM" >/dev/null || die "rota up --netns failed"
for d in "$D1" "$D2"; do
	"$ROTA" down --dir "$d" >/dev/null || die "rota down $d failed"
	echo "MaxJobCount=100000" >>"$d/slurm.conf"
	"$ROTA" up --dir "$d" >/dev/null || die "rota up $d (again) failed"
done

# run_on WHERE DIR SCRIPT: one script of the harness, each place with its own
# results.tsv and work dir; WHERE is "host" or a host of the netns cluster
run_on() {
	local where=$1 d=$2 s=$3
	local out=$W/out-$where
	mkdir -p "$out"
	local env=(NBENCH_CLUSTER_DIR="$d" BENCH_CLUSTER="$ADAPTOR" PROFILE="$where"
		OUT_DIR="$out" RESULTS_TSV="$out/results.tsv" BENCH_ROOT="$W/bench-$where"
		N_SRUN="$N_SRUN" N_SUBMIT="$N_SUBMIT" PARS="$PARS" N_COMPLETE="$N_COMPLETE"
		REPS="$REPS")
	echo "== $where: $s" >&2
	if [ "$where" = host ]; then
		env PATH="$BIN:$PATH" "${env[@]}" bash "$HARNESS/$s" ||
			echo "$0: $s on $where failed" >&2
	else
		"$ROTA" exec --dir "$d" --host "$where" -- env "${env[@]}" \
			bash "$HARNESS/$s" || echo "$0: $s on $where failed" >&2
	fi
}

# the three places in turn for each script, so that a change of load on this
# shared machine falls on all three columns alike
for s in bench-srun.sh bench-submit.sh bench-complete.sh; do
	run_on host "$D1" "$s"
	run_on control "$D2" "$s"
	run_on node01 "$D2" "$s"
done

# the median (5th column) of each metric, per place, side by side
med() { awk -F'\t' -v m="$1" '$3 == m { v = $5 } END { print (v == "" ? "-" : v) }' "$2" 2>/dev/null || echo -; }
metrics=$(cut -f3,4 "$W"/out-*/results.tsv 2>/dev/null | sort -u)
echo
echo "load average (1 min) over the samples: $(cut -f9 "$W"/out-*/results.tsv |
	sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }')," \
	"$(cut -d' ' -f1 /proc/loadavg) at the end; results in $W/out-*/results.tsv"
echo
echo "| metric | unit | local | netns from control | netns from node01 |"
echo "|---|---|---|---|---|"
while IFS=$'\t' read -r m unit; do
	[ -n "$m" ] || continue
	echo "| $m | $unit | $(med "$m" "$W/out-host/results.tsv") |" \
		"$(med "$m" "$W/out-control/results.tsv") |" \
		"$(med "$m" "$W/out-node01/results.tsv") |"
done <<<"$metrics"
