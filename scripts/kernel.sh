#!/usr/bin/env bash
# shellcheck disable=SC2034 # the variables are printed through ${!v}
# SPDX-License-Identifier: GPL-2.0
#
# Which kernel refnic is built for and tested on: the one place that maps a
# kernel series to its files. Every script and the Makefile ask here, so one
# variable (make's KERNEL, the scripts' REFNIC_KERNEL) picks the kernel.
#
#   kernel.sh [SERIES]             print shell assignments (eval them)
#   kernel.sh --get VAR [SERIES]   print one value
#   kernel.sh --check [SERIES]     only validate SERIES
#   kernel.sh --list               the supported series, one a line
#
# SERIES defaults to $REFNIC_KERNEL, else to the Makefile's default line
# (`KERNEL ?= ...`, the one place the default is written down). A series
# that is not supported fails with one line naming the supported ones.
#
# Variables (absolute paths):
#   KERNEL   the series (6.12, 7.3)
#   KVER     its kernel release, e.g. 6.12.117+deb12-amd64
#   KDIR     kbuild tree to build modules against (make -C KDIR M=...)
#   KSRC     its unpacked kernel source
#   VMLINUX  ELF vmlinux the VM boots (scripts/vm/vm.sh extracts it from
#            VMLINUZ when missing or older)
#   VMLINUZ  Debian's bzImage
#   MODULES  its modules tree, the dir holding modules.dep
#   KMOD_BUILD  where refnic's sources are copied and built for it
#   KO       refnic.ko built for it (KMOD_BUILD/kmod/refnic.ko)
#   STAMP    exists once `make deps KERNEL=SERIES` has set the kernel up
#   DEBUG_OUT   the debug kernel scripts/debug-kernel.sh --kernel SERIES
#               builds (vmlinux, modules, kdir, kernelrelease in there)
#   DEBUG_KMOD_BUILD, DEBUG_KO  refnic's copy and refnic.ko built for it
# KERNEL, KMOD_BUILD, KO, STAMP and the DEBUG_* never depend on the
# release, so
# --get of those works before `make deps`; the others fail with one line
# saying to run it.
#
# 6.12 is Debian 12's own kernel, installed as packages by scripts/deps.sh.
# 7.3 comes from trixie-backports, fetched and set up under
# build/kernels/7.3/ by scripts/deps-7.3.sh without touching the host's
# packages.
set -euo pipefail

prog=kernel.sh
supported=(6.12 7.3)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
build=$(realpath -m "${REFNIC_BUILD:-$repo/build}")

# die MESSAGE [STATUS]: one line on stderr; 1 = not set up, 2 = bad usage
die() {
	echo "$prog: $1" >&2
	exit "${2:-1}"
}

get='' check=0
while [ $# -gt 0 ]; do
	case $1 in
	--get)
		[ $# -ge 2 ] || die "--get needs a variable name" 2
		get=$2
		shift 2
		;;
	--check) check=1 && shift ;;
	--list) printf '%s\n' "${supported[@]}" && exit 0 ;;
	-h | --help) sed -n '5,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' && exit 0 ;;
	-*) die "unknown option $1" 2 ;;
	*) break ;;
	esac
done
[ $# -le 1 ] || die "one series at most, got: $*" 2

series=${1:-${REFNIC_KERNEL:-}}
if [ -z "$series" ]; then
	series=$(sed -n 's/^KERNEL ?= *\([^ #]*\).*/\1/p' "$repo/Makefile")
	[ -n "$series" ] || die "no 'KERNEL ?= SERIES' line in $repo/Makefile"
fi
ok=0
for s in "${supported[@]}"; do [ "$s" = "$series" ] && ok=1; done
[ "$ok" = 1 ] || die "unsupported kernel '$series'; supported: ${supported[*]}" 2
[ "$check" = 0 ] || exit 0

KERNEL=$series
KMOD_BUILD=$build/kmod/$series
KO=$KMOD_BUILD/kmod/refnic.ko
DEBUG_KMOD_BUILD=$KMOD_BUILD-debug
DEBUG_KO=$DEBUG_KMOD_BUILD/kmod/refnic.ko
case $series in
6.12)
	STAMP=$build/kver
	DEBUG_OUT=$build/debug-kernel # its original path
	;;
*)
	STAMP=$build/kernels/$series/stamp
	DEBUG_OUT=$build/debug-kernel-$series
	;;
esac

fixed=(KERNEL KMOD_BUILD KO STAMP DEBUG_OUT DEBUG_KMOD_BUILD DEBUG_KO)
if [[ " ${fixed[*]} " == *" $get "* ]]; then
	echo "${!get}"
	exit 0
fi

case $series in
6.12)
	[ -s "$build/kver" ] || die "kernel 6.12 is not set up (run make deps KERNEL=6.12)"
	KVER=$(<"$build/kver")
	KDIR=/lib/modules/$KVER/build
	KSRC=$build/linux-source # scripts/kernel-source.sh
	VMLINUZ=/boot/vmlinuz-$KVER
	VMLINUX=$build/vm/vmlinux-$KVER
	MODULES=/lib/modules/$KVER
	;;
*)
	# Layout written by scripts/deps-7.3.sh (see there).
	kdir=$build/kernels/$series
	[ -s "$kdir/kver" ] || die "kernel $series is not set up (run make deps KERNEL=$series)"
	KVER=$(<"$kdir/kver")
	KDIR=$kdir/kdir
	KSRC=$kdir/linux-source
	VMLINUZ=$kdir/root/usr/lib/modules/$KVER/vmlinuz
	VMLINUX=$kdir/vmlinux
	MODULES=$kdir/modules-root/lib/modules/$KVER
	;;
esac

vars=(KVER KDIR KSRC VMLINUX VMLINUZ MODULES "${fixed[@]}")
if [ -n "$get" ]; then
	[[ " ${vars[*]} " == *" $get "* ]] || die "unknown variable '$get' (one of: ${vars[*]})" 2
	echo "${!get}"
	exit 0
fi
for v in "${vars[@]}"; do
	printf '%s=%q\n' "$v" "${!v}"
done
