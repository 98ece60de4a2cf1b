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
#
# Then the hashed fields (ethtool -N rx-flow-hash, set_rxfh_fields): the
# defaults as `ethtool -n` shows them; udp4 hashed on the addresses alone
# puts all 64 flows (same two hosts, different ports) on one queue, back on
# sdfn they spread; udp6 on sdf; udp4 on nothing at all goes to table entry
# 0's queue; combinations the device cannot hash (ports for ip4, L3 proto,
# sctp4 apart from ip4) are refused with EINVAL and a log line saying why,
# and change nothing. The symmetric-xor input transform (set through the
# ETHTOOL_SRSSH ioctl: ethtool 6.1 has no `xfrm`) puts each flow and its
# port-swapped twin on the same queue, as the oracle (the XOR of source and
# destination fed twice) predicts, and makes the core refuse asymmetric
# fields. On 7.3, the same through ethtool netlink (rss-set flow-hash), with
# the refusal's reason in the extack. Every count is compared once the
# packets the oracle predicts have arrived, not after a fixed time.
set -u
. "$(dirname "$0")/lib_net.sh"

QUEUES=4
# The RSS specification's sample key: its verification vectors apply.
MS_KEY=6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa

ktap_print_header
net_init
ktap_set_plan 21
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh
# Let link-up chatter (RS, MLD reports) pass before counting.
net_settle

etB() { ip netns exec "$NS_B" ethtool "$@"; }

# flows_check NAME SRC DST [rss-check options]: send the flows, compare.
flows_check() {
	local name=$1 src=$2 dst=$3 out rc=0
	shift 3
	net_snap "$NS_B" "$DEV_B" "$NET_TMP/$name.before" ||
		{ net_msg "$name: no counter snapshot"; return 1; }
	net_tool "$NS_A" udp-flows --src "$src" --dst "$dst" --flows 64 \
		--sport 40000 --dport 7777 --vary ${FLOWS_SWAP:+--swap} \
		>"$NET_TMP/$name.flows" || { net_msg "$name: sending failed"; return 1; }
	out=$(net_tool "$NS_B" rss-check "$DEV_B" --before "$NET_TMP/$name.before" \
		--flows "$NET_TMP/$name.flows" --table-size 128 "$@" 2>&1) || rc=$?
	# The per-queue lines and errors, not the JSON.
	grep '^nettool:' <<<"$out" | sed "s/^nettool:/# $name:/"
	grep -v '^nettool:' <<<"$out" >"$NET_TMP/$name.check"
	# Anything else (a traceback) when it failed.
	[ "$rc" = 0 ] || grep -v '^nettool:\|^{' <<<"$out" | sed "s/^/# $name: /"
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
	# ethtool 6.1 exits 0 when the kernel refuses some changes
	# (rx-flow-hash): it says "Cannot ..." then.
	out=$("${@:2}" 2>&1) && ! grep -q '^Cannot ' <<<"$out" && return 0
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
	net_wait_link "$NS_B" "$DEV_B" up 20 && net_wait_link "$NS_A" "$DEV_A" up 20 ||
		net_msg "no carrier after -L"
	net_settle
	ktap_test_result "ethtool -L combined 3: default table over 3 queues, flows as predicted" \
		flows_check combined3 "$V4_A" "$V4_B" --weights 1,1,1
else
	ktap_test_fail "ethtool -L combined 3: default table over 3 queues, flows as predicted"
fi

if set_ok "ethtool -L combined 4" etB -L "$DEV_B" combined "$QUEUES" &&
	set_ok "ethtool -K rxhash off" etB -K "$DEV_B" rxhash off; then
	net_wait_link "$NS_B" "$DEV_B" up 20 && net_wait_link "$NS_A" "$DEV_A" up 20 ||
		net_msg "no carrier after -L"
	net_settle
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
# ---- hashed fields (ethtool -n/-N rx-flow-hash) ------------------------------

# fields FT: ethtool -n rx-flow-hash FT as rx-flow-hash letters (sdfn, "" for
# none), as the upstream rss_api.py reads it. ethtool 6.1 knows no ip4 and
# ip6 there: those go through nettool.py's ETHTOOL_GRXFH.
fields() {
	local out
	case $1 in
	ip4 | ip6)
		net_tool "$NS_B" rxfh-fields "$DEV_B" "$1" >"$NET_TMP/fields.json" || return 1
		jget "$NET_TMP/fields.json" 'd["fields"]'
		return
		;;
	esac
	out=$(etB -n "$DEV_B" rx-flow-hash "$1") || return 1
	awk 'NR > 1 && NF {
		if ($0 == "IP SA") o = o "s"
		else if ($0 == "IP DA") o = o "d"
		else if ($0 == "L3 proto") o = o "t"
		else if ($0 ~ /^L4 bytes 0 & 1/) o = o "f"
		else if ($0 ~ /^L4 bytes 2 & 3/) o = o "n"
		else if ($0 != "None") o = o "?"
	} END { print o }' <<<"$out"
}

