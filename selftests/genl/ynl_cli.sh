#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The refnic generic netlink family (uapi/refnic.yaml, kmod/mgmt/
# refnic_genl.c) driven end to end through the kernel's own YNL CLI
# (tools/net/ynl/cli.py of linux-source-6.12, with the spec and no schema;
# its main() run per call in long-lived processes, ynl_batch.py), and
# through its library where a file descriptor must be passed (netns-fd).
# Two namespaces, $NS_A and $NS_B. Asserted:
#  - dev-new: without names the kernel picks refnic%d for both ports, in the
#    request's namespace, with the default queues and rings; with names,
#    queues and ring sizes the pair has them (ethtool agrees); with
#    netns-fd/peer-netns-fd the ports land in two namespaces and dev-get
#    reports the peer's namespace as the id `ip link` shows (link-netnsid);
#  - dev-get do and dump show exactly the refnic ports of the namespace
#    (resumable: a dump of 26 ports spans several messages), with the
#    peer, rings, card, port and link; dev-del by either port deletes both;
#  - link-set changes only the attributes given; latency delays pings,
#    loss 100% drops them (counted as link-drop-loss), carrier 0 makes
#    both ends NO-CARRIER in `ip link` and carrier 1 brings them back;
#  - stats-get do and dump: the model's counters move with a ping, with
#    one RX and one TX queue nest per queue pair in use (32 for 16 pairs);
#  - every fault: drop-completion (a ping lost, the driver resyncs:
#    rx0_cmpl_lost, no queue reset; rate 100% loses every frame until
#    cleared), fail-alloc (rx0_alloc_fail, no loss), corrupt-dma-addr (the
#    queue halts and the driver resets it: queue_resets, then traffic),
#    stall-txq (TX timeout and queue reset); each counts `injected`, a
#    count disarms itself, a clear keeps what was injected;
#  - the monitor group delivers dev-add/dev-del (genl and rtnetlink pairs,
#    and a port moved to another namespace, each port in its own namespace
#    only), link-change (link-set and a carrier change at the peer) and
#    fault (armed, cleared) notifications;
#  - errors carry the errno and extack message and attribute: unknown and
#    non-refnic ifindex, out-of-range values, a ring size that is not a
#    power of two, a name in use, a missing attribute, an attribute the
#    operation does not take, rate with count, a bad netns-fd; a user
#    without CAP_NET_ADMIN reads everything but changes nothing (EPERM).
set -u
# shellcheck source=../net/lib_net.sh
. "$(dirname "$0")/../net/lib_net.sh"

KSRC=$REFNIC_REPO/build/linux-source
YNL_CLI=$KSRC/tools/net/ynl/cli.py
SPEC=$REFNIC_REPO/uapi/refnic.yaml
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)

ktap_print_header
net_init
[ -f "$YNL_CLI" ] || net_skip_all "no YNL CLI at $YNL_CLI (scripts/kernel-source.sh not run?)"
command -v setpriv >/dev/null || net_skip_all "needs setpriv"
ktap_set_plan 38
net_ns_setup

# ---- helpers ------------------------------------------------------------------

# The CLI runs in long-lived processes (ynl_batch.py: its main() once per
# call), one per namespace and user: under TCG each Python start-up with the
# spec costs seconds, and the test makes about sixty calls and as many
# evaluations. batch_start NAME CMD...: start one as CMD, talking over FIFOs.
declare -A BATCH_IN=() BATCH_OUT=()
batch_start() {
	local name=$1 fd_in fd_out
	shift
	mkfifo "$NET_TMP/batch-$name.in" "$NET_TMP/batch-$name.out" || return 1
	"$@" python3 "$REFNIC_REPO/selftests/genl/ynl_batch.py" "$YNL_CLI" \
		<"$NET_TMP/batch-$name.in" >"$NET_TMP/batch-$name.out" &
	NET_PID["batch-$name"]=$!
	exec {fd_in}>"$NET_TMP/batch-$name.in" {fd_out}<"$NET_TMP/batch-$name.out"
	BATCH_IN[$name]=$fd_in
	BATCH_OUT[$name]=$fd_out
}

json_str() { # json_str TEXT: TEXT as a JSON string
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}

# batch NAME KIND ARGS...: one request (ynl_batch.py), its stdout and
# stderr replayed, its status returned.
batch() {
	local name=$1 req a line rc=''
	shift
	req="[$(json_str "$1")"
	shift
	for a in "$@"; do req+=", $(json_str "$a")"; done
	printf '%s]\n' "$req" >&"${BATCH_IN[$name]}" || return 1
	while IFS= read -r -u "${BATCH_OUT[$name]}" line; do
		case $line in
		"o "*) printf '%s\n' "${line:2}" ;;
		"e "*) printf '%s\n' "${line:2}" >&2 ;;
		"= "*) rc=${line:2} && break ;;
		esac
	done
	[ -n "$rc" ] || { echo "ynl_batch.py ($name) ended" >&2; return 1; }
	return "$rc"
}

# ynl NS ARGS...: the YNL CLI in NS, JSON on stdout (an error's text when it
# fails, with status 1).
ynl() {
	local ns=$1
	shift
	batch "$ns" cli --spec "$SPEC" --no-schema --output-json "$@"
}

# ynl_nobody NS ARGS...: the same as a user without capabilities.
ynl_nobody() {
	local ns=$1
	shift
	batch "nobody-$ns" cli --spec "$SPEC" --no-schema --output-json "$@"
}

