#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ntuple flow steering (ethtool -N/-n), end to end. Port B has 4 queues and
# `ethtool -X equal 1`, so RSS puts every frame on queue 0: a frame counted
# on any other queue (ethtool -S rxN_packets) was put there by a rule.
# Asserted:
#  - NETIF_F_NTUPLE is on by default, the table starts empty and ethtool
#    learns its size;
#  - a tcp4 rule (source and destination address, destination port) takes
#    a verified TCP transfer to queue 2, while a udp4 rule on the same port
#    does not catch it; a udp4 rule at an explicit location takes exactly
#    the datagrams sent to queue 3 (hw_rx_steered and the model's hit
#    counter of the rule agree); a udp6 rule takes IPv6 datagrams to
#    queue 1;
#  - a drop rule drops: the receiving socket gets nothing, hw_rx_steer_drop
#    and rx_dropped count every datagram, no queue counts any;
#  - rules match in location order, first match wins, with partial address
#    and port masks; deleting the first hands the flow to the next, and
#    unmatched frames still go to RSS;
#  - ethtool -n lists every rule at its location with its action; a rule
#    inserted at a used location replaces it; RX_CLS_LOC_LAST takes the
#    last free location; deleting works, deleting an empty location fails;
#  - bad location, bad queue, unsupported flow types and fields (ip4,
#    sctp4, ether, tos, vlan, dst-mac, VF) and an RSS context that does
#    not exist are refused, the driver logs why, and the table is
#    unchanged;
#  - rules changed while the port is down are what the port uses once up;
#  - ethtool -L below a rule's queue is refused, and allowed once the rule
#    is gone; the rules keep steering across the channel change;
#  - ethtool -K ntuple off deletes every rule and refuses new ones until
#    ntuple is on again.
#  - RSS contexts (ethtool -X context new): a rule with `context N` sends
#    its flow to the queues of N's table (context 0: the port's), also
#    after the table changes and after down/up; a context without a table
#    spreads over every queue; a rule naming a context that does not exist,
#    deleting a context a rule leads to, and -L below a context's table
#    are refused (the driver checks the first two itself on 6.12).
set -u
. "$(dirname "$0")/lib_net.sh"

QUEUES=4
# Frames not from the test's flows (neighbour or MLD chatter) that queue 0
# may count.
NOISE=8

ktap_print_header
net_init
ktap_set_plan 15
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh
net_settle

etB() { ip netns exec "$NS_B" ethtool "$@"; }

