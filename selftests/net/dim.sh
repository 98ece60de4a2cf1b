#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Adaptive interrupt moderation (DIM, refnic_dim.c): on by default on both
# ports; a queue pair's vector starts at DIM's start profile (32 us, 64
# frames), which ethtool --per-queue --show-coalesce shows; while adaptive-rx
# is on, rx-usecs is DIM's and setting it alone is refused with a message;
# under bulk TCP the receiver's moderation rises, under request/response it
# falls, and the bytes arrive intact either way; adaptive off restores the
# fixed values (20 us, 32 frames, or what the same request sets). One queue
# pair, so that every frame goes through the vector watched.
#
# DIM climbs and turns on what it measures, so the assertions ask for a
# direction, not a value: the highest delay sampled during the bulk run is
# above the one it started from, the lowest during request/response below
# the one that run started from.
set -u
. "$(dirname "$0")/lib_net.sh"

START_USECS=32
START_FRAMES=64
BYTES=$((96 << 20))
ROUNDS=$((3000 / NET_SCALE))

ktap_print_header
net_init
ktap_set_plan 9
net_setup queues 1

# coal NS DEV FIELD: a field of ethtool -c ("rx-usecs", "Adaptive RX", ...)
coal() {
	ip netns exec "$1" ethtool -c "$2" | sed -n "s/^$3:[[:space:]]*\([^[:space:]]*\).*/\1/p"
}
# qcoal FIELD: B's queue 0 as its vector uses it now
qcoal() {
	ip netns exec "$NS_B" ethtool --per-queue "$DEV_B" queue_mask 0x1 --show-coalesce |
		sed -n "s/^$1:[[:space:]]*//p"
}
adaptive_on() { # adaptive_on NS DEV
	ip netns exec "$1" ethtool -c "$2" | grep -Eq '^Adaptive RX:[[:space:]]*on[[:space:]]+TX:[[:space:]]*on'
}

ktap_test_result "adaptive-rx and adaptive-tx on by default on both ports" \
	eval 'adaptive_on "$NS_A" "$DEV_A" && adaptive_on "$NS_B" "$DEV_B"'

u=$(qcoal rx-usecs) f=$(qcoal rx-frames)
net_msg "B queue 0: rx-usecs $u, rx-frames $f; ethtool -c: rx-usecs $(coal "$NS_B" "$DEV_B" rx-usecs)"
ktap_test_result "per queue: the vector starts at DIM's start profile ($START_USECS us, $START_FRAMES frames)" \
	eval '[ "$u" = "$START_USECS" ] && [ "$f" = "$START_FRAMES" ]'

refused_alone() {
	local out
	if out=$(ip netns exec "$NS_B" ethtool -C "$DEV_B" rx-usecs 50 2>&1); then
		net_msg "ethtool -C rx-usecs 50 with adaptive-rx on succeeded"
		return 1
	fi
	net_msg "refused: $out"
	grep -q 'adaptive-rx is on' <<<"$out" && [ "$(coal "$NS_B" "$DEV_B" rx-usecs)" = 20 ]
}
ktap_test_result "rx-usecs alone while adaptive-rx is on: refused, saying why, nothing changed" refused_alone

# sample NAME: B's queue 0 rx-usecs, one a line, until $NET_TMP/NAME.stop
sample() {
	while [ ! -e "$NET_TMP/$1.stop" ]; do
		qcoal rx-usecs
	done
}
sampled() { # sampled NAME max|min
	touch "$NET_TMP/$1.stop"
	net_bg_wait "$1" 30 >/dev/null
	sort -n "$NET_TMP/$1.out" | if [ "$2" = max ]; then tail -n1; else head -n1; fi
}
irqs_b() { net_estat "$NS_B" "$DEV_B" q0_irqs; }
pkts_b() { net_estat "$NS_B" "$DEV_B" rx0_packets; }

# ---- bulk ------------------------------------------------------------------------
u0=$(qcoal rx-usecs) i0=$(irqs_b) p0=$(pkts_b)
net_bg bulk-dim sample bulk-dim
bulk_ok=0
net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" "$BYTES" 5201 7 && net_tcp_wait bulk 300 || bulk_ok=1
umax=$(sampled bulk-dim max) i1=$(irqs_b) p1=$(pkts_b)
net_msg "bulk: B's rx-usecs $u0 -> highest $umax over $(wc -l <"$NET_TMP/bulk-dim.out") samples; $((p1 - p0)) packets in $((i1 - i0)) interrupts"
ktap_test_result "bulk TCP A -> B intact" [ "$bulk_ok" = 0 ]
ktap_test_result "bulk: B's moderation rose (highest $umax us over $u0)" [ "${umax:-0}" -gt "$u0" ]

# ---- request/response --------------------------------------------------------------
rr() {
	rm -f "$NET_TMP/rr.ready"
	net_bg rr-server net_tool "$NS_B" rr-server "$V4_B" 5202 --ready "$NET_TMP/rr.ready" \
		--timeout $((120 * NET_SCALE))
	net_wait_file "$NET_TMP/rr.ready" 30 &&
		net_tool "$NS_A" rr-client "$V4_B" 5202 --rounds "$ROUNDS" --timeout $((120 * NET_SCALE)) \
			>"$NET_TMP/rr-client.out" &&
		net_bg_wait rr-server 60
}
u0=$(qcoal rx-usecs) i0=$(irqs_b) p0=$(pkts_b)
net_bg rr-dim sample rr-dim
rr_ok=0
rr || rr_ok=1
umin=$(sampled rr-dim min) i1=$(irqs_b) p1=$(pkts_b)
net_msg "request/response: $(cat "$NET_TMP/rr-client.out" 2>/dev/null); B's rx-usecs $u0 -> lowest $umin; $((p1 - p0)) packets in $((i1 - i0)) interrupts"
ktap_test_result "request/response: $ROUNDS rounds intact" [ "$rr_ok" = 0 ]
ktap_test_result "request/response: B's moderation fell (lowest $umin us under $u0)" [ "${umin:-99999}" -lt "$u0" ]

# ---- adaptive off ----------------------------------------------------------------
fixed() {
	ip netns exec "$NS_B" ethtool -C "$DEV_B" adaptive-rx off adaptive-tx off &&
		[ "$(qcoal rx-usecs)" = 20 ] && [ "$(qcoal rx-frames)" = 32 ] &&
		ip netns exec "$NS_B" ethtool -C "$DEV_B" rx-usecs 50 tx-usecs 50 &&
		[ "$(qcoal rx-usecs)" = 50 ] && [ "$(qcoal tx-usecs)" = 50 ] &&
		ip netns exec "$NS_B" ethtool -C "$DEV_B" adaptive-rx on adaptive-tx on rx-usecs 20 tx-usecs 20 &&
		[ "$(coal "$NS_B" "$DEV_B" rx-usecs)" = 20 ] && adaptive_on "$NS_B" "$DEV_B"
}
ktap_test_result "adaptive off: the fixed 20 us and 32 frames, rx-usecs settable; on again with values kept" fixed

net_health_test
ktap_finished
