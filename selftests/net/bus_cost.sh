#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The host bus cost model (refnic family bus-set, dev-get's bus nest), by
# counting what it charged rather than timing it:
# - off at first (no costs, 8 lanes, no node), and counting nothing;
# - read-ns N: every register read, by whatever CPU, is charged N ns and
#   writes (doorbells) are counted and charged nothing: read-charged-ns =
#   reads x N exactly, over traffic;
# - a read makes the CPU wait: with 100 us reads (the most), a dump of the
#   driver's ring indices (one HEAD read a ring) spins the reading CPUs at
#   least 90 % of the reads' cost by the kernel's clock (read-waited-ns);
# - gen 3 x1: every DMA transfer occupies the link bytes / 985 MB/s (the
#   sum within a nanosecond a transfer), a frame crosses it twice (read by
#   the sender, written into the receiver's buffers), and TCP's bytes
#   arrive intact. The cap itself (a TX queue waiting for the link,
#   dma-throttled) does not bind here: TCP under TCG moves a few MB/s, and
#   a 64 KiB frame's 66 us on the link are long over before the next;
# - a card on node 0 with a remote cost: reads charged read-ns, and
#   remote-ns more from a CPU of another node (exact sums); with two NUMA
#   nodes (selftests/TESTS.numa: make check runs this test in such a VM;
#   with one node these cases skip), a ring dump from CPU 1 pays remote-ns a
#   read, and a card on node 1 DMAing the memory of a sender on CPU 0 pays
#   remote-ns a TLP on its link, 100 us, long enough that the TX queue
#   waits for the link (dma-throttled), while TCP's bytes arrive intact;
# - bad generations, lane counts, nodes and costs, and counters, are refused
#   with the kernel's reason, and bus-set from a user namespace too (its
#   costs spend host CPU time), while dev-get works there;
# - refnicctl bus set/show sets and shows it, and passes the kernel's
#   refusals on;
# - with debugfs tx_clean_mmio on, TX completion reads the queue's HEAD
#   register at each clean instead of DONE bits in host memory: 200 pings
#   10 ms apart all answered, with at least 100 more register reads;
# - all costs back to 0: nothing counted any more.
set -u
. "$(dirname "$0")/lib_net.sh"

ktap_print_header
net_init
[ -r /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug"
ktap_set_plan 13
net_setup queues 2
net_static_neigh

IFINDEX_A=$(net_ifindex "$NS_A" "$DEV_A")

ynl_a() { net_tool "$NS_A" ynl --family refnic "$@"; }
bus_set() { # bus_set JSON: the bus nest of a bus-set on A; says why not
	local out
	out=$(ynl_a --do bus-set --json "{\"ifindex\": $IFINDEX_A, \"bus\": $1}") || { echo "$out"; return 1; }
}
# bus_snap FILE: A's bus nest (the card's), as JSON
bus_snap() {
	ynl_a --do dev-get --json "{\"ifindex\": $IFINDEX_A}" |
		python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["reply"]["bus"]))' >"$1"
}
# bus_check OLD NEW PYTHON-EXPR: EXPR over o (OLD), n (NEW) and d (their
# difference, counters only) holds; prints them either way
bus_check() {
	python3 - "$1" "$2" "$3" <<-'EOF'
	import json, sys
	o, n = (json.load(open(f)) for f in sys.argv[1:3])
	d = {k: n[k] - o[k] for k in n if isinstance(n[k], int)}
	print('# bus: %s' % {k: n[k] for k in ('read-ns', 'gen', 'lanes', 'node', 'remote-ns')})
	print('# moved: %s' % {k: v for k, v in d.items() if v})
	sys.exit(0 if eval(sys.argv[3]) else 1)
	EOF
}
traffic() { ip netns exec "$NS_A" ping -q -c 20 -i 0.05 "$V4_B" >/dev/null; }

