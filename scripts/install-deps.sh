#!/bin/bash
# install-deps.sh - the Debian/Ubuntu packages Rota needs to build and test.
# Used by scripts/quickstart.sh and .ci/run.  Runs apt-get (through sudo when
# not root) only when something is missing; ROTA_DEPS_FORCE=1 always runs it.
set -euo pipefail

PACKAGES=(
	build-essential pkg-config
	libevent-dev libjansson-dev
	libssl-dev openssl # rotarestd's HTTPS; the tests make certificates
	munge libmunge-dev zlib1g-dev libisal-dev libsqlite3-dev sqlite3 bc
	libpq-dev postgresql
	libcmocka-dev python3-pytest python3-yaml clang-format
	python3-pytest-xdist # the system tests run a module per core (make integration)
	clang libclang-rt-dev
	openmpi-bin libopenmpi-dev
	mpich libmpich-dev
	libpmi2-0-dev # Slurm's PMI-2 client library: a real client of srun --mpi=pmi2
	libpmix-dev   # OpenPMIx's server library: rotapmix (srun --mpi=pmix)
	busybox-static
	groff-base man-db
	chromium # the dashboard's tests drive it headless (test_dashboard.py)
)

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ] && [ "${ROTA_DEPS_FORCE:-0}" != 1 ]; then
	echo "install-deps: all ${#PACKAGES[@]} packages are installed"
	exit 0
fi

if ! command -v apt-get >/dev/null; then
	echo "install-deps: apt-get not found; install these by hand: ${PACKAGES[*]}" >&2
	exit 1
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "install-deps: not root and no sudo; as root run:" >&2
		echo "  apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	SUDO=(sudo)
fi
echo "install-deps: installing ${missing[*]:-${PACKAGES[*]}}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${PACKAGES[@]}"
# MPICH is there for its mpiexec.hydra (tests/integration/test_node_names.py)
# and for srun --mpi=pmi2 (test_mpi_pmi.py, through mpicc.mpich);
# OpenMPI stays the MPI that mpirun and mpicc name (the other MPI tests use
# it).  Debian ranks OpenMPI above MPICH already; this holds it where not.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
for alt in mpirun=/usr/bin/mpirun.openmpi mpi=/usr/bin/mpicc.openmpi \
	"mpi-$arch=/usr/lib/$arch/openmpi/include"; do
	name=${alt%%=*} path=${alt#*=}
	now=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p')
	if [ -e "$path" ] && [ "$now" != "$path" ]; then
		"${SUDO[@]}" update-alternatives --set "$name" "$path"
	fi
done