# The YNL library directly, for a do operation whose JSON request may name
# files to pass as descriptors ("fd:/run/netns/NAME"): the CLI cannot.
cat > "$NET_TMP/ynl_fd.py" <<'EOF'
import json, os, sys
ksrc, spec, op, req = sys.argv[1:5]
sys.path.insert(0, ksrc + '/tools/net/ynl')
from lib import YnlFamily, NlError
attrs = json.loads(req)
for k, v in list(attrs.items()):
    if isinstance(v, str) and v.startswith('fd:'):
        attrs[k] = os.open(v[3:], os.O_RDONLY)
ynl = YnlFamily(spec, '')
try:
    print(json.dumps(ynl.do(op, attrs)))
except NlError as e:
    print(e)
    sys.exit(1)
EOF
ynl_fd() { # ynl_fd OP JSON: in the initial namespace
	python3 "$NET_TMP/ynl_fd.py" "$KSRC" "$SPEC" "$1" "$2"
}

# jx JSON EXPR...: Python expressions over a JSON text (as d), one a line
# (modules json and re at hand).
jx() {
	batch eval eval "$@"
}

# check WHAT EXPR JSON: EXPR (Python, over d) holds, or say what was seen.
check() {
	local what=$1 expr=$2 json=$3 r
	r=$(jx "$json" "bool($expr)" 2>&1)
	[ "$r" = True ] && return 0
	net_msg "$what: not ($expr): $r"
	net_msg "  in: ${json:0:600}"
	return 1
}

# fails ERRNO MSG ATTR CMD...: CMD (a ynl call) fails with strerror ERRNO,
# extack message MSG ("" for none) and bad attribute ATTR ("" for none).
fails() {
	local errno=$1 msg=$2 attr=$3 out rc=0
	shift 3
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] && grep -q "Netlink error: $errno" <<<"$out" &&
		{ [ -z "$msg" ] || grep -qF -e "'msg': '$msg'" -e "'msg': \"$msg\"" <<<"$out"; } &&
		{ [ -z "$attr" ] || grep -qF "'bad-attr': '$attr'" <<<"$out"; }; then
		net_msg "$(grep -E 'Netlink error|extack' <<<"$out" | tr -d '\t' | tr '\n' ' ')"
		return 0
	fi
	net_msg "expected '$errno' '$msg' '$attr', got status $rc:"
	sed 's/^/#   /' <<<"$out"
	return 1
}

ping_rx() { # ping_rx NS ADDR COUNT INTERVAL: replies received
	ip netns exec "$1" ping -q -n -c "$3" -i "$4" -W 2 "$2" 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p'
}

fault_get() { # fault_get NS IFINDEX: the dump, filtered
	ynl "$1" --dump fault-get --json "{\"ifindex\": $2}"
}

# fault_is NS IFINDEX TYPE EXPR: the fault entry of queue 0 (as d) passes
# fault_is NS IFINDEX TYPE EXPR: the port has exactly one TYPE fault entry
# on queue 0, and EXPR holds for it (as d).
fault_is() {
	local out
	out=$(fault_get "$1" "$2") || { net_msg "fault-get: $out"; return 1; }
	check "$3 fault" "len([f for f in d if f['type'] == '$3' and f['queue'] == 0]) == 1 and (lambda d: $4)([f for f in d if f['type'] == '$3' and f['queue'] == 0][0])" "$out"
}

estat() { net_estat "$@"; }

wait_for() { # wait_for SECS CMD...: until CMD succeeds
	local end=$((SECONDS + $1 * NET_SCALE))
	shift
	while ! "$@"; do
		[ "$SECONDS" -le "$end" ] || return 1
		sleep 0.2
	done
}

batch_start "$NS_A" ip netns exec "$NS_A" &&
	batch_start "$NS_B" ip netns exec "$NS_B" &&
	batch_start "nobody-$NS_A" ip netns exec "$NS_A" "${NOBODY[@]}" &&
	batch_start eval || net_bail "could not start ynl_batch.py"

# ---- dev-new --------------------------------------------------------------------

P1=$(ynl "$NS_A" --do dev-new --json '{}') || net_bail "dev-new: $P1"
net_msg "dev-new {}: $P1"
P1_PEER=$(jx "$P1" 'd["peer-ifindex"]')
P1_NAME=$(jx "$P1" 'd["ifname"]')
P1_PNAME=$(jx "$P1" 'd["peer-ifname"]')
new_unnamed() {
	check "reply" 're.fullmatch(r"refnic\d+", d["ifname"]) and re.fullmatch(r"refnic\d+", d["peer-ifname"]) and d["ifname"] != d["peer-ifname"] and d["queues"] == 4 and d["rx-ring-size"] == 512 and d["tx-ring-size"] == 512 and d["port"] == 0 and d["link"] == {"carrier": 1, "rate": 0, "latency": 0, "loss": 0} and "peer-netnsid" not in d' "$P1" &&
		ip -n "$NS_A" link show "$P1_NAME" >/dev/null &&
		ip -n "$NS_A" link show "$P1_PNAME" >/dev/null
}
ktap_test_result "dev-new without names: refnic%d names, defaults, both in the request's namespace" new_unnamed

GN=gn$$
GP=gp$$
P2=$(ynl "$NS_A" --do dev-new --json "{\"ifname\": \"$GN\", \"peer-ifname\": \"$GP\", \"queues\": 2, \"rx-ring-size\": 256, \"tx-ring-size\": 128}") ||
	net_bail "dev-new named: $P2"