off_ok() {
	bus_snap "$NET_TMP/b0" && traffic && bus_snap "$NET_TMP/b1" &&
		bus_check "$NET_TMP/b0" "$NET_TMP/b1" \
			"n['read-ns'] == n['gen'] == n['remote-ns'] == 0 and n['lanes'] == 8 and n['node'] == -1 and not any(d.get(k) for k in ('reads', 'writes', 'dma-tlps'))"
}
ktap_test_result "off at first: no costs, 8 lanes, no node; traffic counts nothing" off_ok

reads_ok() {
	bus_set '{"read-ns": 2000}' || return 1
	bus_snap "$NET_TMP/r0" && traffic && ip netns exec "$NS_A" ethtool -S "$DEV_A" >/dev/null &&
		bus_snap "$NET_TMP/r1" &&
		bus_check "$NET_TMP/r0" "$NET_TMP/r1" \
			"d['reads'] > 0 and d['writes'] > 0 and d['read-charged-ns'] == d['reads'] * 2000 and d['remote-reads'] == 0"
}
ktap_test_result "read-ns 2000: each read charged 2000 ns, writes counted and charged nothing" reads_ok

BUS_A=$(ip netns exec "$NS_A" ethtool -i "$DEV_A" | awk '/^bus-info:/ { print $2 }')
# stall_ok: one dump of A's ring indices with 100 us reads
ring_dump() { # ring_dump [PREFIX...]: e.g. ring_dump taskset -c 1
	"$@" nsenter --net="/var/run/netns/$NS_A" cat "/sys/kernel/debug/refnic/drv-$BUS_A/ring_tx" \
		"/sys/kernel/debug/refnic/drv-$BUS_A/ring_rx"
}
stall_ok() {
	bus_set '{"read-ns": 100000}' || return 1
	bus_snap "$NET_TMP/s0" && ring_dump >/dev/null && bus_snap "$NET_TMP/s1" || return 1
	bus_set '{"read-ns": 0}'
	# udelay() may come up a hair short of its microseconds: 90 %.
	bus_check "$NET_TMP/s0" "$NET_TMP/s1" \
		"d['reads'] >= 4 and d['read-charged-ns'] == d['reads'] * 100000 and d['read-waited-ns'] >= 0.9 * d['read-charged-ns']"
}
ktap_test_result "a read waits its round trip: 100 us reads spin their CPU >= 90% of that, by the kernel's clock" stall_ok

dma_ok() {
	bus_set '{"gen": 3, "lanes": 1}' || return 1
	bus_snap "$NET_TMP/d0"
	net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" $((16 << 20)) 5201 3 && net_tcp_wait bulk 300 ||
		{ bus_set '{"gen": 0}'; return 1; }
	bus_snap "$NET_TMP/d1"
	bus_set '{"gen": 0, "lanes": 8}'
	# 984615384 bytes/s a direction: bytes * 1e9 / rate, rounded up per
	# transfer; a transfer is at least one TLP. 16 MiB crossed twice.
	bus_check "$NET_TMP/d0" "$NET_TMP/d1" \
		"0 <= d['dma-charged-ns'] - d['dma-bytes'] * 10**9 // 984615384 <= d['dma-tlps'] and d['dma-bytes'] >= 2 * (16 << 20) + 24 * d['dma-tlps']"
}
ktap_test_result "gen3 x1: DMA charged bytes / 985 MB/s, each frame crossing twice; TCP intact" dma_ok

