#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# refnicctl ring show: a queue pair's TX and RX rings from the driver's
# debugfs (ring_tx, ring_rx), after traffic: each ring's descriptors,
# counted by owner, agree with its indices (c = head - clean, D = doorbell
# - head, w = tail - doorbell, the rest free) in JSON, the text names its
# source and shows every descriptor, svg FILE draws a square a descriptor;
# a posted RX ring is mostly the device's. An unknown device, a queue the
# port does not have and one no port can have are refused in one line
# each (exit 1, 1 and 2). Run with nsenter, not ip netns exec, which would
# hide debugfs behind the namespace's own sysfs.
set -u
. "$(dirname "$0")/lib_net.sh"

CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
QUEUES=2

ktap_print_header
net_init
[ -x "$CTL" ] || net_skip_all "$CTL not built (make lib)"
[ -r /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug"
ktap_set_plan 6
net_setup queues "$QUEUES"
# Both rings are this size (the driver's default).
RING=$(ip netns exec "$NS_B" ethtool -g "$DEV_B" | awk '/^Current/ { c = 1 } c && $1 == "RX:" { print $2; exit }')

ctl_b() { nsenter --net="/var/run/netns/$NS_B" "$CTL" "$@"; }

net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" $((8 << 20)) 5201 3 && net_tcp_wait bulk 300 ||
	net_bail "no traffic to show rings after"

# consistent FILE SIZE: every ring of the JSON in FILE adds up
consistent() {
	python3 - "$1" "$2" "$DEV_B" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	size, dev = int(sys.argv[2]), sys.argv[3]
	assert d['ifname'] == dev and d['queue'] == 1, d
	assert d['source'].startswith('debugfs /sys/kernel/debug/refnic/drv-'), d['source']
	assert [r['type'] for r in d['rings']] == ['tx', 'rx'], d['rings']
	for r in d['rings']:
	    m = 2 ** 32
	    want = {'fetched': (r['head'] - r['clean']) % m,
	            'device': (r['doorbell'] - r['head']) % m,
	            'unrung': (r['tail'] - r['doorbell']) % m}
	    want['free'] = r['size'] - sum(want.values())
	    got = {k: r[k] for k in want}
	    counted = {k: r['owner'].count(c) for k, c in
	               (('fetched', 'c'), ('device', 'D'), ('unrung', 'w'), ('free', '.'))}
	    print('# %s: %s' % (r['type'], got))
	    assert r['size'] == size == len(r['owner']), r
	    assert got == want == counted, (got, want, counted)
	rx = d['rings'][1]
	assert rx['device'] >= rx['size'] // 2, 'RX ring not posted: %s' % rx
	EOF
}
json_ok() {
	ctl_b -j ring show "$DEV_B" queue 1 >"$NET_TMP/ring.json" 2>"$NET_TMP/ring.err" ||
		{ sed 's/^/# /' "$NET_TMP/ring.err"; return 1; }
	consistent "$NET_TMP/ring.json" "$RING"
}
ktap_test_result "JSON: each ring's owners agree with its indices; RX mostly the device's" json_ok

text_ok() {
	ctl_b ring show "$DEV_B" 1 >"$NET_TMP/ring.txt" 2>&1 || { sed 's/^/# /' "$NET_TMP/ring.txt"; return 1; }
	head -n 4 "$NET_TMP/ring.txt" | sed 's/^/# /'
	grep -q "^$DEV_B queue 1 (debugfs /sys/kernel/debug/refnic/drv-" "$NET_TMP/ring.txt" &&
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
	refused 1 "^refnicctl: queue 2 out of range: $DEV_B has 2 queue pairs\$" ring show "$DEV_B" 2
}
no_such_queue() {
	refused 2 '^refnicctl: invalid queue "16": expected a number from 0 to 15; see' ring show "$DEV_B" 16
}
ktap_test_result "an unknown device: exit 1, one line" unknown_dev
ktap_test_result "queue 2 of 2 queue pairs: exit 1, out of range" out_of_range
ktap_test_result "queue 16: exit 2, a usage error" no_such_queue

ktap_finished