new_named() {
	local ch ring
	ch=$(ip netns exec "$NS_A" ethtool -l "$GP" | awk '/^Combined:/ { v = $2 } END { print v }')
	ring=$(ip netns exec "$NS_A" ethtool -g "$GP" | awk '/^RX:/ { r = $2 } /^TX:/ { t = $2 } END { print r "/" t }')
	net_msg "$GP: combined $ch, rings $ring (current)"
	check "reply" 'd["ifname"] == "'"$GN"'" and d["peer-ifname"] == "'"$GP"'" and d["queues"] == 2 and d["rx-ring-size"] == 256 and d["tx-ring-size"] == 128' "$P2" &&
		[ "$ch" = 2 ] && [ "$ring" = 256/128 ]
}
ktap_test_result "dev-new with names, queues and ring sizes: both ports have them" new_named

# The traffic pair: A in $NS_A, B in $NS_B, one queue pair.
DEV_A=ga$$
DEV_B=gb$$
PAB=$(ynl_fd dev-new "{\"ifname\": \"$DEV_A\", \"peer-ifname\": \"$DEV_B\", \"netns-fd\": \"fd:/run/netns/$NS_A\", \"peer-netns-fd\": \"fd:/run/netns/$NS_B\", \"queues\": 1}") ||
	net_bail "dev-new across namespaces: $PAB"
net_msg "dev-new across namespaces: $PAB"
IF_A=$(net_ifindex "$NS_A" "$DEV_A")
IF_B=$(net_ifindex "$NS_B" "$DEV_B")
new_netns() {
	local nsid
	nsid=$(ip -n "$NS_A" -j -d link show "$DEV_A" | jx "$(cat)" 'd[0]["link_netnsid"]')
	net_msg "ip link: $DEV_A ifindex $IF_A link-netnsid $nsid; $DEV_B ifindex $IF_B"
	check "reply" "d['ifindex'] == $IF_A and d['peer-ifindex'] == $IF_B and d['peer-ifname'] == '$DEV_B' and d['peer-netnsid'] == $nsid and d['queues'] == 1" "$PAB"
}
ktap_test_result "dev-new with netns-fd and peer-netns-fd: ports in two namespaces, peer-netnsid as ip link's" new_netns

net_pair_up
net_quiet_v6
net_static_neigh

# ---- dev-get ----------------------------------------------------------------------

dump_a() {
	local out
	out=$(ynl "$NS_A" --dump dev-get) || { net_msg "$out"; return 1; }
	net_msg "$NS_A: $(jx "$out" 'sorted(x["ifname"] for x in d)')"
	check "dump in $NS_A" "sorted(x['ifname'] for x in d) == sorted(['$P1_NAME', '$P1_PNAME', '$GN', '$GP', '$DEV_A']) and [x for x in d if x['ifname'] == '$DEV_A'][0]['peer-ifindex'] == $IF_B and all('peer-netnsid' not in x for x in d if x['ifname'] != '$DEV_A')" "$out"
}
ktap_test_result "dev-get dump: exactly the refnic ports of the namespace" dump_a

dump_b() {
	local out
	out=$(ynl "$NS_B" --dump dev-get) || { net_msg "$out"; return 1; }
	check "dump in $NS_B" "len(d) == 1 and d[0]['ifname'] == '$DEV_B' and d[0]['peer-ifname'] == '$DEV_A' and d[0]['peer-ifindex'] == $IF_A and d[0]['port'] == 1 and d[0]['card'] == $(jx "$PAB" 'd["card"]') and 'peer-netnsid' in d[0]" "$out"
}
ktap_test_result "dev-get dump in the peer's namespace: the peer only, port 1, peer-netnsid" dump_b

get_do() {
	local out
	out=$(ynl "$NS_A" --do dev-get --json "{\"ifindex\": $IF_A}") || { net_msg "$out"; return 1; }
	check "dev-get" "d == $(jx "$PAB" 'd')" "$out"
}
ktap_test_result "dev-get do: what dev-new replied" get_do

# A dump longer than one message: 13 more pairs in $NS_B, one with 16 queue
# pairs (whose stats alone outgrow a default dump buffer).
big_dump() {
	local out i n
	for ((i = 0; i < 12; i++)); do
		echo "link add type refnic"
	done | ip -n "$NS_B" -batch - || return 1
	ip -n "$NS_B" link add "gq$$" type refnic queues 16 || return 1
	out=$(ynl "$NS_B" --dump dev-get) || { net_msg "$out"; return 1; }
	n=$(ip -n "$NS_B" -o link show | grep -c 'refnic\|gb\|gq')
	net_msg "$NS_B: $(jx "$out" 'len(d)') ports dumped, $(jx "$out" 'len(set(x["ifindex"] for x in d))') distinct, ip link shows $n"
	check "big dump" "len(d) == 27 and len(set(x['ifindex'] for x in d)) == 27" "$out" || return 1
	out=$(ynl "$NS_B" --dump stats-get) || { net_msg "${out:0:300}"; return 1; }
	check "stats dump" "len(d) == 27 and sorted(len(x['queue']) for x in d)[-1] == 32 and sorted(len(x['queue']) for x in d)[0] == 2" "$out"
}
ktap_test_result "dev-get and stats-get dumps span messages: 27 ports once each, 32 queue nests for 16 pairs" big_dump
ip -n "$NS_B" -o link show | awk -F': ' '$2 ~ /^refnic|^gq/ { sub(/@.*/, "", $2); print "link del " $2 }' |
	ip -n "$NS_B" -batch - 2>/dev/null

