#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The driver's service task (kmod/refnic_service.c) against the device
# model's stall-rxq and lose-irq faults, armed with refnicctl through the
# refnic netlink family (kmod/model/refnic_model.h).
#
# A pair with 4 queue pairs; port B's RSS uses queue 0 alone and flow rules
# send UDP to port $PORT_S to queue $QS, $PORT_I to $QI and $PORT_B to $QB.
# A sends, B receives. Asserted:
#  - the flows land on their queues, and the service task samples B once a
#    second (its debugfs run count) without counting anything: no stall or
#    lost interrupt on idle queues or queues with traffic;
#  - stall-rxq on queue $QS (count 1) under a UDP stream: the model's RX
#    engine loses every frame reaching the queue (rxq$QS.stalls +1,
#    stall_drops moving) and nothing shows in the rings (rx${QS}_nobuf and
#    cq_full do not move); the service task counts exactly one stall
#    (rx_stalls +1) within REFNIC_RX_STALL_SAMPLES samples of frames
#    arriving, logs it once, and the queue pair is restarted (queue_resets
#    +1, "queue pair $QS restarted"); the stream then reaches the stack on
#    queue $QS again, and over 4 more samples of it nothing more is counted;
#  - lose-irq on queue $QI (count 1): the model loses the interrupt of a
#    burst of 8 datagrams (vec$QI.lost +1); the service task finds the
#    completions waiting with NAPI idle and schedules NAPI: lost_irqs +1
#    exactly, logged, all 8 datagrams reach the socket, and no stall or
#    restart is counted for it;
#  - lose-irq on queue $QB while a bypass session (refnic-bypass rx --count
#    8) holds it: the same kick reaches a bypass queue's poll, which has
#    no other watchdog: lost_irqs +1 exactly, logged, and the session gets
#    its 8 frames and exits;
#  - stall-rxq on queue $QB while a bypass session (refnic-bypass rx) holds
#    it: the service task counts the stall (rx_stalls +1) and the session
#    ends as for a queue the device halted (its log line, and refnic-bypass
#    exits with "torn down"), no queue_resets; the stream then reaches the
#    stack on queue $QB. Skipped when refnic-bypass is not built;
#  - A counted no stall and no lost interrupt; B exactly the ones above;
#  - once the pair is deleted no page pool is left in either namespace.
# Each detection takes a few one-second samples: some 30 s in all under TCG.
set -u
. "$(dirname "$0")/lib_net.sh"

QUEUES=4
QS=1
QI=2
QB=3
PORT_S=9000
PORT_I=9001
PORT_B=9002
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
BYPASS=$REFNIC_REPO/build/cmake/tools/refnic-bypass/refnic-bypass

ktap_print_header
net_init
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
[ -x "$CTL" ] || net_skip_all "$CTL not built"
ktap_set_plan 16
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh

ip netns exec "$NS_B" ethtool -X "$DEV_B" equal 1 || net_bail "ethtool -X $DEV_B equal 1"
for rule in "$PORT_S $QS" "$PORT_I $QI" "$PORT_B $QB"; do
	read -r port q <<<"$rule"
	ip netns exec "$NS_B" ethtool -N "$DEV_B" flow-type udp4 dst-port "$port" action "$q" >/dev/null ||
		net_bail "ethtool -N $DEV_B dst-port $port action $q"
done

# B's platform device refnic.<2N + P>: the model's debugfs port directory
# and the driver's.
PDEV=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
n=${PDEV#refnic.}
MODEL=/sys/kernel/debug/refnic/card$((n / 2))/port$((n % 2))
DRV=/sys/kernel/debug/refnic/drv-$PDEV
[ -r "$MODEL/counters" ] || net_bail "$DEV_B ($PDEV): no $MODEL/counters"
[ -r "$DRV/service" ] || net_bail "$DEV_B ($PDEV): no $DRV/service"
net_msg "$DEV_B is $PDEV: model $MODEL, driver $DRV"

estat_a() { net_estat "$NS_A" "$DEV_A" "$1"; }
estat_b() { net_estat "$NS_B" "$DEV_B" "$1"; }

# mcount KEY: a counter of B's model port (rxq1.stalls, vec2.lost; 0 unset).
mcount() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$MODEL/counters"
}

