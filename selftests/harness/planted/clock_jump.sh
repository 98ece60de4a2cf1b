#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The guest's clock jumps five days ahead during the first attempt, as when
# the host pauses under TCG: the harness must void that attempt, run the
# test again in a fresh VM and report the second attempt (a pass).
echo "TAP version 13"
echo "1..1"
if [ "${REFNIC_TEST_ATTEMPT:-1}" = 1 ]; then
	date -s "@$(($(date +%s) + 5 * 86400))" > /dev/null || exit 1
fi
echo "ok 1 planted clock jump, attempt ${REFNIC_TEST_ATTEMPT:-1}"