# fields_are FT WANT: -n shows WANT for FT
fields_are() {
	local got
	got=$(fields "$1") || { net_msg "ethtool -n rx-flow-hash $1 failed"; return 1; }
	[ "$got" = "$2" ] && return 0
	net_msg "rx-flow-hash $1: ethtool -n shows '$got', want '$2'"
	return 1
}

# set_fields FT LETTERS: ethtool -N rx-flow-hash, then -n must show them
set_fields() {
	set_ok "ethtool -N rx-flow-hash $1 '$2'" etB -N "$DEV_B" rx-flow-hash "$1" "$2" &&
		fields_are "$1" "$2"
}

defaults_ok() {
	local ft ok=0
	for ft in tcp4 udp4 tcp6 udp6; do
		fields_are "$ft" sdfn || ok=1
	done
	for ft in ip4 ip6 sctp4 ah4 esp6; do
		fields_are "$ft" sd || ok=1
	done
	return "$ok"
}
ktap_test_result "ethtool -n rx-flow-hash: tcp/udp hash sdfn, ip4/ip6 (sctp, ah, esp) sd" \
	defaults_ok

# The flows differ only in the source port: without the ports in the hash
# they are one flow to the device.
if set_fields udp4 sd; then
	ktap_test_result "rx-flow-hash udp4 sd: -n shows it, all 64 flows on one queue as predicted" \
		flows_check udp4-sd "$V4_A" "$V4_B" --fields sd --max-queues 1
else
	ktap_test_fail "rx-flow-hash udp4 sd: -n shows it, all 64 flows on one queue as predicted"
fi

if set_fields udp4 sdfn; then
	ktap_test_result "rx-flow-hash udp4 sdfn: flows spread over the queues again as predicted" \
		flows_check udp4-sdfn "$V4_A" "$V4_B" --fields sdfn --min-queues 3
else
	ktap_test_fail "rx-flow-hash udp4 sdfn: flows spread over the queues again as predicted"
fi

if set_fields udp6 sdf && fields_are udp4 sdfn && fields_are tcp6 sdfn; then
	ktap_test_result "rx-flow-hash udp6 sdf (udp4, tcp6 untouched): flows spread by source port as predicted" \
		flows_check udp6-sdf "$V6_A" "$V6_B" --fields sdf --min-queues 3
else
	ktap_test_fail "rx-flow-hash udp6 sdf (udp4, tcp6 untouched): flows spread by source port as predicted"
fi
set_ok "ethtool -N rx-flow-hash udp6 sdfn" etB -N "$DEV_B" rx-flow-hash udp6 sdfn

# Nothing hashed: the queue of table entry 0, as a hash of 0. With the
# table weighted 1 9 9 9, entries 0-4 of 128 name queue 0: a constant hash
# other than 0 would most likely land elsewhere.
if set_ok "ethtool -X weight 1 9 9 9" etB -X "$DEV_B" weight 1 9 9 9 &&
	set_fields udp4 ""; then
	ktap_test_result "rx-flow-hash udp4 none: every flow on table entry 0's queue" \
		flows_check udp4-none "$V4_A" "$V4_B" --fields none --max-queues 1
else
	ktap_test_fail "rx-flow-hash udp4 none: every flow on table entry 0's queue"
fi
set_ok "ethtool -X default" etB -X "$DEV_B" default
set_ok "ethtool -N rx-flow-hash udp4 sdfn" etB -N "$DEV_B" rx-flow-hash udp4 sdfn

