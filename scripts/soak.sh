#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make soak`: selftests/net/soak.sh alone in the VM, for SOAK_MINUTES
# (default 10) with SOAK_SEED (default: a new one, printed) and SOAK_KINDS
# (default: every kind; net/soak.sh). KERNEL picks the
# kernel as everywhere; DEBUG=1 runs it on that kernel's debug build (KASAN,
# lockdep, kmemleak; `make check-debug` builds it and refnic for it), with
# the harness's timeouts scaled 6x as there, and SOAK_MIN 1 unless set.
#
#   soak.sh [--kernel SERIES] [--debug]
#
# The test's KTAP, its table and its kernel log go to build/soak/SERIES[-debug].
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
series='' debug=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) series=$2 && shift ;;
	--debug) debug=1 ;;
	*) echo "soak.sh: unknown argument '$1' (--kernel SERIES, --debug)" >&2 && exit 2 ;;
	esac
	shift
done
kinfo=$("$repo/scripts/kernel.sh" ${series:+"$series"}) || exit 2
eval "$kinfo"
export SOAK_MINUTES=${SOAK_MINUTES:-10}
[ -z "${SOAK_SEED:-}" ] || export SOAK_SEED
[ -z "${SOAK_KINDS:-}" ] || export SOAK_KINDS
out=$repo/build/soak/$KERNEL
args=(--series "$KERNEL")
if [ "$debug" = 1 ]; then
	out=$out-debug
	[ -f "$DEBUG_KO" ] || { echo "soak.sh: no $DEBUG_KO: make check-debug KERNEL=$KERNEL builds it" >&2; exit 2; }
	args+=(--kernel "$DEBUG_OUT/vmlinux" --modules "$DEBUG_OUT/modules" --module "$DEBUG_KO" --timeout-scale 6)
	# A round of 20 operations takes an hour or more there (about 5 minutes
	# an operation beside two other VMs), so ten minutes of schedule is one
	# round: ask each kind once, unless told
	# (rounds start until SOAK_MINUTES are over: SOAK_MINUTES=60 SOAK_MIN=2
	# gives two or three).
	export SOAK_MIN=${SOAK_MIN:-1}
fi
mkdir -p "$out"
# The schedule runs SOAK_MINUTES and finishes its round; the reload and the
# checks follow. The harness's limit leaves room for both, and scales it
# on the debug kernel, where one round alone can outlast SOAK_MINUTES
# many times over.
echo "net/soak.sh $((SOAK_MINUTES * 120 + 900))" >"$out/TESTS"
echo "soak: $SOAK_MINUTES minutes on $(basename "$out"), results in $out"
"$repo/selftests/harness/run.sh" "${args[@]}" --list "$out/TESTS" --out "$out/run"
