#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install refnic.ko on a real host through DKMS, so it is rebuilt for every
# kernel installed later:  make dkms-install   (run as root)
# Remove it again:         scripts/dkms-install.sh --remove
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$repo/kmod/VERSION")
src=/usr/src/refnic-$version
# dkms.conf's BUILD_EXCLUSIVE_KERNEL: for another kernel dkms would refuse
# with a generic message; say which kernels fit instead.
fits=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$repo/dkms.conf")

if [ "${1:-}" = --remove ]; then
	dkms remove -m refnic -v "$version" --all || true
	rm -rf "$src"
	exit 0
fi

if ! uname -r | grep -Eq "$fits"; then
	echo "dkms-install: refnic builds for Linux $("$repo/scripts/kernel.sh" --list | paste -sd" ") only; this kernel is $(uname -r)" >&2
	exit 1
fi
rm -rf "$src"
mkdir -p "$src"
cp -r "$repo/kmod" "$repo/uapi" "$repo/dkms.conf" "$src/"
make -s -C "$src/kmod" clean KDIR="/lib/modules/$(uname -r)/build" >/dev/null 2>&1 || true
dkms add -m refnic -v "$version" 2>/dev/null || true
dkms install -m refnic -v "$version"
echo "refnic $version installed; load it with: modprobe refnic"
