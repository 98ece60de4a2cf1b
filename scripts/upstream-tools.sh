#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Tools that Linux 7.3's driver selftests (tools/testing/selftests/drivers/net
# and drivers/net/hw) run, on this Debian 12 host and so in the VM, whose root
# is the host's:
#
#   Debian 12 packages, installed when missing (apt-get, idempotent):
#     socat iperf3 python3-yaml      what every python test shells out to
#     netsniff-ng                    mausezahn (traffic generator)
#     bpftrace bpftool               netpoll_basic.py, XDP and netkit tests
#     clang-19 llvm-19               BPF objects (xdp_dummy.bpf.o, nk_forward.bpf.o ...)
#     jq lldpad                      the forwarding-lib scripts (lldptool: ethtool_mm.sh)
#     libelf-dev zlib1g-dev pkg-config rsync make gcc   to build the selftests (libbpf)
#   Taken from Debian's binary packages of a newer suite (Debian 12's are
#   too old), unpacked with dpkg-deb into BUILD/tools (never installed on the host):
#     ethtool   from unstable (7.2 when written): --json for -c/-g/-k/-l/-x, RSS
#               contexts, tcp-data-split, hds-thresh. Debian 12 ships 6.1;
#               trixie's 6.14 has no --json for -l (napi_threaded.py and
#               netpoll_basic.py need it). The binary only needs glibc 2.34 and
#               libmnl0, which Debian 12 has; checked by running it. Built from
#               the source package it would be the same program, but the
#               registry serves no trixie or unstable source files here (.dsc
#               and .orig.tar: 404).
#     ip, tc, devlink, bridge  iproute2 from the same suite (7.3 when written;
#               Debian 12 has 6.1, whose tc has no frame preemption, for
#               ethtool_mm.sh). Its binaries need glibc 2.38: BUILD/tools/bin
#               holds wrappers that run them on that suite's own ld.so and libc
#               (BUILD/tools/root), with Debian 12's other libraries.
#     UPSTREAM_TOOLS_SUITE overrides the suite (default unstable).
#
# Usage: scripts/upstream-tools.sh [BUILD_DIR]   (default: $REFNIC_BUILD or ./build)
#        scripts/upstream-tools.sh --print-path [BUILD_DIR]   prints BUILD/tools/bin
# Quiet on success. A stamp keyed on the package versions (and RECIPE_REV)
# makes a second run a no-op (a few seconds: dpkg-query and apt-cache policy).
#
# BUILD/tools/bin must come FIRST on the PATH of 7.3 test runs: it has to win
# over /usr/sbin/ethtool (6.1) and over BUILD/bin/ethtool (refnic-ethtool, put
# on the 6.12 runs' PATH by the Makefile). selftests/upstream/run_7.3.sh does
# that itself.
#
# The newer suite's packages come through an apt configuration of our own
# (BUILD/tools/apt: its own sources list, lists and cache), so the host's apt
# state is not touched; nothing from that suite is installed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
print_path=0
if [ "${1:-}" = --print-path ]; then
	print_path=1
	shift
fi
build=$(realpath -m "${1:-${REFNIC_BUILD:-$here/../build}}")
tools=$build/tools
if [ "$print_path" = 1 ]; then
	echo "$tools/bin"
	exit 0
fi

log=$tools/build.log
stamp=$tools/.stamp
mkdir -p "$tools/bin"
exec 9>"$tools/.lock"
flock 9

say() { echo "upstream-tools: $*" >&2; }
die() {
	say "$*"
	[ ! -s "$log" ] || { say "last lines of $log:"; tail -n 30 "$log" >&2; }
	exit 1
}

# --- 1. Debian 12 packages ----------------------------------------------------
pkgs=(socat iperf3 python3-yaml netsniff-ng bpftrace bpftool clang-19 llvm-19 jq lldpad
	libmnl-dev libelf-dev zlib1g-dev pkg-config dpkg-dev rsync make gcc)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	[ "$EUID" -eq 0 ] || die "needs root to install: ${missing[*]}"
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
		apt-get update >>"$log" 2>&1 || true
		apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1 ||
			die "apt-get install ${missing[*]} failed"
	fi
