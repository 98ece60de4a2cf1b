#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What Linux 7.3 asks of a driver beyond 6.12, and refnic fills in:
#   - page_pool statistics in ethtool -S (rx_pp_*) where the kernel keeps
#     them (CONFIG_PAGE_POOL_STATS: Debian's 7.3, not its 6.12): they move
#     with traffic and never go back, not even when ethtool -G rebuilds the
#     queues and their pools;
#   - persistent NAPI config (netif_napi_add_config): NAPI ids, and a
#     per-NAPI setting made with netdev netlink napi-set, survive ethtool -L
#     down and up again, and ip link down/up;
#   - hds-thresh reported as 0 (rings-get), and another value refused with
#     the core's message;
#   - the RX ring count and hashed fields through their own ethtool ops
#     (get_rx_ring_count, get_rxfh_fields): ethtool -x/-X and
#     -n rx-flow-hash work as on 6.12.
# On 6.12 the 7.3-only checks are skipped, naming what the kernel lacks.
set -u
. "$(dirname "$0")/lib_net.sh"

ktap_print_header
net_init
ktap_set_plan 7
net_setup queues 4
net_quiet_v6
net_static_neigh

KERNEL7=0
[ "$REFNIC_SERIES" = 6.12 ] || KERNEL7=1
IFX_A=$(net_ifindex "$NS_A" "$DEV_A")

etA() { ip netns exec "$NS_A" ethtool "$@"; }
etB() { ip netns exec "$NS_B" ethtool "$@"; }
# ynl NS FAMILY OP JSON [--do]: one netlink request through the kernel's
# YNL library, its JSON reply in $NET_TMP/ynl.json
ynl() {
	local ns=$1 fam=$2 op=$3 js=$4
	shift 4
	net_tool "$ns" ynl "$op" --family "$fam" --json "$js" "$@" >"$NET_TMP/ynl.json"
}

# ---- page_pool statistics ---------------------------------------------------
pp_sum() { # pp_sum: B's rx_pp_* counters, name=value per line
	etB -S "$DEV_B" | awk '$1 ~ /^rx_pp_/ { sub(/:$/, "", $1); print $1 "=" $2 }'
}
pp_check() {
	local before after
	before=$(pp_sum)
	[ -n "$before" ] || { net_msg "no rx_pp_* counters in ethtool -S"; return 1; }
	net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" $((8 << 20)) 5201 2 &&
		net_tcp_wait bulk 300 || { net_msg "8 MiB TCP A -> B failed"; return 1; }
	after=$(pp_sum)
	net_msg "after 8 MiB: $(echo "$after" | tr '\n' ' ')"
	# Buffers were allocated from the pools and went back to them.
	awk -F= -v b="$before" 'BEGIN { n = split(b, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], kv, "="); old[kv[1]] = kv[2] } }
		{ d[$1] = $2 - old[$1] }
		END { alloc = d["rx_pp_alloc_fast"] + d["rx_pp_alloc_slow"]
		      back = d["rx_pp_recycle_cached"] + d["rx_pp_recycle_ring"]
		      exit !(alloc > 0 && back > 0) }' <<<"$after" ||
		{ net_msg "allocations or recycling did not move"; return 1; }
	# A rebuild destroys the pools: their counts are kept.
	etB -G "$DEV_B" rx 256 >/dev/null && etB -G "$DEV_B" rx 512 >/dev/null ||
		{ net_msg "ethtool -G failed"; return 1; }
	awk -F= -v b="$after" 'BEGIN { n = split(b, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], kv, "="); old[kv[1]] = kv[2] } }
		$2 < old[$1] { print "# " $1 " went back: " old[$1] " -> " $2; bad = 1 }
		END { exit bad }' <<<"$(pp_sum)"
}
if ynl "$NS_B" netdev page-pool-stats-get '{}' 2>/dev/null; then
	ktap_test_result "page_pool stats in ethtool -S move with traffic and survive ethtool -G" pp_check
