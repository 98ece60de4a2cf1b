#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Bulk TCP over a refnic pair arrives byte for byte: 256 MiB (64 on the
# debug kernel) of a deterministic stream (nettool.py: SHAKE-128 blocks),
# from A to B over IPv4 at MTU 1500, then from B to A over IPv6 at MTU 9000
# (frames spanning five RX buffers). The receiver compares every byte with the stream as it
# arrives and both ends hash what they sent and received. On this clean link
# no error, allocation-failure or timeout counter (ip -s link, ethtool -S) of
# either port may move. Frames dropped because the RX ring had no buffer
# posted are the one exception, as on real hardware: when NAPI falls behind
# the engine (under TCG, often) the device drops and counts, and TCP
# retransmits. They must stay below 1% of the segments sent.
set -u
. "$(dirname "$0")/lib_net.sh"

# 64 MiB on the debug kernel: 256 took over an hour a stream there.
BYTES=$((256 << 20))
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && BYTES=$((64 << 20))

ktap_print_header
net_init
ktap_set_plan 6
net_setup
net_quiet_v6

want_sha=$(net_sha "$BYTES" 11)

# Everything in NET_DROP_COUNTERS but the no-buffer drops (ethtool's
# rxN_nobuf, which ip -s link reports as rx_missed_errors).
ZERO_COUNTERS='^link\.(rx|tx)_(errors|dropped|over_errors|fifo_errors|length_errors|crc_errors|frame_errors|aborted_errors|carrier_errors)$|^link\.tx_missed_errors$|^ethtool\.(rx[0-9]+_(drops|alloc_fail|alloc_backoffs|csum_bad)|tx[0-9]+_drops|tx_timeouts|tx_hangs|queue_resets|rx_stalls|lost_irqs)$'
NOBUF_COUNTERS='^ethtool\.rx[0-9]+_nobuf$'

# transfer NAME NS_TX NS_RX ADDR SEED MSS: one verified transfer, counters
# snapshotted around it; sets DROPS_OK.
transfer() {
	local name=$1 ns_tx=$2 ns_rx=$3 addr=$4 seed=$5 mss=$6 ok=0
	local nobuf_max=$((BYTES / mss / 100))
	net_snap "$NS_A" "$DEV_A" "$NET_TMP/$name-a0.json"
	net_snap "$NS_B" "$DEV_B" "$NET_TMP/$name-b0.json"
	local r0
	r0=$(net_nstat "$ns_tx" TcpRetransSegs)
	if ! net_tcp_start "$name" "$ns_tx" "$ns_rx" "$addr" "$BYTES" 5201 "$seed" ||
		! net_tcp_wait "$name" 600; then
		ok=1
	elif [ "$NET_TCP_SHA" != "$want_sha" ]; then
		net_msg "$name: sha256 $NET_TCP_SHA is not the stream's $want_sha"
		ok=1
	fi
	net_msg "$name: TCP retransmitted $(($(net_nstat "$ns_tx" TcpRetransSegs) - r0)) segments"
	net_snap "$NS_A" "$DEV_A" "$NET_TMP/$name-a1.json"
	net_snap "$NS_B" "$DEV_B" "$NET_TMP/$name-b1.json"
	DROPS_OK=0
	net_msg "$name: port A counters:"
	net_diff "$NET_TMP/$name-a0.json" "$NET_TMP/$name-a1.json" --zero "$ZERO_COUNTERS" \
		--max "$NOBUF_COUNTERS" "$nobuf_max" || DROPS_OK=1
	net_msg "$name: port B counters:"
	net_diff "$NET_TMP/$name-b0.json" "$NET_TMP/$name-b1.json" --zero "$ZERO_COUNTERS" \
		--max "$NOBUF_COUNTERS" "$nobuf_max" || DROPS_OK=1
	return "$ok"
}

ktap_test_result "$((BYTES >> 20)) MiB A -> B, IPv4, MTU 1500: every byte arrives intact" \
	transfer mtu1500 "$NS_A" "$NS_B" "$V4_B" 11 1448
ktap_test_result "MTU 1500: no error, no-buffer drops < 1% of segments" [ "$DROPS_OK" = 0 ]

mtu_ok=0
ip -n "$NS_A" link set "$DEV_A" mtu 9000 && ip -n "$NS_B" link set "$DEV_B" mtu 9000 && mtu_ok=1
ktap_test_result "MTU 9000 set on both ports" [ "$mtu_ok" = 1 ]
if [ "$mtu_ok" = 1 ]; then
	ktap_test_result "$((BYTES >> 20)) MiB B -> A, IPv6, MTU 9000: every byte arrives intact" \
		transfer mtu9000 "$NS_B" "$NS_A" "$V6_A" 11 8928
	ktap_test_result "MTU 9000: no error, no-buffer drops < 1% of segments" [ "$DROPS_OK" = 0 ]
else
	ktap_test_fail "$((BYTES >> 20)) MiB B -> A, IPv6, MTU 9000: every byte arrives intact"
	ktap_test_fail "MTU 9000: no error, no-buffer drops < 1% of segments"
fi
net_health_test
ktap_finished