fi

# --- 2. binary packages of a newer suite ---------------------------------------
# An apt configuration of our own: that suite's index in BUILD/tools/apt, the
# host's apt state untouched.
suite=${UPSTREAM_TOOLS_SUITE:-unstable}
aptd=$tools/apt
mkdir -p "$aptd/lists/partial" "$aptd/cache/archives/partial" "$aptd/state"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
	>"$aptd/sources.list.new"
# A changed suite means a stale index.
cmp -s "$aptd/sources.list.new" "$aptd/sources.list" || rm -rf "$aptd/lists"/*_* "$aptd/cache"/*.bin
mkdir -p "$aptd/lists/partial"
mv -f "$aptd/sources.list.new" "$aptd/sources.list"
apt_own=(-o "Dir::Etc::sourcelist=$aptd/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$aptd/lists" -o "Dir::State=$aptd/state"
	-o "Dir::Cache=$aptd/cache" -o APT::Architecture=amd64 -o APT::Sandbox::User=root)

# The index, refreshed when older than a day.
index() { find "$aptd/lists" -maxdepth 1 -name '*_Packages*' "$@" -print -quit; }
if [ -z "$(index)" ] || [ -n "$(index -mtime +0)" ]; then
	apt-get "${apt_own[@]}" update >>"$log" 2>&1 || [ -n "$(index)" ] ||
		die "apt-get update for $suite failed"
fi
candidate() {
	apt-cache "${apt_own[@]}" policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'
}

ethtool_ver=$(candidate ethtool)
[ -n "$ethtool_ver" ] && [ "$ethtool_ver" != "(none)" ] || die "no ethtool in $suite's index"

iproute2_ver=$(candidate iproute2)
libc_ver=$(candidate libc6)
[ -n "$iproute2_ver" ] && [ "$iproute2_ver" != "(none)" ] || die "no iproute2 in $suite's index"
[ -n "$libc_ver" ] && [ "$libc_ver" != "(none)" ] || die "no libc6 in $suite's index"

# Keyed on the versions and on RECIPE_REV, not on this file's hash: a rebuild
# replaces the tools under a test run that may be using them. Bump RECIPE_REV
# when the steps below change what they produce.
RECIPE_REV=1
key="$RECIPE_REV $suite ethtool=$ethtool_ver iproute2=$iproute2_ver libc6=$libc_ver"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && [ -x "$tools/bin/ethtool" ] && [ -x "$tools/bin/ip" ]; then
	exit 0
fi
rm -f "$stamp"
: >"$log"

# unpack PKG VERSION: download the .deb (apt checks it against the signed
# index) and unpack it into $tools/pkg/PKG; prints that directory.
unpack() {
	local pkg=$1 ver=$2 dir=$tools/pkg/$1 dl=$tools/pkg/dl
	rm -rf "$dir" "$dl"
	mkdir -p "$dl"
	(cd "$dl" && apt-get "${apt_own[@]}" download "$pkg=$ver") >>"$log" 2>&1 ||
		die "apt-get download $pkg=$ver ($suite) failed"
	dpkg-deb -x "$dl"/"$pkg"_*.deb "$dir" >>"$log" 2>&1 || die "dpkg-deb -x $pkg failed"
	rm -rf "$dl"
	echo "$dir"
}

# --- 3. ethtool -------------------------------------------------------------------
dir=$(unpack ethtool "$ethtool_ver")
install -m 755 "$dir/usr/sbin/ethtool" "$tools/bin/ethtool.tmp"
v=${ethtool_ver#*:}
"$tools/bin/ethtool.tmp" --version 2>>"$log" | grep -q "version ${v%-*}" ||
	die "$suite's ethtool $ethtool_ver does not run here (see $log)"
# The feature the tests need that 6.14 lacks: JSON for -l (on lo: an empty
# list, or "Operation not supported", never "JSON output not available").
if "$tools/bin/ethtool.tmp" --json -l lo 2>&1 | grep -q 'JSON output not available'; then
	die "$suite's ethtool $ethtool_ver has no --json for -l: too old for the 7.3 tests"
fi
mv -f "$tools/bin/ethtool.tmp" "$tools/bin/ethtool"
rm -rf "$dir"

# --- 4. iproute2: ip, tc, devlink, bridge -----------------------------------------
# Debian 12's 6.1 lacks what 7.3's tests use (tc's frame preemption for
# ethtool_mm.sh, newer devlink and link attributes). The newer suite's
# binaries need glibc 2.38, so they run on that suite's own loader and libc
# (unpacked beside them, never installed): a wrapper per tool calls
# ROOT/lib64/ld-linux-x86-64.so.2 --library-path ROOT's libs, which then
# fall back to Debian 12's (libbpf, libmnl, libelf, libcap ... whose sonames
# are the same; a newer libc runs older libraries).
# Unpacked into root.new and swapped in at the end (with the wrappers), so a
# test run using the old tools sees them vanish only for a moment.
iroot=$tools/root
inew=$tools/root.new
rm -rf "$inew" "$tools/root.old"
mkdir -p "$inew"
for p in "libc6=$libc_ver" "iproute2=$iproute2_ver"; do
	d=$(unpack "${p%%=*}" "${p#*=}")
	cp -a "$d"/. "$inew"/
	rm -rf "$d"
done
ldso=usr/lib64/ld-linux-x86-64.so.2
[ -e "$inew/$ldso" ] || ldso=lib64/ld-linux-x86-64.so.2
[ -e "$inew/$ldso" ] || die "no ld-linux-x86-64.so.2 in $suite's libc6"
libs=usr/lib/x86_64-linux-gnu:lib/x86_64-linux-gnu
wrapper() { # wrapper NAME ROOT: the script that runs ROOT's NAME
	local name=$1 r=$2 bin
	for bin in usr/bin/$name usr/sbin/$name sbin/$name bin/$name; do
		[ -x "$r/$bin" ] && break
	done
	[ -x "$r/$bin" ] || die "no $name in $suite's iproute2"
	printf '#!/bin/sh\n# %s %s from %s (scripts/upstream-tools.sh)\nexec %s --library-path %s --argv0 %s %s "$@"\n' \
		"$name" "$iproute2_ver" "$suite" "$r/$ldso" "$r/${libs//:/:$r/}" "$name" "$r/$bin"
}
# Tried from root.new first, installed after.
for name in ip tc devlink bridge; do
	wrapper "$name" "$inew" >"$tools/$name.try"
	chmod 755 "$tools/$name.try"
done
v=${iproute2_ver#*:}
"$tools/ip.try" -V 2>>"$log" | grep -q "iproute2-${v%%-*}" ||
	die "$suite's iproute2 $iproute2_ver does not run here: $("$tools/ip.try" -V 2>&1 | tail -n 1)"
"$tools/tc.try" -V >>"$log" 2>&1 || die "$suite's tc does not run here (see $log)"
"$tools/devlink.try" -V >>"$log" 2>&1 || die "$suite's devlink does not run here (see $log)"
rm -f "$tools"/*.try
[ ! -e "$iroot" ] || mv "$iroot" "$tools/root.old"
mv "$inew" "$iroot"
for name in ip tc devlink bridge; do
	wrapper "$name" "$iroot" >"$tools/bin/$name.tmp"
	chmod 755 "$tools/bin/$name.tmp"
	mv -f "$tools/bin/$name.tmp" "$tools/bin/$name"
done
rm -rf "$tools/root.old"

echo "$key" >"$stamp"
