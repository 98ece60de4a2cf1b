#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Loads the planted module so that it oopses (insmod is killed), then waits
# far longer than its timeout: the harness must end it at the oops, and run
# the tests after it in a fresh VM.
repo=$(cd "$(dirname "$0")/../../.." && pwd)
insmod "$repo/selftests/harness/planted_warn/refnic_planted_warn.ko" oops=1
sleep 100000
