#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# librefnic's live GoogleTest suite (family resolution, extack errors,
# ethtool rings, multicast) against the VM's 6.12 kernel rather than the
# build host's.
set -u
repo=${REFNIC_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
exec "$repo/build/cmake/lib/tests/refnic_live_test" --gtest_brief=1
