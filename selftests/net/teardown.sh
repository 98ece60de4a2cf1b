#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Tearing refnic down while it works:
#  1. `ip link del` of one port while TCP and UDP flow both ways: both ports
#     go, promptly; no page pool is left behind once the sockets close.
#  2. `rmmod refnic` while traffic flows: it unloads, the ports go with it.
#  3. A receiver in B holds unread TCP and UDP data (skbs whose payload is in
#     B's page_pool pages) while the pair is deleted and the module unloaded:
#     the pools outlive the device with pages in flight; then the receiver
#     reads everything, intact, and the pools go away. With DMA-API
#     debugging (the debug kernel), B's device had mappings before the
#     delete and has none after it, pages in flight or not: the kernel's
#     page_pool unmapped them at page_pool_destroy() (upstream ee62ce7a1d90,
#     which refnic requires: kmod/refnic_compat.h), not when they come back
#     to a pool whose device is gone.
# The harness fails the test on any WARN, BUG, KASAN or page_pool message.
set -u
. "$(dirname "$0")/lib_net.sh"

ktap_print_header
net_init
ktap_set_plan 14
WAS_LOADED=$((1 - NET_LOADED))
# The module comes and goes here; leave it as found.
NET_CLEANUP+=('[ "$WAS_LOADED" = 1 ] && { refnic_loaded || insmod "$REFNIC_KO"; }')
net_setup queues 4

# traffic_start: TCP A -> B (more than it will ever finish) and UDP floods
# both ways.
traffic_start() {
	net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" $((1 << 30)) 5201 3 || return 1
	net_bg udp-ab net_tool "$NS_A" udp-blast --dst "$V4_B" --dport 7000 \
		--count 1000000 --size 1400 --burst 16 --gap 0.002
	net_bg udp-ba net_tool "$NS_B" udp-blast --dst "$V6_A" --dport 7000 \
		--count 1000000 --size 900 --burst 16 --gap 0.002
	sleep $((3 * NET_SCALE))
	# Still going: nothing fell over before the teardown.
	net_bg_running bulk-tx && net_bg_running udp-ab && net_bg_running udp-ba
}

traffic_stop() {
	local n
	for n in bulk-tx bulk-rx udp-ab udp-ba; do net_bg_kill "$n"; done
}

gone() { # gone NS DEV: the device no longer exists
	! ip -n "$1" link show dev "$2" >/dev/null 2>&1
}

# timed SECS CMD...: CMD succeeds within SECS (scaled).
timed() {
	local secs=$(($1 * NET_SCALE)) t0 rc=0
	shift
	t0=$(date +%s)
	timeout "$secs" "$@" || rc=$?
	net_msg "'$*' took $(($(date +%s) - t0)) s, exit $rc"
	return "$rc"
}

# pools_gone NS: the namespace's page pools now, in the log, then
# net_pools_gone.
pools_gone() {
	local out
	out=$(net_tool "$1" ynl page-pool-get) || return 1
	net_msg "page pools in $1 now: $out"
	net_pools_gone "$1"
}

# ---- 1. ip link del under traffic ----------------------------------------------
ktap_test_result "traffic flows before ip link del" traffic_start
ktap_test_result "ip link del (port B) under traffic" timed 30 ip -n "$NS_B" link del "$DEV_B"
ktap_test_result "both ports are gone" eval 'gone "$NS_A" "$DEV_A" && gone "$NS_B" "$DEV_B"'
traffic_stop
ktap_test_result "no page pool left after the sockets close" \
	eval 'pools_gone "$NS_A" && pools_gone "$NS_B"'

# ---- 2. rmmod under traffic -------------------------------------------------------
net_pair_add queues 4
ktap_test_result "traffic flows before rmmod" traffic_start
ktap_test_result "rmmod refnic under traffic" timed 60 rmmod refnic
ktap_test_result "module and ports are gone" \
	eval '! refnic_loaded && gone "$NS_A" "$DEV_A" && gone "$NS_B" "$DEV_B"'
traffic_stop
out=$(insmod "$REFNIC_KO" 2>&1) || ktap_exit_fail_msg "insmod after rmmod: $out"

# ---- 3. unread data across ip link del and rmmod -----------------------------------
net_pair_add queues 4
HOLD_BYTES=$((32 << 10))
net_bg hold net_tool "$NS_B" hold "$V4_B" 6000 --bytes "$HOLD_BYTES" --seed 9 \
	--ready "$NET_TMP/hold.ready" --status "$NET_TMP/hold.status" \
	--go "$NET_TMP/hold.go" --timeout $((60 * NET_SCALE))
net_wait_file "$NET_TMP/hold.ready" 30 || ktap_exit_fail_msg "receiver did not start"
net_bg feed net_tool "$NS_A" feed "$V4_B" 6000 --bytes "$HOLD_BYTES" --seed 9 \
	--count 16 --size 1200
held() {
	net_wait_file "$NET_TMP/hold.status" 60 || { net_bg_show hold; net_bg_show feed; return 1; }
	net_msg "queued unread in B: $(cat "$NET_TMP/hold.status")"
}
ktap_test_result "B holds unread TCP and UDP data" held
# B's DMA mappings as DMA-API debugging lists them, while B is up.
DMA_DUMP=/sys/kernel/debug/dma-api/dump
B_PDEV=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
dma_maps() { grep -cF " $B_PDEV " "$DMA_DUMP"; }
MAPS_UP=$(dma_maps 2>/dev/null)
ktap_test_result "ip link del (port A) with unread data in B" timed 30 ip -n "$NS_A" link del "$DEV_A"
net_bg_kill feed
# The pools of B's queues outlive B: destroyed, pages still in the socket.
inflight() {
	local out
	out=$(net_tool "$NS_B" ynl page-pool-get) || return 1
	net_msg "page pools in B's namespace: $out"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])["dump"]
sys.exit(0 if any(p.get("inflight", 0) > 0 and "detach-time" in p for p in d) else 1)
' "$out"
}
ktap_test_result "B's destroyed page pools still have the held pages in flight" inflight
unmapped() {
	local left
	left=$(dma_maps)
	net_msg "DMA-API debug: $MAPS_UP mappings of $B_PDEV while up, $left after the delete"
	[ "${MAPS_UP:-0}" -gt 0 ] && [ "$left" = 0 ]
}
DMA_CASE="and none of them is mapped for B's device any more"
if [ ! -r "$DMA_DUMP" ]; then
	ktap_test_skip "$DMA_CASE: no DMA-API debugging in this kernel"
elif [ "$(cat /sys/kernel/debug/dma-api/disabled)" != N ]; then
	ktap_test_skip "$DMA_CASE: DMA-API debugging disabled itself"
else
	ktap_test_result "$DMA_CASE" unmapped
fi
ktap_test_result "rmmod refnic with the data still unread" timed 60 rmmod refnic
touch "$NET_TMP/hold.go"
readback() {
	local rc=0
	net_bg_wait hold 60 || rc=$?
	net_bg_show hold
	return "$rc"
}
ktap_test_result "the receiver then reads it all, intact" readback
ktap_test_result "and the page pools go away" pools_gone "$NS_B"
ktap_finished
