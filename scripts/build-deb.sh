#!/bin/bash
# build-deb.sh [OUTDIR] - a Debian package (rota_<version>_<arch>.deb) of what
# `make` built, without debhelper: `make install` into a staging root with
# Debian's paths (PREFIX=/usr, units in /lib/systemd/system), the example
# /etc/default files as conffiles, and maintainer scripts that reload systemd.
# The daemons are not enabled: a site writes /etc/slurm/slurm.conf first.
#   BUILD=dir        the build directory (default build)
#   ROTA_DEB_VERSION the package's version (default from git: 0~gitDATE.HASH)
# Prints the path of the package.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${1:-.}
ARCH=$(dpkg --print-architecture)
if [ -z "${ROTA_DEB_VERSION:-}" ]; then
	if git rev-parse --git-dir >/dev/null 2>&1; then
		ROTA_DEB_VERSION="0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short=8 HEAD)"
	else
		ROTA_DEB_VERSION=0~local
	fi
fi
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/rota-deb.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
ROOT=$STAGE/root

make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$ROOT" PREFIX=/usr \
	SYSTEMDUNITDIR=/lib/systemd/system >&2
install -d -m 0755 "$ROOT/etc/default" "$ROOT/etc/slurm" "$ROOT/DEBIAN" \
	"$ROOT/usr/share/doc/rota"
for d in rotactld rotad rotadbd rotarestd; do
	install -m 0644 "etc/default/$d" "$ROOT/etc/default/$d"
	echo "/etc/default/$d" >>"$ROOT/DEBIAN/conffiles"
done
install -m 0644 README.md "$ROOT/usr/share/doc/rota/README.md"

# Depends: the packages of the shared libraries the programs load (what
# dpkg-shlibdeps finds, by ldd and dpkg -S), so a build linked otherwise (a
# sanitizer's runtime, libpq) names what it needs; libc6 at least the glibc
# the build assumes (close_range, 2.34).
depends() {
	local f lib pkg
	find "$ROOT/usr" -type f -perm -u+x | while read -r f; do
		ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p'
	done | sort -u | while read -r lib; do
		pkg=$(dpkg -S "$(realpath "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null) || continue
		echo "${pkg%%:*}"
	done | sort -u | sed 's/^libc6$/libc6 (>= 2.34)/' | paste -sd, - | sed 's/,/, /g'
}
DEPENDS=$(depends)
[ -n "$DEPENDS" ] || DEPENDS="libc6 (>= 2.34), libisal2, libsqlite3-0"

size=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
cat >"$ROOT/DEBIAN/control" <<CONTROL
Package: rota
Version: $ROTA_DEB_VERSION
Architecture: $ARCH
Maintainer: Rota developers <rota@localhost>
Installed-Size: $size
Depends: $DEPENDS
Recommends: munge, libmunge2
Suggests: libpq5
Conflicts: slurm-client, slurmctld, slurmd, slurmdbd, slurm-wlm
Section: admin
Priority: optional
Homepage: https://localhost/rota
Description: Slurm-compatible workload manager
 Rota runs Slurm's batch scripts and commands (sbatch, srun, squeue, sinfo,
 scontrol, sacct, ...) and reads an existing slurm.conf.  This package holds
 the controller (rotactld), the node daemon (rotad), the accounting daemon
 (rotadbd), the REST daemon (rotarestd), the command-line tools and their
 systemd units.
CONTROL

# Maintainer scripts: systemd is told about new and removed units when it
# runs (not in a chroot or a --root install: DPKG_ROOT set).
cat >"$ROOT/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
exit 0
SCRIPT
cat >"$ROOT/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
	systemctl stop rotactld.service rotad.service rotadbd.service rotarestd.service || true
fi
exit 0
SCRIPT
cat >"$ROOT/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
exit 0
SCRIPT
chmod 0755 "$ROOT/DEBIAN/postinst" "$ROOT/DEBIAN/prerm" "$ROOT/DEBIAN/postrm"

mkdir -p "$OUT"
deb="$OUT/rota_${ROTA_DEB_VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group --build "$ROOT" "$deb" >&2
echo "$deb"
