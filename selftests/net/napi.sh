#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# NAPI as netdev netlink shows it, and the ways of running it. queue-get and
# napi-get (the kernel's YNL library) show every RX and TX queue of both
# ports bound to its queue pair's NAPI instance, one per pair, each with its
# own IRQ, the one /proc/interrupts names <dev>-q<N>; also after the channel
# count changes. Threaded NAPI (/sys/class/net/DEV/threaded) gives every
# instance a napi/<dev>-<id> kthread that then does the polling, and traffic
# passes intact; so it does with threading off again, and with busy polling
# (net.core.busy_read/busy_poll), which the stack reports using
# (TcpExtBusyPollRxPackets). The NAPI weight (debugfs napi_weight, taken by
# the vectors when the port comes up): at 8, no poll takes more than 8
# packets and polls that take all 8 stay scheduled, and 64 is back after.
set -u
. "$(dirname "$0")/lib_net.sh"

BYTES=$((32 << 20))

ktap_print_header
net_init
ktap_set_plan 15
net_setup queues 4
IFX_A=$(net_ifindex "$NS_A" "$DEV_A")
IFX_B=$(net_ifindex "$NS_B" "$DEV_B")

ns_of() { [ "$1" = A ] && echo "$NS_A" || echo "$NS_B"; }
dev_of() { [ "$1" = A ] && echo "$DEV_A" || echo "$DEV_B"; }
ifx_of() { [ "$1" = A ] && echo "$IFX_A" || echo "$IFX_B"; }

# napi_check PORT QUEUES [0|1 threaded]
napi_check() {
	local out rc=0
	out=$(net_tool "$(ns_of "$1")" napi-check "$(dev_of "$1")" --ifindex "$(ifx_of "$1")" \
		--queues "$2" ${3:+--threaded "$3"} 2>&1) || rc=$?
	grep '^nettool:' <<<"$out" | sed "s/^nettool:/# $1:/"
	[ "$rc" = 0 ] || sed -n 's/^{/# {/p' <<<"$out"
	echo "${out##*$'\n'}" >"$NET_TMP/napi-$1.json"
	return "$rc"
}

xfer() { # xfer NAME: verified TCP A -> B, and ping both ways
	net_tcp_start "$1" "$NS_A" "$NS_B" "$V4_B" "$BYTES" 5201 4 &&
		net_tcp_wait "$1" 300 &&
		ip netns exec "$NS_A" ping -q -c 3 -i 0.1 -W 5 "$V6_B" >/dev/null &&
		ip netns exec "$NS_B" ping -q -c 3 -i 0.1 -W 5 "$V4_A" >/dev/null
}

ktap_test_result "A: each RX/TX queue on its pair's NAPI, with its own IRQ <dev>-qN" napi_check A 4 0
ktap_test_result "B: each RX/TX queue on its pair's NAPI, with its own IRQ <dev>-qN" napi_check B 4 0
lc() { ip netns exec "$NS_B" ethtool -L "$DEV_B" combined "$1"; }
ktap_test_result "B after ethtool -L combined 2: queues 0-1, still bound" eval 'lc 2 && napi_check B 2 0'
ktap_test_result "B back to 4 queues: all bound again" eval 'lc 4 && napi_check B 4 0'

# ---- threaded NAPI --------------------------------------------------------------
threaded() { # threaded 0|1: both ports
	ip netns exec "$NS_A" sh -c "echo $1 > /sys/class/net/$DEV_A/threaded" &&
		ip netns exec "$NS_B" sh -c "echo $1 > /sys/class/net/$DEV_B/threaded"
}
ktap_test_result "threaded NAPI on: every instance has its napi/ kthread (A, B)" \
	eval 'threaded 1 && napi_check A 4 1 && napi_check B 4 1'

