#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TX timeout and queue reset, end to end, with the hang made in the
# "hardware": the device model's fault_tx_hang (debugfs
# refnic/card<N>/port<P>/, see kmod/model/debugfs.c) hangs TX queue $Q of
# port A the way a wedged DMA engine does (doorbells accepted, nothing
# completed) until the driver resets the queue.
#
# A pair with 2 queue pairs, all of A's transmit steered onto TX queue $Q by
# XPS. A paced, verified TCP transfer A -> B is running when the hang is
# armed; a UDP socket then fills the hung queue (more datagrams than the
# ring holds: BQL or a full ring stops it) and keeps its send queue open.
# Asserted:
#  - the model's txq$Q.hang_stalls moves: doorbells go unanswered;
#  - the netdev watchdog fires for queue $Q (sysfs tx-$Q/tx_timeout, the
#    NETDEV WATCHDOG line), ethtool -S tx_timeouts and queue_resets of A go
#    up by at least 1 (B's stay 0), the driver logs the timeout and the
#    restart of queue pair $Q, and the queue disable ended the hang in the
#    model (hang_cleared, fault_tx_hang reads "none");
#  - every skb the hung ring held was unmapped and freed: the UDP socket's
#    send queue (SIOCOUTQ, its sk_wmem_alloc) drains to 0, and BQL of
#    tx-$Q was reset (inflight 0 when idle);
#  - the TCP transfer completes byte for byte, TX queue $Q carries traffic
#    again and pings answer both ways;
#  - after the pair is deleted no page pool is left in either namespace.
# Then a hang under light traffic (3 pings, BQL's minimum limit raised: the
# queue is not stopped, so the watchdog cannot see it): the driver's service
# task finds the oldest frame undone for the watchdog's 5 s, counts it in
# tx_hangs (exactly once), logs "TX queue Q hung" with the ring's indices
# and restarts the pair; pings answer again and the watchdog did not fire.
# The NETDEV WATCHDOG line is netdev_crit(), not a WARN: the harness's
# kernel log scan does not flag it.
set -u
. "$(dirname "$0")/lib_net.sh"

Q=1
QUEUES=2
BYTES=$((16 << 20))
PACE=20

ktap_print_header
net_init
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
ktap_set_plan 16
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh

# The model's directory of port A: its platform device is refnic.<2N + P>.
pdev=$(basename "$(ip netns exec "$NS_A" readlink -f "/sys/class/net/$DEV_A/device")")
n=${pdev#refnic.}
MODEL=/sys/kernel/debug/refnic/card$((n / 2))/port$((n % 2))
[ -w "$MODEL/fault_tx_hang" ] || net_bail "$DEV_A ($pdev): no $MODEL/fault_tx_hang"
net_msg "$DEV_A is $pdev, model port $MODEL"

# mcount NAME: txq$Q.NAME from the model's counters (0 while unset).
mcount() {
	awk -v k="txq$Q.$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$MODEL/counters"
}

estat_a() { net_estat "$NS_A" "$DEV_A" "$1"; }
estat_b() { net_estat "$NS_B" "$DEV_B" "$1"; }

# qsys FILE: /sys/class/net/$DEV_A/queues/tx-$Q/FILE
qsys() {
	ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/queues/tx-$Q/$1"
}

# ---- steer A's transmit onto TX queue $Q ------------------------------------
net_xps_only "$NS_A" "$DEV_A" "$Q" "$QUEUES"
ktap_test_result "A's traffic goes out on TX queue $Q (XPS)" \
	net_tx_steered "$NS_A" "$DEV_A" "$Q" "$V4_B"

# ---- counters before --------------------------------------------------------
TO_A0=$(estat_a tx_timeouts)
QR_A0=$(estat_a queue_resets)
TO_B0=$(estat_b tx_timeouts)
QR_B0=$(estat_b queue_resets)
WD0=$(qsys tx_timeout)
INJ0=$(mcount hang_injected)
STALL0=$(mcount hang_stalls)
CLR0=$(mcount hang_cleared)

# A UDP socket that fills the hung queue and keeps its send queue open: its
# SIOCOUTQ (sk_wmem_alloc) counts every skb of it not yet freed, in the
# qdisc or on the ring. It waits for that to reach 0. It starts before the
# hang and sends once told to (the file GO): the ring must fill, and the
# queue stop, well within the watchdog's 5 s, or the service task finds the
# hung queue not stopped and restarts it first, and a Python start-up
# takes longer than that on the debug kernel.
cat > "$NET_TMP/holder.py" <<'EOF'
import fcntl, json, os, socket, struct, sys, termios, time
dst, port, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
status, timeout, ready, go = sys.argv[5], float(sys.argv[6]), sys.argv[7], sys.argv[8]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 8 << 20)  # SO_SNDBUFFORCE
s.setblocking(False)
def outq():
    return struct.unpack('i', fcntl.ioctl(s.fileno(), termios.TIOCOUTQ, b'\0' * 4))[0]