# refused FT LETTERS WHY: -N must fail with EINVAL, log WHY for the port,
# and leave FT's fields as they were (ip4 and ip6 through nettool.py's
# ETHTOOL_SRXFH, as fields()).
refused() {
	local ft=$1 want=$2 why=$3 before out
	before=$(fields "$ft") || return 1
	# Only this refusal's log line counts: mark where it starts.
	local mark="refnic-rss-test: refusing $ft $want $$ $RANDOM"
	echo "$mark" >/dev/kmsg
	case $ft in
	ip4 | ip6) out=$(net_tool "$NS_B" rxfh-fields "$DEV_B" "$ft" --set "$want" 2>&1) ;;
	*) out=$(etB -N "$DEV_B" rx-flow-hash "$ft" "$want" 2>&1) ;;
	esac
	# ethtool 6.1 exits 0 when the kernel refuses rx-flow-hash: the
	# message tells.
	grep -q 'Invalid argument' <<<"$out" ||
		{ net_msg "rx-flow-hash $ft $want: not EINVAL: $out"; return 1; }
	dmesg | sed -n "\|$mark|,\$p" | grep -qF "$DEV_B: RSS hash setting refused: $why" ||
		{ net_msg "rx-flow-hash $ft $want: no log line '$why'"; return 1; }
	net_msg "rx-flow-hash $ft $want: refused, EINVAL; log: $why"
	fields_are "$ft" "$before"
}
refusals() {
	local ok=0
	refused ip4 sdfn "no L4 ports to hash in ip4 flows" || ok=1
	refused ip6 sdn "no L4 ports to hash in ip6 flows" || ok=1
	refused udp4 sdt "only IP addresses (s, d) and L4 ports (f, n) can be hashed" || ok=1
	refused tcp6 sdfnv "only IP addresses (s, d) and L4 ports (f, n) can be hashed" || ok=1
	refused sctp4 s "sctp4 is hashed as ip4: set ip4 instead" || ok=1
	# The same value as ip4 is no change, and accepted.
	set_ok "ethtool -N rx-flow-hash sctp4 sd" etB -N "$DEV_B" rx-flow-hash sctp4 sd || ok=1
	return "$ok"
}
ktap_test_result "rx-flow-hash the device cannot hash is refused (EINVAL, logged why), fields unchanged" \
	refusals

# ---- symmetric-xor ------------------------------------------------------------

xfrm() { # xfrm [sym-xor|none]: show (and set) the input transform
	net_tool "$NS_B" rxfh-xfrm "$DEV_B" ${1:+--set "$1"} >"$NET_TMP/xfrm.json"
}
xfrm_is() {
	local got
	got=$(jget "$NET_TMP/xfrm.json" "d.get('input_xfrm')")
	[ "$got" = "$1" ] || { net_msg "input_xfrm $got, want $1: $(cat "$NET_TMP/xfrm.json")"; return 1; }
}

# sym_check V: flows A -> B and their port-swapped twins, both as the
# oracle predicts with symmetric-xor, and each twin on its flow's queue.
sym_check() {
	local v=$1 src dst
	[ "$v" = 4 ] && src=$V4_A dst=$V4_B || src=$V6_A dst=$V6_B
	flows_check "sym$v" "$src" "$dst" --sym --min-queues 3 || return 1
	FLOWS_SWAP=1 flows_check "sym$v-swap" "$src" "$dst" --sym --min-queues 3 || return 1
	python3 - "$NET_TMP/sym$v.check" "$NET_TMP/sym$v-swap.check" <<-'EOF'
	import json, sys
	a, b = (json.load(open(f))['flow_queues'] for f in sys.argv[1:])
	diff = [i for i in range(len(a)) if a[i] != b[i]]
	print('# %d flows and their port-swapped twins: %s' % (
	    len(a), 'same queues' if not diff else 'differ at %s' % diff))
	sys.exit(bool(diff))
	EOF
}

if xfrm sym-xor && xfrm_is 1; then
	ktap_test_result "input-xfrm symmetric-xor: IPv4 flows and their port-swapped twins on the same queues" \
		sym_check 4
	ktap_test_result "input-xfrm symmetric-xor: IPv6 flows and their port-swapped twins on the same queues" \
		sym_check 6
