#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# refnicctl ring show: a queue pair's TX and RX rings from the indices the
# driver's debugfs prints (ring_tx, ring_rx). After traffic, each ring's
# descriptors counted by owner add up and match its owner line in JSON, and
# a posted RX ring is mostly the device's; the text names its source and
# shows every descriptor; svg FILE draws a square a descriptor. With the
# TX queue hung (the stall-txq fault), the frames sent since are the
# device's (D) until the driver restarts the queue, after which traffic
# flows. An unknown device, a queue the port does not have and one
# no port can have are refused in one line each (exit 1, 1 and 2). Run with
# nsenter, not ip netns exec, which would hide debugfs behind the
# namespace's own sysfs.
set -u
. "$(dirname "$0")/lib_net.sh"

CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
QUEUES=1

ktap_print_header
net_init
[ -x "$CTL" ] || net_skip_all "$CTL not built (make lib)"
[ -r /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug"
ktap_set_plan 8
net_setup queues "$QUEUES"
# Both rings are this size (the driver's default).
RING=$(ip netns exec "$NS_B" ethtool -g "$DEV_B" | awk '/^Current/ { c = 1 } c && $1 == "RX:" { print $2; exit }')

ctl_a() { nsenter --net="/var/run/netns/$NS_A" "$CTL" "$@"; }
ctl_b() { nsenter --net="/var/run/netns/$NS_B" "$CTL" "$@"; }

net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" $((8 << 20)) 5201 3 && net_tcp_wait bulk 300 ||
	net_bail "no traffic to show rings after"

# consistent FILE SIZE: every ring of the JSON in FILE adds up
consistent() {
	python3 - "$1" "$2" "$DEV_B" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	size, dev = int(sys.argv[2]), sys.argv[3]
	assert d['ifname'] == dev and d['queue'] == 0, d
	assert d['source'].startswith('debugfs /sys/kernel/debug/refnic/drv-'), d['source']
	assert [r['type'] for r in d['rings']] == ['tx', 'rx'], d['rings']
	for r in d['rings']:
	    got = {k: r[k] for k in ('consumed', 'device', 'unrung', 'free')}
	    counted = {k: r['owner'].count(c) for k, c in
	               (('consumed', 'c'), ('device', 'D'), ('unrung', 'w'), ('free', '.'))}
	    print('# %s: clean %d head %d doorbell %d tail %d: %s' %
	          (r['type'], r['clean'], r['head'], r['doorbell'], r['tail'], got))
	    assert r['size'] == size == len(r['owner']) == sum(got.values()), r
	    assert got == counted, (got, counted)
	rx = d['rings'][1]
	assert rx['device'] >= rx['size'] // 2, 'RX ring not posted: %s' % rx
	EOF
}
json_ok() {
	ctl_b -j ring show "$DEV_B" queue 0 >"$NET_TMP/ring.json" 2>"$NET_TMP/ring.err" ||
		{ sed 's/^/# /' "$NET_TMP/ring.err"; return 1; }
	consistent "$NET_TMP/ring.json" "$RING"
}
ktap_test_result "JSON: each ring's owners add up and match its owner line; RX mostly the device's" json_ok

text_ok() {
	ctl_b ring show "$DEV_B" 0 >"$NET_TMP/ring.txt" 2>&1 || { sed 's/^/# /' "$NET_TMP/ring.txt"; return 1; }
	head -n 4 "$NET_TMP/ring.txt" | sed 's/^/# /'
	grep -q "^$DEV_B queue 0 (debugfs /sys/kernel/debug/refnic/drv-" "$NET_TMP/ring.txt" &&
		grep -q "^tx: $RING descriptors  clean [0-9]*  head [0-9]*  doorbell [0-9]*  tail [0-9]*\$" "$NET_TMP/ring.txt" &&
		grep -q "^rx: $RING descriptors" "$NET_TMP/ring.txt" &&
		[ "$(grep -cE '^ +[0-9]+ [cDw.]{64}$' "$NET_TMP/ring.txt")" = $((2 * RING / 64)) ]
}
ktap_test_result "text: the source, both rings' indices, their descriptors 64 a line" text_ok

svg_ok() {
	ctl_b ring show "$DEV_B" 0 svg "$NET_TMP/ring.svg" >/dev/null 2>"$NET_TMP/svg.err" ||
		{ sed 's/^/# /' "$NET_TMP/svg.err"; return 1; }
	head -c 5 "$NET_TMP/ring.svg" | grep -q '^<svg ' && grep -q '</svg>' "$NET_TMP/ring.svg" &&
		[ "$(grep -c '<rect x=' "$NET_TMP/ring.svg")" -ge $((2 * RING)) ]
}
ktap_test_result "svg FILE: a square per descriptor of both rings" svg_ok

# ---- a hung TX queue ------------------------------------------------------------
# The next TX run of A's queue 0 hangs it: the frames sent after stay rung
# and not consumed, the device's, until the driver's service task finds the
# queue hung (tx_hangs: three frames do not stop it, so the netdev
# watchdog's TX timeout never comes) and restarts it.
hung_shows_device() {
	ctl_a fault set "$DEV_A" stall-txq queue 0 count 1 || return 1
	ip netns exec "$NS_A" ping -q -c 3 -i 0.2 -W 1 "$V4_B" >/dev/null 2>&1
	ctl_a -j ring show "$DEV_A" 0 >"$NET_TMP/hung.json" || return 1
	python3 - "$NET_TMP/hung.json" <<-'EOF'
	import json, sys
	tx = json.load(open(sys.argv[1]))['rings'][0]
	print('# hung tx: clean %d head %d doorbell %d tail %d: device %d' %
	      (tx['clean'], tx['head'], tx['doorbell'], tx['tail'], tx['device']))
	assert tx['device'] >= 1 and tx['owner'].count('D') == tx['device'], tx
	EOF
}
ktap_test_result "a hung TX queue: the frames sent since are the device's (D)" hung_shows_device
recovered() {
	net_wait_estat "$NS_A" "$DEV_A" queue_resets 1 60 &&
		wait_until 60 ip netns exec "$NS_A" ping -q -c 1 -W 1 "$V4_B" >/dev/null
}
ktap_test_result "the driver restarts the hung queue, and traffic flows again" recovered

# refused WANT_STATUS PATTERN ARGS...: refnicctl exits WANT_STATUS with one line matching PATTERN
refused() {
	local want=$1 pattern=$2 out rc=0
	shift 2
	out=$(ctl_b "$@" 2>&1 >/dev/null) || rc=$?
	net_msg "refnicctl $*: exit $rc: $out"
	[ "$rc" = "$want" ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "$pattern" <<<"$out"
}
unknown_dev() { refused 1 '^refnicctl: no device "nosuchdev"' ring show nosuchdev 0; }
out_of_range() {
	refused 1 "^refnicctl: queue 1 out of range: $DEV_B has 1 queue pairs\$" ring show "$DEV_B" 1
}
no_such_queue() {
	refused 2 '^refnicctl: invalid queue "16": expected a number from 0 to 15; see' ring show "$DEV_B" 16
}
ktap_test_result "an unknown device: exit 1, one line" unknown_dev
ktap_test_result "queue 1 of 1 queue pair: exit 1, out of range" out_of_range
ktap_test_result "queue 16: exit 2, a usage error" no_such_queue

ktap_finished
