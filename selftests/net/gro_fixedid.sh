#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Hardware GRO and the IPv4 ID: a coalesced run must leave the stack able
# to cut it into the segments that came off the wire, IDs included. A run
# whose IPv4 IDs are all the same (fixed, with DF) is merged, and the
# driver marks its skb SKB_GSO_TCP_FIXEDID as tcp4_gro_complete() would;
# without the flag GSO would give the segments IDs counting up from the
# first. Checked by forwarding: B forwards A's segments to C over a veth
# with TSO off, so GSO segments B's aggregate again in software, and a
# packet socket on C (GRO off there) sees the segments:
#   - a run of 8 segments with fixed IDs (0x1234, DF) from a packet socket
#     on A: B's queue merges it (hw_gro_packets +1, hw_gro_wire_packets
#     +8), and C gets 8 segments, every one with ID 0x1234, the payload
#     and sequence numbers as sent;
#   - the same with IDs counting up: merged, and C gets 0x1234 to 0x123b.
set -u
. "$(dirname "$0")/lib_net.sh"

SEGS=8
ID=0x1234
V4_BC=198.51.100.1
V4_C=198.51.100.2
NS_C=rfc-$$
VETH_B=vb$$
VETH_C=vc$$

ktap_print_header
net_init
net_setup
net_quiet_v6
net_static_neigh
etB() { ip netns exec "$NS_B" ethtool "$@"; }
sumB() { net_equeue_sum "$NS_B" "$DEV_B" rx "$1"; }
pdev=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
DRV=/sys/kernel/debug/refnic/drv-$pdev
[ -w "$DRV/hw_gro_timeout_us" ] || net_skip_all "no refnic debugfs at $DRV"
ktap_set_plan 6
net_settle

# C behind B: a veth whose B end segments in software (TSO off) and whose C
# end does no GRO, so that C's packet socket sees each segment.
setup_c() {
	local mac_c
	NET_CLEANUP+=("ip netns del '$NS_C'")
	ip netns add "$NS_C" &&
		ip -n "$NS_B" link add "$VETH_B" type veth peer name "$VETH_C" netns "$NS_C" &&
		net_batch -n "$NS_B" <<-EOF &&
		addr add $V4_BC/24 dev $VETH_B
		link set $VETH_B up
		EOF
		net_batch -n "$NS_C" <<-EOF &&
		addr add $V4_C/24 dev $VETH_C
		link set $VETH_C up
		link set lo up
		EOF
		etB -K "$VETH_B" tso off gso on >/dev/null &&
		ip netns exec "$NS_C" ethtool -K "$VETH_C" gro off >/dev/null &&
		ip netns exec "$NS_B" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$DEV_B.rp_filter=0" &&
		mac_c=$(ip netns exec "$NS_C" cat "/sys/class/net/$VETH_C/address") &&
		ip -n "$NS_B" neigh replace "$V4_C" lladdr "$mac_c" dev "$VETH_B" nud permanent &&
		# B merges in hardware only, and keeps a context open for 1 s of
		# quiet and 1 s in all (the defaults, 50 and 500 us, end it between
		# two of A's sends under TCG); A's run ends with PSH, which closes it.
		etB -K "$DEV_B" gro off rx-gro-hw on >/dev/null &&
		gro_window hw_gro_idle_us && gro_window hw_gro_timeout_us
}
# gro_window FILE: B's driver debugfs FILE at 1 s, put back at the end.
gro_window() {
	local saved
	saved=$(cat "$DRV/$1") &&
		NET_CLEANUP+=("echo '$saved' >'$DRV/$1'") &&
		echo 1000000 >"$DRV/$1"
}
ktap_test_result "C behind B: a veth with TSO off on B's end, forwarding on B" setup_c

MAC_A=$(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/address")
MAC_B=$(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/address")
# send_run MODE: A sends a run of SEGS segments with IPv4 IDs MODE (fixed
# or inc) while C captures them; sets RUNS and SEGS_MERGED (B's hardware
# GRO counters' moves) and CAPTURE (the capture's JSON).
send_run() {
	local r0 s0
	rm -f "$NET_TMP/cap.ready"
	net_bg cap net_tool "$NS_C" tcp4-capture --dev "$VETH_C" --count "$SEGS" \
		--ready "$NET_TMP/cap.ready" --timeout $((30 * NET_SCALE))
	net_wait_file "$NET_TMP/cap.ready" 30 || { net_bg_show cap; return 1; }
	r0=$(sumB hw_gro_packets) s0=$(sumB hw_gro_wire_packets)
	net_tool "$NS_A" tcp4-run --dev "$DEV_A" --src-mac "$MAC_A" --dst-mac "$MAC_B" \
		--src "$V4_A" --dst "$V4_C" --segs "$SEGS" --ipid "$1" --id "$ID" >/dev/null ||
		return 1
	net_bg_wait cap 60
	CAPTURE=$(cat "$NET_TMP/cap.out")
	RUNS=$(($(sumB hw_gro_packets) - r0))
	SEGS_MERGED=$(($(sumB hw_gro_wire_packets) - s0))
	net_msg "IDs $1: B merged $RUNS runs of $SEGS_MERGED segments; C captured $CAPTURE"
}
# merged: B's queue merged the run whole. resegmented MODE: C got every
# segment, its payload and sequence number as sent, with the IDs MODE says.
merged() { [ "$RUNS" -eq 1 ] && [ "$SEGS_MERGED" -eq "$SEGS" ]; }
resegmented() {
	python3 - "$1" "$CAPTURE" "$SEGS" "$ID" <<-'EOF'
	import json, sys
	mode, cap, segs, first = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4], 0)
	want = [first if mode == 'fixed' else (first + i) & 0xffff for i in range(segs)]
	ok = cap['bad'] == 0 and cap['ids'] == want and \
	    cap['seqs'] == [1000 + i * 1000 for i in range(segs)] and cap['lens'] == [1000] * segs
	sys.exit(0 if ok else 1)
	EOF
}

if send_run fixed; then
	ktap_test_result "$SEGS segments with a fixed IPv4 ID (DF): merged into one run" merged
	ktap_test_result "forwarded and segmented again: every segment keeps ID $ID" resegmented fixed
else
	ktap_test_fail "$SEGS segments with a fixed IPv4 ID (DF): merged into one run"
	ktap_test_fail "forwarded and segmented again: every segment keeps ID $ID"
fi
if send_run inc; then
	ktap_test_result "$SEGS segments with IPv4 IDs counting up: merged into one run" merged
	ktap_test_result "forwarded and segmented again: IDs count up from $ID" resegmented inc
else
	ktap_test_fail "$SEGS segments with IPv4 IDs counting up: merged into one run"
	ktap_test_fail "forwarded and segmented again: IDs count up from $ID"
fi
net_health_test
ktap_finished