open(ready, 'w').close()
t_ready = time.monotonic()
while not os.path.exists(go):
    time.sleep(0.01)
t_go = time.monotonic()
sent = 0
for _ in range(count):
    try:
        s.sendto(bytes(size), (dst, port))
        sent += 1
    except BlockingIOError:
        break
t_sent = time.monotonic()
time.sleep(0.5)
held = outq()
with open(status, 'w') as f:
    f.write(json.dumps({'sent': sent, 'held': held,
                        'go_secs': round(t_go - t_ready, 2),
                        'send_secs': round(t_sent - t_go, 2)}))
t0 = time.monotonic()
while outq() and time.monotonic() - t0 < timeout:
    time.sleep(0.2)
left = outq()
print(json.dumps({'sent': sent, 'held': held, 'left': left,
                  'secs': round(time.monotonic() - t0, 1)}), flush=True)
sys.exit(0 if left == 0 else 1)
EOF
net_bg holder net_ns "$NS_A" python3 "$NET_TMP/holder.py" "$V4_B" 9 600 1000 \
	"$NET_TMP/holder.status" $((120 * NET_SCALE)) "$NET_TMP/holder.ready" "$NET_TMP/holder.go"
net_wait_file "$NET_TMP/holder.ready" 30 ||
	{ net_bg_show holder; ktap_exit_fail_msg "the UDP holder did not start"; }

# ---- a transfer in flight, then the hang --------------------------------------
net_tcp_start xfer "$NS_A" "$NS_B" "$V4_B" "$BYTES" 5201 7 --pace-secs "$PACE" ||
	ktap_exit_fail_msg "cannot start the transfer"
sleep $((3 * NET_SCALE))
net_bg_running xfer-tx || { net_bg_show xfer-tx; ktap_exit_fail_msg "the transfer ended before the hang"; }

armed() {
	local now
	echo "$Q" > "$MODEL/fault_tx_hang" || return 1
	now=$(cat "$MODEL/fault_tx_hang")
	net_msg "fault_tx_hang reads '$now'"
	[ "$now" = "$Q" ] && [ "$(mcount hang_injected)" -eq $((INJ0 + 1)) ]
}

ktap_test_result "fault_tx_hang hangs TX queue $Q (reads back, hang_injected +1)" armed
T_HANG=$(date +%s)
touch "$NET_TMP/holder.go"