del_peer() {
	ynl "$NS_A" --do dev-del --json "{\"ifindex\": $P1_PEER}" >/dev/null || return 1
	! ip -n "$NS_A" link show "$P1_NAME" >/dev/null 2>&1 &&
		! ip -n "$NS_A" link show "$P1_PNAME" >/dev/null 2>&1
}
ktap_test_result "dev-del by the peer's ifindex deletes both ports" del_peer

# ---- link-set ---------------------------------------------------------------------------

link_get() { # link_get NS IFINDEX: the link nest of dev-get
	local out
	out=$(ynl "$1" --do dev-get --json "{\"ifindex\": $2}") || return 1
	jx "$out" 'json.dumps(d["link"])'
}

latency() {
	local l min
	ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"latency\": 50000, \"rate\": 1000000000}}" >/dev/null || return 1
	l=$(link_get "$NS_A" "$IF_A")
	min=$(ip netns exec "$NS_A" ping -n -c 3 -i 0.2 -W 5 "$V4_B" | sed -n 's|.*= \([0-9.]*\)/.*|\1|p')
	net_msg "link $l; ping min rtt $min ms"
	check "link" 'd == {"carrier": 1, "rate": 1000000000, "latency": 50000, "loss": 0}' "$l" &&
		python3 -c "import sys; sys.exit(not float('${min:-0}') >= 50)"
}
ktap_test_result "link-set latency 50 ms, rate 1 Gbit/s: set, others kept, pings take >= 50 ms" latency

loss() {
	local l s0 s1 rx
	ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"loss\": 1000000, \"latency\": 0}}" >/dev/null || return 1
	l=$(link_get "$NS_A" "$IF_A")
	s0=$(ynl "$NS_A" --do stats-get --json "{\"ifindex\": $IF_A}" | jx "$(cat)" 'd["link-drop-loss"]')
	rx=$(ping_rx "$NS_A" "$V4_B" 4 0.2)
	s1=$(ynl "$NS_A" --do stats-get --json "{\"ifindex\": $IF_A}" | jx "$(cat)" 'd["link-drop-loss"]')
	ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"loss\": 0, \"rate\": 0}}" >/dev/null || return 1
	net_msg "link $l; 4 pings: $rx replies; link-drop-loss $s0 -> $s1"
	check "link" 'd == {"carrier": 1, "rate": 1000000000, "latency": 0, "loss": 1000000}' "$l" &&
		[ "$rx" = 0 ] && [ $((s1 - s0)) -ge 4 ] &&
		[ "$(ping_rx "$NS_A" "$V4_B" 3 0.2)" = 3 ]
}
ktap_test_result "link-set loss 100%: every ping lost and counted (link-drop-loss), loss 0 restores" loss

carrier() {
	local l
	ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"carrier\": 0}}" >/dev/null || return 1
	net_wait_link "$NS_A" "$DEV_A" down 20 || { net_msg "$DEV_A still has carrier"; return 1; }
	net_wait_link "$NS_B" "$DEV_B" down 20 || { net_msg "$DEV_B still has carrier"; return 1; }
	l=$(link_get "$NS_A" "$IF_A")
	net_msg "$(ip -n "$NS_A" -o link show "$DEV_A" | cut -c1-80)"
	check "link" 'd["carrier"] == 0' "$l" || return 1
	ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"carrier\": 1}}" >/dev/null || return 1
	net_wait_link "$NS_A" "$DEV_A" up 20 && net_wait_link "$NS_B" "$DEV_B" up 20
}
ktap_test_result "link-set carrier 0: NO-CARRIER at both ends in ip link; carrier 1: LOWER_UP again" carrier

# ---- stats-get --------------------------------------------------------------------------

stats() {
	local a0 b0 a1 b1 rx
	a0=$(ynl "$NS_A" --do stats-get --json "{\"ifindex\": $IF_A}") || return 1
	b0=$(ynl "$NS_B" --do stats-get --json "{\"ifindex\": $IF_B}") || return 1
	rx=$(ping_rx "$NS_A" "$V4_B" 20 0.05)
	a1=$(ynl "$NS_A" --do stats-get --json "{\"ifindex\": $IF_A}") || return 1
	b1=$(ynl "$NS_B" --dump stats-get) || return 1
	b1=$(jx "$b1" "json.dumps([x for x in d if x['ifindex'] == $IF_B][0])")
	net_msg "20 pings, $rx replies"
	cat > "$NET_TMP/stats.py" <<-'EOF'
	import json, sys
	a0, a1, b0, b1 = (json.loads(x) for x in sys.argv[1:5])
	def q(s, t):
	    return [x for x in s['queue'] if x['type'] == t and x['id'] == 0][0]
	def delta(s0, s1, t, k):
	    return q(s1, t)[k] - q(s0, t)[k]
	ok = len(a1['queue']) == 2 and {x['type'] for x in a1['queue']} == {'rx', 'tx'}
	for name, s0, s1, t, keys in (
	        ('A tx', a0, a1, 'tx', ('frames', 'doorbells', 'desc-fetched', 'desc-written', 'dma-read-bytes', 'irq-raised')),
	        ('B rx', b0, b1, 'rx', ('frames', 'desc-fetched', 'desc-written', 'dma-write-bytes', 'irq-raised')),
	        ('A rx', a0, a1, 'rx', ('frames',))):
	    d = {k: delta(s0, s1, t, k) for k in keys}
	    print('#', name, d)
	    ok = ok and all(v >= 20 for k, v in d.items() if k in ('frames', 'desc-written')) and all(v > 0 for v in d.values())
	ok = ok and a1['mmio-writes'] > a0['mmio-writes'] and a1['ifindex'] == a0['ifindex']
	sys.exit(0 if ok else 1)
	EOF
	python3 "$NET_TMP/stats.py" "$a0" "$a1" "$b0" "$b1" && [ "$rx" = 20 ]
}
ktap_test_result "stats-get (do, dump): queue frames, descriptors, DMA bytes and interrupts move with 20 pings" stats

