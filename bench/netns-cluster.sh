#!/bin/bash
# netns-cluster.sh - the benchmark harness's cluster adaptor ($BENCH_CLUSTER,
# see ../shared/bench/rota-cluster.sh) for a cluster that bench/netns_latency.sh
# has already brought up: it only says where the cluster is, so it works the
# same from the host and from inside a host of a `rota up --netns` cluster
# (`rota exec`), where the directory is the same path and /proc the same.
# Starting and stopping stay with the caller.
#
#   NBENCH_CLUSTER_DIR=DIR BENCH_CLUSTER=bench/netns-cluster.sh ../shared/bench/bench-srun.sh
set -u
D=${NBENCH_CLUSTER_DIR:?NBENCH_CLUSTER_DIR: the cluster directory}
case ${1:-} in
env) echo "export SLURM_CONF=$D/slurm.conf" ;;
ctld-pid) cat "$D/run/rotactld.pid" 2>/dev/null ;;
status) rota status --dir "$D" ;;
start | stop | stop-ctld | start-ctld)
	echo "$0: $1: the cluster in $D is started and stopped by its caller" >&2
	exit 2 ;;
*) echo "usage: $0 env|ctld-pid|status" >&2; exit 2 ;;
esac