stalled() {
	local end=$((SECONDS + 20 * NET_SCALE)) s
	while [ "$SECONDS" -le "$end" ]; do
		s=$(mcount hang_stalls)
		[ "$s" -gt "$STALL0" ] && [ -e "$NET_TMP/holder.status" ] && break
		sleep 0.1
	done
	net_msg "txq$Q.hang_stalls $STALL0 -> $s; UDP socket: $(cat "$NET_TMP/holder.status" 2>/dev/null)"
	[ "$s" -gt "$STALL0" ] && [ -e "$NET_TMP/holder.status" ] &&
		[ "$(jget "$NET_TMP/holder.status" 'd["held"]')" -gt 0 ] && return 0
	stalled_why
	return 1
}
# stalled_why: where the UDP holder's datagrams went, when the hung queue
# did not hold them.
stalled_why() {
	net_msg "$(($(date +%s) - T_HANG)) s after the hang; fault_tx_hang reads '$(cat "$MODEL/fault_tx_hang")'"
	net_msg "model txq$Q: $(awk -v q="txq$Q." 'index($1, q) == 1 && $2 != 0 { printf "%s=%s ", $1, $2 }' "$MODEL/counters")"
	net_msg "$DEV_A: tx_timeouts $(estat_a tx_timeouts), queue_resets $(estat_a queue_resets), tx_hangs $(estat_a tx_hangs); BQL tx-$Q inflight $(qsys byte_queue_limits/inflight) limit $(qsys byte_queue_limits/limit)"
	ip netns exec "$NS_A" tc -s qdisc show dev "$DEV_A" | sed 's/^/# /'
	ip netns exec "$NS_A" ethtool -S "$DEV_A" | grep -E "^ *tx${Q}_" | sed 's/^/# /'
	grep "^txq$Q " "/sys/kernel/debug/refnic/drv-$pdev/rings" | sed 's/^/# /'
	# Datagrams that never reached a queue: dropped by IP or by the
	# neighbour layer (unresolved, its queue full) before any qdisc.
	ip netns exec "$NS_A" nstat -az 2>/dev/null |
		grep -E '^(UdpOutDatagrams|UdpSndbufErrors|IpOutRequests|IpOutDiscards|IpOutNoRoutes|IpExtOutNoRoutes) ' |
		sed 's/^/# /'
	ip -n "$NS_A" -s neigh show dev "$DEV_A" | sed 's/^/# neigh: /'
	# per CPU, in hex: res_failed, unresolved_discards
	ip netns exec "$NS_A" awk 'NR > 1 { print "# arp_cache cpu" NR - 2 ": res_failed " $7 ", unresolved_discards " $12 }' \
		/proc/net/stat/arp_cache
}
ktap_test_result "the model leaves queue $Q's doorbells unanswered (hang_stalls moves, skbs held)" stalled

# ---- the watchdog and the reset ------------------------------------------------
recovered() {
	local end=$((SECONDS + 60 * NET_SCALE)) to qr
	while [ "$SECONDS" -le "$end" ]; do
		to=$(estat_a tx_timeouts)
		qr=$(estat_a queue_resets)
		[ "$to" -gt "$TO_A0" ] && [ "$qr" -gt "$QR_A0" ] && break
		sleep 0.1
	done
	net_msg "$DEV_A: tx_timeouts $TO_A0 -> $to, queue_resets $QR_A0 -> $qr, $(($(date +%s) - T_HANG)) s after the hang"
	[ "$to" -gt "$TO_A0" ] && [ "$qr" -gt "$QR_A0" ]
}
ktap_test_result "$DEV_A: ethtool -S tx_timeouts and queue_resets go up" recovered

b_quiet() {
	local to qr
	to=$(estat_b tx_timeouts)
	qr=$(estat_b queue_resets)
	net_msg "$DEV_B: tx_timeouts $TO_B0 -> $to, queue_resets $QR_B0 -> $qr"
	[ "$to" = "$TO_B0" ] && [ "$qr" = "$QR_B0" ]
}
ktap_test_result "$DEV_B: no TX timeout, no queue reset" b_quiet

