#!/bin/bash
# rest_compare.sh - rotarestd beside Debian's slurmrestd 22.05, the same
# requests through the same client (bench/rest_load, keep-alive HTTP/1.1, a
# JWT): ping and job/{id} req/s, GET jobs latency and the daemons' RSS at each
# queue depth (held jobs).  Rota's side is bench/rest_bench.sh; Slurm's is a
# 4-node cluster started by /work/shared/bench/slurm-cluster.sh (its own
# munged, slurmctld, slurmd) with AuthAltTypes=auth/jwt, plus slurmrestd as
# user nobody (22.05 refuses root and SlurmUser), its queue filled with
# separate `sbatch -H` jobs (a held array would be one record).  Everything
# it started is stopped at the end.  Prints both sets of lines, then a table.
#
#   make && /work/shared/bench/setup.sh && bench/rest_compare.sh   (root)
#
# Installs slurmrestd and slurm-wlm-jwt-plugin (auth_jwt.so) when missing.
# Env: DEPTHS (Rota: "10000 100000"), SLURM_DEPTHS ("10000": sbatch fills
# about 100 jobs/s here, 100,000 would take ~17 minutes), FILL_PAR (8
# submitters), SLURM_BENCH (/work/shared/bench), SLURM_BENCH_ROOT
# (/tmp/slurmrest-bench), SLURM_PORT_BASE (16917; slurmrestd on base+3),
# ONLY (rota | slurm), CLIENTS, N (see bench/rest_lib.sh), OUT (log file).
set -eu -o pipefail
cd "$(dirname "$0")/.."
REPO=$PWD LOAD=$PWD/build/bench/rest_load
SLURM_BENCH=${SLURM_BENCH:-/work/shared/bench}
SLURM_DEPTHS=${SLURM_DEPTHS:-10000} FILL_PAR=${FILL_PAR:-8}
export BENCH_ROOT=${SLURM_BENCH_ROOT:-/tmp/slurmrest-bench}
export SLURM_PORT_BASE=${SLURM_PORT_BASE:-16917}
REST_PORT=$((SLURM_PORT_BASE + 3))
OUT=${OUT:-/tmp/rest_compare.$$.log}
CLUSTER=$SLURM_BENCH/slurm-cluster.sh
# Slurm's own commands, whatever PATH says (Rota's build/bin has the same names)
SB=/usr/bin
# shellcheck source=bench/rest_lib.sh
. bench/rest_lib.sh

[ "$(id -u)" = 0 ] || { echo "$0: run as root" >&2; exit 1; }
[ -x "$LOAD" ] || { echo "$0: make first" >&2; exit 1; }
: >"$OUT"
say() { echo "$*" | tee -a "$OUT"; }
say "# rest_compare $(date -u +%FT%TZ), $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet HEAD -- src bench || echo '+dirty'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- Rota -----------------------------------------------------------------
if [ "${ONLY:-}" != slurm ]; then
	DIR=${DIR:-/tmp/rota-rest-compare} bench/rest_bench.sh | tee -a "$OUT"
fi

