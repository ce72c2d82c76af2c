#!/bin/bash
# quickstart.sh - from a fresh checkout to a running cluster in one command:
# installs the Debian packages, builds, starts a 4-node cluster in ./cluster,
# runs the tutorial's multi-node demo on it and says how to use it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CLUSTER=${ROTA_CLUSTER_DIR:-$ROOT/cluster}

step() { printf '\n== %s\n' "$*" >&2; }

step "installing build dependencies"
scripts/install-deps.sh

step "building"
make -j"$(nproc)" >/dev/null

step "starting the cluster in $CLUSTER"
if build/bin/rota status --dir "$CLUSTER" >/dev/null 2>&1; then
	echo "already running" >&2
	exports=$(build/bin/rota env --dir "$CLUSTER")
else
	exports=$(build/bin/rota up --dir "$CLUSTER")
fi
eval "$exports"

step "sinfo"
sinfo

step "running the tutorial's multi-node demo (examples/multi-node-demo.sh)"
mkdir -p "$CLUSTER/demo"
cp examples/multi-node-demo.sh "$CLUSTER/demo/"
cd "$CLUSTER/demo"
out=$(sbatch multi-node-demo.sh)
echo "$out"
jobid=${out##* }
state=
for _ in $(seq 1 600); do
	state=$(squeue -h -j "$jobid" -t all -o %T 2>/dev/null || true)
	case $state in
	COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL) break ;;
	esac
	sleep 0.1
done
echo "job $jobid: $state"
cat "slurm-$jobid.out"
cd "$ROOT"

cat >&2 <<USAGE

== the cluster is up: 4 nodes node[01-04], partition debug
Use it from any shell:
    eval "\$(build/bin/rota env --dir $CLUSTER)"  # sets PATH and SLURM_CONF
    (after a reboot or rota down: eval "\$(build/bin/rota up --dir $CLUSTER)")
    sinfo; srun -N2 -l hostname; sbatch job.sh; squeue; scontrol show job N
Stop it with:   build/bin/rota down --dir $CLUSTER     (or: make down)
Run the tests:  make test
USAGE
[ "$state" = COMPLETED ]
