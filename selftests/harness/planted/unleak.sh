#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Deletes what leak.sh left, so that the tests after it start clean.
ip link del rleak0 || exit 1
echo "ok 1 the pair left by leak.sh deleted"
