#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ICMP echo over a refnic pair, IPv4 and IPv6, in both directions: every
# echo is answered, and the packet and byte counters (ip -s link) of both
# ports move by at least what the pings put on the wire, what one port sent
# being what the other received. Then fragmented IPv4 (4000-byte echoes at
# MTU 1500) and jumbo frames (MTU 9000, DF set, a frame spanning several RX
# buffers) both ways.
set -u
. "$(dirname "$0")/lib_net.sh"

COUNT=20

ktap_print_header
net_init
ktap_set_plan 8
net_setup queues 2
net_quiet_v6

# snap: "A_tx A_rx B_tx B_rx" packets and bytes, from ip -s link.
snap() {
	local f
	for f in tx_packets rx_packets tx_bytes rx_bytes; do
		printf '%s %s ' "$(net_link_stat "$NS_A" "$DEV_A" "$f")" \
			"$(net_link_stat "$NS_B" "$DEV_B" "$f")"
	done
}

# ping_check NAME NS_FROM DEV_FROM DST FRAME_BYTES COUNT [ping options]:
# all answered, counters moved by at least COUNT packets and COUNT *
# FRAME_BYTES bytes each way on both ends, and the sender's TX equals the
# receiver's RX (within 2 stray packets: a neighbour probe may cross a
# snapshot).
ping_check() {
	local name=$1 ns=$2 dst=$4 frame=$5 count=$6 out rcvd ok=0
	shift 6
	local -a b a
	read -r -a b <<<"$(snap)"
	out=$(ip netns exec "$ns" ping -q -n -c "$count" -i 0.05 -W 10 "$@" "$dst" 2>&1)
	net_settle
	read -r -a a <<<"$(snap)"
	rcvd=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$out")
	# indices: 0 A_txp 1 B_txp 2 A_rxp 3 B_rxp 4 A_txb 5 B_txb 6 A_rxb 7 B_rxb
	local d=() i
	for i in 0 1 2 3 4 5 6 7; do d[i]=$((a[i] - b[i])); done
	net_msg "$name: $rcvd/$count answered; packets A tx ${d[0]} rx ${d[2]}, B tx ${d[1]} rx ${d[3]}; bytes A tx ${d[4]} rx ${d[6]}, B tx ${d[5]} rx ${d[7]}"
	if [ "${rcvd:-0}" -ne "$count" ]; then
		net_msg "$name: ping: $out"
		ok=1
	fi
	for i in 0 1 2 3; do
		[ "${d[i]}" -ge "$count" ] || { net_msg "$name: packet counter $i moved ${d[i]} < $count"; ok=1; }
	done
	for i in 4 5 6 7; do
		[ "${d[i]}" -ge $((count * frame)) ] ||
			{ net_msg "$name: byte counter $i moved ${d[i]} < $((count * frame))"; ok=1; }
	done
	# A's TX is B's RX and the other way round.
	if [ $((d[0] - d[3])) -gt 2 ] || [ $((d[3] - d[0])) -gt 2 ] ||
		[ $((d[1] - d[2])) -gt 2 ] || [ $((d[2] - d[1])) -gt 2 ]; then
		net_msg "$name: TX of one end differs from RX of the other"
		ok=1
	fi
	return "$ok"
}

# Frame sizes on the wire (Ethernet header, no FCS): 56-byte echo payload.
ktap_test_result "IPv4 ping A -> B" ping_check v4-ab "$NS_A" "$DEV_A" "$V4_B" 98 "$COUNT"
ktap_test_result "IPv4 ping B -> A" ping_check v4-ba "$NS_B" "$DEV_B" "$V4_A" 98 "$COUNT"
ktap_test_result "IPv6 ping A -> B" ping_check v6-ab "$NS_A" "$DEV_A" "$V6_B" 118 "$COUNT"
ktap_test_result "IPv6 ping B -> A" ping_check v6-ba "$NS_B" "$DEV_B" "$V6_A" 118 "$COUNT"
# 4000 bytes at MTU 1500: three fragments each way per echo.
ktap_test_result "fragmented IPv4 ping (4000 bytes, MTU 1500)" \
	ping_check frag "$NS_A" "$DEV_A" "$V4_B" 4042 10 -s 4000

mtu_ok=1
ip -n "$NS_A" link set "$DEV_A" mtu 9000 || mtu_ok=0
ip -n "$NS_B" link set "$DEV_B" mtu 9000 || mtu_ok=0
if [ "$mtu_ok" = 1 ]; then
	ktap_test_result "jumbo IPv4 ping A -> B (MTU 9000, DF)" \
		ping_check jumbo-v4 "$NS_A" "$DEV_A" "$V4_B" 9014 10 -M "do" -s 8972
	ktap_test_result "jumbo IPv6 ping B -> A (MTU 9000, DF)" \
		ping_check jumbo-v6 "$NS_B" "$DEV_B" "$V6_A" 9014 10 -M "do" -s 8952
else
	ktap_test_fail "jumbo IPv4 ping A -> B (MTU 9000, DF): cannot set MTU 9000"
	ktap_test_fail "jumbo IPv6 ping B -> A (MTU 9000, DF): cannot set MTU 9000"
fi
net_health_test
ktap_finished
