#!/bin/bash
# gpu_check.sh - what Rota does with this machine's real NVIDIA GPUs (issue 12,
# point 6).  Runs as is on any host with an NVIDIA driver (libnvidia-ml.so.1),
# after `make`, as root: it starts a one-node local cluster whose gres.conf
# says AutoDetect=nvml and cgroup.conf ConstrainDevices=yes, and checks
#
#   detect     rotad found every GPU nvidia-smi lists (count, type, /dev files)
#              and the node is not drained;
#   schedule   one-GPU jobs get different GPUs while they run together, and a
#              job asking for more GPUs than the node has is refused;
#   bind       a job's CUDA_VISIBLE_DEVICES/SLURM_JOB_GPUS name its GPU, and
#              nvidia-smi inside it lists exactly that GPU;
#   isolate    inside a one-GPU job, opening another GPU's /dev/nvidiaK fails
#              with EPERM (the device cgroup), its own opens;
#   usage      whether per-step GPU usage is sampled (not yet: says so).
#
# Each check prints PASS, FAIL or SKIP with what it saw; the exit status is
# the number of FAILs.  Nothing outside DIR (default: a fresh /tmp directory)
# is changed; the cluster is stopped at the end.
#
# Usage: bench/gpu_check.sh [DIR]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${ROTA_BIN:-$ROOT/build/bin}
DIR=${1:-$(mktemp -d /tmp/rota-gpu-check-XXXXXX)}
FAILS=0

say() { printf '%-9s %-5s %s\n' "$1" "$2" "$3"; [ "$2" = FAIL ] && FAILS=$((FAILS + 1)); }

[ -x "$BIN/rota" ] || { echo "gpu_check: build first (make): no $BIN/rota" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "gpu_check: run as root (device cgroups)" >&2; exit 2; }
if ! command -v nvidia-smi >/dev/null; then
	echo "gpu_check: no nvidia-smi here: not a GPU host" >&2
	exit 2
fi
NGPU=$(nvidia-smi -L | grep -c '^GPU ')
[ "$NGPU" -ge 1 ] || { echo "gpu_check: nvidia-smi lists no GPU" >&2; exit 2; }
echo "host: $NGPU GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"

CPUS=$(nproc)
"$BIN/rota" up --dir "$DIR" --nodes 1 --cpus "$CPUS" --mem 4096 >/dev/null ||
	{ echo "gpu_check: rota up failed" >&2; exit 2; }
"$BIN/rota" down --dir "$DIR" >/dev/null
sed -i "s/^\(NodeName=node01 .*\) State=UNKNOWN$/\1 Gres=gpu:$NGPU State=UNKNOWN/" "$DIR/slurm.conf"
grep -q '^GresTypes=' "$DIR/slurm.conf" || echo "GresTypes=gpu" >>"$DIR/slurm.conf"
echo "AutoDetect=nvml" >"$DIR/gres.conf"
echo "ConstrainDevices=yes" >"$DIR/cgroup.conf"
eval "$("$BIN/rota" up --dir "$DIR")" || { echo "gpu_check: rota up failed" >&2; exit 2; }
trap '"$BIN/rota" down --dir "$DIR" >/dev/null 2>&1' EXIT

wait_job() { # JOBID: until it has ended, at most 120 s
	for _ in $(seq 1200); do
		st=$(squeue -h -t all -j "$1" -o %T 2>/dev/null)
		case "$st" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) echo "$st"; return ;; esac
		sleep 0.1
	done
	echo TIMEOUT
}

# detect
node=$(scontrol -d show node node01)
state=$(sed -n 's/.*State=\([A-Z+_]*\).*/\1/p' <<<"$node" | head -1)
gres=$(sed -n 's/^ *Gres=\(.*\)/\1/p' <<<"$node")
if [[ "$state" == *DRAIN* ]]; then
	say detect FAIL "node drained: $(sed -n 's/.*Reason=\(.*\)/\1/p' <<<"$node")"
else
	say detect PASS "node01 Gres=$gres State=$state (nvidia-smi: $NGPU)"
fi
grep -h "gres" "$DIR"/log/rotad-node01.log | tail -3 | sed 's/^/          /'

# schedule
jobs=()
for k in $(seq "$NGPU"); do
	jobs+=("$(sbatch --parsable --gres=gpu:1 -o "$DIR/sched-$k.out" \
		--wrap 'echo $SLURM_JOB_GPUS; sleep 5')")
done
for j in "${jobs[@]}"; do wait_job "$j" >/dev/null; done
seen=$(cat "$DIR"/sched-*.out 2>/dev/null | sort -n | uniq | xargs)
if [ "$(wc -w <<<"$seen")" = "$NGPU" ]; then
	say schedule PASS "$NGPU one-GPU jobs held GPUs $seen"
else
	say schedule FAIL "$NGPU one-GPU jobs held GPUs: '$seen'"
fi
if out=$(sbatch --gres=gpu:$((NGPU + 1)) --wrap true 2>&1); then
	say schedule FAIL "a job asking $((NGPU + 1)) GPUs was queued: $out"
else
	say schedule PASS "$((NGPU + 1)) GPUs refused: ${out##*: }"
fi

# bind + isolate
cat >"$DIR/probe.sh" <<'EOF'
#!/bin/bash
echo "job=$SLURM_JOB_GPUS cvd=$CUDA_VISIBLE_DEVICES"
echo "smi=$(nvidia-smi -L 2>&1 | grep -c '^GPU ')"
for f in /dev/nvidia[0-9]*; do
	python3 -c "import os,errno,sys
try: os.close(os.open(sys.argv[1], os.O_RDONLY)); print(sys.argv[1], 'ok')
except OSError as e: print(sys.argv[1], errno.errorcode[e.errno])" "$f"
done
EOF
chmod 755 "$DIR/probe.sh"
j=$(sbatch --parsable --gres=gpu:1 -o "$DIR/probe.out" "$DIR/probe.sh")
st=$(wait_job "$j")
out=$(cat "$DIR/probe.out" 2>/dev/null)
job=$(sed -n 's/^job=\([^ ]*\).*/\1/p' <<<"$out")
smi=$(sed -n 's/^smi=//p' <<<"$out")
if [ "$st" = COMPLETED ] && [ -n "$job" ] && [ "$smi" = 1 ]; then
	say bind PASS "SLURM_JOB_GPUS=$job, $(grep -o 'cvd=[^ ]*' <<<"$out"), nvidia-smi lists 1"
else
	say bind FAIL "job $st, SLURM_JOB_GPUS='$job', nvidia-smi lists '$smi'"
fi
own="/dev/nvidia$job"
bad=$(grep -v "^$own " <<<"$out" | grep '^/dev/nvidia' | grep -vc ' EPERM$')
mine=$(grep "^$own " <<<"$out" | awk '{print $2}')
if [ "$NGPU" -lt 2 ]; then
	say isolate SKIP "one GPU: nothing to isolate from (own: $mine)"
elif [ "$bad" = 0 ] && [ "$mine" = ok ]; then
	say isolate PASS "own $own opens, the other $((NGPU - 1)) give EPERM"
else
	say isolate FAIL "own $own: $mine; others not EPERM: $bad"
	grep '^/dev/nvidia' <<<"$out" | sed 's/^/          /'
fi

say usage SKIP "per-step GPU usage (TRESUsageInMax gres/gpumem, gpuutil) is not sampled yet"
echo "gpu_check: $FAILS failed"
exit "$FAILS"
