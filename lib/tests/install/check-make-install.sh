#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make install PREFIX=DIR` puts everything under DIR and nothing elsewhere, whatever prefix the
# CMake tree was configured for before: installs twice, into two scratch prefixes one after the
# other, and compares the file lists (equal, and nothing of the first prefix in the second's
# files); checks CMake's install manifest and the iproute2 plugin's place; stages an install
# with DESTDIR to a prefix that does not exist and finds every file under DESTDIR/PREFIX, and
# with PREFIX=/usr the plugin where Debian's ip looks; builds and runs a C program against the
# installed headers with pkg-config. The tree's own prefix is put back at the end.
# Usage: check-make-install.sh REPO CMAKE_BUILD_DIR SCRATCH_DIR CC
set -eu
repo=$1 cmake_build=$2 scratch=$3 cc=$4

fail() {
    echo "make install: $*" >&2
    exit 1
}

cache_prefix() { sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$cmake_build/CMakeCache.txt"; }
original=$(cache_prefix)
restore() {
    [ "$(cache_prefix)" = "$original" ] ||
        cmake -S "$repo" -B "$cmake_build" -DCMAKE_INSTALL_PREFIX="$original" >/dev/null
}
trap restore EXIT

rm -rf "$scratch"
mkdir -p "$scratch"
# make install, as a user would run it, on this CMake tree; the plugin builds in the scratch dir.
make_install() {
    log=$1
    shift
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$repo" install CMAKE_BUILD="$cmake_build" \
        BUILD="$scratch/build" "$@" >"$log" 2>&1 || { cat "$log"; fail "failed: make install $*"; }
}
# Every file and link under DIR, relative to it, sorted.
files_under() { (cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort); }

make_install "$scratch/install-a.log" PREFIX="$scratch/a"
make_install "$scratch/install-b.log" PREFIX="$scratch/b"
files_under "$scratch/a" >"$scratch/a.list"
files_under "$scratch/b" >"$scratch/b.list"
diff -u "$scratch/a.list" "$scratch/b.list" ||
    fail "PREFIX=$scratch/b installed other files than PREFIX=$scratch/a"
for file in bin/refnicctl bin/refnic-ethtool bin/refnic-devmem bin/refnic-bypass \
    lib/librefnic.so lib/pkgconfig/refnic.pc lib/cmake/refnic/refnicConfig.cmake \
    include/refnic/control.hpp include/refnic/bypass.h include/refnic/version.h \
    include/refnic/uapi/linux/refnic.h include/refnic/uapi/linux/refnic_bypass.h \
    include/refnic/uapi/linux/if_refnic.h share/ynl/specs/refnic.yaml \
    share/doc/refnic/examples/Makefile lib/ip/link_refnic.so share/man/man8/refnicctl.8 \
    share/man/man4/refnic.4 share/bash-completion/completions/refnicctl; do
    grep -qx "$file" "$scratch/b.list" || fail "PREFIX=$scratch/b has no $file"
done
# The second install knows nothing of the first prefix, and its manifest nothing outside it.
! grep -rl "$scratch/a" "$scratch/b" || fail "files under $scratch/b name $scratch/a"
[ "$(pkg-config --variable=prefix "$scratch/b/lib/pkgconfig/refnic.pc")" = "$scratch/b" ] ||
    fail "refnic.pc's prefix is not $scratch/b"
[ -s "$cmake_build/install_manifest.txt" ] || fail "no install manifest in $cmake_build"
! grep -v "^$scratch/b/" "$cmake_build/install_manifest.txt" ||
    fail "the install manifest names files outside $scratch/b (above)"

# Staged: DESTDIR=STAGE PREFIX=/opt/...: all of it in STAGE/opt/..., nothing at /opt/....
staged=/opt/refnic-install-test-$$
make_install "$scratch/install-stage.log" DESTDIR="$scratch/stage" PREFIX="$staged"
[ ! -e "$staged" ] || fail "DESTDIR ignored: $staged exists"
[ "$(cd "$scratch/stage" && find . -mindepth 1 -maxdepth 1)" = ./opt ] ||
    fail "DESTDIR=$scratch/stage has files outside $staged"
files_under "$scratch/stage$staged" | diff -u "$scratch/a.list" - ||
    fail "the staged install has other files than PREFIX=$scratch/a"
[ "$(pkg-config --variable=prefix "$scratch/stage$staged/lib/pkgconfig/refnic.pc")" = "$staged" ] ||
    fail "the staged refnic.pc's prefix is not $staged"

# PREFIX=/usr on Debian: the multiarch libdir, and the plugin where ip looks by default.
multiarch=$("$cc" -print-multiarch 2>/dev/null || true)
if [ -n "$multiarch" ]; then
    make_install "$scratch/install-usr.log" DESTDIR="$scratch/usr-stage" PREFIX=/usr
    for file in "lib/$multiarch/ip/link_refnic.so" "lib/$multiarch/pkgconfig/refnic.pc" \
        bin/refnicctl include/refnic/uapi/linux/refnic.h share/ynl/specs/refnic.yaml; do
        [ -e "$scratch/usr-stage/usr/$file" ] || fail "PREFIX=/usr has no /usr/$file"
    done
fi

# A C program against the installed headers, with pkg-config.
export PKG_CONFIG_PATH="$scratch/b/lib/pkgconfig"
# shellcheck disable=SC2046 # pkg-config output is meant to be split into arguments
"$cc" -std=c11 -Wall -Wextra -Werror -o "$scratch/consumer-c" "$repo/lib/tests/install/consumer.c" \
    $(pkg-config --cflags --libs refnic) -Wl,-rpath,"$scratch/b/lib"
"$scratch/consumer-c"
echo "make install check passed: $scratch/a, $scratch/b, $scratch/stage$staged"