# runs: how many times B's service task sampled the port.
runs() {
	awk '$1 == "runs" { print $2 }' "$DRV/service"
}

runs_past() { [ "$(runs)" -ge "$1" ]; }
# wait_runs N: until the service task sampled N more times.
wait_runs() {
	local want=$(($(runs) + $1))
	wait_until $((5 + 2 * $1)) runs_past "$want"
}

above() { [ "$("${@:2}")" -gt "$1" ]; }	# above N CMD...: CMD prints more than N

# send PORT COUNT [udp-blast options...]: COUNT datagrams A -> B:PORT.
send() {
	local port=$1 count=$2
	shift 2
	net_tool "$NS_A" udp-blast --dst "$V4_B" --dport "$port" --count "$count" \
		--size 1000 "$@" >/dev/null
}

# stream_start NAME PORT: 50 datagrams a second to B:PORT until stopped.
stream_start() {
	net_bg "$1" net_tool "$NS_A" udp-blast --dst "$V4_B" --dport "$2" \
		--count 1000000 --size 1000 --burst 1 --gap 0.02
}

# sink NAME PORT [udp-sink options...]: a UDP socket on B:PORT, ready.
sink() {
	local name=$1 port=$2
	shift 2
	rm -f "$NET_TMP/$name.ready"
	net_bg "$name" net_tool "$NS_B" udp-sink "$V4_B" "$port" --ready "$NET_TMP/$name.ready" "$@"
	net_wait_file "$NET_TMP/$name.ready" 30
}

fault() { local verb=$1; shift; ip netns exec "$NS_B" "$CTL" fault "$verb" "$DEV_B" "$@"; }

# A socket on every test port whenever datagrams go there, so that B
# answers nothing (an ICMP error would be B's transmit, and a TX completion,
# on some queue pair).
sink drain-s "$PORT_S" --idle $((600 * NET_SCALE)) || net_bail "no UDP socket on $PORT_S"
sink drain-b "$PORT_B" --idle $((600 * NET_SCALE)) || net_bail "no UDP socket on $PORT_B"

steered() {
	local s0 i0 s1 i1
	s0=$(estat_b "rx${QS}_packets")
	i0=$(estat_b "rx${QI}_packets")
	sink steer-i "$PORT_I" --count 10 --idle $((30 * NET_SCALE)) || return 1
	send "$PORT_S" 10 --burst 1 --gap 0.01 && send "$PORT_I" 10 --burst 1 --gap 0.01 || return 1
	net_bg_wait steer-i 30 || { net_bg_show steer-i; return 1; }
	wait_until 10 above $((s0 + 9)) estat_b "rx${QS}_packets"
	wait_until 10 above $((i0 + 9)) estat_b "rx${QI}_packets"
	s1=$(estat_b "rx${QS}_packets")
	i1=$(estat_b "rx${QI}_packets")
	net_msg "rx${QS}_packets $s0 -> $s1, rx${QI}_packets $i0 -> $i1"
	[ $((s1 - s0)) = 10 ] && [ $((i1 - i0)) = 10 ]
}
ktap_test_result "UDP to $PORT_S lands on B's queue $QS, to $PORT_I on queue $QI" steered

quiet() {
	local r0 r1
	r0=$(runs)
	wait_runs 3 || { net_msg "the service task did not run: runs $r0 -> $(runs)"; return 1; }
	r1=$(runs)
	net_msg "service runs $r0 -> $r1; $DEV_B rx_stalls $(estat_b rx_stalls) lost_irqs $(estat_b lost_irqs), $DEV_A rx_stalls $(estat_a rx_stalls) lost_irqs $(estat_a lost_irqs)"
	[ "$(estat_b rx_stalls)" = 0 ] && [ "$(estat_b lost_irqs)" = 0 ] &&
		[ "$(estat_a rx_stalls)" = 0 ] && [ "$(estat_a lost_irqs)" = 0 ]
}
ktap_test_result "the service task samples B once a second and counts nothing on working queues" quiet

# ---- stall-rxq on a stack queue -----------------------------------------------
RS0=$(estat_b rx_stalls)
QR0=$(estat_b queue_resets)
ST0=$(mcount "rxq$QS.stalls")
NB0=$(estat_b "rx${QS}_nobuf")
CF0=$(estat_b "rx${QS}_cq_full")
STALLED0=$(dmesg | grep -c "$DEV_B: rxq $QS stalled")