# clean_reads MODE: A's bus reads over 200 pings from A, 10 ms apart (a TX
# completion, and a clean, each), with A's TX completion by DONE bits (0)
# or by the HEAD register (1, debugfs tx_clean_mmio), into
# $NET_TMP/reads.MODE; every ping answered
MMIO_KNOB=/sys/kernel/debug/refnic/drv-$BUS_A/tx_clean_mmio
clean_reads() {
	local rc=0
	echo "$1" >"$MMIO_KNOB" || return 1
	bus_snap "$NET_TMP/c0"
	ip netns exec "$NS_A" ping -q -c 200 -i 0.01 "$V4_B" >"$NET_TMP/ping.$1" ||
		{ cat "$NET_TMP/ping.$1"; rc=1; }
	echo 0 >"$MMIO_KNOB"
	bus_snap "$NET_TMP/c1"
	python3 -c 'import json, sys; o, n = (json.load(open(f)) for f in sys.argv[1:]); print(n["reads"] - o["reads"])' \
		"$NET_TMP/c0" "$NET_TMP/c1" >"$NET_TMP/reads.$1"
	return "$rc"
}
clean_mmio_ok() {
	local rc=0 off on
	bus_set '{"read-ns": 1000}' || return 1
	clean_reads 0 && clean_reads 1 || rc=1
	bus_set '{"read-ns": 0}'
	[ "$rc" = 0 ] || return 1
	off=$(cat "$NET_TMP/reads.0") on=$(cat "$NET_TMP/reads.1")
	net_msg "register reads over 200 pings: $off with DONE bits, $on with the HEAD register"
	[ "$on" -ge $((off + 100)) ]
}
ktap_test_result "tx_clean_mmio: TX completion by the HEAD register reads it at each clean (200 pings: >= 100 more reads), all answered" clean_mmio_ok

NODES=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
numa_skip="one NUMA node here: make check runs this test in a two-node VM (selftests/TESTS.numa)"

node_local_ok() {
	bus_set '{"read-ns": 1000, "node": 0, "remote-ns": 500}' || return 1
	bus_snap "$NET_TMP/n0" &&
		net_ns "$NS_A" taskset -c 0 ping -q -c 10 -i 0.05 "$V4_B" >/dev/null &&
		bus_snap "$NET_TMP/n1" || return 1
	bus_set '{"read-ns": 0, "node": -1, "remote-ns": 0}'
	# With two nodes, CPU 1's reads (the driver's service task, a poll)
	# are remote all the same: only the sum is exact.
	bus_check "$NET_TMP/n0" "$NET_TMP/n1" \
		"n['node'] == 0 and d['reads'] > 0 and d['read-charged-ns'] == d['reads'] * 1000 + d['remote-reads'] * 500 and ($NODES > 1 or d['remote-reads'] == d['dma-remote-tlps'] == 0)"
}
ktap_test_result "card on node 0: reads charged read-ns, plus remote-ns for CPUs of other nodes" node_local_ok

# remote_reads_ok: the ring dump from CPU 1 (node 1) reads remotely
remote_reads_ok() {
	bus_set '{"read-ns": 1000, "node": 0, "remote-ns": 500}' || return 1
	bus_snap "$NET_TMP/m0" && ring_dump taskset -c 1 >/dev/null &&
		bus_snap "$NET_TMP/m1" || return 1
	bus_set '{"read-ns": 0, "node": -1, "remote-ns": 0}'
	bus_check "$NET_TMP/m0" "$NET_TMP/m1" \
		"d['remote-reads'] >= 4 and d['read-charged-ns'] == d['reads'] * 1000 + d['remote-reads'] * 500"
}
if [ "$NODES" -gt 1 ]; then
	ktap_test_result "a CPU of node 1 reading a node-0 card pays remote-ns a read (ring dump on CPU 1)" remote_reads_ok
else
	ktap_test_skip "a CPU of node 1 reading a node-0 card pays remote-ns a read: $numa_skip"
fi

# remote_dma_ok: a card on node 1, TCP sent from CPU 0 (node-0 memory):
# each remote TLP occupies the link 100 us, more than the VM takes between
# two 64 KiB frames, so the TX queue waits for the link.
remote_dma_ok() {
	local rc=0
	bus_set '{"node": 1, "remote-ns": 100000}' || return 1
	bus_snap "$NET_TMP/q0"
	taskset -p -c 0 $$ >/dev/null
	net_tcp_start remote "$NS_A" "$NS_B" "$V4_B" $((4 << 20)) 5202 5 && net_tcp_wait remote 300 || rc=1
	taskset -p -c 0-$(($(nproc --all) - 1)) $$ >/dev/null
	bus_snap "$NET_TMP/q1"
	bus_set '{"node": -1, "remote-ns": 0}'
	[ "$rc" = 0 ] && bus_check "$NET_TMP/q0" "$NET_TMP/q1" \
		"d['dma-remote-tlps'] > 0 and d['dma-charged-ns'] == d['dma-remote-tlps'] * 100000 and d['dma-throttled'] > 0"
}
if [ "$NODES" -gt 1 ]; then
	ktap_test_result "a node-1 card DMAing node-0 memory: remote-ns a TLP on the link, the TX queue waits for it, TCP intact" remote_dma_ok