# ---- faults ----------------------------------------------------------------------------------

fault_set() { # fault_set NS IFINDEX TYPE JSON-TAIL
	ynl "$1" --do fault-set --json "{\"ifindex\": $2, \"type\": \"$3\", \"queue\": 0$4}" >/dev/null
}

drop_cmpl() {
	local lost0 lost1 qr0 qr1 rx
	lost0=$(estat "$NS_B" "$DEV_B" rx0_cmpl_lost)
	qr0=$(estat "$NS_B" "$DEV_B" queue_resets)
	fault_set "$NS_B" "$IF_B" drop-completion ', "count": 1' || return 1
	fault_is "$NS_B" "$IF_B" drop-completion 'd["count"] == 1 and d["rate"] == 0 and d["injected"] == 0' || return 1
	rx=$(ping_rx "$NS_A" "$V4_B" 5 0.3)
	lost1=$(estat "$NS_B" "$DEV_B" rx0_cmpl_lost)
	qr1=$(estat "$NS_B" "$DEV_B" queue_resets)
	net_msg "5 pings: $rx replies; $DEV_B rx0_cmpl_lost $lost0 -> $lost1, queue_resets $qr0 -> $qr1"
	dmesg | grep "$DEV_B: rxq 0" | tail -n 2 | sed 's/^/# /'
	fault_is "$NS_B" "$IF_B" drop-completion 'd["count"] == 0 and d["injected"] == 1' &&
		[ "$rx" = 4 ] && [ $((lost1 - lost0)) = 1 ] && [ "$qr1" = "$qr0" ]
}
ktap_test_result "drop-completion count 1: one ping lost, the driver resyncs (rx0_cmpl_lost), no queue reset" drop_cmpl

drop_all() {
	local lost0 lost1 rx rx2
	lost0=$(estat "$NS_B" "$DEV_B" rx0_cmpl_lost)
	fault_set "$NS_B" "$IF_B" drop-completion ', "rate": 1000000' || return 1
	fault_is "$NS_B" "$IF_B" drop-completion 'd["rate"] == 1000000' || return 1
	rx=$(ping_rx "$NS_A" "$V4_B" 5 0.2)
	fault_set "$NS_B" "$IF_B" drop-completion '' || return 1
	rx2=$(ping_rx "$NS_A" "$V4_B" 3 0.2)
	lost1=$(estat "$NS_B" "$DEV_B" rx0_cmpl_lost)
	net_msg "rate 100%: $rx of 5 replies; cleared: $rx2 of 3; rx0_cmpl_lost $lost0 -> $lost1"
	fault_is "$NS_B" "$IF_B" drop-completion 'd["rate"] == 0 and d["count"] == 0 and d["injected"] >= 6' &&
		[ "$rx" = 0 ] && [ "$rx2" = 3 ] && [ $((lost1 - lost0)) = 1 ]
}
ktap_test_result "drop-completion rate 100%: every frame lost until cleared; the clear keeps injected" drop_all

fail_alloc() {
	local af0 af1 rx
	af0=$(estat "$NS_B" "$DEV_B" rx0_alloc_fail)
	fault_set "$NS_B" "$IF_B" fail-alloc ', "count": 1' || return 1
	# The refill allocates once REFNIC_RX_REFILL_BATCH (32) buffers are free.
	rx=$(ping_rx "$NS_A" "$V4_B" 48 0.02)
	af1=$(estat "$NS_B" "$DEV_B" rx0_alloc_fail)
	net_msg "48 pings: $rx replies; $DEV_B rx0_alloc_fail $af0 -> $af1"
	fault_is "$NS_B" "$IF_B" fail-alloc 'd["count"] == 0 and d["injected"] == 1' &&
		[ $((af1 - af0)) = 1 ] && [ "$rx" = 48 ]
}
ktap_test_result "fail-alloc count 1: one RX refill fails (rx0_alloc_fail), nothing lost" fail_alloc

resets_above() { [ "$(estat "$NS_A" "$DEV_A" queue_resets)" -gt "$1" ]; }

bad_dma() {
	local qr0 qr1 rx
	qr0=$(estat "$NS_A" "$DEV_A" queue_resets)
	fault_set "$NS_A" "$IF_A" corrupt-dma-addr ', "count": 1' || return 1
	ping_rx "$NS_A" "$V4_B" 3 0.5 >/dev/null
	wait_for 30 resets_above "$qr0" || net_msg "no queue reset"
	qr1=$(estat "$NS_A" "$DEV_A" queue_resets)
	rx=$(ping_rx "$NS_A" "$V4_B" 5 0.2)
	net_msg "$DEV_A queue_resets $qr0 -> $qr1; then 5 pings: $rx replies"
	dmesg | grep -E "TX queue 0 halted|$DEV_A: queue pair 0 (halted|restarted)" | tail -n 3 | sed 's/^/# /'
	fault_is "$NS_A" "$IF_A" corrupt-dma-addr 'd["count"] == 0 and d["injected"] == 1' &&
		[ "$qr1" -gt "$qr0" ] && [ "$rx" = 5 ] &&
		dmesg | grep -q "$DEV_A: queue pair 0 halted on error"
}
ktap_test_result "corrupt-dma-addr count 1: the TX queue halts, the driver resets it, traffic resumes" bad_dma