armed() {
	local out
	fault set stall-rxq queue "$QS" count 1 || return 1
	out=$(ip netns exec "$NS_B" "$CTL" fault show "$DEV_B")
	net_msg "refnicctl fault show: $out"
	grep -Eq ": queue $QS stall-rxq count 1 injected 0$" <<<"$out"
}
ktap_test_result "refnicctl arms stall-rxq on B's queue $QS" armed
stream_start stream-s "$PORT_S"

stall_drops_above() { [ "$(mcount "rxq$QS.stall_drops")" -gt "$1" ]; }
model_stalled() {
	wait_until 20 above "$ST0" mcount "rxq$QS.stalls" || return 1
	wait_until 20 stall_drops_above 2 || return 1
	dmesg | grep "$PDEV: fault: RX queue $QS stalled" | tail -n 1 | sed 's/^/# /'
	net_msg "rxq$QS.stalls $ST0 -> $(mcount "rxq$QS.stalls"), stall_drops $(mcount "rxq$QS.stall_drops"), arrived $(mcount "rxq$QS.arrived"); rx${QS}_nobuf $NB0 -> $(estat_b "rx${QS}_nobuf"), cq_full $CF0 -> $(estat_b "rx${QS}_cq_full")"
	[ "$(mcount "rxq$QS.stalls")" = $((ST0 + 1)) ] &&
		[ "$(estat_b "rx${QS}_nobuf")" = "$NB0" ] && [ "$(estat_b "rx${QS}_cq_full")" = "$CF0" ]
}
ktap_test_result "the model's RX queue $QS stalls: frames arrive and are lost, nothing in the rings" model_stalled

detected() {
	local stalls resets
	wait_until 30 above "$RS0" estat_b rx_stalls || { net_msg "no stall counted"; return 1; }
	wait_until 30 above "$QR0" estat_b queue_resets || { net_msg "no restart"; return 1; }
	stalls=$(estat_b rx_stalls)
	resets=$(estat_b queue_resets)
	dmesg | grep -E "$DEV_B: (rxq $QS stalled|queue pair $QS restarted)" | tail -n 2 | sed 's/^/# /'
	net_msg "rx_stalls $RS0 -> $stalls, queue_resets $QR0 -> $resets"
	[ "$stalls" = $((RS0 + 1)) ] && [ "$resets" = $((QR0 + 1)) ] &&
		[ "$(dmesg | grep -c "$DEV_B: rxq $QS stalled")" = $((STALLED0 + 1)) ] &&
		dmesg | grep -q "$DEV_B: queue pair $QS restarted"
}
ktap_test_result "the service task finds the stall: rx_stalls +1, logged, queue pair $QS restarted" detected

resumed() {
	local p0 p1
	p0=$(estat_b "rx${QS}_packets")
	wait_until 20 above $((p0 + 20)) estat_b "rx${QS}_packets" || { net_msg "rx${QS}_packets stays at $p0"; return 1; }
	# Four more samples with the stream running: nothing more to count.
	wait_runs 4 || return 1
	p1=$(estat_b "rx${QS}_packets")
	net_msg "rx${QS}_packets $p0 -> $p1; rx_stalls $(estat_b rx_stalls), queue_resets $(estat_b queue_resets), rxq$QS.stalls $(mcount "rxq$QS.stalls")"
	ip netns exec "$NS_B" "$CTL" fault show "$DEV_B" | sed 's/^/# /'
	[ "$(estat_b rx_stalls)" = $((RS0 + 1)) ] && [ "$(estat_b queue_resets)" = $((QR0 + 1)) ] &&
		[ "$(mcount "rxq$QS.stalls")" = $((ST0 + 1)) ] && [ "$p1" -gt "$p0" ] &&
		ip netns exec "$NS_B" "$CTL" fault show "$DEV_B" |
		grep -Eq ": queue $QS stall-rxq disarmed injected 1$"
}
ktap_test_result "the stream reaches the stack on queue $QS again; 4 more samples count nothing" resumed
net_bg_kill stream-s

# ---- lose-irq --------------------------------------------------------------------
RS1=$(estat_b rx_stalls)
QR1=$(estat_b queue_resets)
LI0=$(estat_b lost_irqs)
LOST0=$(mcount "vec$QI.lost")
LOSTLOG0=$(dmesg | grep -c "$DEV_B: queue pair $QI: completions waiting")

