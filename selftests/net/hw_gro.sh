#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Hardware GRO (`ethtool -K DEV rx-gro-hw on`): the device coalesces
# back-to-back in-order TCP segments of a flow into one completion, and the
# driver hands the stack one GSO skb for the run. Checked on B:
#   - off by default, and switchable;
#   - 64 MiB of TCP over IPv4 and over IPv6 arrive byte for byte with it on,
#     runs are merged (rxN_hw_gro_wire_packets > rxN_hw_gro_packets) and
#     fewer packets reach the stack than frames came off the wire;
#   - the same for 64 MiB over an IP-in-IP tunnel between A and B: the
#     device merges the tunnelled segments and B's ipip device hands the
#     inner TCP stream on intact;
#   - with header split on too, merged segments take no header slot: fewer
#     headers split than frames on the wire;
#   - with it off, nothing is merged and the data is still intact.
set -u
. "$(dirname "$0")/lib_net.sh"

BYTES=$((64 << 20))

ktap_print_header
net_init
ktap_set_plan 9
net_setup queues 2
net_quiet_v6
net_static_neigh
sleep 1

etB() { ip netns exec "$NS_B" ethtool "$@"; }
sumB() { net_equeue_sum "$NS_B" "$DEV_B" rx "$1"; }
gro_state() { etB -k "$DEV_B" | awk -F': ' '$1 == "rx-gro-hw" { print $2 }'; }

ktap_test_result "rx-gro-hw is off by default" [ "$(gro_state)" = off ]
gro_on() { etB -K "$DEV_B" rx-gro-hw on && [ "$(gro_state)" = on ]; }
ktap_test_result "ethtool -K rx-gro-hw on" gro_on

want_sha=$(net_sha "$BYTES" 4)
# run NAME ADDR: a verified transfer A -> B with B's counters around it;
# sets WIRE (frames), SKBS (packets the stack got), RUNS, SEGS (segments in
# runs), SPLIT.
run() {
	local p0 r0 s0 h0 rc=0
	p0=$(sumB packets) r0=$(sumB hw_gro_packets) s0=$(sumB hw_gro_wire_packets) h0=$(sumB hds_split)
	net_tcp_start "$1" "$NS_A" "$NS_B" "$2" "$BYTES" 5201 4 && net_tcp_wait "$1" 600 &&
		[ "$NET_TCP_SHA" = "$want_sha" ] || rc=1
	# rxN_packets counts frames off the wire, a run's segments each.
	WIRE=$(($(sumB packets) - p0))
	RUNS=$(($(sumB hw_gro_packets) - r0))
	SEGS=$(($(sumB hw_gro_wire_packets) - s0))
	SPLIT=$(($(sumB hds_split) - h0))
	SKBS=$((WIRE - SEGS + RUNS))
	net_msg "$1: $SKBS packets to the stack, $WIRE frames on the wire, $RUNS runs of $SEGS segments, $SPLIT headers split"
	return "$rc"
}
merged() { run "$@" && [ "$RUNS" -gt 0 ] && [ "$SEGS" -gt "$RUNS" ] && [ "$SKBS" -lt "$WIRE" ]; }

ktap_test_result "TCP/IPv4 64 MiB intact, runs merged, fewer packets than frames" merged v4 "$V4_B"
ktap_test_result "TCP/IPv6 64 MiB intact, runs merged, fewer packets than frames" merged v6 "$V6_B"

# ipip0 in both namespaces, 10.99.0.1 (A) and .2 (B) over the pair.
ipip() {
	local ns l r a
	for ns in A B; do
		if [ $ns = A ]; then
			l=$V4_A r=$V4_B a=10.99.0.1/30
		else
			l=$V4_B r=$V4_A a=10.99.0.2/30
		fi
		ns=NS_$ns
		ip netns exec "${!ns}" ip link add ipip0 type ipip local "$l" remote "$r" &&
			ip netns exec "${!ns}" ip addr add "$a" dev ipip0 &&
			ip netns exec "${!ns}" ip link set ipip0 up || return 1
	done
	merged ipip 10.99.0.2
}
ktap_test_result "TCP over IPIP 64 MiB intact, runs merged, fewer packets than frames" ipip

hds() {
	etB -G "$DEV_B" tcp-data-split on && merged hds "$V4_B" && [ "$SPLIT" -lt "$WIRE" ]
}
ktap_test_result "with header split: intact, merged segments take no header slot" hds

off() {
	etB -K "$DEV_B" rx-gro-hw off && [ "$(gro_state)" = off ] && run off "$V4_B" && [ "$RUNS" -eq 0 ]
}
ktap_test_result "rx-gro-hw off: 64 MiB intact, nothing merged" off
needs_rxcsum() {
	local r=0
	etB -K "$DEV_B" rx-gro-hw on rx off >/dev/null 2>&1
	[ "$(gro_state)" != on ] || r=1
	etB -K "$DEV_B" rx on >/dev/null 2>&1
	return "$r"
}
ktap_test_result "rx-gro-hw needs rx-checksumming (the core drops it)" needs_rxcsum
net_health_test
ktap_finished
