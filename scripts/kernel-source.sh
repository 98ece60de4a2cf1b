#!/usr/bin/env bash
# Unpack Debian's linux-source-6.12 into the build tree once, keyed by the
# package version, and print the directory. checkpatch, the upstream
# selftests, ncdevmem and the debug kernel all read from this copy; nothing
# ever writes into /usr/src.
set -euo pipefail

build=$(realpath -m "${REFNIC_BUILD:-$(dirname "$0")/../build}")
tarball=/usr/src/linux-source-6.12.tar.xz
[ -r "$tarball" ] || { echo "kernel-source: $tarball missing (run make deps)" >&2; exit 1; }

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
dest="$build/linux-source-$pkgver"
if [ ! -e "$dest/.unpacked" ]; then
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -xJf "$tarball" -C "$dest.tmp" --strip-components=1
	# ynl-gen-c.py loops forever unless a MAINTAINERS file exists at the tree root.
	[ -e "$dest.tmp/MAINTAINERS" ] || : > "$dest.tmp/MAINTAINERS"
	touch "$dest.tmp/.unpacked"
	mv "$dest.tmp" "$dest"
fi
ln -sfn "$(basename "$dest")" "$build/linux-source"
echo "$dest"