# The model's directory of port B: its platform device is refnic.<2N + P>.
pdev=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
n=${pdev#refnic.}
MODEL=/sys/kernel/debug/refnic/card$((n / 2))/port$((n % 2))
[ -r "$MODEL/counters" ] || net_msg "no $MODEL/counters: hit counters not checked"

# hits LOC: the model's hit counter of rule LOC (0 while unset).
hits() {
	[ -r "$MODEL/counters" ] || { echo 0; return; }
	awk -v k="flow$1.hits" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$MODEL/counters"
}

# ---- counters ---------------------------------------------------------------

declare -A S0=() S1=()

# snap ARRAY: B's ethtool -S counters, and rx_dropped, into ARRAY.
snap() {
	local -n arr=$1
	local k v
	arr=()
	while read -r k v; do
		arr["${k%:}"]=$v
	done < <(etB -S "$DEV_B" | awk 'NF == 2 && $1 ~ /:$/')
	# shellcheck disable=SC2034 # arr is a nameref
	arr["rx_dropped"]=$(net_link_stat "$NS_B" "$DEV_B" rx_dropped)
}

d() { # d COUNTER: its change from S0 to S1
	echo $((${S1[$1]:-0} - ${S0[$1]:-0}))
}

# expect_queue Q MIN MAX: between S0 and S1, B's queue Q received MIN to
# MAX packets (queue 0 up to $NOISE more), queue 0 at most $NOISE unless
# it is Q, every other queue none.
expect_queue() {
	local want=$1 min=$2 max=$3 q dq line="" ok=0
	for ((q = 0; q < QUEUES; q++)); do
		line+=" rx$q +$(d "rx${q}_packets")"
	done
	net_msg "rx packets by queue:$line; want $min-$max on queue $want"
	for ((q = 0; q < QUEUES; q++)); do
		dq=$(d "rx${q}_packets")
		if [ "$q" = "$want" ]; then
			[ "$q" = 0 ] && max=$((max + NOISE))
			[ "$dq" -ge "$min" ] && [ "$dq" -le "$max" ] || ok=1
		elif [ "$q" = 0 ]; then
			[ "$dq" -le "$NOISE" ] || ok=1
		else
			[ "$dq" -eq 0 ] || ok=1
		fi
	done
	return "$ok"
}

# blast DST PORT COUNT: COUNT datagrams A -> DST:PORT; prints how many
# were sent.
blast() {
	local out
	out=$(net_tool "$NS_A" udp-blast --dst "$1" --dport "$2" --count "$3" \
		--size 200 --burst 10 --gap 0.01) || { net_msg "udp-blast: $out"; echo 0; return; }
	sed -n 's/.*"sent": \([0-9]*\).*/\1/p' <<<"$out"
}

# arrived N: wait until N more frames than at S0 have reached B, on any queue
# or dropped (the sender returns before its frames are through the wire and
# B's NAPI); expect_queue then judges where they went.
seen_total() { # B's frames so far: every queue's rx packets, and rx_dropped
	echo $(($(net_equeue_sum "$NS_B" "$DEV_B" rx packets) + $(net_link_stat "$NS_B" "$DEV_B" rx_dropped)))
}
arrived() {
	local q want=$((${S0[rx_dropped]:-0} + $1))
	for ((q = 0; q < QUEUES; q++)); do
		want=$((want + ${S0[rx${q}_packets]:-0}))
	done
	wait_until 10 _reached "$want" ||
		net_msg "B has $(($(seen_total) - want + $1)) of the $1 frames after $((10 * NET_SCALE)) s"
}
_reached() { [ "$(seen_total)" -ge "$1" ]; }

# udp_to_queue DST PORT Q: 100 datagrams to DST:PORT all land on queue Q.
udp_to_queue() {
	local sent
	snap S0
	sent=$(blast "$1" "$2" 100)
	arrived "$sent"
	snap S1
	[ "$sent" -gt 0 ] && expect_queue "$3" "$sent" "$sent"
}

# ---- rules --------------------------------------------------------------------

# ethtool 6.1 exits 0 when the kernel refuses a rule inserted at an explicit
# location (and sometimes without one): whether it went in is told by what
# it prints, "rmgr: Cannot insert RX class rule: ERROR" or, without loc,
# "Added rule with ID N".

# rule ARGS...: ethtool -N $DEV_B ARGS; prints the location ethtool reports
# (only without loc), fails loudly.
rule() {
	local out
	if ! out=$(etB -N "$DEV_B" "$@" 2>&1) || grep -q 'Cannot' <<<"$out"; then
		net_msg "ethtool -N $*: $out"
		return 1
	fi
	sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p' <<<"$out"
}

refused() { # refused ARGS...: ethtool -N $DEV_B ARGS must be refused
	local out
	out=$(etB -N "$DEV_B" "$@" 2>&1)
	if grep -q 'Cannot insert' <<<"$out"; then
		net_msg "ethtool -N $*: $out"
		return 0
	fi
	net_msg "ethtool -N $* was accepted: $out"
	return 1
}

# listed: "LOC ACTION" per rule ethtool -n shows, ACTION "queue N" or
# "drop", and "total N" first.
listed() {
	etB -n "$DEV_B" | awk '
		/^Total [0-9]+ rules/ { print "total", $2 }
		/^Filter: / { loc = $2 }
		/Action: Direct to queue/ { print loc, "queue", $NF }
		/Action: Drop/ { print loc, "drop" }'
}

# expect_listed "LOC ACTION"...: ethtool -n shows exactly these rules.
expect_listed() {
	local got want
	got=$(listed)
	want=$(printf 'total %d\n' $#; printf '%s\n' "$@")
	[ "$got" = "$want" ] && return 0
	net_msg "ethtool -n shows: $(tr '\n' ';' <<<"$got")"
	net_msg "want: $(tr '\n' ';' <<<"$want")"
	return 1
}

delete_all() {
	local loc
	for loc in $(listed | awk '$1 != "total" { print $1 }'); do
		etB -N "$DEV_B" delete "$loc" || return 1
	done
}

# ---- the tests ----------------------------------------------------------------

defaults() {
	local feat rings
	feat=$(etB -k "$DEV_B" | awk '$1 == "ntuple-filters:" { print $2 }')
	rings=$(etB -n "$DEV_B" | awk '/RX rings available/ { print $1 }')
	net_msg "ntuple-filters: $feat, $rings RX rings"
	[ "$feat" = on ] && [ "$rings" = "$QUEUES" ] && expect_listed
}
ktap_test_result "ntuple on by default, $QUEUES RX rings, no rule" defaults

rss_one() {
	etB -X "$DEV_B" equal 1 || return 1
	udp_to_queue "$V4_B" 6999 0
}
ktap_test_result "ethtool -X equal 1: without a rule, everything on queue 0" rss_one

tcp4() {
	local loc ok=0 steered
	loc=$(rule flow-type tcp4 src-ip "$V4_A" dst-ip "$V4_B" dst-port 5201 action 2) || return 1
	# Same port, other protocol, lower priority: must not catch TCP.
	rule flow-type udp4 dst-port 5201 action 1 >/dev/null || return 1
	net_msg "tcp4 rule at location '$loc'"
	[ "$loc" = 0 ] || ok=1
	snap S0
	{ net_tcp_start tcp4 "$NS_A" "$NS_B" "$V4_B" $((4 << 20)) 5201 3 &&
		net_tcp_wait tcp4 120; } || ok=1
	# The receiver has every byte: its frames are counted.
	snap S1
	steered=$(d hw_rx_steered)
	net_msg "hw_rx_steered +$steered, rx2_packets +$(d rx2_packets)"
	# 4 MiB is more than 2800 full-sized segments.
	expect_queue 2 2800 1000000 || ok=1
	# Steered frames the queue had no buffer for are counted, not received.
	[ "$steered" -ge "$(d rx2_packets)" ] || ok=1
	return "$ok"
}
ktap_test_result "tcp4 rule: a verified 4 MiB TCP transfer lands on queue 2 only" tcp4

udp4() {
	local ok=0 h sent
	rule flow-type udp4 dst-ip "$V4_B" dst-port 7000 action 3 loc 10 >/dev/null || return 1
	snap S0
	sent=$(blast "$V4_B" 7000 200)
	arrived "$sent"
	snap S1
	h=$(hits 10)
	net_msg "sent $sent, hw_rx_steered +$(d hw_rx_steered), rule 10 hits $h"
	[ "$sent" -gt 0 ] || ok=1
	expect_queue 3 "$sent" "$sent" || ok=1
	[ "$(d hw_rx_steered)" -eq "$sent" ] || ok=1
	[ ! -r "$MODEL/counters" ] || [ "$h" -eq "$sent" ] || ok=1
	return "$ok"
}
ktap_test_result "udp4 rule at loc 10: every datagram on queue 3, counted as steered and as the rule's hits" udp4

udp6() {
	rule flow-type udp6 src-ip "$V6_A" dst-ip "$V6_B" dst-port 7001 action 1 >/dev/null &&
		udp_to_queue "$V6_B" 7001 1
}
ktap_test_result "udp6 rule: IPv6 datagrams on queue 1" udp6

drop() {
	local ok=0 got sent
	rule flow-type udp4 dst-port 7002 action -1 >/dev/null || return 1
	rm -f "$NET_TMP/sink.ready"
	net_bg sink net_tool "$NS_B" udp-sink "$V4_B" 7002 --idle 3 --ready "$NET_TMP/sink.ready"
	net_wait_file "$NET_TMP/sink.ready" 30 || return 1
	snap S0
	sent=$(blast "$V4_B" 7002 100)
	net_bg_wait sink 30
	snap S1
	got=$(jget "$NET_TMP/sink.out" 'd["packets"]')
	net_msg "sent $sent, socket got $got, hw_rx_steer_drop +$(d hw_rx_steer_drop), rx_dropped +$(d rx_dropped)"
	[ "$got" = 0 ] && [ "$sent" -gt 0 ] || ok=1
	[ "$(d hw_rx_steer_drop)" -eq "$sent" ] && [ "$(d rx_dropped)" -eq "$sent" ] || ok=1
	expect_queue 0 0 0 || ok=1
	return "$ok"
}
ktap_test_result "drop rule: the socket gets nothing, every datagram counted as dropped" drop

order() {
	local ok=0
	# 192.0.2.0/24, ports 7008-7015; then an exact rule below it.
	rule flow-type udp4 dst-ip 192.0.2.77 m 0.0.0.255 dst-port 7008 m 0x7 action 2 loc 20 >/dev/null &&
		rule flow-type udp4 dst-port 7010 action 3 loc 21 >/dev/null || return 1
	udp_to_queue "$V4_B" 7010 2 || { net_msg "masked rule 20 should win"; ok=1; }
	udp_to_queue "$V4_B" 7016 0 || { net_msg "port 7016 matches no rule"; ok=1; }
	etB -N "$DEV_B" delete 20 || return 1
	udp_to_queue "$V4_B" 7010 3 || { net_msg "rule 21 should match once 20 is gone"; ok=1; }
	return "$ok"
}
ktap_test_result "first match wins, masks match partly; delete hands the flow to the next rule" order

listing() {
	local ok=0 out
	expect_listed "0 queue 2" "1 queue 1" "2 queue 1" "3 drop" "10 queue 3" "21 queue 3" || ok=1
	# An explicit location in use: the rule is replaced.
	rule flow-type udp4 dst-ip "$V4_B" dst-port 7000 action 2 loc 10 >/dev/null || ok=1
	expect_listed "0 queue 2" "1 queue 1" "2 queue 1" "3 drop" "10 queue 2" "21 queue 3" || ok=1
	udp_to_queue "$V4_B" 7000 2 || ok=1
	# RX_CLS_LOC_LAST, which ethtool passes through: the last free one.
	out=$(rule flow-type udp4 dst-port 7005 action 1 loc 4294967293) || ok=1
	[ "$out" = 63 ] || { net_msg "RX_CLS_LOC_LAST gave location '$out'"; ok=1; }
	etB -N "$DEV_B" delete 63 || ok=1
	etB -N "$DEV_B" delete 1 || ok=1
	if etB -N "$DEV_B" delete 1 2>/dev/null; then
		net_msg "deleting an empty location succeeded"
		ok=1
	fi
	expect_listed "0 queue 2" "2 queue 1" "3 drop" "10 queue 2" "21 queue 3" || ok=1
	return "$ok"
}
ktap_test_result "ethtool -n lists rules by location; insert at a used loc replaces; delete" listing

refusals() {
	local ok=0 before
	before=$(listed)
	refused flow-type udp4 dst-port 7100 action 1 loc 64 || ok=1
	refused flow-type udp4 dst-port 7100 action "$QUEUES" || ok=1
	refused flow-type ip4 dst-ip "$V4_B" action 1 || ok=1
	refused flow-type sctp4 dst-port 7100 action 1 || ok=1
	refused flow-type ether proto 0x88b5 action 1 || ok=1
	refused flow-type tcp4 dst-port 7100 tos 4 action 1 || ok=1
	refused flow-type tcp4 dst-port 7100 vlan 5 action 1 || ok=1
	refused flow-type tcp4 dst-port 7100 dst-mac 02:00:00:00:00:01 action 1 || ok=1
	refused flow-type tcp4 dst-port 7100 context 1 action 0 || ok=1
	refused flow-type tcp4 dst-port 7100 vf 1 queue 1 || ok=1
	[ "$(listed)" = "$before" ] || { net_msg "the table changed"; ok=1; }
	if ! dmesg | grep -q "$DEV_B: ntuple rule refused: queue $QUEUES, the port has $QUEUES"; then
		net_msg "no 'ntuple rule refused' line for the bad queue in the kernel log"
		ok=1
	fi
	dmesg | grep "$DEV_B: ntuple rule refused" | sed 's/^/# /'
	return "$ok"
}
ktap_test_result "bad loc, bad queue, unsupported flow types and fields refused, and logged" refusals

down_up() {
	local ok=0
	rule flow-type udp4 dst-port 7020 action 2 loc 30 >/dev/null || return 1
	ip -n "$NS_B" link set "$DEV_B" down || return 1
	etB -N "$DEV_B" delete 30 || ok=1
	rule flow-type udp4 dst-port 7020 action 1 loc 31 >/dev/null || ok=1
	ip -n "$NS_B" link set "$DEV_B" up || return 1
	if ! net_wait_link "$NS_B" "$DEV_B" up 20 ||
		! net_wait_link "$NS_A" "$DEV_A" up 20; then
		net_msg "no carrier after up"
		return 1
	fi
	net_static_neigh
	net_settle
	udp_to_queue "$V4_B" 7020 1 || ok=1
	udp_to_queue "$V4_B" 7000 2 || ok=1
	etB -N "$DEV_B" delete 31 || ok=1
	return "$ok"
}
ktap_test_result "rules changed while down are the ones in use once up" down_up

channels() {
	local ok=0 out
	# Rules use queues up to 3 (loc 21): delete all but the queue-2 ones.
	etB -N "$DEV_B" delete 2 && etB -N "$DEV_B" delete 21 || return 1
	expect_listed "0 queue 2" "3 drop" "10 queue 2" || ok=1
	if out=$(etB -L "$DEV_B" combined 2 2>&1); then
		net_msg "ethtool -L combined 2 accepted with a rule on queue 2"
		ok=1
	else
		net_msg "ethtool -L combined 2: $out"
	fi
	out=$(etB -L "$DEV_B" combined 3 2>&1) || { net_msg "ethtool -L combined 3: $out"; ok=1; }
	net_wait_link "$NS_B" "$DEV_B" up 20 && net_wait_link "$NS_A" "$DEV_A" up 20 ||
		net_msg "no carrier after -L"
	net_settle
	udp_to_queue "$V4_B" 7000 2 || { net_msg "rule 10 lost with -L combined 3"; ok=1; }
	etB -N "$DEV_B" delete 0 && etB -N "$DEV_B" delete 10 || ok=1
	out=$(etB -L "$DEV_B" combined 2 2>&1) || { net_msg "ethtool -L combined 2 without the rules: $out"; ok=1; }
	out=$(etB -L "$DEV_B" combined "$QUEUES" 2>&1) || { net_msg "ethtool -L combined $QUEUES: $out"; ok=1; }
	net_wait_link "$NS_B" "$DEV_B" up 20 && net_wait_link "$NS_A" "$DEV_A" up 20 ||
		net_msg "no carrier after -L"
	[ "$(etB -l "$DEV_B" | awk '$1 == "Combined:" { v = $2 } END { print v }')" = "$QUEUES" ] || ok=1
	return "$ok"
}
ktap_test_result "ethtool -L below a rule's queue refused, allowed once it is deleted" channels

ntuple_off() {
	local ok=0 out
	net_settle
	rule flow-type udp4 dst-port 7030 action 3 >/dev/null &&
		rule flow-type tcp6 dst-port 7031 action 1 >/dev/null || return 1
	udp_to_queue "$V4_B" 7030 3 || ok=1
	etB -K "$DEV_B" ntuple off || return 1
	expect_listed || ok=1
	udp_to_queue "$V4_B" 7030 0 || { net_msg "a rule still steers with ntuple off"; ok=1; }
	refused flow-type udp4 dst-port 7030 action 3 || ok=1
	etB -K "$DEV_B" ntuple on || return 1
	out=$(rule flow-type udp4 dst-port 7030 action 2) || ok=1
	net_msg "after ntuple on, the rule went to location '$out'"
	[ "$out" = 0 ] || ok=1
	udp_to_queue "$V4_B" 7030 2 || ok=1
	delete_all || ok=1
	expect_listed || ok=1
	return "$ok"
}
ktap_test_result "ethtool -K ntuple off deletes every rule and refuses new ones until on" ntuple_off

# ctx_new ARGS...: ethtool -X $DEV_B context new ARGS; prints the new
# context's ID.
ctx_new() {
	local out
	out=$(etB -X "$DEV_B" context new "$@" 2>&1) || {
		net_msg "ethtool -X context new $*: $out"
		return 1
	}
	sed -n 's/^New RSS context is \([0-9]*\)$/\1/p' <<<"$out"
}

# ctx_table C: the queues context C's table names, sorted, one line.
ctx_table() {
	etB -x "$DEV_B" context "$1" |
		awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) q[$i] = 1 }
			END { for (k in q) print k }' | sort -n | tr '\n' ' '
}

