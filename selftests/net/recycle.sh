#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Batched against per-buffer buffer paths in the driver (module parameter
# recycle_batch, latched by each RX queue when it is built), measured on B
# with header split on, once each way:
#   - RX refill: doorbells per received packet (one RXQ_TAIL write per batch
#     of 32 against one per buffer; and RXQ_TAIL writes alone, counted by
#     the device, more with debugfs rx_refill_batch 1 than its default 32);
#   - header pages per 1,000 packets (16 header slots per page against one);
#   - releasing a whole ring outside NAPI (ethtool -G rebuilds the queues):
#     page_pool release calls per 1,000 buffers, each taking the pool's
#     ring lock at most once (the bulk release once per 64 pages, 16 on
#     7.3, against page_pool_put_unrefed_netmem once per page), counted by
#     the driver (ethtool -S rx_release_calls) and cross-checked by kprobes
#     on both.
# Goal (issue 5): at least 16x fewer ring locks per buffer batched, measured
# as page_pool calls: each takes the lock at most once, and per buffer
# nearly every one does, so locks fall at least as much as calls.
# Every transfer is checked byte for byte in both modes.
set -u
. "$(dirname "$0")/lib_net.sh"

PARAM=/sys/module/refnic/parameters/recycle_batch
TRACE=/sys/kernel/tracing
GROUP=refnic_recycle
INSTANCE=$TRACE/instances/refnic_recycle_$$
# The bulk release is page_pool_put_page_bulk() on 6.12 and
# page_pool_put_netmem_bulk() (at most 16 pages a call) on 7.3.
BULK=page_pool_put_netmem_bulk
grep -qw page_pool_put_page_bulk /proc/kallsyms && BULK=page_pool_put_page_bulk
PROBES=("$BULK" page_pool_put_unrefed_netmem)
BYTES=$((32 << 20))

ktap_print_header
net_init
[ -w "$PARAM" ] || net_skip_all "no $PARAM"
ktap_set_plan 11
net_setup queues 2
net_quiet_v6
net_static_neigh

etB() { ip netns exec "$NS_B" ethtool "$@"; }
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
# tailB: the RXQ_TAIL writes B's device counted (the refill doorbells
# alone; the driver's rxN_doorbells add the completion queue's RXCQ_HEAD
# writes, one a poll whatever the refill does)
tailB() {
	ip netns exec "$NS_B" "$CTL" -j stats show "$DEV_B" |
		python3 -c 'import json, sys; print(sum(q["doorbells"] for q in json.load(sys.stdin)[0]["queue_stats"] if q["type"] == "rx"))'
}
sumB() { net_equeue_sum "$NS_B" "$DEV_B" rx "$1"; }
portB() { net_estat "$NS_B" "$DEV_B" "$1"; }

probes_add() {
	local p
	[ -w "$TRACE/kprobe_events" ] || mount -t tracefs nodev "$TRACE" 2>/dev/null
	[ -w "$TRACE/kprobe_events" ] || { net_msg "no $TRACE/kprobe_events"; return 1; }
	for p in "${PROBES[@]}"; do
		echo "p:$GROUP/rc_$p $p" >> "$TRACE/kprobe_events" ||
			{ net_msg "kprobe on $p failed"; return 1; }
	done
	NET_CLEANUP+=("probes_del")
	# An instance of its own with its buffer off: the probes only count.
	mkdir "$INSTANCE" && echo 0 > "$INSTANCE/tracing_on" &&
		echo 1 > "$INSTANCE/events/$GROUP/enable"
}
probes_del() {
	local p
	echo 0 > "$INSTANCE/events/$GROUP/enable"
	rmdir "$INSTANCE"
	for p in "${PROBES[@]}"; do
		echo "-:$GROUP/rc_$p" >> "$TRACE/kprobe_events"
	done
}
hits() { awk '$1 ~ /^rc_/ { n += $2 } END { print n + 0 }' "$TRACE/kprobe_profile"; }

ktap_test_result "kprobes on $BULK and page_pool_put_unrefed_netmem" probes_add
etB -G "$DEV_B" tcp-data-split on || net_bail "tcp-data-split on failed"
NET_CLEANUP+=("echo Y > $PARAM")

