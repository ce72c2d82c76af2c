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
#              with EPERM (the device cgroup), its own opens; a job without
#              GPUs can open none;
#   usage      a job that holds 1 GiB on its GPU and keeps it busy (with
#              torch, cupy or nvcc, whichever is here; else it only waits)
#              shows gres/gpumem and gres/gpuutil in sstat's and, once it
#              has ended, sacct's TRESUsageInMax, at least 1G and above 0 %
#              where it loaded the GPU; a job without GPUs shows neither.
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
# before the node lines: rota's conf reader checks their Gres= against it
grep -q '^GresTypes=' "$DIR/slurm.conf" || sed -i '0,/^NodeName=/s//GresTypes=gpu\nNodeName=/' "$DIR/slurm.conf"
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
	say isolate SKIP "one GPU: no other GPU to keep it from (own: $mine)"
elif [ "$bad" = 0 ] && [ "$mine" = ok ]; then
	say isolate PASS "own $own opens, the other $((NGPU - 1)) give EPERM"
else
	say isolate FAIL "own $own: $mine; others not EPERM: $bad"
	grep '^/dev/nvidia' <<<"$out" | sed 's/^/          /'
fi
# a job without GPUs may open none of them (the only check a one-GPU host has)
j=$(sbatch --parsable -o "$DIR/probe0.out" "$DIR/probe.sh")
st=$(wait_job "$j")
out=$(cat "$DIR/probe0.out" 2>/dev/null)
opened=$(grep '^/dev/nvidia' <<<"$out" | grep -vc ' EPERM$')
all=$(grep -c '^/dev/nvidia' <<<"$out")
if [ "$st" = COMPLETED ] && [ "$all" = "$NGPU" ] && [ "$opened" = 0 ]; then
	say isolate PASS "a job without GPUs: all $NGPU /dev/nvidiaK give EPERM"
else
	say isolate FAIL "a job without GPUs ($st): $opened of $all opened"
	sed 's/^/          /' <<<"$out"
fi

# usage
cat >"$DIR/load.sh" <<'LOAD'
#!/bin/bash
# hold 1 GiB of the job's GPU and keep it busy for $1 seconds
secs=${1:-12}
t=$(mktemp -d)
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	echo load=torch
	python3 - "$secs" <<'PY'
import sys, time, torch
buf = torch.ones(1 << 30, dtype=torch.uint8, device="cuda")
a = torch.randn(4096, 4096, device="cuda")
end = time.time() + float(sys.argv[1])
while time.time() < end:
    a = (a @ a).clamp_(-1, 1)
    torch.cuda.synchronize()
PY
	rc=$?
elif python3 -c 'import cupy; cupy.zeros(1)' 2>/dev/null; then
	echo load=cupy
	python3 - "$secs" <<'PY'
import sys, time, cupy
buf = cupy.ones(1 << 30, dtype=cupy.uint8)
a = cupy.random.rand(4096, 4096, dtype=cupy.float32)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    a = cupy.clip(a @ a, -1, 1)
    cupy.cuda.Device().synchronize()
PY
	rc=$?
elif command -v nvcc >/dev/null && cat >"$t/load.cu" <<'CU' &&
#include <stdlib.h>
#include <time.h>
__global__ void spin(float *p, long n)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	for (int k = 0; i < n && k < 200; k++)
		p[i] = p[i] * 0.999f + 1.0f;
}
int main(int argc, char **argv)
{
	long n = (1L << 30) / 4;
	float *p;
	time_t end = time(NULL) + atoi(argv[1]);
	if (cudaMalloc(&p, n * 4) != cudaSuccess)
		return 1;
	cudaMemset(p, 0, n * 4);
	while (time(NULL) < end) {
		spin<<<(n + 255) / 256, 256>>>(p, n);
		cudaDeviceSynchronize();
	}
	return 0;
}
CU
	nvcc -o "$t/load" "$t/load.cu" 2>/dev/null; then
	echo load=nvcc
	"$t/load" "$secs"
	rc=$?
else
	echo load=none
	sleep "$secs"
	rc=$?
fi
echo "load_rc=$rc"
rm -rf "$t"
LOAD
chmod 755 "$DIR/load.sh"
keys() { # TRES text -> "gres/gpumem=X gres/gpuutil=Y" (what it has of them)
	tr ',' '\n' <<<"$1" | grep '^gres/gpu\(mem\|util\)=' | xargs
}
bytes() { # "1.50G", "1024M", "0" -> bytes
	awk -v s="$1" 'BEGIN { u = substr(s, length(s)); m = index("KMGT", u);
		if (m) s = substr(s, 1, length(s) - 1); printf "%d", s * 1024 ^ m }'
}
j=$(sbatch --parsable --gres=gpu:1 --acctg-freq=1 -o "$DIR/load.out" "$DIR/load.sh" 12)
for _ in $(seq 300); do
	[ "$(squeue -h -j "$j" -o %T 2>/dev/null)" = RUNNING ] && break
	sleep 0.1
done
for _ in $(seq 600); do # the load has started (or the job ended)
	grep -q '^load=' "$DIR/load.out" 2>/dev/null && break
	[ -z "$(squeue -h -j "$j" -o %T 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 6
live=$(sstat -n -P -j "$j.batch" -o TRESUsageInMax 2>"$DIR/sstat.err")
st=$(wait_job "$j")
load=$(sed -n 's/^load=//p' "$DIR/load.out" 2>/dev/null)
load_rc=$(sed -n 's/^load_rc=//p' "$DIR/load.out" 2>/dev/null)
ended=""
for _ in $(seq 100); do
	ended=$(sacct -n -P -j "$j" -o JobID,TRESUsageInMax 2>/dev/null | sed -n "s/^$j\.batch|//p")
	[ -n "$ended" ] && break
	sleep 0.2
done
lk=$(keys "$live")
ek=$(keys "$ended")
mem=$(tr ' ' '\n' <<<"$ek" | sed -n 's/^gres\/gpumem=//p')
util=$(tr ' ' '\n' <<<"$ek" | sed -n 's/^gres\/gpuutil=//p')
if [ "$load_rc" != 0 ]; then
	say usage FAIL "the load ($load) failed ($load_rc): $(tail -3 "$DIR/load.out" | xargs)"
elif [ "$(wc -w <<<"$lk")" != 2 ] || [ "$(wc -w <<<"$ek")" != 2 ]; then
	say usage FAIL "job $j ($st, load=$load): sstat '$live' $(tail -1 "$DIR/sstat.err"), sacct '$ended'"
elif [ "$load" = none ]; then
	say usage PASS "sstat: $lk; sacct: $ek (no torch, cupy or nvcc: keys only)"
elif [ "$(bytes "$mem")" -ge $((1 << 30)) ] && [ "${util:-0}" -gt 0 ]; then
	say usage PASS "load=$load: sstat: $lk; sacct: $ek"
else
	say usage FAIL "load=$load held 1 GiB busy; sstat: '$lk', sacct: '$ek'"
fi
j=$(sbatch --parsable --acctg-freq=1 -o /dev/null --wrap 'sleep 3')
sleep 2
plain=$(sstat -n -P -j "$j.batch" -o TRESUsageInMax 2>"$DIR/sstat.err")
wait_job "$j" >/dev/null
if [ -z "$(keys "$plain")" ] && [[ "$plain" == *mem=* ]]; then
	say usage PASS "a job without GPUs: no gres/gpu* in '$plain'"
else
	say usage FAIL "a job without GPUs: '$plain' $(tail -1 "$DIR/sstat.err")"
fi
echo "gpu_check: $FAILS failed"
exit "$FAILS"
