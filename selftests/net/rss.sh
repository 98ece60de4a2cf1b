#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Receive side scaling spreads flows exactly as the device's key and
# indirection table say. 64 UDP flows (distinct source ports, each sending
# its own number of datagrams) go from A to B; for each flow nettool.py
# computes the RX queue itself - Toeplitz over source and destination
# address and ports with the key `ethtool -x` shows, the table entry hash %
# 128 - and the per-queue RX packet counters of B (ethtool -S rxN_packets)
# must match the prediction (anything else counted, such as a stray
# neighbour packet, may only add to it, at most 8 in all). Checked with the
# default table over IPv4 and IPv6, after `ethtool -X equal 2`, with a
# weighted table, with a key set by `ethtool -X hkey`, after the channel
# count changes, and with rxhash off (everything on queue 0).
set -u
. "$(dirname "$0")/lib_net.sh"

QUEUES=4
# The RSS specification's sample key: its verification vectors apply.
MS_KEY=6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa

ktap_print_header
net_init
ktap_set_plan 11
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh
# Let link-up chatter (RS, MLD reports) pass before counting.
sleep 2

etB() { ip netns exec "$NS_B" ethtool "$@"; }

# flows_check NAME SRC DST [rss-check options]: send the flows, compare.
flows_check() {
	local name=$1 src=$2 dst=$3 out rc=0
	shift 3
	net_snap "$NS_B" "$DEV_B" "$NET_TMP/$name.before" || return 1
	net_tool "$NS_A" udp-flows --src "$src" --dst "$dst" --flows 64 \
		--sport 40000 --dport 7777 --vary >"$NET_TMP/$name.flows" ||
		{ net_msg "$name: sending failed"; return 1; }
	sleep 0.5
	out=$(net_tool "$NS_B" rss-check "$DEV_B" --before "$NET_TMP/$name.before" \
		--flows "$NET_TMP/$name.flows" --table-size 128 "$@" 2>&1) || rc=$?
	# The per-queue lines and errors, not the JSON.
	grep '^nettool:' <<<"$out" | sed "s/^nettool:/# $name:/"
	return "$rc"
}

oracle_ok() {
	local out
	out=$(net_tool "$NS_B" toeplitz-selftest) && return 0
	net_msg "$out"
	return 1
}
ktap_test_result "Toeplitz oracle reproduces the RSS specification's vectors" oracle_ok

ktap_test_result "default table, 64 IPv4 UDP flows land on the predicted queues" \
	flows_check v4-default "$V4_A" "$V4_B"
ktap_test_result "default table, 64 IPv6 UDP flows land on the predicted queues" \
	flows_check v6-default "$V6_A" "$V6_B"

set_ok() { # set_ok DESCRIPTION CMD...: run an ethtool change, fail loudly
	local out
	out=$("${@:2}" 2>&1) && return 0
	net_msg "$1: $out"
	return 1
}

if set_ok "ethtool -X equal 2" etB -X "$DEV_B" equal 2; then
	ktap_test_result "ethtool -X equal 2: flows on queues 0-1 as predicted" \
		flows_check equal2 "$V4_A" "$V4_B" --weights 1,1
else
	ktap_test_fail "ethtool -X equal 2: flows on queues 0-1 as predicted"
fi

if set_ok "ethtool -X weight 1 2 0 5" etB -X "$DEV_B" weight 1 2 0 5; then
	ktap_test_result "ethtool -X weight 1 2 0 5: table spread by weight, flows as predicted" \
		flows_check weight "$V4_A" "$V4_B" --weights 1,2,0,5
else
	ktap_test_fail "ethtool -X weight 1 2 0 5: table spread by weight, flows as predicted"
fi

if set_ok "ethtool -X hkey" etB -X "$DEV_B" hkey "$MS_KEY"; then
	ktap_test_result "ethtool -X hkey (the spec's key): shown by -x, flows as predicted (IPv4)" \
		flows_check hkey-v4 "$V4_A" "$V4_B" --key "$MS_KEY" --weights 1,2,0,5
	ktap_test_result "ethtool -X hkey: flows as predicted (IPv6)" \
		flows_check hkey-v6 "$V6_A" "$V6_B" --key "$MS_KEY"
else
	ktap_test_fail "ethtool -X hkey (the spec's key): shown by -x, flows as predicted (IPv4)"
	ktap_test_fail "ethtool -X hkey: flows as predicted (IPv6)"
fi

if set_ok "ethtool -X default" etB -X "$DEV_B" default &&
	set_ok "ethtool -L combined 3" etB -L "$DEV_B" combined 3; then
	net_wait_link "$NS_B" "$DEV_B" up 20 || net_msg "no carrier after -L"
	sleep 1
	ktap_test_result "ethtool -L combined 3: default table over 3 queues, flows as predicted" \
		flows_check combined3 "$V4_A" "$V4_B" --weights 1,1,1
else
	ktap_test_fail "ethtool -L combined 3: default table over 3 queues, flows as predicted"
fi

if set_ok "ethtool -L combined 4" etB -L "$DEV_B" combined "$QUEUES" &&
	set_ok "ethtool -K rxhash off" etB -K "$DEV_B" rxhash off; then
	net_wait_link "$NS_B" "$DEV_B" up 20 || net_msg "no carrier after -L"
	sleep 1
	ktap_test_result "rxhash off: every flow on queue 0" \
		flows_check rxhash-off "$V4_A" "$V4_B" --all-to 0
else
	ktap_test_fail "rxhash off: every flow on queue 0"
fi

if set_ok "ethtool -K rxhash on" etB -K "$DEV_B" rxhash on; then
	ktap_test_result "rxhash back on: flows spread as predicted again" \
		flows_check rxhash-on "$V4_A" "$V4_B" --weights 1,1,1,1
else
	ktap_test_fail "rxhash back on: flows spread as predicted again"
fi
net_health_test
ktap_finished