stall() {
	local to0 qr0 to1 qr1 rx
	to0=$(estat "$NS_A" "$DEV_A" tx_timeouts)
	qr0=$(estat "$NS_A" "$DEV_A" queue_resets)
	fault_set "$NS_A" "$IF_A" stall-txq ', "count": 1' || return 1
	net_udp_burst "$NS_A" "$V4_B"
	wait_for 60 resets_above "$qr0" || net_msg "no queue reset within 60 s"
	to1=$(estat "$NS_A" "$DEV_A" tx_timeouts)
	qr1=$(estat "$NS_A" "$DEV_A" queue_resets)
	rx=$(ping_rx "$NS_A" "$V4_B" 5 0.2)
	net_msg "$DEV_A tx_timeouts $to0 -> $to1, queue_resets $qr0 -> $qr1; then 5 pings: $rx replies"
	fault_is "$NS_A" "$IF_A" stall-txq 'd["count"] == 0 and d["injected"] == 1' &&
		[ "$to1" -gt "$to0" ] && [ "$qr1" -gt "$qr0" ] && [ "$rx" = 5 ]
}
ktap_test_result "stall-txq count 1: the queue hangs, TX timeout and queue reset, traffic resumes" stall

fault_dump() {
	local out
	out=$(ynl "$NS_A" --dump fault-get) || { net_msg "$out"; return 1; }
	net_msg "$NS_A: $out"
	check "fault dump" "sorted(f['type'] for f in d if f['ifindex'] == $IF_A) == ['corrupt-dma-addr', 'stall-txq'] and all(f['ifindex'] == $IF_A for f in d)" "$out"
}
ktap_test_result "fault-get dump: the faults that struck in the namespace, and only those" fault_dump

# ---- notifications ---------------------------------------------------------------------------

