#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: boot the VM with Debian's 6.12 kernel and show refnic at work:
# a pair carrying traffic, its per-queue counters and interrupts
# (scripts/demo-guest.sh does the showing).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
exec "$repo/scripts/vm/vm.sh" --timeout 300 \
	--env IP_LIB_DIR="$repo/build/iproute2" \
	run -- "$repo/scripts/demo-guest.sh" "$repo"
