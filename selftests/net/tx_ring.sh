#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TX stop and wake thresholds against the ring size. A TX queue stops while
# a worst-case skb (the linear part and MAX_SKB_FRAGS frags) would not fit,
# and wakes once room for two has come back, but at most at half the ring:
# CONFIG_MAX_SKB_FRAGS goes up to 45, and two skbs of 46 descriptors are
# more than the smallest ring (64) holds, so a queue that waited for them
# never woke. Debian's kernels have 17 frags, where the old fixed
# thresholds (18 and 36) fit too: what is checked is the rule, on whatever
# kernel runs the test:
#   - a TX ring below 64 is refused, 64 is accepted;
#   - on every TX ring size from 64 to 4096 the driver's thresholds (its
#     debugfs file rings) stop at one worst-case skb or more and wake
#     between that and the larger of it and half the ring;
#   - on the smallest ring, a TCP transfer sent with sendfile(2) (every page
#     a frag: skbs as fragmented as the stack makes them) stops the queue,
#     which wakes each time: the transfer arrives byte for byte, with no TX
#     timeout.
set -u
. "$(dirname "$0")/lib_net.sh"

BYTES=$((32 << 20))
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && BYTES=$((8 << 20))

ktap_print_header
net_init
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
FRAGS=$(cat /proc/sys/net/core/max_skb_frags 2>/dev/null) ||
	net_skip_all "no /proc/sys/net/core/max_skb_frags"
ktap_set_plan 4
net_setup queues 1
net_quiet_v6
net_static_neigh

pdev=$(basename "$(ip netns exec "$NS_A" readlink -f "/sys/class/net/$DEV_A/device")")
RINGS=/sys/kernel/debug/refnic/drv-$pdev/rings
[ -r "$RINGS" ] || net_bail "$DEV_A ($pdev): no $RINGS"
net_msg "$DEV_A is $pdev; net.core.max_skb_frags is $FRAGS"

etA() { ip netns exec "$NS_A" ethtool "$@"; }
# txq0 FIELD: a field of TX queue 0's line in the driver's rings file.
txq0() {
	awk -v f="$1" '$1 == "txq0" { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' "$RINGS"
}

min_ring() {
	local out
	if out=$(etA -G "$DEV_A" tx 32 2>&1); then
		net_msg "tx ring 32 was accepted"
		return 1
	fi
	net_msg "tx ring 32 refused: $out"
	etA -G "$DEV_A" tx 64
}
ktap_test_result "a TX ring below 64 refused, 64 accepted" min_ring

thresholds() {
	local size stop wake half ok=0
	for size in 64 128 256 512 1024 2048 4096; do
		etA -G "$DEV_A" tx "$size" || { net_msg "tx ring $size refused"; ok=1; continue; }
		stop=$(txq0 stop) wake=$(txq0 wake)
		if [ -z "$stop" ] || [ -z "$wake" ] || [ "$(txq0 size)" != "$size" ]; then
			net_msg "tx ring $size: no stop and wake for it in $RINGS: $(grep '^txq0 ' "$RINGS")"
			ok=1
			continue
		fi
		half=$((size / 2 > stop ? size / 2 : stop))
		net_msg "tx ring $size: stops below $stop free descriptors, wakes at $wake"
		[ "$stop" -ge $((FRAGS + 1)) ] && [ "$stop" -le "$wake" ] &&
			[ "$wake" -le "$half" ] && [ "$wake" -le "$size" ] || ok=1
	done
	return "$ok"
}
ktap_test_result "every TX ring size: stop at a worst-case skb, wake by half the ring" thresholds

smallest_ring_wakes() {
	local s0 w0 stops wakes
	etA -G "$DEV_A" tx 64 || return 1
	# TCP sizes a TSO skb to what it sends in about a millisecond, at least
	# tcp_min_tso_segs segments: as large as it goes, here.
	ip netns exec "$NS_A" sysctl -qw net.ipv4.tcp_min_tso_segs=64 >/dev/null 2>&1
	s0=$(net_estat "$NS_A" "$DEV_A" tx0_stops) w0=$(net_estat "$NS_A" "$DEV_A" tx0_wakes)
	net_tcp_start xfer "$NS_A" "$NS_B" "$V4_B" "$BYTES" 5201 3 --sendfile &&
		net_tcp_wait xfer 300 || return 1
	stops=$(($(net_estat "$NS_A" "$DEV_A" tx0_stops) - s0))
	wakes=$(($(net_estat "$NS_A" "$DEV_A" tx0_wakes) - w0))
	net_msg "tx ring 64, $((BYTES >> 20)) MiB with sendfile: the queue stopped $stops times and woke $wakes times"
	[ "$stops" -gt 0 ] && [ "$wakes" -ge "$stops" ]
}
ktap_test_result "smallest TX ring, maximally fragmented skbs: the queue stops and wakes, transfer intact" \
	smallest_ring_wakes
net_health_test
ktap_finished
