#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs every Debian package vt needs to build, test and benchmark. Idempotent; run as root.
set -eu

PKGS="
build-essential gcc g++ gfortran clang llvm-14-dev libomp-14-dev gcc-12-plugin-dev
meson ninja-build pkg-config cmake make
libotf2-trace-dev otf2-tools python3-otf2 python3
libdw-dev libelf-dev libunwind-dev libpapi-dev libsde1
libopenmpi-dev openmpi-bin mpich libmpich-dev
binutils file clang-format strace man-db groff-base
uftrace lttng-tools liblttng-ust-dev
zlib1g-dev chromium
libtrilinos-kokkos-dev
debhelper dpkg-dev fakeroot lintian
"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing; run this script as root" >&2
	exit 1
fi

echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
