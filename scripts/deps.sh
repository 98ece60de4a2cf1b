#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Install everything refnic needs from Debian's packages. Idempotent: it only
# calls apt-get when a package is missing. The 6.12 kernel version is
# discovered from the package index (newest linux-image-6.12.*+deb12-amd64-unsigned),
# never hard-coded, so a Debian point release does not break the build.
#
#   deps.sh [--kernel SERIES]
#
# The host packages and the 6.12 kernel are always set up: the tools,
# headers and checkpatch come from linux-source-6.12 whatever kernel refnic
# targets. SERIES (default $REFNIC_KERNEL, else the Makefile's default; see
# scripts/kernel.sh) other than 6.12 is then fetched and set up beside it by
# scripts/deps-SERIES.sh, which installs nothing on the host.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
series=
case ${1:-} in
--kernel) series=${2:?deps: --kernel needs a series} ;;
--kernel=*) series=${1#*=} ;;
'') ;;
*) echo "deps: unknown argument $1 (usage: deps.sh [--kernel SERIES])" >&2; exit 2 ;;
esac
series=$("$here/kernel.sh" --get KERNEL ${series:+"$series"})

export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# flex, bison, bc, libelf-dev, libssl-dev and dwarves build the debug kernel
# and 7.3's module build tree (modules_prepare: kconfig, objtool, modpost,
# resolve_btfids); debian-archive-keyring verifies trixie's packages for 7.3.
# nlohmann-json3-dev writes the tools' JSON; mandoc (man page lint) and
# bash-completion are for the host tests only (docs/cli.md);
# python3-matplotlib draws make bench's results (scripts/bench-report.py);
# tmux is the terminal net/refnicctl_top.sh runs refnicctl top in; sockperf
# measures request/response latency (make lab EXP=irq-poll); linux-perf
# samples where a bench run's CPU time goes (make bench BENCH_ARGS=--profile).
BASE_PKGS=(
	linux-source-6.12 qemu-system-x86 busybox-static cmake make gcc g++
	libmnl-dev libnl-3-dev libnl-genl-3-dev libnl-route-3-dev
	libgtest-dev dkms kmod ethtool iproute2 iperf3 socat iputils-ping rsync
	python3 python3-yaml python3-jsonschema flex bison bc libelf-dev libssl-dev
	dwarves zstd xz-utils cpio clang-format clang-tidy pkg-config jq procps
	debian-archive-keyring nlohmann-json3-dev mandoc bash-completion
	python3-matplotlib tmux sockperf linux-perf
)

stamp_dir=${REFNIC_BUILD:-$here/../build}
mkdir -p "$stamp_dir"

missing=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

newest_kver() {
	apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		awk '{print $1}' | sed -e 's/^linux-image-//' -e 's/-unsigned$//' |
		sort -V | tail -n1
}

updated=0
apt_update() {
	[ "$updated" -eq 1 ] && return
	$SUDO apt-get update -qq
	updated=1
}

kver=$(newest_kver || true)
if [ -z "$kver" ]; then
	apt_update
	kver=$(newest_kver)
fi
[ -n "$kver" ] || { echo "deps: no linux-image-6.12.*+deb12-amd64-unsigned in the package index" >&2; exit 1; }

for p in "${BASE_PKGS[@]}" "linux-image-$kver-unsigned" "linux-headers-$kver"; do
	have "$p" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	apt_update
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "$kver" > "$stamp_dir/kver"
echo "deps: ok (kernel $kver)"
[ "$series" = 6.12 ] || exec "$here/deps-$series.sh"