lost() {
	sink burst-i "$PORT_I" --count 8 --idle $((60 * NET_SCALE)) || return 1
	fault set lose-irq queue "$QI" count 1 || return 1
	send "$PORT_I" 8 --burst 8 --gap 0 || return 1
	wait_until 20 above "$LOST0" mcount "vec$QI.lost"
	net_msg "vec$QI.lost $LOST0 -> $(mcount "vec$QI.lost"), raised $(mcount "vec$QI.raised"), suppressed $(mcount "vec$QI.suppressed")"
	[ "$(mcount "vec$QI.lost")" = $((LOST0 + 1)) ]
}
ktap_test_result "lose-irq: the model loses the interrupt of queue pair $QI (vec$QI.lost +1)" lost

# kick_seen JOB Q LOST_IRQS LOG_LINES: background job JOB ended well with
# the 8 packets in its JSON summary, lost_irqs is one more than LOST_IRQS,
# and queue pair Q's "interrupt lost" line was logged once more than
# LOG_LINES times.
kick_seen() {
	local job=$1 q=$2 rc=0
	net_bg_wait "$job" 60 || rc=$?
	net_bg_show "$job"
	dmesg | grep "$DEV_B: queue pair $q: completions waiting" | tail -n 1 | sed 's/^/# /'
	net_msg "lost_irqs $3 -> $(estat_b lost_irqs); $job exit $rc"
	[ "$rc" = 0 ] && [ "$(jget "$NET_TMP/$job.out" "d['packets']")" = 8 ] &&
		[ "$(estat_b lost_irqs)" = $(($3 + 1)) ] &&
		[ "$(dmesg | grep -c "$DEV_B: queue pair $q: completions waiting")" = $(($4 + 1)) ]
}
kicked() { kick_seen burst-i "$QI" "$LI0" "$LOSTLOG0"; }
ktap_test_result "the service task schedules NAPI: lost_irqs +1, all 8 datagrams delivered, logged" kicked

no_restart() {
	net_msg "rx_stalls $RS1 -> $(estat_b rx_stalls), queue_resets $QR1 -> $(estat_b queue_resets)"
	[ "$(estat_b rx_stalls)" = "$RS1" ] && [ "$(estat_b queue_resets)" = "$QR1" ]
}
ktap_test_result "a lost interrupt is neither a stall nor a restart" no_restart

# ---- stall-rxq on a bypass session's queue ---------------------------------------------
bound_lines() { dmesg | grep -c "$DEV_B: queue pair $QB bound to a bypass session"; }
ended_lines() { dmesg | grep -c "$DEV_B: bypass queue $QB halted or stalled by the device: session ended"; }
bp_frames_above() { [ "$(mcount "rxq$QB.frames")" -gt "$1" ]; }

