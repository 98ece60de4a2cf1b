#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Loads a module that WARNs, then exits 0: the kernel log must fail it.
repo=$(cd "$(dirname "$0")/../../.." && pwd)
insmod "$repo/selftests/harness/planted_warn/refnic_planted_warn.ko" || exit 1
rmmod refnic_planted_warn
echo "ok 1 loaded and unloaded"