else
	ktap_test_skip "page_pool stats in ethtool -S: this kernel has no CONFIG_PAGE_POOL_STATS"
fi

# ---- persistent NAPI config ---------------------------------------------------
napi_ids() { # napi_ids: A's NAPI instances as "id:defer-hard-irqs" by id
	ynl "$NS_A" netdev napi-get "{\"ifindex\": $IFX_A}" || return 1
	jget "$NET_TMP/ynl.json" "' '.join('%d:%d' % (n['id'], n.get('defer-hard-irqs', -1)) for n in sorted(d['dump'], key=lambda n: n['id']))"
}
napi_persist() {
	local before first after
	before=$(napi_ids) || return 1
	first=${before%%:*}
	ynl "$NS_A" netdev napi-set "{\"id\": $first, \"defer-hard-irqs\": 5}" --do ||
		{ net_msg "napi-set: $(cat "$NET_TMP/ynl.json")"; return 1; }
	before=$(napi_ids) || return 1
	etA -L "$DEV_A" combined 2 && etA -L "$DEV_A" combined 4 || return 1
	ip -n "$NS_A" link set "$DEV_A" down && ip -n "$NS_A" link set "$DEV_A" up || return 1
	after=$(napi_ids) || return 1
	net_msg "NAPI id:defer-hard-irqs before: $before; after -L 2, -L 4, down, up: $after"
	[[ $before == *"$first:5"* ]] && [ "$before" = "$after" ]
}
if [ "$KERNEL7" = 1 ]; then
	ktap_test_result "NAPI ids and a napi-set setting survive ethtool -L and down/up" napi_persist
else
	ktap_test_skip "persistent NAPI config: 6.12 has no netif_napi_add_config"
fi
net_wait_link "$NS_A" "$DEV_A" up 20 || net_bail "$DEV_A: no carrier after down/up"

# ---- hds-thresh ----------------------------------------------------------------
hds_get() {
	ynl "$NS_B" ethtool rings-get "{\"header\": {\"dev-name\": \"$DEV_B\"}}" --do &&
		[ "$(jget "$NET_TMP/ynl.json" "(d['reply'].get('hds-thresh'), d['reply'].get('hds-thresh-max'))")" = "(0, 0)" ]
}
hds_refused() {
	! ynl "$NS_B" ethtool rings-set "{\"header\": {\"dev-name\": \"$DEV_B\"}, \"hds-thresh\": 256}" --do &&
		grep -q 'hds' "$NET_TMP/ynl.json" && net_msg "$(cat "$NET_TMP/ynl.json")"
}
if [ "$KERNEL7" = 1 ]; then
	ktap_test_result "rings-get reports hds-thresh 0 (max 0)" hds_get
	ktap_test_result "rings-set hds-thresh 256 is refused with the core's message" hds_refused
else
	ktap_test_skip "hds-thresh: 6.12's ethtool netlink has no hds-thresh"
	ktap_test_skip "hds-thresh refused: 6.12's ethtool netlink has no hds-thresh"
fi

# ---- RX ring count and flow hash fields --------------------------------------
rxfh_fields() {
	local out
	out=$(etB -n "$DEV_B" rx-flow-hash tcp4) || return 1
	for f in 'IP SA' 'IP DA' 'L4 bytes 0 & 1' 'L4 bytes 2 & 3'; do
		grep -qF "$f" <<<"$out" || { net_msg "no '$f' in: $out"; return 1; }
	done
}
rxfh_indir() {
	etB -X "$DEV_B" equal 2 || return 1
	etB -x "$DEV_B" | grep -q 'with 4 RX ring(s)' &&
		! etB -x "$DEV_B" | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i > 1) bad = 1 } END { exit !bad }' &&
		etB -X "$DEV_B" default
}
ktap_test_result "ethtool -n rx-flow-hash tcp4: addresses and ports" rxfh_fields
ktap_test_result "ethtool -x shows 4 rings; -X equal 2 spreads over queues 0-1" rxfh_indir

net_health_test
ktap_finished
