#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Leaves a refnic pair up in the initial namespace and exits 0: its page
# pools outlive the test, which the harness's leak check must fail.
. "$(dirname "$0")/../../lib.sh"
refnic_load || exit 1
ip link add rleak0 type refnic queues 1 peer name rleak1 || exit 1
ip link set rleak0 up && ip link set rleak1 up || exit 1
echo "ok 1 a pair left up"