# ---- Slurm 22.05 ----------------------------------------------------------
install_missing() {
	local p missing="" made_policy=0
	for p in slurmrestd slurm-wlm-jwt-plugin; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	echo "installing$missing" >&2
	# the postinst must not start a system slurmrestd
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 $missing >&2 || { apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			-o DPkg::Lock::Timeout=600 $missing >&2; }
	if [ "$made_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
}

RESTD_PID=""
stop_slurm() {
	if [ -n "$RESTD_PID" ]; then
		kill "$RESTD_PID" 2>/dev/null || true
		wait "$RESTD_PID" 2>/dev/null || true
		RESTD_PID=""
	fi
	"$CLUSTER" stop 2>/dev/null || true
}

# fill_slurm N: N more held jobs from FILL_PAR submitters, one sbatch each
# (a failed sbatch is tried again, 3 times at most)
fill_slurm() {
	local n=$1 p pids=() bad=0
	for ((p = 0; p < FILL_PAR; p++)); do
		(
			k=$((n / FILL_PAR + (p < n % FILL_PAR)))
			for ((i = 0; i < k; i++)); do
				for try in 1 2 3; do
					"$SB/sbatch" -H -J rest_fill --wrap=true -o /dev/null >/dev/null && break
					[ "$try" = 3 ] && exit 1
					sleep 1
				done
			done
		) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || bad=1; done
	return "$bad"
}

slurm_measure() {
	rest_measure slurmrestd "127.0.0.1:$REST_PORT" "$SLURM_TOKEN" \
		"$("$SB/squeue" -h -o %i | wc -l)" "$("$SB/squeue" -h -o %i -t PD | head -1)" \
		"$RESTD_PID" "$("$CLUSTER" ctld-pid)"
}

if [ "${ONLY:-}" != rota ]; then
	install_missing
	for port in "$SLURM_PORT_BASE" $((SLURM_PORT_BASE + 1)) "$REST_PORT" 17001 17002 17003 17004; do
		if ss -Hltn "sport = :$port" | grep -q .; then
			echo "$0: port $port is taken (another Slurm benchmark cluster?)" >&2
			exit 1
		fi
	done
	max=0
	for d in $SLURM_DEPTHS; do
		if ((d > max)); then max=$d; fi
	done
	export MAX_JOB_COUNT=$((max + 1000))
	trap stop_slurm EXIT
	trap 'exit 130' INT TERM
	"$CLUSTER" start default
	eval "$("$CLUSTER" env)"
	# JWT as the alternative authentication (slurm.schedmd.com/jwt.html): an
	# HS256 key readable by SlurmUser only, the controller restarted to load it,
	# the node daemons told to re-read the same slurm.conf
	key=$BENCH_ROOT/etc/jwt_hs256.key
	dd if=/dev/urandom of="$key" bs=32 count=1 status=none
	chown slurm:slurm "$key"
	chmod 0400 "$key"
	printf 'AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=%s\n' "$key" >>"$SLURM_CONF"
	"$CLUSTER" stop-ctld
	"$CLUSTER" start-ctld
	for ((i = 0; i < 100; i++)); do "$SB/scontrol" ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
	"$SB/scontrol" reconfigure
	SLURM_TOKEN=$("$SB/scontrol" token lifespan=7200 | cut -d= -f2)
	# slurmrestd: SLURM_JWT=daemon makes auth/jwt its own authentication (the
	# token of each request is then passed through); only the v0.0.38 plugin
	# (the slurmdb one wants slurmdbd); unprivileged user nobody
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env SLURM_JWT=daemon SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmrestd \
		-a rest_auth/jwt -s openapi/v0.0.38 "127.0.0.1:$REST_PORT" \
		</dev/null >"$BENCH_ROOT/log/slurmrestd.log" 2>&1 &
	RESTD_PID=$!
	for ((i = 0; i < 100; i++)); do
		curl -sf -m 2 -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $SLURM_TOKEN" \
			"http://127.0.0.1:$REST_PORT$V/ping" >/dev/null && break
		sleep 0.2
	done
	((i < 100)) || { echo "$0: slurmrestd does not answer ($BENCH_ROOT/log/slurmrestd.log)" >&2; exit 1; }
	say "# slurmrestd $(/usr/sbin/slurmrestd -V | cut -d' ' -f2), pid $RESTD_PID on 127.0.0.1:$REST_PORT"
	mkdir -p "$BENCH_ROOT/work"
	cd "$BENCH_ROOT/work"
	"$SB/sbatch" -H -J rest_fill --wrap=true -o /dev/null >/dev/null
	slurm_measure | tee -a "$OUT"
	have=1
	for d in $SLURM_DEPTHS; do
		t0=$EPOCHREALTIME
		fill_slurm $((d - have)) || { echo "$0: sbatch failed" >&2; exit 1; }
		say "# filled $((d - have)) held jobs with sbatch ($FILL_PAR submitters) at $(awk -v a="$t0" -v b="$EPOCHREALTIME" -v n=$((d - have)) 'BEGIN{printf "%.0f", n/(b-a)}') jobs/s"
		have=$d
		slurm_measure | tee -a "$OUT"
	done
	cd "$REPO"
	stop_slurm
fi

# ---- the table --------------------------------------------------------------
say "# done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); log $OUT"
echo
echo "| daemon | jobs queued | load | ping req/s (p50) | job/{id} req/s (p50) | GET jobs p50 | REST daemon RSS | controller RSS |"
echo "|---|---|---|---|---|---|---|---|"
awk -v v="$V" '
function field(s, re, a) { return match(s, re) ? substr(s, RSTART + a, RLENGTH - a) : "" }
function reqs(s, r, p) { r = field(s, ": [0-9]+ req/s", 2); sub(/ req.*/, "", r)
	p = field(s, "p50 [0-9.]+", 4); return r " (" p " ms)" }
function ms(x) { return x >= 1000 ? sprintf("%.2f s", x / 1000) : sprintf("%.1f ms", x) }
function mib(k) { return k ~ /^[0-9]+$/ ? sprintf("%.0f MiB", k / 1024) : k }
/^== / { split($0, a, ", "); who = substr(a[1], 4); q = a[2] + 0; load = a[3]; sub(/load /, "", load); ping = job = jobs = "-" }
index($0, v "/ping:") == 1 { ping = reqs($0) }
index($0, v "/job/") == 1 { job = reqs($0) }
index($0, v "/jobs:") == 1 { jobs = ms(field($0, "p50 [0-9.]+", 4) + 0) }
/ RSS: / { printf "| %s | %d | %s | %s | %s | %s | %s | %s |\n", who, q, load, ping, job, jobs, mib($3), mib($6) }
' "$OUT"
