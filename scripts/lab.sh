#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make lab EXP=NAME`: boot the VM, load refnic and run one experiment of
# scripts/lab-guest.py (a lesson of NIC datapath design: its sweep, table,
# verdict and plot). Results in build/lab/NAME.json and NAME.svg. On a host
# with refnic loaded, run scripts/lab-guest.py as root instead.
#
#   scripts/lab.sh NAME [--rounds N] [--secs N]   (--list: the experiments;
#   --check NAME: only whether NAME is one, for make)
#
# The kernel is the series $REFNIC_KERNEL names (make sets it from KERNEL);
# REFNIC_VM_TCG_THREAD=multi gives each vCPU a host thread of its own
# (default single: both vCPUs on one, so a vCPU that spins slows the other).
# An experiment may need another VM (lab-guest.py --vm-shape NAME: vm.sh's
# --cpus and --numa, and --tcg for the thread mode): placement boots two
# NUMA nodes of three CPUs, each a host thread.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${REFNIC_BUILD:-$repo/build}
guest=$repo/scripts/lab-guest.py
# The name is checked here, before a VM boots for nothing.
case ${1:-} in
'' | -h | --help | --list) exec python3 "$guest" "$@" ;;
esac
check=0
[ "$1" != --check ] || { check=1 && shift; }
exp=${1:-}
shift || true
python3 "$guest" --list | awk -v e="$exp" '$1 == e { f = 1 } END { exit !f }' || {
	echo "lab: unknown experiment '$exp'; known: $(python3 "$guest" --list | awk '{ print $1 }' | paste -sd, | sed 's/,/, /g')" >&2
	exit 2
}
[ "$check" = 0 ] || exit 0
kinfo=$("$repo/scripts/kernel.sh") || exit 2
eval "$kinfo"
out=$build/lab
mkdir -p "$out"
shape=()
tcg=${REFNIC_VM_TCG_THREAD:-single}
read -r -a want < <(python3 "$guest" --vm-shape "$exp")
while [ "${#want[@]}" -ge 2 ]; do
	case ${want[0]} in
	--tcg) tcg=${want[1]} ;;
	*) shape+=("${want[0]}" "${want[1]}") ;;
	esac
	want=("${want[@]:2}")
done
rm -f "$out/$exp.json" "$out/$exp.svg"
echo "lab: $exp on kernel $KERNEL ($KVER), $KO${shape[*]:+; VM ${shape[*]}}, TCG $tcg-threaded" >&2
# A hang guard: each experiment is meant to take at most 10 minutes.
REFNIC_VM_TCG_THREAD=$tcg "$repo/scripts/vm/vm.sh" --series "$KERNEL" \
	--timeout "${REFNIC_LAB_TIMEOUT:-1200}" "${shape[@]}" \
	--out "$out" --env "MPLCONFIGDIR=$out/.matplotlib" \
	--env "REFNIC_VM_TCG_THREAD=$tcg" --env "IP_LIB_DIR=$build/iproute2" \
	--setup "insmod $KO" \
	run -- python3 "$guest" "$exp" --out "$out" "$@"
