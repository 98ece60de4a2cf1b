#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel-bypass queues (/dev/refnic) over a refnic pair: runs the ABI,
# data, hostile-ring and teardown tests of selftests/net/bypass.c (built to
# build/selftests/net/bypass) in port B's namespace, one KTAP result per
# test. Port B has 4 queue pairs and an ntuple rule sending UDP to port
# 9000 to queue 1, the queue the tests bind.
set -u
. "$(dirname "$0")/lib_net.sh"

BIN=${REFNIC_BYPASS_BIN:-$REFNIC_REPO/build/selftests/net/bypass}

ktap_print_header
[ -x "$BIN" ] || net_skip_all "no $BIN (make selftests)"
net_init
[ -c /dev/refnic ] || net_bail "refnic is loaded but /dev/refnic is missing"
net_setup queues 4
net_static_neigh
ip netns exec "$NS_B" ethtool -N "$DEV_B" flow-type udp4 dst-port 9000 action 1 >/dev/null ||
	net_bail "ethtool -N: cannot steer UDP port 9000 to queue 1"

mapfile -t tests < <("$BIN" -l 2>&1 | awk '!/^#/ && NF { print $NF }')
[ "${#tests[@]}" -gt 0 ] || net_bail "$BIN -l lists no tests"
ktap_set_plan "${#tests[@]}"

export BP_DEV=$DEV_B BP_NS_PEER=$NS_A BP_QUEUE=1 BP_QUEUES=4 BP_PORT=9000
export BP_V4_A=$V4_A BP_V4_B=$V4_B
BP_MAC_A=$(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/address")
BP_MAC_B=$(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/address")
export BP_MAC_A BP_MAC_B

for t in "${tests[@]}"; do
	out=$(ip netns exec "$NS_B" "$BIN" -t "$t" 2>&1)
	rc=$?
	grep -E '^#' <<<"$out" | grep -vE '^# +(PASS|OK)|^# (FAILED|Totals)' || true
	[ $rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
	ktap_test_result "$t" [ $rc -eq 0 ]
done

ktap_finished