watchdog() {
	local wd line
	wd=$(qsys tx_timeout)
	line=$(dmesg | grep -E "$DEV_A: NETDEV WATCHDOG: .*transmit queue $Q timed out" | head -n 1)
	net_msg "tx-$Q/tx_timeout $WD0 -> $wd; ${line:-no NETDEV WATCHDOG line for $DEV_A queue $Q}"
	[ "$wd" -gt "$WD0" ] && [ -n "$line" ]
}
ktap_test_result "the netdev watchdog timed out TX queue $Q (sysfs tx_timeout, NETDEV WATCHDOG)" watchdog

driver_log() {
	local ok=0
	dmesg | grep -E "$DEV_A: (TX queue $Q timed out|queue pair $Q )" | sed 's/^/# /'
	dmesg | grep -q "$DEV_A: TX queue $Q timed out, restarting it" || ok=1
	dmesg | grep -q "$DEV_A: queue pair $Q restarted" || ok=1
	return "$ok"
}
ktap_test_result "the driver logged the timeout and restarted queue pair $Q" driver_log

unhung() {
	local c now
	c=$(mcount hang_cleared)
	now=$(cat "$MODEL/fault_tx_hang")
	dmesg | grep "fault: TX queue $Q" | sed 's/^/# /'
	net_msg "txq$Q.hang_cleared $CLR0 -> $c, fault_tx_hang reads '$now'"
	[ "$c" -eq $((CLR0 + 1)) ] && [ "$now" = none ]
}
ktap_test_result "the queue reset ended the hang in the model (hang_cleared +1)" unhung

# ---- what the hung queue held, and traffic after ----------------------------------
freed() {
	local rc=0
	net_bg_wait holder 60 || rc=$?
	net_bg_show holder
	[ "$rc" = 0 ]
}
ktap_test_result "every skb the hung queue held was freed (socket send queue back to 0)" freed

xfer_ok=0
net_tcp_wait xfer $((120 + PACE)) || xfer_ok=1
net_msg "TCP retransmitted $(net_nstat "$NS_A" TcpRetransSegs) segments"
ktap_test_result "TCP transfer across the hang intact ($((BYTES >> 20)) MiB)" [ "$xfer_ok" = 0 ]

flows() {
	local before after ok=0
	before=$(estat_a "tx${Q}_packets")
	ip netns exec "$NS_A" ping -q -c 5 -i 0.1 -W 5 "$V4_B" >/dev/null || { net_msg "A -> B ping failed"; ok=1; }
	ip netns exec "$NS_B" ping -q -c 5 -i 0.1 -W 5 "$V4_A" >/dev/null || { net_msg "B -> A ping failed"; ok=1; }
	ip netns exec "$NS_A" ping -q -c 3 -i 0.1 -W 5 "$V6_B" >/dev/null || { net_msg "A -> B ping6 failed"; ok=1; }
	# Replies came, but a queue counts its frames as it completes them.
	net_wait_estat "$NS_A" "$DEV_A" "tx${Q}_packets" $((before + 13)) 5
	after=$(estat_a "tx${Q}_packets")
	net_msg "tx${Q}_packets $before -> $after"
	[ $((after - before)) -ge 13 ] || ok=1
	return "$ok"
}
ktap_test_result "TX queue $Q carries traffic again (pings both ways)" flows

bql() {
	local end=$((SECONDS + 5 * NET_SCALE)) v
	while [ "$SECONDS" -le "$end" ]; do
		v=$(qsys byte_queue_limits/inflight)
		[ "$v" = 0 ] && break
		sleep 0.1
	done
	net_msg "tx-$Q byte_queue_limits: inflight $v, limit $(qsys byte_queue_limits/limit)"
	[ "$v" = 0 ]
}
ktap_test_result "BQL of tx-$Q was reset (nothing in flight when idle)" bql

