#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: boot the VM, load refnic and measure a refnic pair against a
# veth pair side by side (TCP at MTU 1500 and 9000, 64 B UDP packet rate,
# interrupts per packet); scripts/bench-guest.py does the measuring and
# prints the table. A measurement, not a test: it exits 0 whenever it ran,
# whatever the numbers.
#
#   scripts/bench.sh [--cpus N] [--mem MB] [--baseline OLD.json]
#                    [--module KO] [bench-guest.py run options]
#   e.g. scripts/bench.sh --rounds 5 --secs 6 --workloads udp-64
#
# The run's results go to build/bench/bench.json; scripts/bench-report.py
# then prints the paired table again (beside --baseline's, an earlier
# run's bench.json, when given) and draws it: build/bench/bench.svg. Exits
# with the VM's status, or 1 if only the report failed. --module benches a
# refnic.ko built elsewhere (another worktree's) for the same kernel.
#
# Under TCG only the ratios mean anything: absolute numbers are 20-50x
# below native. The kernel is the series $REFNIC_KERNEL names (make sets it
# from KERNEL; default: the Makefile's), with refnic.ko built for it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${REFNIC_BUILD:-$repo/build}
kinfo=$("$repo/scripts/kernel.sh") || exit 2
eval "$kinfo"
vmopts=() guest=() baseline=''
# --cpus, --mem (the VM's), --baseline (the report's) and --module anywhere
# on the line; the rest goes to bench-guest.py.
while [ $# -gt 0 ]; do
	case $1 in
	--cpus | --mem | --baseline | --module)
		[ $# -ge 2 ] || { echo "bench.sh: $1 needs an argument" >&2; exit 2; }
		set -- "$1=$2" "${@:3}"
		continue
		;;
	--cpus=* | --mem=*) vmopts+=("${1%%=*}" "${1#*=}") ;;
	--baseline=*)
		baseline=$(realpath -e -- "${1#*=}" 2>/dev/null) && [ -r "$baseline" ] ||
			{ echo "bench.sh: cannot read the baseline ${1#*=}" >&2; exit 2; }
		;;
	--module=*)
		KO=$(realpath -e -- "${1#*=}" 2>/dev/null) && [ -r "$KO" ] ||
			{ echo "bench.sh: cannot read the module ${1#*=}" >&2; exit 2; }
		;;
	*) guest+=("$1") ;;
	esac
	shift
done

# The bypass plot (bypass-batch.svg) comes back through a writable share.
out=$build/bench
mkdir -p "$out"
# This run's results replace the last one's: a baseline kept there is
# copied aside first.
if [ "$baseline" = "$(realpath -m "$out/bench.json")" ]; then
	cp "$baseline" "$out/baseline.json"
	baseline=$out/baseline.json
fi
rm -f "$out/bench.json" "$out/bench.svg"
echo "bench: kernel $KERNEL ($KVER), $KO" >&2
# A hang guard, not a budget: on a host also running two VMs and a kernel
# build the bench was still in its bypass sweep after 1500 s (7.3, 2026-11-27).
rc=0
"$repo/scripts/vm/vm.sh" --series "$KERNEL" --timeout "${REFNIC_BENCH_TIMEOUT:-3600}" \
	--out "$out" --env "REFNIC_BENCH_OUT=$out" --env "MPLCONFIGDIR=$out/.matplotlib" \
	--env "REFNIC_VM_TCG_THREAD=${REFNIC_VM_TCG_THREAD:-single}" --env "IP_LIB_DIR=$build/iproute2" "${vmopts[@]}" \
	--setup "insmod $KO" \
	run -- python3 "$repo/scripts/bench-guest.py" run "${guest[@]}" || rc=$?
if [ -s "$out/bench.json" ]; then
	echo
	# Debian's interpreter: the one python3-matplotlib (make deps) is for.
	/usr/bin/python3 "$repo/scripts/bench-report.py" "$out/bench.json" --plot "$out/bench.svg" \
		${baseline:+--baseline "$baseline"} || { [ "$rc" -ne 0 ] || rc=1; }
fi
exit "$rc"