rss_contexts() {
	local ok=0 c1 c2 loc out
	c1=$(ctx_new start 3 equal 1) && [ -n "$c1" ] || return 1
	c2=$(ctx_new) && [ -n "$c2" ] || return 1
	net_msg "contexts $c1 ($(ctx_table "$c1")) and $c2 ($(ctx_table "$c2"))"
	[ "$(ctx_table "$c1")" = "3 " ] || ok=1
	[ "$(ctx_table "$c2")" = "0 1 2 3 " ] || { net_msg "a context without a table spreads over every queue"; ok=1; }
	loc=$(rule flow-type udp4 dst-port 7040 context "$c1") && [ -n "$loc" ] || return 1
	etB -n "$DEV_B" rule "$loc" | grep -q "RSS Context.*$c1" || {
		net_msg "ethtool -n rule $loc does not name context $c1"
		ok=1
	}
	udp_to_queue "$V4_B" 7040 3 || ok=1
	# A rule to context 0 uses the port's table (equal 1: queue 0).
	out=$(rule flow-type udp4 dst-port 7041 context 0) || ok=1
	udp_to_queue "$V4_B" 7041 0 || ok=1
	etB -N "$DEV_B" delete "$out" || ok=1
	# The context's table changes under the rule.
	etB -X "$DEV_B" context "$c1" start 2 equal 1 || ok=1
	udp_to_queue "$V4_B" 7040 2 || ok=1
	refused flow-type udp4 dst-port 7042 context 9 || ok=1
	refused flow-type udp4 dst-port 7042 context "$c1" action -1 || ok=1
	if out=$(etB -X "$DEV_B" context "$c1" delete 2>&1); then
		net_msg "context $c1 deleted while rule $loc leads to it"
		ok=1
	fi
	if out=$(etB -L "$DEV_B" combined 3 2>&1); then
		net_msg "ethtool -L combined 3 accepted with context $c2 on queue 3"
		ok=1
	fi
	# Contexts and rules outlive down/up.
	ip -n "$NS_B" link set "$DEV_B" down && ip -n "$NS_B" link set "$DEV_B" up || return 1
	net_wait_link "$NS_B" "$DEV_B" up 20 && net_wait_link "$NS_A" "$DEV_A" up 20 ||
		net_msg "no carrier after up"
	net_static_neigh
	net_settle
	udp_to_queue "$V4_B" 7040 2 || ok=1
	etB -N "$DEV_B" delete "$loc" || ok=1
	etB -X "$DEV_B" context "$c1" delete || ok=1
	etB -X "$DEV_B" context "$c2" delete || ok=1
	udp_to_queue "$V4_B" 7040 0 || ok=1
	return "$ok"
}
ktap_test_result "RSS contexts: rules lead to a context's queues; in use, deleting it and -L below it refused" rss_contexts

clean() {
	local ok=0
	# After all of it, no rule left and RSS back to queue 0 alone.
	udp_to_queue "$V4_B" 7000 0 || ok=1
	expect_listed || ok=1
	return "$ok"
}
ktap_test_result "no rule left: traffic back on RSS" clean
net_health_test
ktap_finished