# ---- a hang under light traffic: the service task's ------------------------------
# A few pings never fill the ring, and with BQL's minimum limit raised they
# cannot stop the queue either, so the netdev watchdog never looks at it:
# the driver's service task finds the oldest frame undone for the
# watchdog's 5 s and restarts the queue pair.
TO_A1=$(estat_a tx_timeouts)
HG_A1=$(estat_a tx_hangs)
QR_A1=$(estat_a queue_resets)
WD1=$(qsys tx_timeout)
CLR1=$(mcount hang_cleared)
BQL_MIN=$(qsys byte_queue_limits/limit_min)
light_hang() {
	ip netns exec "$NS_A" sh -c "echo 1048576 > /sys/class/net/$DEV_A/queues/tx-$Q/byte_queue_limits/limit_min" ||
		return 1
	T_LIGHT=$SECONDS
	echo "$Q" > "$MODEL/fault_tx_hang" || return 1
	# Their echo requests stay on the hung ring: no reply.
	! ip netns exec "$NS_A" ping -q -c 3 -i 0.2 -W 1 "$V4_B" >/dev/null
}
ktap_test_result "a hang with 3 pings on TX queue $Q (no reply; BQL cannot stop the queue)" light_hang

light_found() {
	local ok=0 secs
	restarted() {
		[ "$(estat_a tx_hangs)" -gt "$HG_A1" ] && [ "$(estat_a queue_resets)" -gt "$QR_A1" ] &&
			[ "$(mcount hang_cleared)" -gt "$CLR1" ]
	}
	wait_until 60 restarted || ok=1
	secs=$((SECONDS - T_LIGHT))
	net_msg "after $secs s: tx_hangs $HG_A1 -> $(estat_a tx_hangs), tx_timeouts $TO_A1 -> $(estat_a tx_timeouts), queue_resets $QR_A1 -> $(estat_a queue_resets), hang_cleared $CLR1 -> $(mcount hang_cleared); tx-$Q BQL inflight $(qsys byte_queue_limits/inflight), limit $(qsys byte_queue_limits/limit)"
	dmesg | grep -E "$DEV_A: TX queue $Q hung" | tail -n 1 | sed 's/^/# /'
	dmesg | grep -qE "$DEV_A: TX queue $Q hung: frame at [0-9]+ not done for [0-9]+ ms \(tail [0-9]+, doorbell [0-9]+\), queue not stopped; restarting queue pair $Q" ||
		{ net_msg "no 'TX queue $Q hung' line"; ok=1; }
	[ "$(estat_a tx_hangs)" -eq $((HG_A1 + 1)) ] && [ "$(estat_a queue_resets)" -eq $((QR_A1 + 1)) ] ||
		{ net_msg "tx_hangs and queue_resets should each go up by 1"; ok=1; }
	[ "$secs" -ge 5 ] || { net_msg "found before the watchdog's 5 s"; ok=1; }
	return "$ok"
}
ktap_test_result "the service task found the hang after 5 s and restarted queue pair $Q (tx_hangs, queue_resets, hang_cleared +1)" light_found

light_flows() {
	local ok=0 wd
	wait_until 30 ip netns exec "$NS_A" ping -q -c 1 -W 1 "$V4_B" >/dev/null || ok=1
	ip netns exec "$NS_A" sh -c "echo $BQL_MIN > /sys/class/net/$DEV_A/queues/tx-$Q/byte_queue_limits/limit_min" || ok=1
	wd=$(qsys tx_timeout)
	net_msg "watchdog tx-$Q/tx_timeout $WD1 -> $wd, tx_timeouts $TO_A1 -> $(estat_a tx_timeouts)"
	[ "$wd" = "$WD1" ] && [ "$(estat_a tx_timeouts)" = "$TO_A1" ] ||
		{ net_msg "the netdev watchdog fired: the queue was stopped"; ok=1; }
	return "$ok"
}
ktap_test_result "TX queue $Q answers pings again; the netdev watchdog never fired" light_flows

# ---- teardown -------------------------------------------------------------------
deleted() {
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}
ktap_test_result "pair deleted, no page pool left in either namespace" deleted
ktap_finished
