#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A device that does not stop its DMA: the device model's wedge-txq fault
# (armed with refnicctl through the refnic netlink family, see
# kmod/model/refnic_model.h) wedges the TX engine inside TX queue $Q of port
# A, holding the DONE write-back of a frame: neither the queue disable nor
# the port reset gets it out. The TX timeout's queue pair restart cannot
# stop the pair, the full restart cannot stop it either, the port reset
# times out: the port must fail and keep every ring and buffer the device
# may still write until the pair is deleted, and the held write lands there
# when the wedge ends. On the debug kernel (KASAN), writing freed memory is
# reported and the harness's kernel log scan fails the test.
#
# A pair with 2 queue pairs, all of A's transmit steered onto TX queue $Q
# by XPS; a UDP burst fills the wedged queue so that the netdev watchdog
# fires. Asserted:
#  - refnicctl arms wedge-txq on queue $Q and the engine wedges there
#    (the model's txq$Q.wedges +1);
#  - the TX timeout comes, and quiesce_failures (ethtool -S) of A moves by
#    exactly 1 and stays there (B's stays 0); the driver logs that the pair
#    did not stop, that the reset timed out, and once that the port failed;
#  - the refnic_reset tracepoint shows the two attempts (queue pair $Q,
#    then the port) and no success, refnic_hw_reset each device reset the
#    model counts;
#  - A's carrier is off while A is still administratively up;
#  - A's page pools are kept, not destroyed, their buffers in flight, while
#    A is up and after ip link set down;
#  - ethtool -L and -G are refused; ip link set down works, ip link set up
#    is refused and its error carries the driver's message;
#  - clearing the fault ends the wedge: the held write lands (the model's
#    txq$Q.late_writes +1) into the kept ring; deleting the pair then frees
#    everything: no page pool is left in either namespace;
#  - a second pair, failed the same way and deleted while still wedged: the
#    held write lands when the card is unplugged (the model logs it), before
#    the kept memory is freed, and no page pool is left;
#  - a third pair taken down (ip link set down) right after the wedge,
#    before the watchdog: the down path fails the port itself, its pools
#    kept and ip link set up refused; clearing the fault lands the held
#    write in kept memory, and the pair's deletion frees everything.
# Time: the watchdog (5 s, checked every 5 s), then 1 s for the restart's
# stop, 1 s for the full restart's stop and 1 s for the reset
# (REFNIC_STOP_TIMEOUT_US, REFNIC_RESET_TIMEOUT_US): some 15 s a failure.
set -u
. "$(dirname "$0")/lib_net.sh"

Q=1
QUEUES=2
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl

ktap_print_header
net_init
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
[ -x "$CTL" ] || net_skip_all "$CTL not built"
ktap_set_plan 16
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh

estat_a() { net_estat "$NS_A" "$DEV_A" "$1"; }
estat_b() { net_estat "$NS_B" "$DEV_B" "$1"; }