if [ -x "$BYPASS" ]; then
	LI1=$(estat_b lost_irqs)
	LOSTB0=$(mcount "vec$QB.lost")
	LOSTLOGB0=$(dmesg | grep -c "$DEV_B: queue pair $QB: completions waiting")
	bypass_lost() {
		local b0
		b0=$(bound_lines)
		net_bg bypass-i net_ns "$NS_B" "$BYPASS" rx -i "$DEV_B" -q "$QB" --count 8 \
			--duration $((120 * NET_SCALE)) --quiet --json
		wait_until 30 above "$b0" bound_lines || { net_bg_show bypass-i; return 1; }
		fault set lose-irq queue "$QB" count 1 || return 1
		send "$PORT_B" 8 --burst 8 --gap 0 &&
			wait_until 20 above "$LOSTB0" mcount "vec$QB.lost"
		net_msg "vec$QB.lost $LOSTB0 -> $(mcount "vec$QB.lost")"
		[ "$(mcount "vec$QB.lost")" = $((LOSTB0 + 1)) ] && return 0
		# Not struck: disarmed, so that it cannot strike the cases after.
		fault clear lose-irq queue "$QB"
		return 1
	}
	ktap_test_result "lose-irq on a bypass session's queue pair $QB: vec$QB.lost +1" bypass_lost

	bypass_kicked() { kick_seen bypass-i "$QB" "$LI1" "$LOSTLOGB0"; }
	ktap_test_result "the service task schedules the bypass poll: lost_irqs +1, the session gets its 8 frames, logged" bypass_kicked

	RS2=$(estat_b rx_stalls)
	QR2=$(estat_b queue_resets)
	BOUND0=$(bound_lines)
	ENDED0=$(ended_lines)

	bypass_rx() {
		local f0
		net_bg bypass net_ns "$NS_B" "$BYPASS" rx -i "$DEV_B" -q "$QB" --count 1000000 \
			--duration $((120 * NET_SCALE)) --quiet
		wait_until 30 above "$BOUND0" bound_lines || { net_bg_show bypass; return 1; }
		f0=$(mcount "rxq$QB.frames")
		send "$PORT_B" 10 --burst 1 --gap 0.01 || return 1
		wait_until 20 bp_frames_above $((f0 + 9))
		net_msg "a session holds queue pair $QB: rxq$QB.frames $f0 -> $(mcount "rxq$QB.frames")"
		bp_frames_above $((f0 + 9))
	}
	ktap_test_result "refnic-bypass rx holds queue pair $QB and takes its frames" bypass_rx

	bypass_stall() {
		local rc=0
		fault set stall-rxq queue "$QB" count 1 || return 1
		stream_start stream-b "$PORT_B"
		wait_until 30 above "$RS2" estat_b rx_stalls || net_msg "no stall counted"
		net_bg_wait bypass 30 || rc=$?
		net_bg_show bypass
		dmesg | grep -E "$DEV_B: (rxq $QB stalled|bypass queue $QB|queue pair $QB back)" | tail -n 3 | sed 's/^/# /'
		net_msg "rx_stalls $RS2 -> $(estat_b rx_stalls), queue_resets $QR2 -> $(estat_b queue_resets); refnic-bypass exit $rc"
		[ "$(estat_b rx_stalls)" = $((RS2 + 1)) ] && [ "$(estat_b queue_resets)" = "$QR2" ] &&
			[ "$(ended_lines)" = $((ENDED0 + 1)) ] && [ "$rc" != 0 ] && [ "$rc" != 124 ] &&
			grep -q 'torn down' "$NET_TMP/bypass.err"
	}
	ktap_test_result "the bypass queue stalls: rx_stalls +1 and the session ends (refnic-bypass: torn down)" bypass_stall

	bypass_back() {
		local p0
		p0=$(estat_b "rx${QB}_packets")
		wait_until 20 above $((p0 + 20)) estat_b "rx${QB}_packets"
		net_msg "rx${QB}_packets $p0 -> $(estat_b "rx${QB}_packets")"
		[ "$(estat_b "rx${QB}_packets")" -gt $((p0 + 20)) ]
	}
	ktap_test_result "queue pair $QB is the stack's again: the stream reaches it" bypass_back
	net_bg_kill stream-b
else
	ktap_test_skip "lose-irq on a bypass session's queue pair $QB ($BYPASS not built)"
	ktap_test_skip "the service task schedules the bypass poll ($BYPASS not built)"
	ktap_test_skip "refnic-bypass rx holds queue pair $QB ($BYPASS not built)"
	ktap_test_skip "the bypass queue stalls: rx_stalls +1 and the session ends ($BYPASS not built)"
	ktap_test_skip "queue pair $QB is the stack's again ($BYPASS not built)"
fi

counted() {
	local want=$((RS0 + 1)) want_lost=$((LI0 + 1))
	[ -x "$BYPASS" ] && want=$((RS0 + 2)) want_lost=$((LI0 + 2))
	net_msg "$DEV_A: rx_stalls $(estat_a rx_stalls), lost_irqs $(estat_a lost_irqs); $DEV_B: rx_stalls $(estat_b rx_stalls) (want $want), lost_irqs $(estat_b lost_irqs) (want $want_lost)"
	[ "$(estat_a rx_stalls)" = 0 ] && [ "$(estat_a lost_irqs)" = 0 ] &&
		[ "$(estat_b rx_stalls)" = "$want" ] && [ "$(estat_b lost_irqs)" = "$want_lost" ]
}
ktap_test_result "A counted nothing, B exactly the faults injected" counted

deleted() {
	net_bg_kill drain-s
	net_bg_kill drain-b
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}
ktap_test_result "pair deleted, no page pool left in either namespace" deleted
ktap_finished