want_sha=$(net_sha "$BYTES" 6)
# measure MODE (Y|N): sets DB_PER_PKT, PAGES_PER_K, CALLS_PER_K, CROSS_OK.
measure() {
	local mode=$1 d0 p0 h0 s0 r0 c0 k0 t0 released calls probed
	echo "$mode" > "$PARAM"
	# Rebuild the queues so that they latch the mode.
	etB -G "$DEV_B" rx 256 && etB -G "$DEV_B" rx 512 || return 1
	net_wait_link "$NS_B" "$DEV_B" up 20 && net_wait_link "$NS_A" "$DEV_A" up 20 || return 1
	net_settle
	d0=$(sumB doorbells) p0=$(sumB packets) h0=$(sumB hdr_pages) s0=$(sumB hds_split) t0=$(tailB)
	net_tcp_start "rc$mode" "$NS_A" "$NS_B" "$V4_B" "$BYTES" 5201 6 &&
		net_tcp_wait "rc$mode" 600 && [ "$NET_TCP_SHA" = "$want_sha" ] || return 1
	DB_PER_PKT=$(awk -v d=$(($(sumB doorbells) - d0)) -v p=$(($(sumB packets) - p0)) \
		'BEGIN { printf "%.3f", d / p }')
	TAIL_PER_PKT=$(awk -v d=$(($(tailB) - t0)) -v p=$(($(sumB packets) - p0)) \
		'BEGIN { printf "%.4f", d / p }')
	PAGES_PER_K=$(awk -v h=$(($(sumB hdr_pages) - h0)) -v s=$(($(sumB hds_split) - s0)) \
		'BEGIN { printf "%.1f", 1000 * h / s }')
	# The ring is released idle: the transfer's last frames are through.
	net_settle
	r0=$(portB rx_released) c0=$(portB rx_release_calls) k0=$(hits)
	etB -G "$DEV_B" rx 1024 || return 1
	released=$(($(portB rx_released) - r0))
	calls=$(($(portB rx_release_calls) - c0))
	probed=$(($(hits) - k0))
	CALLS_PER_K=$(awk -v c="$calls" -v r="$released" 'BEGIN { printf "%.1f", 1000 * c / r }')
	net_msg "recycle_batch=$mode: $DB_PER_PKT doorbells ($TAIL_PER_PKT RXQ_TAIL) per packet, $PAGES_PER_K header pages per 1000 packets;" \
		"ring release: $released buffers, $calls page_pool calls ($CALLS_PER_K per 1000), kprobes counted $probed"
	# The stack may free a stray buffer outside NAPI meanwhile: allow 8.
	CROSS_OK=0
	[ "$released" -gt 0 ] && [ "$probed" -ge "$calls" ] && [ "$probed" -le $((calls + 8)) ] || CROSS_OK=1
	etB -G "$DEV_B" rx 512
}

ktap_test_result "per buffer: 32 MiB TCP intact" measure N
N_DB=$DB_PER_PKT N_PAGES=$PAGES_PER_K N_CALLS=$CALLS_PER_K N_CROSS=$CROSS_OK
ktap_test_result "batched: 32 MiB TCP intact" measure Y
Y_DB=$DB_PER_PKT Y_PAGES=$PAGES_PER_K Y_CALLS=$CALLS_PER_K Y_CROSS=$CROSS_OK Y_TAIL=$TAIL_PER_PKT
# The refill batch (debugfs rx_refill_batch, 32 by default), latched by
# the queues when rebuilt: 1 instead, a doorbell every poll that took any.
BUS_B=$(ip netns exec "$NS_B" ethtool -i "$DEV_B" | awk '/^bus-info:/ { print $2 }')
REFILL=/sys/kernel/debug/refnic/drv-$BUS_B/rx_refill_batch
batch1() {
	local rc=0
	[ -x "$CTL" ] || { net_msg "$CTL not built"; return 1; }
	echo 1 >"$REFILL" || return 1
	measure Y || rc=1
	echo 32 >"$REFILL"
	return "$rc"
}
ktap_test_result "rx_refill_batch 1: 32 MiB TCP intact" batch1
B1_TAIL=$TAIL_PER_PKT
ktap_test_result "per buffer: driver's page_pool calls match the kprobes" [ "$N_CROSS" = 0 ]
ktap_test_result "batched: driver's page_pool calls match the kprobes" [ "$Y_CROSS" = 0 ]

ratio() { awk -v a="$1" -v b="$2" -v m="$3" 'BEGIN { r = b > 0 ? a / b : 0; printf "# %.1fx\n", r; exit !(r >= m) }'; }
ktap_test_result "ring release: >= 16x fewer page_pool calls per buffer batched" \
	ratio "$N_CALLS" "$Y_CALLS" 16
ktap_test_result "header pages per 1000 packets: >= 15x fewer with 16 slots a page" \
	ratio "$N_PAGES" "$Y_PAGES" 15
ktap_test_result "RX doorbells per packet: >= 2x fewer with refill batches" \
	ratio "$N_DB" "$Y_DB" 2
ktap_test_result "RXQ_TAIL doorbells per packet: >= 1.25x more with a refill batch of 1 than of 32" \
	ratio "$B1_TAIL" "$Y_TAIL" 1.25
net_health_test
ktap_finished
