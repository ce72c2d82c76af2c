#!/bin/bash
# rest_bench.sh - rotarestd under load (issue 15, point 7): requests per second
# of ping and job/{id}, and how long GET jobs takes, at 1, 10,000 and 100,000
# queued (held) jobs, through bench/rest_load (keep-alive HTTP/1.1 clients)
# on TCP with a JWT, as a portal or an exporter would call it.
#
#   bench/rest_bench.sh            (root: rota up; ~3 minutes)
#   bench/rest_compare.sh          (this, then Debian's slurmrestd 22.05)
#
# Env: DIR (/tmp/rota-rest-bench), DEPTHS ("10000 100000"), CLIENTS (4),
# N (4000 requests a figure).
set -eu
cd "$(dirname "$0")/.."
BIN=$PWD/build/bin LOAD=$PWD/build/bench/rest_load FLOOD=$PWD/build/bench/submit_flood
DIR=${DIR:-/tmp/rota-rest-bench} DEPTHS=${DEPTHS:-10000 100000}
# shellcheck source=bench/rest_lib.sh
. bench/rest_lib.sh
if [ ! -x "$LOAD" ] || [ ! -x "$FLOOD" ]; then
	echo "$0: make bench-build first" >&2
	exit 1
fi

"$BIN/rota" down --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
"$BIN/rota" up --dir "$DIR" >/dev/null
echo "MaxJobCount=200000" >>"$DIR/slurm.conf"
"$BIN/rota" down --dir "$DIR" >/dev/null 2>&1
eval "$("$BIN/rota" up --dir "$DIR" 2>/dev/null)"
trap '"$BIN/rota" down --dir "$DIR" >/dev/null 2>&1' EXIT
TOKEN=$(scontrol token lifespan=7200 | cut -d= -f2)
ADDR=${ROTA_REST_URL#http://}

measure() {
	rest_measure rotarestd "$ADDR" "$TOKEN" "$(squeue -h | wc -l)" \
		"$(squeue -h -o %i -t PD | head -1)" \
		"$(cat "$DIR/run/rotarestd.pid")" "$(cat "$DIR/run/rotactld.pid")"
}

sbatch -H --wrap=true -o /dev/null >/dev/null
measure
have=1
for d in $DEPTHS; do
	# submit_flood sends a multiple of its clients: the rest from one client
	n=$((d - have))
	"$FLOOD" -n $((n / 4 * 4)) -c 4 >/dev/null
	if ((n % 4)); then "$FLOOD" -n $((n % 4)) -c 1 >/dev/null; fi
	have=$d
	measure
done