else
	ktap_test_skip "a node-1 card DMAing node-0 memory: remote-ns a TLP on the link, the TX queue waits for it: $numa_skip"
fi

refused_ok() {
	local rc=0
	net_refused "gen 2" "PCIe generation must be 3, 4 or 5" bus_set '{"gen": 2}' || rc=1
	net_refused "lanes 3" "lanes must be 1, 2, 4, 8 or 16" bus_set '{"lanes": 3}' || rc=1
	net_refused "node 7" "NUMA node 7 is not online" bus_set '{"node": 7}' || rc=1
	net_refused "read-ns 100001" "out of range" bus_set '{"read-ns": 100001}' || rc=1
	net_refused "a counter" "a counter of the bus model is read-only" bus_set '{"reads": 5}' || rc=1
	bus_snap "$NET_TMP/x" &&
		bus_check "$NET_TMP/x" "$NET_TMP/x" "n['gen'] == 0 and n['lanes'] == 8 and n['node'] == -1 and n['read-ns'] == 0" || rc=1
	return "$rc"
}
ktap_test_result "bad generation, lanes, node and cost, and a counter, refused with the kernel's reason; nothing changed" refused_ok

CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
ctl_ok() {
	local rc=0 out
	ip netns exec "$NS_A" "$CTL" bus set "$DEV_A" read-ns 500 gen 4 lanes 16 || return 1
	out=$(ip netns exec "$NS_A" "$CTL" -j bus show "$DEV_A") || rc=1
	python3 -c 'import json, sys; b = json.loads(sys.argv[1])[0]["bus"]; sys.exit(not (b["read_ns"] == 500 and b["gen"] == 4 and b["lanes"] == 16))' "$out" ||
		{ net_msg "bus show -j: $out"; rc=1; }
	net_msg "$(ip netns exec "$NS_A" "$CTL" bus show "$DEV_A")"
	net_refused "refnicctl bus set node 7" "NUMA node 7 is not online" \
		ip netns exec "$NS_A" "$CTL" bus set "$DEV_A" node 7 || rc=1
	ip netns exec "$NS_A" "$CTL" bus set "$DEV_A" read-ns 0 gen 0 lanes 8 || rc=1
	return "$rc"
}
if [ -x "$CTL" ]; then
	ktap_test_result "refnicctl bus set/show: set, shown as text and JSON; the kernel's refusal reaches the user" ctl_ok
else
	ktap_test_skip "refnicctl bus set/show: $CTL not built (make lib)"
fi

userns_ok() {
	local rc=0 json="{\"ifindex\": $IFINDEX_A, \"bus\": {\"read-ns\": 100}}"
	net_refused "bus-set from a user namespace" "needs CAP_NET_ADMIN in the initial user namespace" \
		ip netns exec "$NS_A" unshare -Ur python3 "$NETTOOL" ynl --family refnic --do bus-set --json "$json" || rc=1
	ip netns exec "$NS_A" unshare -Ur python3 "$NETTOOL" ynl --family refnic --do dev-get \
		--json "{\"ifindex\": $IFINDEX_A}" | grep -q '"read-ns": 0' ||
		{ net_msg "dev-get from the user namespace failed"; rc=1; }
	return "$rc"
}
ktap_test_result "bus-set from a user namespace is refused (host CPU time); dev-get works there" userns_ok

back_off_ok() {
	bus_set '{"read-ns": 0, "gen": 0, "remote-ns": 0}' || return 1
	bus_snap "$NET_TMP/o0" && traffic && bus_snap "$NET_TMP/o1" &&
		bus_check "$NET_TMP/o0" "$NET_TMP/o1" "not any(d.values())"
}
ktap_test_result "all costs back to 0: nothing counted any more" back_off_ok

net_health_test
ktap_finished
