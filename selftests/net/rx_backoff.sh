#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The RX refill backs off when allocation fails (kmod/refnic_irq.c), under
# the driver's fail-alloc fault, armed with refnicctl at a rate of 100 % on
# port B's queue $Q: from then on every buffer NAPI's refill asks page_pool
# for fails, as if memory had run out.
#
# A pair with 2 queue pairs and rings of 64; B's RSS uses queue 0 alone and
# a flow rule sends UDP to port $PORT to queue $Q, where a socket reads it.
# A streams datagrams to it. Asserted:
#  - the ring drains and the refill backs off: rx${Q}_alloc_backoffs moves,
#    the stream stops reaching the stack (rx${Q}_packets still) and the
#    device drops it for want of buffers (rx${Q}_nobuf moves);
#  - NAPI does not spin: over 10 backoffs it polls no more than once per
#    backoff and per interrupt (q${Q}_polls), with no full-budget poll, and
#    the backoff's delay reached its 100 ms ceiling (debugfs rings:
#    refill_delay_us);
#  - a starved ring is not a stalled one: no rx_stalls, lost_irqs,
#    queue_resets or tx_timeouts over 3 service task samples;
#  - cleared, the refill succeeds at the next backoff: the stream reaches
#    the stack again, the backoffs stop and the delay is back to 0; queue 0
#    never backed off;
#  - once the pair is deleted no page pool is left in either namespace: no
#    buffer leaked.
set -u
. "$(dirname "$0")/lib_net.sh"

Q=1
PORT=9000
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl

ktap_print_header
net_init
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
[ -x "$CTL" ] || net_skip_all "$CTL not built"
ktap_set_plan 7
net_setup queues 2 rx-ring 64
net_quiet_v6
net_static_neigh

ip netns exec "$NS_B" ethtool -X "$DEV_B" equal 1 || net_bail "ethtool -X $DEV_B equal 1"
ip netns exec "$NS_B" ethtool -N "$DEV_B" flow-type udp4 dst-port "$PORT" action "$Q" >/dev/null ||
	net_bail "ethtool -N $DEV_B dst-port $PORT action $Q"

PDEV=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
DRV=/sys/kernel/debug/refnic/drv-$PDEV
[ -r "$DRV/rings" ] || net_bail "$DEV_B ($PDEV): no $DRV/rings"

estat_b() { net_estat "$NS_B" "$DEV_B" "$1"; }

# delay: the refill backoff's current delay of B's vector $Q, in us.
delay() {
	awk -v v="vec$Q" '$1 == v { for (i = 2; i < NF; i++) if ($i == "refill_delay_us") print $(i + 1) }' "$DRV/rings"
}

runs() {
	awk '$1 == "runs" { print $2 }' "$DRV/service"
}

above() { [ "$("${@:2}")" -gt "$1" ]; }	# above N CMD...: CMD prints more than N

rm -f "$NET_TMP/sink.ready"
net_bg sink net_tool "$NS_B" udp-sink "$V4_B" "$PORT" --ready "$NET_TMP/sink.ready" \
	--idle $((600 * NET_SCALE))
net_wait_file "$NET_TMP/sink.ready" 30 || net_bail "no UDP socket on $PORT"

steered() {
	local p0 p1
	p0=$(estat_b "rx${Q}_packets")
	net_tool "$NS_A" udp-blast --dst "$V4_B" --dport "$PORT" --count 10 --size 1000 \
		--burst 1 --gap 0.01 >/dev/null || return 1
	wait_until 10 above $((p0 + 9)) estat_b "rx${Q}_packets"
	p1=$(estat_b "rx${Q}_packets")
	net_msg "rx${Q}_packets $p0 -> $p1"
	[ $((p1 - p0)) = 10 ]
}
ktap_test_result "UDP to $PORT lands on B's queue $Q" steered

# snap: the counters the window compares, from one ethtool -S, space
# separated: polls irqs full_polls alloc_backoffs alloc_fail packets nobuf.
snap() {
	ip netns exec "$NS_B" ethtool -S "$DEV_B" | awk -v q="$Q" '
		{ n = $1; sub(/:$/, "", n); v[n] = $2 }
		END {
			print v["q" q "_polls"], v["q" q "_irqs"], v["q" q "_full_polls"],
			      v["rx" q "_alloc_backoffs"], v["rx" q "_alloc_fail"],
			      v["rx" q "_packets"], v["rx" q "_nobuf"]
		}'
}
B0=(0 0 0 0 0 0 0)
B1=(0 0 0 0 0 0 0)

NOBUF0=$(estat_b "rx${Q}_nobuf")
ip netns exec "$NS_B" "$CTL" fault set "$DEV_B" fail-alloc queue "$Q" rate 100% ||
	net_bail "refnicctl fault set fail-alloc"
