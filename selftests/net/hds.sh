#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Header-data split. `ethtool -G DEV tcp-data-split on|off|auto` (through
# ethtool netlink: the harness's ethtool is refnic-ethtool, since Debian 12's
# ethtool 6.1 cannot set it) rebuilds B's RX queues with a header page_pool;
# the device then writes every frame's L2..L4 headers into a header slot and
# the L4 payload into the payload buffers. Checked on B's per-queue counters
# (ethtool -S rxN_hds_*, rxN_hdr_pages):
#   - TCP over IPv4 (MTU 1500) and IPv6 (MTU 9000, payload over several
#     buffers) arrives byte for byte, every data segment split;
#   - UDP datagrams are split and arrive intact;
#   - ICMP (not TCP/UDP) is not split and counted as unparsed;
#   - IPv6 extension headers are walked: a 64-byte hop-by-hop header still
#     splits, a 208-byte one makes the headers too big for a 256-byte slot;
#   - a VLAN-tagged flow splits;
#   - 16 headers share each header page;
#   - "off" and "auto" stop splitting, and TCP is still intact.
set -u
. "$(dirname "$0")/lib_net.sh"

BYTES=$((64 << 20))
# 16 MiB on the debug kernel, where TCP under TCG moves a few MiB a minute:
# every count below is per segment, so the checks do not change.
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && BYTES=$((16 << 20))

ktap_print_header
net_init
ktap_set_plan 14
net_setup queues 2
net_quiet_v6
net_static_neigh
net_settle

etB() { ip netns exec "$NS_B" ethtool "$@"; }
sumB() { net_equeue_sum "$NS_B" "$DEV_B" rx "$1"; }

# split_state: what `ethtool -g` says about B's header split.
split_state() {
	etB -g "$DEV_B" | awk -F':[ \t]*' '/^TCP data split/ { print $2 }'
}

set_split() { # set_split on|off|auto, then expect STATE
	local out
	out=$(etB -G "$DEV_B" tcp-data-split "$1" 2>&1) || { net_msg "$out"; return 1; }
	[ "$(split_state)" = "$2" ] || { net_msg "ethtool -g says '$(split_state)', want '$2'"; return 1; }
}

ktap_test_result "header split is off by default (ethtool -g)" [ "$(split_state)" = off ]
ktap_test_result "ethtool -G tcp-data-split on" set_split on on

# counted NAME CMD...: run CMD with B's hds counters snapshotted around it;
# sets D_SPLIT, D_UNPARSED, D_BIG, D_PAGES.
counted() {
	local s0 u0 b0 p0 rc=0
	s0=$(sumB hds_split) u0=$(sumB hds_unparsed) b0=$(sumB hds_hdr_too_big) p0=$(sumB hdr_pages)
	"${@:2}" || rc=1
	D_SPLIT=$(($(sumB hds_split) - s0))
	D_UNPARSED=$(($(sumB hds_unparsed) - u0))
	D_BIG=$(($(sumB hds_hdr_too_big) - b0))
	D_PAGES=$(($(sumB hdr_pages) - p0))
	net_msg "$1: split $D_SPLIT, unparsed $D_UNPARSED, headers too big $D_BIG, header pages $D_PAGES"
	return "$rc"
}

want_sha=$(net_sha "$BYTES" 5)
tcp() { # tcp NAME ADDR: verified transfer A -> B
	net_tcp_start "$1" "$NS_A" "$NS_B" "$2" "$BYTES" 5201 5 && net_tcp_wait "$1" 600 &&
		[ "$NET_TCP_SHA" = "$want_sha" ]
}

tcp_split_ok() { # NAME ADDR MSS
	counted "$1" tcp "$1" "$2" || return 1
	# Every data segment splits (ACKs from A add more).
	[ "$D_SPLIT" -ge $((BYTES / $3)) ] || { net_msg "$1: fewer splits than segments"; return 1; }
	[ "$D_UNPARSED" -eq 0 ] && [ "$D_BIG" -eq 0 ]
}
ktap_test_result "$((BYTES >> 20)) MiB TCP/IPv4 A -> B intact, every segment split" tcp_split_ok v4 "$V4_B" 1448

pages_ok() {
	# Pages started while D_SPLIT headers came in: 16 slots a page.
	[ "$D_PAGES" -gt 0 ] && [ $((D_SPLIT / D_PAGES)) -ge 15 ] ||
		{ net_msg "headers per header page: $D_SPLIT / $D_PAGES"; return 1; }
}
ktap_test_result "headers share header pages (>= 15 per page)" pages_ok

