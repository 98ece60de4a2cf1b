#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints a failing KTAP line but exits 0, as run_kselftest.sh does: the
# harness must read the output, not only the exit code.
echo "TAP version 13"
echo "1..2"
echo "ok 1 first subtest"
echo "not ok 2 planted failing subtest"
exit 0