# mon_start NAME NS SECS EXPR: listen to the monitor group in NS (the CLI's
# --subscribe with --sleep), and wait until it listens. Its sleep ends once
# the Python expression EXPR holds over the notifications so far (as d;
# ynl_batch.py --until), else after SECS.
declare -A MON=()
mon_start() {
	local i
	ip netns exec "$2" python3 "$REFNIC_REPO/selftests/genl/ynl_batch.py" \
		--until "$4" "$YNL_CLI" --spec "$SPEC" --no-schema \
		--output-json --subscribe monitor --sleep "$3" \
		>"$NET_TMP/$1.json" 2>"$NET_TMP/$1.err" &
	MON[$1]=$!
	NET_PID[$1]=$!
	for ((i = 0; i < 300 * NET_SCALE; i++)); do
		grep -q '^ynl_batch: subscribed' "$NET_TMP/$1.err" && return 0
		kill -0 "${MON[$1]}" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

MON_SECS=$((60 * NET_SCALE))
MN=mn$$
MP=mp$$
RX=rx$$
RY=ry$$
MZ=mz$$
MW=mw$$
# What the actions below must bring each monitor (the checks further down
# say it exactly); some come from the link watch, after the action returned.
ntf_names() { # ntf_names NAME: the ifnames of NAME notifications in d
	echo "sorted(n['msg']['ifname'] for n in d if n['name'] == '$1')"
}
MON_A_SEEN="$(ntf_names dev-add-ntf) == sorted(['$MN', '$MP', '$RX', '$MZ', '$MW']) and $(ntf_names dev-del-ntf) == sorted(['$MN', '$MP', '$RX', '$MZ', '$MW']) and len([n for n in d if n['name'] == 'fault-ntf']) >= 2 and '$MN' in $(ntf_names link-change-ntf) and '$DEV_A' in $(ntf_names link-change-ntf)"
MON_B_SEEN="len([n for n in d if n['name'] != 'link-change-ntf']) >= 4 and $(ntf_names link-change-ntf).count('$DEV_B') >= 2"
mon_start mon_a "$NS_A" "$MON_SECS" "$MON_A_SEEN" || net_bail "monitor in $NS_A did not start"
mon_start mon_b "$NS_B" "$MON_SECS" "$MON_B_SEEN" || net_bail "monitor in $NS_B did not start"
T0=$SECONDS
MNEW=$(ynl "$NS_A" --do dev-new --json "{\"ifname\": \"$MN\", \"peer-ifname\": \"$MP\"}") || net_msg "dev-new: $MNEW"
MN_IF=$(jx "$MNEW" 'd["ifindex"]' 2>/dev/null)
ynl "$NS_A" --do link-set --json "{\"ifindex\": ${MN_IF:-0}, \"link\": {\"latency\": 1234}}" >/dev/null
fault_set "$NS_A" "${MN_IF:-0}" fail-alloc ', "count": 3'
fault_set "$NS_A" "${MN_IF:-0}" fail-alloc ''
ynl "$NS_A" --do dev-del --json "{\"ifindex\": ${MN_IF:-0}}" >/dev/null
ip -n "$NS_A" link add "$RX" type refnic peer name "$RY" netns "$NS_B"
ip -n "$NS_A" link del "$RX"
ip -n "$NS_A" link add "$MZ" type refnic peer name "$MW"
ip -n "$NS_A" link set "$MZ" netns "$NS_B"
ip -n "$NS_B" link del "$MZ"
ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"carrier\": 0}}" >/dev/null
net_wait_link "$NS_B" "$DEV_B" down 20
ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"carrier\": 1}}" >/dev/null
net_wait_link "$NS_B" "$DEV_B" up 20
net_msg "actions took $((SECONDS - T0)) s (the monitors wait up to $MON_SECS)"
net_bg_wait mon_a $((MON_SECS + 60)) || net_bg_show mon_a
net_bg_wait mon_b $((MON_SECS + 60)) || net_bg_show mon_b
NTF_A=$(tail -n 1 "$NET_TMP/mon_a.json")
NTF_B=$(tail -n 1 "$NET_TMP/mon_b.json")
net_msg "$NS_A: $(jx "$NTF_A" '[(n["name"], n["msg"].get("ifname", n["msg"].get("type"))) for n in d]' 2>&1)"
net_msg "$NS_B: $(jx "$NTF_B" '[(n["name"], n["msg"].get("ifname", n["msg"].get("type"))) for n in d]' 2>&1)"

ntf_add() {
	check "dev-add-ntf" "sorted(n['msg']['ifname'] for n in d if n['name'] == 'dev-add-ntf') == sorted(['$MN', '$MP', '$RX', '$MZ', '$MW'])" "$NTF_A" &&
		check "dev-add-ntf" "[n['msg']['peer-ifname'] for n in d if n['name'] == 'dev-add-ntf' and n['msg']['ifname'] == '$MN'] == ['$MP'] and [('peer-netnsid' in n['msg']) for n in d if n['name'] == 'dev-add-ntf' and n['msg']['ifname'] == '$RX'] == [True]" "$NTF_A"
}
ktap_test_result "monitor: dev-add-ntf for ports made by dev-new and by ip link, in their namespace" ntf_add
ntf_del() {
	check "dev-del-ntf" "sorted(n['msg']['ifname'] for n in d if n['name'] == 'dev-del-ntf') == sorted(['$MN', '$MP', '$RX', '$MZ', '$MW'])" "$NTF_A"
}
ktap_test_result "monitor: dev-del-ntf for ports deleted by dev-del and by ip link, or moved out" ntf_del
ntf_link() {
	check "link-change-ntf" "[n['msg']['link']['latency'] for n in d if n['name'] == 'link-change-ntf' and n['msg']['ifname'] == '$MN'] == [1234] and [n['msg']['link']['carrier'] for n in d if n['name'] == 'link-change-ntf' and n['msg']['ifname'] == '$DEV_A'][:1] == [0]" "$NTF_A"
}
ktap_test_result "monitor: link-change-ntf for link-set, with the new link" ntf_link
ntf_fault() {
	check "fault-ntf" "[(n['msg']['ifindex'], n['msg']['type'], n['msg']['count']) for n in d if n['name'] == 'fault-ntf'] == [($MN_IF, 'fail-alloc', 3), ($MN_IF, 'fail-alloc', 0)]" "$NTF_A"
}
ktap_test_result "monitor: fault-ntf when a fault is armed and when it is cleared" ntf_fault
ntf_peer_ns() {
	check "$NS_B" "[(n['name'], n['msg']['ifname']) for n in d if n['name'] != 'link-change-ntf'] == [('dev-add-ntf', '$RY'), ('dev-del-ntf', '$RY'), ('dev-add-ntf', '$MZ'), ('dev-del-ntf', '$MZ')] and [n['msg']['peer-ifname'] for n in d if n['name'] == 'dev-add-ntf' and 'peer-netnsid' in n['msg']] == ['$RX', '$MW'] and len([n for n in d if n['name'] == 'link-change-ntf' and n['msg']['ifname'] == '$DEV_B']) >= 2" "$NTF_B"
}
ktap_test_result "monitor in the peer's namespace: its ports only (created, moved in), and the carrier changes it saw" ntf_peer_ns

# ---- errors ----------------------------------------------------------------------------------

err_ifindex() {
	fails "No such device" "no refnic device with this ifindex" .ifindex \
		ynl "$NS_A" --do dev-get --json '{"ifindex": 999999}'
}
ktap_test_result "unknown ifindex: ENODEV, 'no refnic device with this ifindex'" err_ifindex

err_not_refnic() {
	fails "Operation not supported" "not a refnic device" .ifindex \
		ynl "$NS_A" --do dev-del --json "{\"ifindex\": $(net_ifindex "$NS_A" lo)}"
}
ktap_test_result "a non-refnic ifindex: EOPNOTSUPP, 'not a refnic device'" err_not_refnic

err_queues() {
	fails "Numerical result out of range" "integer out of range" .queues \
		ynl "$NS_A" --do dev-new --json '{"queues": 17}'
}
ktap_test_result "dev-new queues 17: ERANGE on queues" err_queues

err_ring() {
	fails "Invalid argument" "ring size must be a power of 2" .rx-ring-size \
		ynl "$NS_A" --do dev-new --json '{"rx-ring-size": 100}'
}
ktap_test_result "dev-new rx-ring-size 100: EINVAL, not a power of 2" err_ring

err_name() {
	fails "File exists" "a device with this name exists in the namespace" .ifname \
		ynl "$NS_A" --do dev-new --json "{\"ifname\": \"$DEV_A\"}"
}
ktap_test_result "dev-new with a name in use: EEXIST on ifname" err_name

err_latency() {
	fails "Numerical result out of range" "integer out of range" .link.latency \
		ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"latency\": 10000001}}"
}
ktap_test_result "link-set latency above 10 s: ERANGE on link.latency" err_latency

err_rate() {
	fails "Numerical result out of range" "rate above 10 Tbit/s" .link.rate \
		ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"rate\": 100000000000000}}"
}
ktap_test_result "link-set rate above 10 Tbit/s: ERANGE on link.rate" err_rate

err_missing() {
	local out
	out=$(ynl "$NS_A" --do link-set --json "{\"ifindex\": $IF_A}" 2>&1) && return 1
	net_msg "$(tr -d '\t' <<<"$out" | tr '\n' ' ')"
	grep -q "Invalid argument" <<<"$out" && grep -qF "'miss-type': 'link'" <<<"$out"
}
ktap_test_result "link-set without link: EINVAL, the missing attribute named" err_missing

err_unknown_attr() {
	fails "Invalid argument" "Unknown attribute type" .queues \
		ynl "$NS_A" --do dev-get --json "{\"ifindex\": $IF_A, \"queues\": 2}"
}
ktap_test_result "an attribute the operation does not take: EINVAL, 'Unknown attribute type'" err_unknown_attr

err_rate_count() {
	fails "Invalid argument" "rate and count are exclusive" .count \
		ynl "$NS_A" --do fault-set --json "{\"ifindex\": $IF_A, \"type\": \"stall-txq\", \"queue\": 0, \"rate\": 5, \"count\": 1}"
}
ktap_test_result "fault-set with rate and count: EINVAL on count" err_rate_count

err_fault_range() {
	fails "Numerical result out of range" "integer out of range" .rate \
		ynl "$NS_A" --do fault-set --json "{\"ifindex\": $IF_A, \"type\": \"stall-txq\", \"queue\": 0, \"rate\": 1000001}" &&
	fails "Numerical result out of range" "integer out of range" .type \
		ynl "$NS_A" --do fault-set --json "{\"ifindex\": $IF_A, \"type\": 9, \"queue\": 0}" &&
	fails "Numerical result out of range" "integer out of range" .queue \
		ynl "$NS_A" --do fault-set --json "{\"ifindex\": $IF_A, \"type\": \"stall-txq\", \"queue\": 16}"
}
ktap_test_result "fault-set rate above 1000000, an unknown type, queue 16: ERANGE" err_fault_range

err_netns_fd() {
	fails "Invalid argument" "not a network namespace file descriptor" .netns-fd \
		ynl_fd dev-new '{"netns-fd": "fd:/dev/null"}'
}
ktap_test_result "dev-new with a netns-fd that is no namespace: EINVAL on netns-fd" err_netns_fd

# ---- permissions -----------------------------------------------------------------------------

nobody_reads() {
	local d s f
	d=$(ynl_nobody "$NS_A" --dump dev-get) || { net_msg "dev-get: $d"; return 1; }
	s=$(ynl_nobody "$NS_A" --do stats-get --json "{\"ifindex\": $IF_A}") || { net_msg "stats-get: $s"; return 1; }
	f=$(ynl_nobody "$NS_A" --dump fault-get) || { net_msg "fault-get: $f"; return 1; }
	check "dev-get" "'$DEV_A' in [x['ifname'] for x in d]" "$d" &&
		check "stats-get" "d['ifindex'] == $IF_A" "$s"
}
ktap_test_result "without CAP_NET_ADMIN: dev-get, stats-get and fault-get work" nobody_reads
EPERM_MSG="needs CAP_NET_ADMIN in the user namespace owning the network namespace of the device"
nobody_changes() {
	fails "Operation not permitted" "$EPERM_MSG" .ifindex \
		ynl_nobody "$NS_A" --do link-set --json "{\"ifindex\": $IF_A, \"link\": {\"carrier\": 0}}" &&
	fails "Operation not permitted" "$EPERM_MSG" .ifindex \
		ynl_nobody "$NS_A" --do fault-set --json "{\"ifindex\": $IF_A, \"type\": \"stall-txq\", \"queue\": 0, \"count\": 1}" &&
	fails "Operation not permitted" "$EPERM_MSG" .ifindex \
		ynl_nobody "$NS_A" --do dev-del --json "{\"ifindex\": $IF_A}" &&
	fails "Operation not permitted" "needs CAP_NET_ADMIN in the user namespace owning the network namespace" "" \
		ynl_nobody "$NS_A" --do dev-new --json '{}' &&
	ip -n "$NS_A" link show "$DEV_A" | grep -q LOWER_UP
}
ktap_test_result "without CAP_NET_ADMIN: link-set, fault-set, dev-del, dev-new refused (EPERM), nothing changed" nobody_changes

del_cross() {
	ynl "$NS_B" --do dev-del --json "{\"ifindex\": $IF_B}" >/dev/null &&
		! ip -n "$NS_A" link show "$DEV_A" >/dev/null 2>&1 &&
		[ "$(ynl "$NS_A" --dump dev-get | jx "$(cat)" "sorted(x['ifname'] for x in d)")" = "['$GN', '$GP']" ]
}
ktap_test_result "dev-del from the peer's namespace deletes the pair in both" del_cross
ktap_finished