# Context switches of B's NAPI kthreads: they do the work now.
kthread_switches() {
	local pids pid s=0
	pids=$(jget "$NET_TMP/napi-B-threaded.json" '" ".join(str(n["pid"]) for n in d["napis"] if "pid" in n)')
	# 7.3 stops the kthreads when threading is switched off: one that is
	# gone does no more polling.
	for pid in $pids; do
		[ -r "/proc/$pid/status" ] || continue
		s=$((s + $(awk '/ctxt_switches/ { t += $2 } END { print t + 0 }' "/proc/$pid/status")))
	done
	echo "$s"
}
cp "$NET_TMP/napi-B.json" "$NET_TMP/napi-B-threaded.json"
sw0=$(kthread_switches)
ktap_test_result "threaded NAPI: 32 MiB TCP intact, ping both ways" xfer threaded
sw1=$(kthread_switches)
net_msg "B's NAPI kthreads: $sw0 -> $sw1 context switches"
ktap_test_result "threaded NAPI: the kthreads did the polling" [ "$sw1" -gt $((sw0 + 10)) ]
threaded_off() {
	local sw0 sw1 v
	threaded 0 || return 1
	v=$(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/threaded")
	[ "$v" = 0 ] || { net_msg "threaded reads $v after writing 0"; return 1; }
	# Bindings only: the parked kthreads may still be listed (6.12).
	napi_check A 4 && napi_check B 4 || return 1
	sw0=$(kthread_switches)
	xfer unthreaded || return 1
	sw1=$(kthread_switches)
	net_msg "B's NAPI kthreads with threading off: $sw0 -> $sw1 context switches"
	# Polling is back in softirq: the kthreads stay idle.
	[ "$sw1" -le $((sw0 + 4)) ]
}
ktap_test_result "threaded NAPI off: traffic intact, polled in softirq again (kthreads idle)" threaded_off

# ---- busy polling -------------------------------------------------------------------
# The model's engine is a kworker on the CPU the busy loop spins on (the
# CPU after the doorbell writer's). Under lazy preemption (7.3's default)
# waking it does not set need_resched(), so the loop keeps the CPU until
# its busy_read time is over and the frames arrive after it (20 % pulled in
# by the loop instead of 80-90 %, measured); a real NIC needs no CPU to
# deliver. Switch the preemption model to full for these cases.
PREEMPT_MODE=/sys/kernel/debug/sched/preempt
if [ -w "$PREEMPT_MODE" ] && grep -q '(lazy)' "$PREEMPT_MODE"; then
	echo full >"$PREEMPT_MODE" || ktap_exit_fail_msg "cannot set preemption to full"
	NET_CLEANUP+=("echo lazy >$PREEMPT_MODE")
	net_msg "preemption switched from lazy to full for busy polling"
fi
BR=$(sysctl -n net.core.busy_read)
BP=$(sysctl -n net.core.busy_poll)
NET_CLEANUP+=("sysctl -qw net.core.busy_read=$BR net.core.busy_poll=$BP")
sysctl -qw net.core.busy_read=50 net.core.busy_poll=50 ||
	ktap_exit_fail_msg "cannot set net.core.busy_read"

busy_rr() {
	local rc=0
	rm -f "$NET_TMP/rr.ready"
	net_bg rr-srv net_tool "$NS_B" rr-server "$V4_B" 5300 --ready "$NET_TMP/rr.ready" \
		--timeout $((60 * NET_SCALE))
	net_wait_file "$NET_TMP/rr.ready" 30 || return 1
	net_tool "$NS_A" rr-client "$V4_B" 5300 --rounds 500 \
		--timeout $((60 * NET_SCALE)) >"$NET_TMP/rr.out" || rc=1
	net_bg_wait rr-srv 30 || rc=1
	net_msg "request/response: $(cat "$NET_TMP/rr.out") server: $(cat "$NET_TMP/rr-srv.out")"
	return "$rc"
}

# A UDP receiver in A that busy-polls while B sends it datagrams 0.5 ms
# apart: they all arrive, and the stack counts those its busy loop pulled
# in through the driver's NAPI poll, at least a quarter of them (80-98 %
# measured; the rest come while it sleeps between datagrams). Its recv()
# blocks in the kernel (SO_RCVTIMEO), which spins for SO_BUSY_POLL (20 ms)
# on an empty queue: long beside the datagrams' gap even when the VM gets
# little of the host (with 1 ms, a loaded host's VM saw 15 % pulled in). A defers its interrupts as busy-polling setups do
# (napi_defer_hard_irqs with gro_flush_timeout): a poll that found work
# leaves the vector masked and arms a 2 ms timer instead, so that the
# interrupt does not race the busy loop to every datagram (the driver keeps
# the vector masked when napi_complete_done() says so); both go back to 0
# afterwards. (A request/response pair is no good for this on two CPUs:
# the two spinning ends and the model's engine crowd each other out, and
# the interrupt path always gets there first.)
busy_udp() {
	local rc=0 b0 b1 p0 p1 sys=/sys/class/net/$DEV_A
	ip netns exec "$NS_A" sh -c "echo 10 >$sys/napi_defer_hard_irqs &&
		echo 2000000 >$sys/gro_flush_timeout" || return 1
	b0=$(net_nstat "$NS_A" TcpExtBusyPollRxPackets)
	p0=$(net_equeue_sum "$NS_A" "$DEV_A" q polls)
	rm -f "$NET_TMP/sink.ready"
	net_bg sink net_tool "$NS_A" udp-sink "$V4_A" 5400 --ready "$NET_TMP/sink.ready" \
		--count 1000 --idle $((10 * NET_SCALE)) --busy-poll 20000
	net_wait_file "$NET_TMP/sink.ready" 30 || return 1
	net_tool "$NS_B" udp-blast --dst "$V4_A" --dport 5400 --count 1000 --burst 1 \
		--gap 0.0005 --size 100 >/dev/null || rc=1
	net_bg_wait sink 60 || rc=1
	b1=$(net_nstat "$NS_A" TcpExtBusyPollRxPackets)
	p1=$(net_equeue_sum "$NS_A" "$DEV_A" q polls)
	ip netns exec "$NS_A" sh -c "echo 0 >$sys/napi_defer_hard_irqs &&
		echo 0 >$sys/gro_flush_timeout" || rc=1
	BUSY_SEEN=$((b1 - b0))
	net_msg "busy-polled UDP receive: $(cat "$NET_TMP/sink.out"); BusyPollRxPackets +$BUSY_SEEN; A's NAPI polls +$((p1 - p0))"
	[ "$(jget "$NET_TMP/sink.out" 'd["packets"]')" = 1000 ] || rc=1
	return "$rc"
}
BUSY_SEEN=0
ktap_test_result "busy polling: 500 TCP request/response rounds intact" busy_rr
ktap_test_result "busy polling: 1000 UDP datagrams all received by a busy-polling socket" busy_udp
ktap_test_result "busy polling: the busy loop pulled in at least a quarter of them through NAPI (BusyPollRxPackets)" \
	[ "$BUSY_SEEN" -ge 250 ]
ktap_test_result "busy polling: 32 MiB TCP intact, ping both ways" xfer busy

# ---- the NAPI weight --------------------------------------------------------------
BUS_B=$(ip netns exec "$NS_B" ethtool -i "$DEV_B" | awk '/^bus-info:/ { print $2 }')
WEIGHT=/sys/kernel/debug/refnic/drv-$BUS_B/napi_weight
cycle_b() { # cycle_b WEIGHT: B takes it when it comes up again
	echo "$1" >"$WEIGHT" &&
		ip -n "$NS_B" link set "$DEV_B" down && ip -n "$NS_B" link set "$DEV_B" up &&
		net_wait_link "$NS_B" "$DEV_B" up
}
weight8() {
	local p0 f0 r0 p1 f1 r1
	cycle_b 8 || return 1
	p0=$(net_equeue_sum "$NS_B" "$DEV_B" q polls) &&
		f0=$(net_equeue_sum "$NS_B" "$DEV_B" q full_polls) &&
		r0=$(net_equeue_sum "$NS_B" "$DEV_B" rx packets) || return 1
	xfer weight8 || return 1
	p1=$(net_equeue_sum "$NS_B" "$DEV_B" q polls)
	f1=$(net_equeue_sum "$NS_B" "$DEV_B" q full_polls)
	r1=$(net_equeue_sum "$NS_B" "$DEV_B" rx packets)
	net_msg "weight 8: $((r1 - r0)) packets in $((p1 - p0)) polls, $((f1 - f0)) of them full"
	[ $((r1 - r0)) -le $((8 * (p1 - p0))) ] && [ $((f1 - f0)) -gt 0 ]
}
ktap_test_result "napi_weight 8: 32 MiB TCP intact, at most 8 packets a poll, full polls seen" weight8
ktap_test_result "napi_weight 64 again: B's queues bound to their NAPI, traffic intact" \
	eval 'cycle_b 64 && napi_check B 4 0 && xfer weight64'
net_health_test
ktap_finished