net_bg stream net_tool "$NS_A" udp-blast --dst "$V4_B" --dport "$PORT" --count 1000000 \
	--size 1000 --burst 2 --gap 0.01

starved() {
	local polls irqs full backoffs fail pkts nobuf
	# The delay doubles from 1 ms: the 8th backoff waits 100 ms. The
	# device drops the stream once the ring is empty.
	wait_until 60 above 7 estat_b "rx${Q}_alloc_backoffs" || { net_msg "no backoff: $(snap)"; return 1; }
	wait_until 30 above "$NOBUF0" estat_b "rx${Q}_nobuf" || { net_msg "no drop: $(snap)"; return 1; }
	read -r polls irqs full backoffs fail pkts nobuf < <(snap)
	B0=("$polls" "$irqs" "$full" "$backoffs" "$fail" "$pkts" "$nobuf")
	wait_until 60 above $((backoffs + 9)) estat_b "rx${Q}_alloc_backoffs" || { net_msg "backoffs stopped: $(snap)"; return 1; }
	read -r polls irqs full backoffs fail pkts nobuf < <(snap)
	B1=("$polls" "$irqs" "$full" "$backoffs" "$fail" "$pkts" "$nobuf")
	net_msg "polls irqs full_polls backoffs alloc_fail packets nobuf: ${B0[*]} -> ${B1[*]}; refill_delay_us $(delay)"
	# Traffic stopped, the device drops it, the refill keeps failing.
	[ "${B1[5]}" = "${B0[5]}" ] && [ "${B1[6]}" -gt "${B0[6]}" ] && [ "${B1[4]}" -gt "${B0[4]}" ]
}
ktap_test_result "fail-alloc at 100 %: the ring drains, the refill backs off, the device drops the stream" starved

no_spin() {
	local polls=$((B1[0] - B0[0])) irqs=$((B1[1] - B0[1])) full=$((B1[2] - B0[2]))
	local backoffs=$((B1[3] - B0[3])) d
	d=$(delay)
	net_msg "over $backoffs backoffs: $polls polls, $irqs interrupts, $full full-budget polls; refill_delay_us $d"
	[ "$polls" -le $((backoffs + irqs + 2)) ] && [ "$full" = 0 ] && [ "$d" = 100000 ]
}
ktap_test_result "NAPI does not spin: a poll per backoff or interrupt, at 100 ms once the delay has doubled" no_spin

no_alarm() {
	local r0
	r0=$(runs)
	wait_until 15 above $((r0 + 2)) runs || return 1
	net_msg "$(runs) service task runs; rx_stalls $(estat_b rx_stalls) lost_irqs $(estat_b lost_irqs) queue_resets $(estat_b queue_resets) tx_timeouts $(estat_b tx_timeouts); rx${Q}_packets $(estat_b "rx${Q}_packets")"
	[ "$(estat_b rx_stalls)" = 0 ] && [ "$(estat_b lost_irqs)" = 0 ] &&
		[ "$(estat_b queue_resets)" = 0 ] && [ "$(estat_b tx_timeouts)" = 0 ] &&
		[ "$(estat_b "rx${Q}_packets")" = "${B1[5]}" ]
}
ktap_test_result "a starved ring is no stall: nothing counted over 3 service task samples" no_alarm

resumed() {
	local p0 k0 k1
	ip netns exec "$NS_B" "$CTL" fault clear "$DEV_B" fail-alloc queue "$Q" || return 1
	p0=$(estat_b "rx${Q}_packets")
	wait_until 20 above $((p0 + 20)) estat_b "rx${Q}_packets" || { net_msg "still starved: $(snap)"; return 1; }
	k0=$(estat_b "rx${Q}_alloc_backoffs")
	wait_until 20 above $((p0 + 60)) estat_b "rx${Q}_packets" || return 1
	k1=$(estat_b "rx${Q}_alloc_backoffs")
	net_msg "cleared: rx${Q}_packets $p0 -> $(estat_b "rx${Q}_packets"), backoffs $k0 -> $k1, refill_delay_us $(delay); rx0_alloc_backoffs $(estat_b rx0_alloc_backoffs)"
	[ "$k1" = "$k0" ] && [ "$(delay)" = 0 ] && [ "$(estat_b rx0_alloc_backoffs)" = 0 ]
}
ktap_test_result "cleared: the stream reaches the stack again, the backoffs stop" resumed
net_bg_kill stream

ktap_test_result "no TX timeout, queue reset, RX stall or lost interrupt on either port" net_healthy

deleted() {
	net_bg_kill sink
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}
ktap_test_result "pair deleted, no page pool left in either namespace" deleted
ktap_finished