mtu9000() { ip -n "$NS_A" link set "$DEV_A" mtu 9000 && ip -n "$NS_B" link set "$DEV_B" mtu 9000; }
ktap_test_result "$((BYTES >> 20)) MiB TCP/IPv6 at MTU 9000 intact, every segment split" \
	eval 'mtu9000 && tcp_split_ok v6 "$V6_B" 8928'
ip -n "$NS_A" link set "$DEV_A" mtu 1500
ip -n "$NS_B" link set "$DEV_B" mtu 1500

udp() { # udp NAME DST COUNT [udp-blast options]: COUNT datagrams, all intact
	local name=$1 dst=$2 count=$3 bind=0.0.0.0 out
	shift 3
	case $dst in *:*) bind=:: ;; esac
	rm -f "$NET_TMP/$name.ready"
	net_bg "$name-sink" net_tool "$NS_B" udp-sink "$bind" 7000 --count "$count" \
		--idle $((5 * NET_SCALE)) --pattern --ready "$NET_TMP/$name.ready"
	net_wait_file "$NET_TMP/$name.ready" 30 || return 1
	net_tool "$NS_A" udp-blast --dst "$dst" --dport 7000 --count "$count" --size 1000 \
		--burst 4 --gap 0.02 --pattern "$@" >/dev/null || return 1
	net_bg_wait "$name-sink" 60 || return 1
	out=$(jget "$NET_TMP/$name-sink.out" "d['packets'] == $count and d['bad'] == 0")
	[ "$out" = True ] || { net_msg "$name: sink got $(cat "$NET_TMP/$name-sink.out")"; return 1; }
}

udp_split() { counted udp4 udp udp4 "$V4_B" 200 && [ "$D_SPLIT" -ge 200 ]; }
ktap_test_result "200 UDP/IPv4 datagrams intact, all split" udp_split

icmp_unparsed() {
	counted icmp ip netns exec "$NS_A" ping -q -c 20 -i 0.05 -s 1000 "$V4_B" >/dev/null &&
		[ "$D_UNPARSED" -ge 20 ]
}
ktap_test_result "ICMP is not split: counted as unparsed, ping works" icmp_unparsed

hbh_small() { counted hbh64 udp hbh64 "$V6_B" 100 --hopopts 64 && [ "$D_SPLIT" -ge 100 ]; }
ktap_test_result "IPv6 with a 64-byte hop-by-hop header: split after it" hbh_small
hbh_big() { counted hbh208 udp hbh208 "$V6_B" 100 --hopopts 208 && [ "$D_BIG" -ge 100 ]; }
ktap_test_result "IPv6 headers over a 256-byte slot: whole frame, counted too big" hbh_big

vlan() {
	ip -n "$NS_A" link add link "$DEV_A" name "$DEV_A.10" type vlan id 10 &&
		ip -n "$NS_B" link add link "$DEV_B" name "$DEV_B.10" type vlan id 10 &&
		ip -n "$NS_A" addr add 198.51.100.1/24 dev "$DEV_A.10" &&
		ip -n "$NS_B" addr add 198.51.100.2/24 dev "$DEV_B.10" &&
		ip -n "$NS_A" link set "$DEV_A.10" up && ip -n "$NS_B" link set "$DEV_B.10" up &&
		ip netns exec "$NS_A" ping -q -c 2 -w 10 198.51.100.2 >/dev/null &&
		counted vlan udp vlan 198.51.100.2 100 && [ "$D_SPLIT" -ge 100 ]
}
ktap_test_result "VLAN-tagged UDP: split after the tag" vlan

off_ok() {
	set_split off off && counted off tcp off "$V4_B" && [ "$D_SPLIT" -eq 0 ] && [ "$D_PAGES" -eq 0 ]
}
ktap_test_result "tcp-data-split off: $((BYTES >> 20)) MiB TCP intact, nothing split" off_ok
auto_ok() {
	set_split on on && set_split auto off && counted auto udp auto "$V4_B" 50 && [ "$D_SPLIT" -eq 0 ]
}
ktap_test_result "tcp-data-split auto means off" auto_ok
bad_value() { ! etB -G "$DEV_B" tcp-data-split maybe >/dev/null 2>&1; }
ktap_test_result "a bad tcp-data-split value is refused" bad_value
net_health_test
ktap_finished