else
	net_msg "ETHTOOL_SRSSH input_xfrm symmetric-xor: $(cat "$NET_TMP/xfrm.json")"
	ktap_test_fail "input-xfrm symmetric-xor: IPv4 flows and their port-swapped twins on the same queues"
	ktap_test_fail "input-xfrm symmetric-xor: IPv6 flows and their port-swapped twins on the same queues"
fi

# With symmetric-xor on, the core refuses a source without its destination
# (and the driver would too); asymmetric fields keep it from being set.
sym_refusals() {
	local ok=0 out
	out=$(etB -N "$DEV_B" rx-flow-hash udp4 sdf 2>&1)
	if ! grep -q 'Cannot change.*Invalid argument' <<<"$out"; then
		net_msg "udp4 sdf not refused with symmetric-xor on: $out"
		ok=1
	fi
	fields_are udp4 sdfn || ok=1
	xfrm none && xfrm_is 0 || ok=1
	set_fields tcp4 sdn || ok=1
	if xfrm sym-xor; then
		net_msg "symmetric-xor accepted with tcp4 sdn"
		ok=1
	fi
	xfrm && xfrm_is 0 || ok=1
	set_fields tcp4 sdfn || ok=1
	return "$ok"
}
ktap_test_result "symmetric-xor refuses asymmetric fields, and is refused while they are set" \
	sym_refusals
if ! xfrm none; then
	net_msg "input_xfrm back to none failed: $(cat "$NET_TMP/xfrm.json")"
fi

# ---- ethtool netlink (7.3) ------------------------------------------------------

rss_set() { # rss_set JSON-FIELDS: rss-set for B, reply or error in $NET_TMP/ynl.json
	net_tool "$NS_B" ynl rss-set --family ethtool --do \
		--json "{\"header\": {\"dev-name\": \"$DEV_B\"}, $1}" >"$NET_TMP/ynl.json"
}
netlink_fields() {
	local ok=0
	rss_set '"flow-hash": {"udp4": ["ip-src", "ip-dst"], "tcp6": ["ip-dst"]}' ||
		{ net_msg "rss-set: $(cat "$NET_TMP/ynl.json")"; return 1; }
	fields_are udp4 sd || ok=1
	fields_are tcp6 d || ok=1
	if ! net_tool "$NS_B" ynl rss-get --family ethtool --do \
		--json "{\"header\": {\"dev-name\": \"$DEV_B\"}}" >"$NET_TMP/ynl.json" ||
		[ "$(jget "$NET_TMP/ynl.json" "sorted(d['reply']['flow-hash']['udp4'])")" != "['ip-dst', 'ip-src']" ]; then
		net_msg "rss-get flow-hash: $(cat "$NET_TMP/ynl.json")"
		ok=1
	fi
	if rss_set '"flow-hash": {"ip4": ["ip-src", "ip-dst", "l4-b-0-1"]}'; then
		net_msg "ip4 with L4 bytes accepted over netlink"
		ok=1
	elif ! grep -qF 'no L4 ports to hash in ip4 flows' "$NET_TMP/ynl.json"; then
		net_msg "refusal without the reason: $(cat "$NET_TMP/ynl.json")"
		ok=1
	else
		net_msg "ip4 sdf refused: $(cat "$NET_TMP/ynl.json")"
	fi
	rss_set '"flow-hash": {"udp4": ["ip-src", "ip-dst", "l4-b-0-1", "l4-b-2-3"], "tcp6": ["ip-src", "ip-dst", "l4-b-0-1", "l4-b-2-3"]}' ||
		{ net_msg "restoring: $(cat "$NET_TMP/ynl.json")"; ok=1; }
	fields_are udp4 sdfn && fields_are tcp6 sdfn || ok=1
	return "$ok"
}
if [ "$REFNIC_SERIES" = 6.12 ]; then
	ktap_test_skip "ethtool netlink rss-set flow-hash: 6.12's ethtool netlink has no rss-set"
else
	ktap_test_result "ethtool netlink rss-set flow-hash: -n agrees, a refusal says why in the extack" \
		netlink_fields
fi

net_health_test
ktap_finished
