#!/bin/bash
# rest_bench.sh - rotarestd under load (issue 15, point 7): requests per second
# of ping and job/{id}, and how long GET jobs takes, at 0, 10,000 and 100,000
# queued (held) jobs, through bench/rest_load (keep-alive HTTP/1.1 clients)
# on TCP with a JWT, as a portal or an exporter would call it.
#
#   bench/rest_bench.sh            (root: rota up; ~3 minutes)
#
# Env: DIR (/tmp/rota-rest-bench), DEPTHS ("10000 100000"), CLIENTS (4),
# N (4000 requests a figure).  SLURM_REST=host:port and SLURM_JWT=token run
# the same requests against a slurmrestd too (Debian's slurmrestd 22.05 with
# AuthAltTypes=auth/jwt, its queue filled to the same depths beforehand);
# its lines are printed after Rota's.
set -eu
cd "$(dirname "$0")/.."
BIN=$PWD/build/bin LOAD=$PWD/build/bench/rest_load FLOOD=$PWD/build/bench/submit_flood
DIR=${DIR:-/tmp/rota-rest-bench} DEPTHS=${DEPTHS:-10000 100000}
CLIENTS=${CLIENTS:-4} N=${N:-4000}
V=/slurm/v0.0.38
[ -x "$LOAD" ] && [ -x "$FLOOD" ] || { echo "$0: make bench-build first" >&2; exit 1; }

"$BIN/rota" down --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
"$BIN/rota" up --dir "$DIR" >/dev/null
echo "MaxJobCount=200000" >>"$DIR/slurm.conf"
"$BIN/rota" down --dir "$DIR" >/dev/null 2>&1
eval "$("$BIN/rota" up --dir "$DIR" 2>/dev/null)"
trap '"$BIN/rota" down --dir "$DIR" >/dev/null 2>&1' EXIT
TOKEN=$(scontrol token lifespan=7200 | cut -d= -f2)
ADDR=${ROTA_REST_URL#http://}

measure() { # label addr token
	local first
	first=$(squeue -h -o %i -t PD | head -1)
	echo "== $1, $(squeue -h | wc -l) jobs queued, load $(cut -d' ' -f1 /proc/loadavg)"
	"$LOAD" -c "$CLIENTS" -n "$N" -t "$3" -a "$2" "$V/ping"
	[ -n "$first" ] && "$LOAD" -c "$CLIENTS" -n "$N" -t "$3" -a "$2" "$V/job/$first"
	"$LOAD" -c 1 -n 5 -t "$3" -a "$2" "$V/jobs"
}

sbatch -H --wrap=true -o /dev/null >/dev/null
measure "rotarestd" "$ADDR" "$TOKEN"
[ -n "${SLURM_REST:-}" ] && measure "slurmrestd" "$SLURM_REST" "$SLURM_JWT"
have=1
for d in $DEPTHS; do
	"$FLOOD" -n $((d - have)) -c 4 >/dev/null
	have=$d
	measure "rotarestd" "$ADDR" "$TOKEN"
	[ -n "${SLURM_REST:-}" ] && measure "slurmrestd" "$SLURM_REST" "$SLURM_JWT"
done
echo "rotarestd RSS: $(ps -o rss= -C rotarestd | head -1) KiB"
