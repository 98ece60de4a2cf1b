#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: boot the VM with Debian's 6.12 kernel, load refnic and show it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
exec "$repo/scripts/vm/vm.sh" --timeout 300 run -- bash -c '
set -e
ko='"$repo"'/kmod/refnic.ko
echo "== kernel: $(uname -r)"
echo "== modinfo $ko"
modinfo "$ko" | grep -E "^(version|license|description|vermagic):"
echo "== insmod"
insmod "$ko"
grep "^refnic " /proc/modules
ls -d /sys/module/refnic /sys/kernel/debug/refnic
echo "== rmmod"
rmmod refnic
echo "== kernel log"
dmesg | tail -n 5
'
