#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: boot the VM with Debian's kernel of the series $REFNIC_KERNEL
# names (make sets it from KERNEL; default: the Makefile's) and show refnic,
# built for it, at work: a pair carrying traffic, its per-queue counters and
# interrupts (scripts/demo-guest.sh does the showing).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
kinfo=$("$repo/scripts/kernel.sh") || exit 2
eval "$kinfo"
exec "$repo/scripts/vm/vm.sh" --series "$KERNEL" --timeout 300 \
	--env IP_LIB_DIR="$repo/build/iproute2" --env REFNIC_KO="$KO" \
	--env REFNIC_KERNEL="$KERNEL" \
	run -- "$repo/scripts/demo-guest.sh" "$repo"
