#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Unpack a kernel series' linux-source tarball into the build tree once,
# keyed by the package version, and print the directory. Nothing ever
# writes into /usr/src.
#
#   kernel-source.sh [SERIES]
#
# No SERIES means 6.12 whatever REFNIC_KERNEL says: checkpatch, the upstream
# selftests, ncdevmem, the YNL tools and the debug kernel all read from
# Debian 12's linux-source-6.12 (build/linux-source). 7.3's tarball comes
# from the package scripts/deps-7.3.sh unpacked (build/kernels/7.3/
# linux-source; that script calls this one).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath -m "${REFNIC_BUILD:-$here/../build}")
series=${1:-6.12}
"$here/kernel.sh" --check "$series"

case $series in
6.12)
	tarball=/usr/src/linux-source-6.12.tar.xz
	[ -r "$tarball" ] || { echo "kernel-source: $tarball missing (run make deps)" >&2; exit 1; }
	pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	parent=$build
	;;
*)
	parent=$build/kernels/$series
	tarball=$parent/root/usr/src/linux-source-$series.tar.xz
	# root/.unpacked holds the version of the packages unpacked there
	if ! pkgver=$(cat "$parent/root/.unpacked" 2>/dev/null) || [ ! -r "$tarball" ]; then
		echo "kernel-source: $tarball missing (run make deps KERNEL=$series)" >&2
		exit 1
	fi
	;;
esac

dest="$parent/linux-source-$pkgver"
if [ ! -e "$dest/.unpacked" ]; then
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -xJf "$tarball" -C "$dest.tmp" --strip-components=1
	# ynl-gen-c.py loops forever unless a MAINTAINERS file exists at the tree root.
	[ -e "$dest.tmp/MAINTAINERS" ] || : > "$dest.tmp/MAINTAINERS"
	touch "$dest.tmp/.unpacked"
	mv "$dest.tmp" "$dest"
	# an older version's copy is dead weight (1.5 GB)
	for old in "$parent"/linux-source-*; do
		[ "$old" = "$dest" ] || [ ! -d "$old" ] || [ -L "$old" ] || rm -rf "$old"
	done
fi
ln -sfn "$(basename "$dest")" "$parent/linux-source"
echo "$dest"