# model_dir: the model's debugfs directory of port A (its platform device
# is refnic.<2N + P>); sets PDEV and MODEL.
model_dir() {
	local n
	PDEV=$(basename "$(ip netns exec "$NS_A" readlink -f "/sys/class/net/$DEV_A/device")")
	n=${PDEV#refnic.}
	MODEL=/sys/kernel/debug/refnic/card$((n / 2))/port$((n % 2))
	[ -r "$MODEL/counters" ] || net_bail "$DEV_A ($PDEV): no $MODEL/counters"
}

# mcount NAME: txq$Q.NAME from the model's counters (0 while unset).
mcount() {
	awk -v k="txq$Q.$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$MODEL/counters"
}

# wedge: arm wedge-txq on A's queue $Q (count 1) and send into it.
wedge() {
	ip netns exec "$NS_A" "$CTL" fault set "$DEV_A" wedge-txq queue "$Q" count 1 || return 1
	net_udp_burst "$NS_A" "$V4_B"
}

wedged() { [ "$(mcount wedges)" -gt "$WEDGES0" ]; }
failed() { [ "$(estat_a quiesce_failures)" -gt "$QF0" ]; }
late_moved() { [ "$(mcount late_writes)" -gt "$LATE0" ]; }
unwedged_moved() { [ "$(unwedged_lines)" -gt "$UNWEDGED0" ]; }

# pools_of NS IFINDEX: A's page pools as "N pools, inflight I, destroyed D"
# (N live pools of IFINDEX, I the smallest inflight of them, D the pools of
# IFINDEX with a detach-time); the dump goes to $NET_TMP/pools.json.
pools_of() {
	net_tool "$1" ynl page-pool-get >"$NET_TMP/pools.json" || return 1
	python3 - "$NET_TMP/pools.json" "$2" <<-'EOF'
	import json, sys
	with open(sys.argv[1]) as f:
	    d = json.loads(f.read().strip().splitlines()[-1])['dump']
	mine = [p for p in d if p.get('ifindex') == int(sys.argv[2])]
	live = [p for p in mine if 'detach-time' not in p]
	print(len(live), min([p.get('inflight', 0) for p in live] or [0]),
	      len(mine) - len(live))
	EOF
}

# pools_kept: A's page pools are the ones its queues had: one per RX queue,
# none destroyed, every one with buffers in flight (the posted ones).
pools_kept() {
	local n inflight gone
	read -r n inflight gone < <(pools_of "$NS_A" "$IF_A") || return 1
	net_msg "$DEV_A (ifindex $IF_A): $n live page pools, smallest inflight $inflight, $gone destroyed"
	[ "$n" = "$QUEUES" ] && [ "$inflight" -gt 0 ] && [ "$gone" = 0 ]
}

# unwedged_lines: the model's log lines of a wedge of $PDEV's queue $Q ending.
unwedged_lines() {
	dmesg | grep -c "$PDEV: fault: TX engine unwedged from queue $Q:"
}

model_dir
net_xps_only "$NS_A" "$DEV_A" "$Q" "$QUEUES"
IF_A=$(net_ifindex "$NS_A" "$DEV_A")
net_msg "$DEV_A is $PDEV (ifindex $IF_A), model port $MODEL"

ktap_test_result "A's traffic goes out on TX queue $Q (XPS)" \
	net_tx_steered "$NS_A" "$DEV_A" "$Q" "$V4_B"

# ---- the wedge ------------------------------------------------------------------
# The reset work's and the device's resets, traced from here on.
TRACED=0
# (Hist keys print unsigned: the negative queue and errors are told apart
# with a filter, which compares them signed.)
if net_trace_init && net_hist_on refnic_reset "hist:keys=dev,queue:vals=hitcount" &&
	net_hist_on refnic_reset "hist:keys=dev:vals=hitcount if err == 0" &&
	net_hist_on refnic_hw_reset "hist:keys=bus:vals=hitcount"; then
	TRACED=1
fi
port_resets() { awk '$1 == "resets" { print $2; f = 1 } END { if (!f) print 0 }' "$MODEL/counters"; }
QR0=$(estat_a queue_resets)
HWR0=$(port_resets)
QF0=$(estat_a quiesce_failures)
QFB0=$(estat_b quiesce_failures)
TO0=$(estat_a tx_timeouts)
WEDGES0=$(mcount wedges)
LATE0=$(mcount late_writes)

armed() {
	local out
	ip netns exec "$NS_A" "$CTL" fault set "$DEV_A" wedge-txq queue "$Q" count 1 || return 1
	out=$(ip netns exec "$NS_A" "$CTL" fault show "$DEV_A")
	net_msg "refnicctl fault show: $out"
	# Armed, or (if a stray frame came first) struck already.
	grep -Eq ": queue $Q wedge-txq (count 1 injected 0|disarmed injected 1)$" <<<"$out"
}
ktap_test_result "refnicctl arms wedge-txq on queue $Q of $DEV_A" armed
T0=$SECONDS
net_udp_burst "$NS_A" "$V4_B"

engine_wedged() {
	wait_until 20 wedged
	net_msg "txq$Q.wedges $WEDGES0 -> $(mcount wedges), wedge_stalls $(mcount wedge_stalls)"
	dmesg | grep "$PDEV: fault: TX engine wedged" | tail -n 1 | sed 's/^/# /'
	wedged
}
ktap_test_result "the TX engine wedges inside queue $Q (txq$Q.wedges +1)" engine_wedged

# Nothing may count it twice (the reset work gives up on a failed port, and
# the watchdog stops watching it with the carrier off): the later tests check
# the count again.
one_failure() {
	local qf to
	wait_until 120 failed
	qf=$(estat_a quiesce_failures)
	to=$(estat_a tx_timeouts)
	net_msg "$DEV_A: quiesce_failures $QF0 -> $qf, tx_timeouts $TO0 -> $to, $((SECONDS - T0)) s after the burst; $DEV_B: quiesce_failures $(estat_b quiesce_failures)"
	[ "$qf" = $((QF0 + 1)) ] && [ "$to" -gt "$TO0" ] &&
		[ "$(estat_b quiesce_failures)" = "$QFB0" ]
}
ktap_test_result "TX timeout, then the port fails: quiesce_failures +1 exactly (B's unchanged)" one_failure

driver_log() {
	local ok=0 n
	dmesg | grep -E "$DEV_A: (TX queue $Q timed out|queue pair $Q did not stop|reset timed out|port failed|restart failed)" | sed 's/^/# /'
	dmesg | grep -q "$DEV_A: TX queue $Q timed out" || ok=1
	dmesg | grep -q "$DEV_A: queue pair $Q did not stop" || ok=1
	dmesg | grep -q "$DEV_A: reset timed out" || ok=1
	n=$(dmesg | grep -c "$DEV_A: port failed: the device did not stop its DMA")
	[ "$n" = 1 ] || { net_msg "$n 'port failed' lines"; ok=1; }
	return "$ok"
}
ktap_test_result "the driver logged: pair did not stop, reset timed out, port failed (once)" driver_log

# The reset work tried queue pair $Q, then the whole port (the driver log
# above: the pair did not stop): two refnic_reset events, neither a success
# queue_resets counts; each device reset the model counts is a
# refnic_hw_reset event.
traced_resets() {
	local pair all port ok hw qr hwr
	pair=$(net_hist_sum refnic_reset hitcount "dev=$DEV_A" "queue=$Q")
	all=$(net_hist_sum refnic_reset hitcount "dev=$DEV_A" "queue=*")
	port=$((all - pair))
	ok=$(net_hist_sum refnic_reset hitcount "dev=$DEV_A" filtered)
	hw=$(net_hist_sum refnic_hw_reset hitcount "bus=${PDEV#refnic.}")
	qr=$(($(estat_a queue_resets) - QR0))
	hwr=$(($(port_resets) - HWR0))
	net_msg "refnic_reset: pair $Q $pair, the port $port, succeeded $ok (queue_resets +$qr); refnic_hw_reset $hw (model resets +$hwr)"
	grep -v '^#' "$(net_event_dir refnic_reset)/hist" | grep . | sed 's/^/# hist: /'
	[ "$pair" = 1 ] && [ "$port" = 1 ] && [ "$ok" = "$qr" ] && [ "$hw" = "$hwr" ] &&
		[ "$hwr" -ge 1 ]
}
if [ "$TRACED" = 1 ]; then
	ktap_test_result "refnic_reset: pair $Q, then the port, no success; refnic_hw_reset: the model's resets" traced_resets
else
	ktap_test_skip "refnic_reset, refnic_hw_reset: no tracefs instance with hist triggers"
fi

carrier_off() {
	local c flags
	c=$(net_carrier "$NS_A" "$DEV_A")
	flags=$(ip -n "$NS_A" -o link show dev "$DEV_A")
	net_msg "$DEV_A carrier '$c': ${flags%%mtu*}"
	[ "$c" = 0 ] && grep -q 'NO-CARRIER' <<<"$flags" && grep -q '[<,]UP[,>]' <<<"$flags"
}
ktap_test_result "$DEV_A: carrier off, still administratively up" carrier_off

ktap_test_result "$DEV_A's page pools are kept with their buffers in flight" pools_kept

refused_ethtool() {
	local ok=0
	if ip netns exec "$NS_A" ethtool -L "$DEV_A" combined 1 2>"$NET_TMP/ethtool.err"; then
		net_msg "ethtool -L succeeded"
		ok=1
	fi
	sed 's/^/# ethtool -L: /' "$NET_TMP/ethtool.err"
	if ip netns exec "$NS_A" ethtool -G "$DEV_A" rx 256 2>"$NET_TMP/ethtool.err"; then
		net_msg "ethtool -G succeeded"
		ok=1
	fi
	sed 's/^/# ethtool -G: /' "$NET_TMP/ethtool.err"
	return "$ok"
}
ktap_test_result "ethtool -L and -G are refused on the failed port" refused_ethtool

refused_up() {
	local rc=0
	ip -n "$NS_A" link set "$DEV_A" down || { net_msg "ip link set down failed"; return 1; }
	ip -n "$NS_A" link set "$DEV_A" up 2>"$NET_TMP/up.err" || rc=$?
	sed 's/^/# ip link set up: /' "$NET_TMP/up.err"
	[ "$rc" != 0 ] || { net_msg "ip link set up succeeded"; return 1; }
	grep -q 'port failed: the device did not stop its DMA' "$NET_TMP/up.err" &&
		ip -n "$NS_A" -o link show dev "$DEV_A" | grep -qv '[<,]UP[,>]' &&
		pools_kept
}
ktap_test_result "ip link set down works, set up is refused with the driver's message; pools still kept" refused_up

late_write() {
	local late qf
	ip netns exec "$NS_A" "$CTL" fault clear "$DEV_A" wedge-txq queue "$Q" || return 1
	wait_until 20 late_moved
	late=$(mcount late_writes)
	qf=$(estat_a quiesce_failures)
	net_msg "txq$Q.late_writes $LATE0 -> $late, quiesce_failures $qf"
	dmesg | grep "$PDEV: fault: TX engine unwedged" | tail -n 1 | sed 's/^/# /'
	[ "$late" = $((LATE0 + 1)) ] && [ "$qf" = $((QF0 + 1)) ] && pools_kept
}
ktap_test_result "clearing the fault ends the wedge: the held write lands in kept memory (late_writes +1)" late_write

deleted() {
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}
ktap_test_result "pair deleted, no page pool left in either namespace" deleted

# pair_again WHICH: a new pair as the first was set up, A's traffic on TX
# queue $Q, the counters the checks start from read again.
pair_again() {
	net_pair_add queues "$QUEUES"
	net_quiet_v6
	net_static_neigh
	model_dir
	net_xps_only "$NS_A" "$DEV_A" "$Q" "$QUEUES"
	IF_A=$(net_ifindex "$NS_A" "$DEV_A")
	QF0=$(estat_a quiesce_failures)
	TO0=$(estat_a tx_timeouts)
	WEDGES0=$(mcount wedges)
	LATE0=$(mcount late_writes)
	net_msg "$1 pair: $DEV_A is $PDEV (ifindex $IF_A), model port $MODEL"
}

# ---- a second pair, deleted while wedged -------------------------------------------
pair_again second

failed_again() {
	wedge || return 1
	wait_until 20 wedged || { net_msg "no wedge"; return 1; }
	wait_until 120 failed || { net_msg "no quiesce failure"; return 1; }
	net_msg "$DEV_A: quiesce_failures $QF0 -> $(estat_a quiesce_failures)"
	[ "$(net_carrier "$NS_A" "$DEV_A")" = 0 ] && pools_kept
}
# Read again right before the delete, as the last word on the count.
record_qf() { estat_a quiesce_failures >"$NET_TMP/qf2"; }
ktap_test_result "a second pair's port fails the same way, its pools kept" failed_again
record_qf

deleted_wedged() {
	local after
	UNWEDGED0=$(unwedged_lines)
	ip -n "$NS_A" link del "$DEV_A" || return 1
	wait_until 10 unwedged_moved
	after=$(unwedged_lines)
	dmesg | grep "$PDEV: fault: TX engine unwedged" | tail -n 1 | sed 's/^/# /'
	net_msg "unwedged lines for $PDEV queue $Q: $UNWEDGED0 -> $after; quiesce_failures was $(cat "$NET_TMP/qf2")"
	[ "$after" = $((UNWEDGED0 + 1)) ] && [ "$(cat "$NET_TMP/qf2")" = $((QF0 + 1)) ] &&
		net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}
ktap_test_result "deleted while wedged: the held write lands as the card goes, then no page pool is left" deleted_wedged

# ---- a third pair, taken down while wedged, before the watchdog ---------------------
# ip link set down right after the wedge: the down path's own quiesce (not
# the TX timeout's restart) finds the pair that does not stop and fails the
# port, keeping its memory; ip link set up is refused; clearing the fault
# lets the held write land, into kept memory; deleting the pair frees all.
pair_again third

down_wedged() {
	local qf to
	wedge || return 1
	wait_until 20 wedged || { net_msg "no wedge"; return 1; }
	ip -n "$NS_A" link set "$DEV_A" down || return 1
	qf=$(estat_a quiesce_failures)
	to=$(estat_a tx_timeouts)
	net_msg "$DEV_A down: quiesce_failures $QF0 -> $qf, tx_timeouts $TO0 -> $to"
	dmesg | grep -E "$DEV_A: (queue pair $Q did not stop|port failed)" | sed 's/^/# /'
	[ "$qf" = $((QF0 + 1)) ] && pools_kept &&
		! ip -n "$NS_A" link set "$DEV_A" up 2>/dev/null
}
ktap_test_result "taken down while wedged: the down path fails the port, pools kept, up refused" down_wedged

down_cleared() {
	ip netns exec "$NS_A" "$CTL" fault clear "$DEV_A" wedge-txq queue "$Q" >/dev/null || return 1
	wait_until 20 late_moved || { net_msg "the held write did not land"; return 1; }
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}
ktap_test_result "fault cleared: the held write lands in kept memory; pair deleted, no page pool left" down_cleared
ktap_finished
