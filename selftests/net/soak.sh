#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The soak: a randomized schedule of reconfigurations, sessions, link
# changes, faults and teardowns against a refnic pair, while verified TCP
# transfers and UDP flows run between its two namespaces.
#
#   SOAK_MINUTES  how long to schedule operations (default 2, make
#                 check's short run; `make soak` 10); a round of every kind
#                 takes 10-12 minutes under TCG
#   SOAK_MIN      whole rounds to run at least (default 0 under 10 minutes,
#                 else one per 10 minutes): with 0 the schedule stops at the
#                 first operation after SOAK_MINUTES, mid-round; otherwise
#                 the round running when time is up is finished
#   SOAK_KINDS    only these kinds of operation (names as below, space
#                 separated; default all): SOAK_KINDS="zcrx devmem-tx"
#                 SOAK_MIN=1 SOAK_MINUTES=0 runs each of them once
#   SOAK_SEED     the schedule's random seed (default: from the clock); the
#                 seed is printed first, and SOAK_SEED=N replays the same
#                 schedule (the operations, their order and arguments)
#
# A round runs every kind of operation once, in a random order with random
# arguments. Rounds go on until SOAK_MINUTES are over and at least SOAK_MIN
# rounds ran; every kind must then have run at least SOAK_MIN times, else
# the schedule was too thin and the soak fails. make check's short run
# (SOAK_MIN 0) is the operations that start within 2 minutes, a different
# few of the kinds each seed; each kind also has a test of its own. The kinds:
#   channels, rings, hds, gro-hw     ethtool -L / -G / -G tcp-data-split / -K
#                                    on either port, random values
#   ntuple                           a rule added, listed and deleted
#   devmem                           refnic-devmem bound to B's queue 2, a
#                                    validated transfer into the udmabuf,
#                                    unbound
#   zcrx (7.x)                       refnic-devmem zcrx: an io_uring zcrx
#                                    area registered on B's queue 2, a
#                                    validated transfer into it, closed
#   devmem-tx (7.x)                  refnic-devmem tx from a udmabuf bound
#                                    for TX on A (the pairs plugged in with
#                                    devmem_tx=1) into refnic-devmem rx on
#                                    B's queue 2, validated, none copied
#   bypass                           refnic-bypass rx on B's queue 1, the
#                                    session run out or killed with SIGKILL;
#                                    then the queue carries kernel traffic
#   link-flap                        ip link set down/up on either port
#   link-model                       refnicctl link set rate/latency/loss
#   fault:TYPE                       every fault of the device model but
#                                    wedge-txq, armed (count 1) on every
#                                    queue of the port it concerns, until it
#                                    struck and the driver's recovery counter
#                                    moved; then cleared
#   wedge                            wedge-txq: the port fails, the fault is
#                                    cleared, the pair deleted and re-created
#   netns-move                       B to a third namespace and back
#   recreate                         the pair deleted and created again
# After the last round the module is unloaded and loaded again, and one more
# transfer runs. TCP transfers (8 MiB each, back to back) are verified byte
# for byte; operations that end the pair (wedge, netns-move, recreate,
# reload) wait for the running transfer first. Each operation but those
# runs beside a burst of UDP datagrams over 16 flows, counted at a socket
# on B: a datagram lost must be explained by a drop counter that moved
# during the burst (the device model's and the driver's drop counters, the
# link model's losses, the socket's receive errors), else the soak fails.
#
# The soak ends with a table: operations of each kind, resets and
# recoveries, bytes verified, frames dropped by reason, datagrams lost and
# explained, and the leak checks: no page pool left once the pairs are
# gone, pinned user pages all released (/proc/vmstat nr_foll_pin_*), and
# the module unloads. The harness fails the test on any WARN, BUG, lockdep
# or KASAN report, and on the debug kernel on kmemleak's.
set -u
. "$(dirname "$0")/lib_net.sh"

MINUTES=${SOAK_MINUTES:-2}
SEED=${SOAK_SEED:-$(($(date +%s%N) / 1000 % 32768))}
SOAK_MIN=${SOAK_MIN:-$((MINUTES / 10))}
QUEUES=4
C_NS=rfc-$$ # netns-move's third namespace
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
DEVMEM=$REFNIC_REPO/build/cmake/tools/refnic-devmem/refnic-devmem
BYPASS=$REFNIC_REPO/build/cmake/tools/refnic-bypass/refnic-bypass
TCP_BYTES=$((8 << 20))
DM_MIB=4
DM_QUEUE=2
DM_PORT=5999
BP_QUEUE=1
BP_PORT=9000
UDP_PORT=7000
UDP_FLOWS=16
UDP_COUNT=8
# The faults of the device model (uapi FAULT_*), each with the port it is
# armed on (A transmits the TCP data, B receives it) and the ethtool -S
# counter (summed over queues when it is per queue) that shows the driver
# noticed; "-" where striking is all there is to see.
declare -A FAULT_SIDE=(
	[drop-completion]=B [corrupt-dma-addr]=A [stall-txq]=A [fail-alloc]=B
	[gro-bad-len]=B [stall-rxq]=B [lose-irq]=B)
declare -A FAULT_SIGN=(
	[drop-completion]=- [corrupt-dma-addr]=queue_resets [stall-txq]=tx_timeouts+tx_hangs
	[fail-alloc]=rx:alloc_fail [gro-bad-len]=rx:drops [stall-rxq]=rx_stalls
	[lose-irq]=lost_irqs)
KINDS=(channels rings hds gro-hw ntuple devmem bypass link-flap link-model
	wedge netns-move recreate)
# The zero-copy sessions Linux 7.x adds: io_uring zcrx and devmem TX.
DMTX_PARAM=/sys/module/refnic/parameters/devmem_tx
[ "$REFNIC_SERIES" = 6.12 ] || KINDS+=(zcrx devmem-tx)
for f in "${!FAULT_SIDE[@]}"; do KINDS+=("fault:$f"); done
mapfile -t KINDS < <(printf '%s\n' "${KINDS[@]}" | sort)
if [ -n "${SOAK_KINDS+set}" ]; then
	read -ra want <<<"$SOAK_KINDS"
	[ "${#want[@]}" -gt 0 ] || { echo "soak: SOAK_KINDS names no kind (on $REFNIC_SERIES: ${KINDS[*]})" >&2; exit 2; }
	for k in "${want[@]}"; do
		printf '%s\n' "${KINDS[@]}" | grep -qxF -- "$k" || {
			echo "soak: unknown kind '$k' (on $REFNIC_SERIES: ${KINDS[*]})" >&2
			exit 2
		}
	done
	mapfile -t KINDS < <(printf '%s\n' "${want[@]}" | sort -u)
fi
if [ "$SOAK_MIN" = 0 ] && [ "$MINUTES" = 0 ]; then
	echo "soak: SOAK_MINUTES=0 with SOAK_MIN=0 schedules nothing (SOAK_MIN=1 runs each kind once)" >&2
	exit 2
fi

declare -A RUNS=() FAILS=() DROPS=()
TCP_N=0 TCP_DONE=0 TCP_VERIFIED=0 TCP_RUNNING=0
UDP_SENT=0 UDP_GOT=0 UDP_LOST=0 UDP_UNEXPLAINED=0
RESETS=0 TIMEOUTS=0 HANGS=0 STALLS=0 LOST_IRQS=0 QUIESCE=0 PAIRS=1
FAILED_OPS=()
OPNUM=0 KIND=start FAULT_STRUCK=0

ktap_print_header
for t in "$CTL" "$DEVMEM" "$BYPASS"; do
	[ -x "$t" ] || net_skip_all "$t not built (make lib)"
done
[ -e /dev/udmabuf ] || net_skip_all "no /dev/udmabuf (CONFIG_UDMABUF)"
command -v socat >/dev/null || net_skip_all "needs socat"
net_init
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
ktap_set_plan 7
if [ "$REFNIC_SERIES" != 6.12 ]; then
	# Every pair the schedule plugs in offers netmem TX (the parameter is
	# read when a port is created; the reload at the end resets it, and
	# no devmem-tx runs after that).
	[ -w "$DMTX_PARAM" ] || net_bail "no $DMTX_PARAM: is this refnic built for 7.x?"
	NET_CLEANUP+=("echo $(cat "$DMTX_PARAM") >$DMTX_PARAM")
	echo 1 >"$DMTX_PARAM"
fi
if [ "$SOAK_MIN" -gt 0 ]; then
	net_msg "seed $SEED (SOAK_SEED=$SEED replays this schedule), $MINUTES minutes, every kind of operation at least $SOAK_MIN times"
else
	net_msg "seed $SEED (SOAK_SEED=$SEED replays this schedule), $MINUTES minutes, a short run: the operations that start within them"
fi
NET_CLEANUP+=("ip netns del $C_NS" "pkill -KILL -f '^$DEVMEM '" "pkill -KILL -f '^$BYPASS '")
PIN0=$(awk '$1 == "nr_foll_pin_acquired" { a = $2 } $1 == "nr_foll_pin_released" { r = $2 } END { print a - r }' /proc/vmstat)

# rnd N: R = a random number below N, from the schedule's generator. Only
# the main shell draws (a subshell's draws would not advance it), so the
# schedule depends on the seed alone.
rnd() { R=$((RANDOM % $1)); }
RANDOM=$SEED

side() { # side A|B: NS and DEV of that port
	if [ "$1" = A ]; then NS=$NS_A DEV=$DEV_A; else NS=$NS_B DEV=$DEV_B; fi
}
pick_side() { # NS and DEV of port A or B, at random
	rnd 2
	if [ "$R" = 0 ]; then side A; else side B; fi
}
pick_onoff() { # V = on or off, at random
	rnd 2
	if [ "$R" = 0 ]; then V=on; else V=off; fi
}
et() { ip netns exec "$NS" ethtool "$@"; }
# et_set ARGS...: an ethtool setting; asking for what is set already is fine.
et_set() {
	local out
	out=$(et "$@" 2>&1) && return 0
	grep -Eqi 'unmodified|no .*changed|nothing to change' <<<"$out" && return 0
	echo "# ethtool $*: $out"
	return 1
}
ctl() { ip netns exec "$NS" "$CTL" "$@"; }

# model_counters DEV NS: the device model's counters of that port.
model_counters() {
	local pdev n
	pdev=$(basename "$(ip netns exec "$2" readlink -f "/sys/class/net/$1/device")")
	n=${pdev#refnic.}
	cat "/sys/kernel/debug/refnic/card$((n / 2))/port$((n % 2))/counters"
}

# drop_snap: every counter that counts a dropped frame, "NAME VALUE" a line:
# the model's drop counters of both ports (m.*), the driver's per-queue
# drops and missing buffers (e.*), B's UDP receive errors (udp.*).
drop_snap() {
	local NS DEV s
	{
		model_counters "$DEV_A" "$NS_A" | awk '$1 ~ /drop/ { print "m." $1, $2 }'
		model_counters "$DEV_B" "$NS_B" | awk '$1 ~ /drop/ { print "m." $1, $2 }'
		for s in A B; do
			side $s
			et -S "$DEV" | awk '{ n = $1; sub(/:$/, "", n) }
				n ~ /^(rx|tx)[0-9]+_(nobuf|drops)$/ { sub(/^(rx|tx)[0-9]+/, substr(n, 1, 2), n); s[n] += $2 }
				END { for (k in s) print "e." k, s[k] }'
		done
		ip netns exec "$NS_B" nstat -asz UdpRcvbufErrors UdpInErrors | awk '/^Udp/ { print "udp." $1, $2 }'
	} | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | LC_ALL=C sort
}

# drop_delta BEFORE AFTER: adds what moved to DROPS; prints the total.
drop_delta() {
	local name v total=0
	while read -r name v; do
		[ "$v" -gt 0 ] || continue
		DROPS[$name]=$((${DROPS[$name]:-0} + v))
		total=$((total + v))
	done < <(LC_ALL=C join -a 2 -e 0 -o 0,1.2,2.2 "$1" "$2" | awk '{ print $1, $3 - $2 }')
	echo "$total"
}

# recovery_snap: the driver's recovery counters of both ports, summed.
recovery_counts() {
	local s f NS DEV
	for f in queue_resets tx_timeouts tx_hangs rx_stalls lost_irqs quiesce_failures; do
		local v=0
		for s in A B; do
			side $s
			v=$((v + $(net_estat "$NS" "$DEV" "$f" 2>/dev/null || echo 0)))
		done
		printf '%s ' "$v"
	done
}
# recovery_bank: before the pair goes, add its counters to the totals.
recovery_bank() {
	local r
	read -r -a r < <(recovery_counts)
	RESETS=$((RESETS + r[0])) TIMEOUTS=$((TIMEOUTS + r[1])) HANGS=$((HANGS + r[2]))
	STALLS=$((STALLS + r[3])) LOST_IRQS=$((LOST_IRQS + r[4])) QUIESCE=$((QUIESCE + r[5]))
}

# ---- traffic --------------------------------------------------------------------

# tcp_verify: verify the running transfer if it ended.
tcp_verify() {
	[ "$TCP_RUNNING" = 1 ] || return 0
	net_bg_running "tcp$TCP_N-tx" && return 0
	TCP_RUNNING=0
	if net_tcp_wait "tcp$TCP_N" 60 >"$NET_TMP/tcp.msg"; then
		TCP_VERIFIED=$((TCP_VERIFIED + TCP_BYTES))
		TCP_DONE=$((TCP_DONE + 1))
	else
		cat "$NET_TMP/tcp.msg"
		FAILED_OPS+=("tcp transfer $TCP_N (op $OPNUM, $KIND)")
		return 1
	fi
}

# tcp_check: verify the transfer that ended, if any; start the next one.
tcp_check() {
	tcp_verify
	[ "$TCP_RUNNING" = 0 ] || return 0
	TCP_N=$((TCP_N + 1))
	net_tcp_start "tcp$TCP_N" "$NS_A" "$NS_B" "$V4_B" "$TCP_BYTES" \
		$((5201 + TCP_N % 500)) "$TCP_N" || {
		FAILED_OPS+=("tcp transfer $TCP_N did not start (op $OPNUM)")
		return 1
	}
	TCP_RUNNING=1
}

# tcp_drain: let the running transfer finish and verify it (before the
# pair goes away).
tcp_ended() { ! net_bg_running "tcp$TCP_N-tx"; }
tcp_drain() {
	[ "$TCP_RUNNING" = 1 ] || return 0
	wait_until 300 tcp_ended
	tcp_verify || return 1
	[ "$TCP_RUNNING" = 0 ] && return 0
	net_bg_kill "tcp$TCP_N-tx"
	net_bg_kill "tcp$TCP_N-rx"
	TCP_RUNNING=0
	FAILED_OPS+=("tcp transfer $TCP_N did not end in 300 s (op $OPNUM, $KIND)")
	return 1
}

# udp_start / udp_end: a burst over UDP_FLOWS flows A -> B beside an
# operation; udp_end counts what arrived and explains what did not.
udp_start() {
	rm -f "$NET_TMP/udp.ready"
	drop_snap >"$NET_TMP/drops0"
	net_bg udp-rx net_tool "$NS_B" udp-sink "$V4_B" "$UDP_PORT" \
		--count $((UDP_FLOWS * UDP_COUNT)) --idle $((20 * NET_SCALE)) \
		--ready "$NET_TMP/udp.ready"
	net_wait_file "$NET_TMP/udp.ready" 30 || return 1
	net_bg udp-tx net_tool "$NS_A" udp-flows --src "$V4_A" --dst "$V4_B" \
		--sport 41000 --dport "$UDP_PORT" --flows "$UDP_FLOWS" --count "$UDP_COUNT" --gap 0.05
}
udp_end() {
	local got sent lost dropped
	net_bg_wait udp-tx 120 || true
	net_bg_wait udp-rx 120 || true
	sent=$((UDP_FLOWS * UDP_COUNT))
	got=$(jget "$NET_TMP/udp-rx.out" 'd["packets"]' 2>/dev/null || echo 0)
	drop_snap >"$NET_TMP/drops1"
	dropped=$(($(drop_delta "$NET_TMP/drops0" "$NET_TMP/drops1") + FAULT_STRUCK))
	FAULT_STRUCK=0
	lost=$((sent - got))
	UDP_SENT=$((UDP_SENT + sent)) UDP_GOT=$((UDP_GOT + got)) UDP_LOST=$((UDP_LOST + lost))
	if [ "$lost" -gt "$dropped" ]; then
		net_msg "op $OPNUM ($KIND): $lost of $sent datagrams lost, drop counters moved by $dropped"
		UDP_UNEXPLAINED=$((UDP_UNEXPLAINED + lost - dropped))
	fi
}

# ---- the pair ---------------------------------------------------------------------

pair_setup() {
	net_pair_add queues "$QUEUES"
	net_quiet_v6
	net_static_neigh
}

# pair_remove: delete the pair (its counters banked), wait for its pools.
pair_remove() {
	recovery_bank
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}

pair_recreate() {
	pair_remove || return 1
	pair_setup
	PAIRS=$((PAIRS + 1))
}

# ---- operations ---------------------------------------------------------------------
# Each draws its arguments with rnd before acting, returns non-zero on
# failure, and leaves the pair up with carrier.

RINGS=(128 256 512 1024)

# channels DEV: its combined channel count now.
channels() { et -l "$1" | awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2; exit }'; }

op_channels() {
	local n cur
	pick_side
	rnd $QUEUES && n=$((R + 1))
	cur=$(channels "$DEV")
	# a change, not the count it has
	[ "$n" != "$cur" ] || n=$((cur % QUEUES + 1))
	net_msg "op $OPNUM: $DEV combined $cur -> $n"
	et -L "$DEV" combined "$n"
}

op_rings() {
	local rx tx
	pick_side
	rnd ${#RINGS[@]} && rx=${RINGS[R]}
	rnd ${#RINGS[@]} && tx=${RINGS[R]}
	net_msg "op $OPNUM: $DEV rings rx $rx tx $tx"
	et_set -G "$DEV" rx "$rx" tx "$tx"
}

op_hds() {
	pick_side
	pick_onoff
	net_msg "op $OPNUM: $DEV tcp-data-split $V"
	et_set -G "$DEV" tcp-data-split "$V"
}

op_gro_hw() {
	pick_side
	pick_onoff
	net_msg "op $OPNUM: $DEV rx-gro-hw $V"
	et_set -K "$DEV" rx-gro-hw "$V"
}

op_ntuple() {
	local q port id
	side B
	rnd "$(channels "$DEV")" && q=$R
	rnd 1000 && port=$((20000 + R))
	net_msg "op $OPNUM: $DEV ntuple udp4 dst-port $port -> queue $q, then deleted"
	id=$(et -N "$DEV" flow-type udp4 dst-port "$port" action "$q" | awk '/Added rule with ID/ { print $NF }')
	[ -n "$id" ] || return 1
	et -n "$DEV" rule "$id" | grep -q "Action: Direct to queue $q" || return 1
	et -N "$DEV" delete "$id"
}

# dm_queue_setup: B with all its queues, RSS on 0-1, header split on and
# DM_PORT steered to DM_QUEUE; RULE is the ntuple rule's ID.
dm_queue_setup() {
	side B
	et_set -L "$DEV" combined "$QUEUES" && et -X "$DEV" equal 2 &&
		et_set -G "$DEV" tcp-data-split on || return 1
	RULE=$(et -N "$DEV" flow-type tcp4 dst-port "$DM_PORT" action "$DM_QUEUE" |
		awk '/Added rule with ID/ { print $NF }')
	[ -n "$RULE" ]
}
dm_queue_restore() { et -N "$DEV" delete "$RULE" && et -X "$DEV" default; }

# dm_receive NAME CHECK SENDER COMMAND [ARGS...]: on DM_QUEUE
# (dm_queue_setup), refnic-devmem COMMAND in B (background job NAME) takes
# DM_MIB MiB of the validated stream that the function SENDER sends from
# A; CHECK is a Python expression over its JSON summary that must hold.
# The queue set back after.
dm_send_socket() { net_devmem_send "$NS_A" "$V4_B" "$DM_PORT" $((DM_MIB << 20)); }
dm_receive() {
	local name=$1 check=$2 sender=$3 cmd=$4 ok=0 RULE
	shift 4
	dm_queue_setup || return 1
	rm -f "$NET_TMP/$name.err"
	net_bg "$name" net_ns "$NS_B" "$DEVMEM" "$cmd" -f "$DEV" -t "$DM_QUEUE" -p "$DM_PORT" \
		-s "$V4_B" -v 7 -j "$@"
	if wait_until 60 grep -q listening "$NET_TMP/$name.err"; then
		"$sender" && net_bg_wait "$name" 120 &&
			[ "$(jget "$NET_TMP/$name.out" "$check")" = True ] || ok=1
	else
		ok=1
	fi
	[ "$ok" = 0 ] || net_bg_show "$name"
	net_bg_kill "$name"
	dm_queue_restore || ok=1
	return "$ok"
}

# devmem: a udmabuf bound to DM_QUEUE, fed, validated, unbound.
op_devmem() {
	net_msg "op $OPNUM: devmem: $DM_MIB MiB into a udmabuf bound to $DEV_B queue $DM_QUEUE"
	dm_receive dm "d['devmem_bytes'] == $((DM_MIB << 20)) and d['validate'] == 7" \
		dm_send_socket rx --udmabuf-size "$DM_MIB" --release batched
}

# zcrx: an io_uring zcrx area registered on DM_QUEUE, fed, validated, and
# closed with the process.
op_zcrx() {
	net_msg "op $OPNUM: zcrx: $DM_MIB MiB into an io_uring area registered on $DEV_B queue $DM_QUEUE"
	dm_receive zc "d['bytes'] == $((DM_MIB << 20)) and d['validate'] == 7" \
		dm_send_socket zcrx --area-size "$DM_MIB"
}

# devmem-tx: A sends from a udmabuf bound for TX into a udmabuf bound to
# B's DM_QUEUE: validated at B, nothing copied at A.
dm_send_devmem_tx() {
	local bytes=$((DM_MIB << 20))
	timeout $((120 * NET_SCALE)) ip netns exec "$NS_A" "$DEVMEM" tx -f "$DEV_A" -s "$V4_B" \
		-p "$DM_PORT" -j --bytes "$bytes" --udmabuf-size "$DM_MIB" \
		>"$NET_TMP/dmtx.out" 2>"$NET_TMP/dmtx.err" &&
		[ "$(jget "$NET_TMP/dmtx.out" "d['bytes'] == $bytes and d['copied'] == 0 and d['validate'] == 7")" = True ] ||
		{ sed 's/^/# dmtx: /' "$NET_TMP/dmtx.out" "$NET_TMP/dmtx.err"; return 1; }
}
op_devmem_tx() {
	net_msg "op $OPNUM: devmem-tx: $DM_MIB MiB from a udmabuf bound for TX on $DEV_A into one bound to $DEV_B queue $DM_QUEUE"
	dm_receive dmrx "d['devmem_bytes'] == $((DM_MIB << 20)) and d['validate'] == 7" \
		dm_send_devmem_tx rx --udmabuf-size "$DM_MIB"
}

# bypass: B's queue BP_QUEUE bound by refnic-bypass rx (RSS off it, UDP to
# BP_PORT steered to it); the session receives N frames and ends, or is
# killed with SIGKILL midway. Then the queue is the kernel's again: UDP to
# BP_PORT reaches a socket.
op_bypass() {
	local kill n=200 ok=0 rule
	rnd 2 && kill=$R
	side B
	net_msg "op $OPNUM: bypass: $DEV queue $BP_QUEUE, $([ "$kill" = 1 ] && echo "killed with SIGKILL" || echo "runs out")"
	# A bound queue takes whole frames: no hardware GRO.
	et_set -L "$DEV" combined "$QUEUES" && et_set -K "$DEV" rx-gro-hw off &&
		et -X "$DEV" equal 1 || return 1
	rule=$(et -N "$DEV" flow-type udp4 dst-port "$BP_PORT" action "$BP_QUEUE" |
		awk '/Added rule with ID/ { print $NF }')
	[ -n "$rule" ] || return 1
	net_bg bp net_ns "$NS_B" "$BYPASS" rx -i "$DEV" -q "$BP_QUEUE" \
		--count $((kill ? 1000000 : n)) --duration $((60 * NET_SCALE)) --json
	if wait_until 30 grep -q "rx on $DEV queue $BP_QUEUE" "$NET_TMP/bp.err"; then
		ip netns exec "$NS_A" python3 "$NETTOOL" udp-blast --dst "$V4_B" \
			--dport "$BP_PORT" --count "$n" --size 200 --burst 8 --gap 0.01 >/dev/null
		if [ "$kill" = 1 ]; then
			kill -KILL "${NET_PID[bp]}"
			net_bg_wait bp 30
			[ $? = 137 ] || ok=1
		else
			net_bg_wait bp $((60 * NET_SCALE)) &&
				[ "$(jget "$NET_TMP/bp.out" "d['packets']")" = "$n" ] || ok=1
		fi
	else
		ok=1
	fi
	[ "$ok" = 0 ] || net_bg_show bp
	net_bg_kill bp
	# The queue is the kernel's again.
	rm -f "$NET_TMP/bps.ready"
	net_bg bps net_tool "$NS_B" udp-sink "$V4_B" "$BP_PORT" --count 20 \
		--idle $((10 * NET_SCALE)) --ready "$NET_TMP/bps.ready"
	net_wait_file "$NET_TMP/bps.ready" 30 &&
		ip netns exec "$NS_A" python3 "$NETTOOL" udp-blast --dst "$V4_B" \
			--dport "$BP_PORT" --count 20 --size 200 --burst 4 --gap 0.05 >/dev/null &&
		net_bg_wait bps 60 && [ "$(jget "$NET_TMP/bps.out" "d['packets']")" = 20 ] ||
		{ net_msg "queue $BP_QUEUE did not carry kernel traffic after the session"; ok=1; }
	et -N "$DEV" delete "$rule" && et -X "$DEV" default || ok=1
	return "$ok"
}

op_link_flap() {
	pick_side
	local peer_ns=$NS_B peer=$DEV_B
	[ "$DEV" = "$DEV_A" ] || peer_ns=$NS_A peer=$DEV_A
	net_msg "op $OPNUM: $DEV down and up"
	# A port set down shows no NO-CARRIER: its peer's carrier goes.
	ip -n "$NS" link set "$DEV" down && net_wait_link "$peer_ns" "$peer" down 20 &&
		ip -n "$NS" link set "$DEV" up && net_wait_link "$NS_A" "$DEV_A" up 30 &&
		net_wait_link "$NS_B" "$DEV_B" up 30
}

LM_RATE=(0 100mbit 1gbit)
LM_LAT=(0 100us 1ms)
LM_LOSS=(0 0.1% 1%)
op_link_model() {
	local rate lat loss
	pick_side
	rnd 3 && rate=${LM_RATE[R]}
	rnd 3 && lat=${LM_LAT[R]}
	rnd 3 && loss=${LM_LOSS[R]}
	net_msg "op $OPNUM: $DEV link rate $rate latency $lat loss $loss"
	ctl link set "$DEV" rate "$rate" latency "$lat" loss "$loss"
}

# fault_injected: how many times the armed faults of $DEV struck.
fault_injected() {
	ctl -j fault show "$DEV" | python3 -c '
import json, sys
print(sum(f.get("injected", 0) for f in json.load(sys.stdin) if f["type"] == sys.argv[1]))' "$FT"
}
fault_sign() { # the recovery counter of fault $FT on $DEV
	local c=${FAULT_SIGN[$FT]}
	case $c in
	-) echo 0 ;;
	rx:*) net_equeue_sum "$NS" "$DEV" rx "${c#rx:}" ;;
	*+*) echo $(($(net_estat "$NS" "$DEV" "${c%+*}") + $(net_estat "$NS" "$DEV" "${c#*+}"))) ;;
	*) net_estat "$NS" "$DEV" "$c" ;;
	esac
}
fault_struck() { [ "$(fault_injected)" -gt 0 ]; }
# fault_burst: for a TX fault, a burst from every CPU (XPS maps each to its
# TX queue), enough to fill a ring: a stalled queue times out only stopped.
fault_burst() {
	local cpu
	for cpu in $(net_irq_cpus); do
		net_udp_burst "$NS_A" "$V4_B" "$cpu"
	done
}
fault_seen() { [ "${FAULT_SIGN[$FT]}" = - ] || [ "$(fault_sign)" -gt "$SIGN0" ]; }
fault_traffic() { # UDP over every queue, and the TCP stream kept going
	tcp_check || true
	net_tool "$NS_A" udp-flows --src "$V4_A" --dst "$V4_B" --sport 42000 \
		--dport 9 --flows 32 --count 2 --gap 0.01 >/dev/null
	[ "${FAULT_SIDE[$FT]}" = B ] || fault_burst
	fault_struck
}

op_fault() {
	local q n ok=0
	FT=${KIND#fault:}
	side "${FAULT_SIDE[$FT]}"
	n=$(channels "$DEV")
	net_msg "op $OPNUM: $FT armed once on each of $DEV's $n queues"
	# gro-bad-len lies about a hardware GRO run: there must be runs.
	[ "$FT" != gro-bad-len ] || et_set -K "$DEV" rx-gro-hw on || return 1
	SIGN0=$(fault_sign)
	for ((q = 0; q < n; q++)); do
		ctl fault set "$DEV" "$FT" queue "$q" count 1 || return 1
	done
	wait_until 60 fault_traffic || { net_msg "$FT never struck"; ok=1; }
	[ "$ok" = 1 ] || wait_until 90 fault_seen ||
		{ net_msg "$FT struck, ${FAULT_SIGN[$FT]} did not move"; ok=1; }
	FAULT_STRUCK=$(fault_injected)
	net_msg "$FT struck $FAULT_STRUCK times; ${FAULT_SIGN[$FT]} $SIGN0 -> $(fault_sign)"
	for ((q = 0; q < n; q++)); do
		ctl fault clear "$DEV" "$FT" queue "$q" || ok=1
	done
	# Recovered: both ports carry traffic again.
	wait_until 60 ip netns exec "$NS_A" ping -q -c 1 -W 2 "$V4_B" >/dev/null || ok=1
	return "$ok"
}

# wedge: A's TX onto one queue, wedge-txq armed there, a burst: the port
# fails (quiesce_failures +1); the fault cleared, the pair re-created.
op_wedge() {
	local q qf0 ok=0
	rnd "$QUEUES" && q=$R
	side A
	net_msg "op $OPNUM: wedge-txq on $DEV queue $q; the port fails, the pair is re-created"
	et_set -L "$DEV" combined "$QUEUES" || return 1
	net_xps_only "$NS_A" "$DEV_A" "$q" "$QUEUES"
	qf0=$(net_estat "$NS" "$DEV" quiesce_failures)
	ctl fault set "$DEV" wedge-txq queue "$q" count 1 || return 1
	failed() {
		net_udp_burst "$NS_A" "$V4_B"
		[ "$(net_estat "$NS" "$DEV" quiesce_failures)" -gt "$qf0" ]
	}
	wait_until 120 failed || { net_msg "the port did not fail"; ok=1; }
	[ "$(net_carrier "$NS" "$DEV")" = 0 ] || { net_msg "carrier still on"; ok=1; }
	ctl fault clear "$DEV" wedge-txq queue "$q" || ok=1
	pair_recreate || ok=1
	return "$ok"
}

op_netns_move() {
	net_msg "op $OPNUM: $DEV_B to $C_NS and back"
	ip -n "$NS_B" link set "$DEV_B" netns "$C_NS" &&
		ip -n "$C_NS" link set "$DEV_B" netns "$NS_B" || return 1
	net_batch -n "$NS_B" <<-EOF
	addr add $V4_B/24 dev $DEV_B
	addr add $V6_B/64 dev $DEV_B nodad
	link set $DEV_B up
	EOF
	net_quiet_v6
	net_static_neigh
	net_wait_link "$NS_A" "$DEV_A" up 30 && net_wait_link "$NS_B" "$DEV_B" up 30
}

op_recreate() {
	net_msg "op $OPNUM: the pair deleted and created again"
	pair_recreate
}

# ---- the schedule -------------------------------------------------------------------

ends_pair() { case $1 in wedge | netns-move | recreate) return 0 ;; esac; return 1; }
# A port down drops what its peer sends in a qdisc no counter sees: the
# flap runs without a UDP burst (TCP carries on across it).
no_udp() { ends_pair "$1" || [ "$1" = link-flap ]; }

run_op() {
	local rc=0 t0=$SECONDS
	RUNS[$KIND]=$((${RUNS[$KIND]:-0} + 1))
	if ends_pair "$KIND"; then
		tcp_drain
	elif no_udp "$KIND"; then
		tcp_check || true
	else
		tcp_check || true
		udp_start || { FAILED_OPS+=("op $OPNUM ($KIND): no UDP receiver"); }
	fi
	case $KIND in
	fault:*) op_fault || rc=$? ;;
	*) "op_${KIND//-/_}" || rc=$? ;;
	esac
	no_udp "$KIND" || udp_end
	if [ "$rc" != 0 ]; then
		FAILS[$KIND]=$((${FAILS[$KIND]:-0} + 1))
		FAILED_OPS+=("op $OPNUM ($KIND)")
		net_msg "op $OPNUM ($KIND) FAILED; the pair is re-created"
		tcp_drain
		pair_recreate || net_bail "cannot re-create the pair after op $OPNUM"
	fi
	net_msg "op $OPNUM ($KIND): $((SECONDS - t0)) s"
	tcp_check || true
}

net_ns_setup
ip netns add "$C_NS" || net_bail "ip netns add $C_NS"
pair_setup
ktap_test_result "the pair is up and a first transfer starts" tcp_check

START=$SECONDS
OPNUM=0
ROUNDS=0
# time_up: the schedule's time is over and its minimum of rounds run.
time_up() { [ $((SECONDS - START)) -ge $((MINUTES * 60)) ] && [ "$ROUNDS" -ge "$SOAK_MIN" ]; }
# Rounds start until the time is up and SOAK_MIN rounds have run; with no
# minimum, no operation starts after the time is up.
while ! time_up; do
	# this round's order: a Fisher-Yates shuffle of the kinds
	order=("${KINDS[@]}")
	for ((i = ${#order[@]} - 1; i > 0; i--)); do
		rnd $((i + 1))
		t=${order[i]} && order[i]=${order[R]} && order[R]=$t
	done
	for KIND in "${order[@]}"; do
		[ "$SOAK_MIN" -gt 0 ] || ! time_up || break 2
		OPNUM=$((OPNUM + 1))
		run_op
	done
	ROUNDS=$((ROUNDS + 1))
	net_msg "round $ROUNDS done at $((SECONDS - START)) s"
done
SCHEDULED=$OPNUM
tcp_drain

# ---- the module reloaded ----------------------------------------------------------------
reload() {
	local done0=$TCP_DONE
	pair_remove || return 1
	rmmod refnic || return 1
	refnic_load || return 1
	NET_LOADED=1
	pair_setup
	PAIRS=$((PAIRS + 1))
	tcp_check && tcp_drain && [ "$TCP_DONE" = $((done0 + 1)) ]
}
OPNUM=$((OPNUM + 1))
KIND=reload
ktap_test_result "the module unloads and loads again; a transfer runs after it" reload

# The last pair goes: its counters banked, its page pools must go too.
POOLS_GONE=0
pair_remove && POOLS_GONE=1

# ---- the table --------------------------------------------------------------------------
echo "# operation            runs  failed"
thin=0
for k in "${KINDS[@]}"; do
	printf '# %-20s %5d %7d\n' "$k" "${RUNS[$k]:-0}" "${FAILS[$k]:-0}"
	[ "${RUNS[$k]:-0}" -ge "$SOAK_MIN" ] || thin=1
done
net_msg "$ROUNDS rounds, $OPNUM operations in $((SECONDS - START)) s, $PAIRS pairs (seed $SEED)"
net_msg "resets and recoveries: queue_resets $RESETS, tx_timeouts $TIMEOUTS, tx_hangs $HANGS, rx_stalls $STALLS, lost_irqs $LOST_IRQS, ports failed (quiesce_failures) $QUIESCE"
net_msg "TCP: $TCP_DONE transfers, $TCP_VERIFIED bytes verified byte for byte"
net_msg "UDP: $UDP_SENT datagrams sent, $UDP_GOT received, $UDP_LOST lost, $UDP_UNEXPLAINED not explained by a drop counter"
echo "# frames dropped during the UDP bursts, by counter:"
for k in $(printf '%s\n' "${!DROPS[@]}" | LC_ALL=C sort); do
	printf '#   %-28s %d\n' "$k" "${DROPS[$k]}"
done

if [ "$SOAK_MIN" -gt 0 ]; then
	ktap_test_result "every kind of operation ran at least $SOAK_MIN times" [ "$thin" = 0 ]
else
	ktap_test_result "a short run: $SCHEDULED operations in $MINUTES minutes (no minimum per kind)" \
		[ "$SCHEDULED" -gt 0 ]
fi
failed_ops() {
	[ "${#FAILED_OPS[@]}" = 0 ] && return 0
	printf '# failed: %s\n' "${FAILED_OPS[@]}"
	return 1
}
ktap_test_result "every operation did what it should, every TCP transfer arrived intact" failed_ops
ktap_test_result "TCP bytes verified ($TCP_VERIFIED)" [ "$TCP_VERIFIED" -gt 0 ]
ktap_test_result "every lost datagram explained by a drop counter" [ "$UDP_UNEXPLAINED" = 0 ]

leaks() {
	local pin ok=0
	[ "$POOLS_GONE" = 1 ] || { net_msg "page pools left"; ok=1; }
	pin=$(awk '$1 == "nr_foll_pin_acquired" { a = $2 } $1 == "nr_foll_pin_released" { r = $2 } END { print a - r }' /proc/vmstat)
	net_msg "pinned user pages outstanding: $PIN0 before, $pin after"
	[ "$pin" = "$PIN0" ] || ok=1
	rmmod refnic || { net_msg "rmmod refnic failed"; ok=1; }
	# shellcheck disable=SC2034 # lib_net.sh's cleanup reads it
	NET_LOADED=0
	refnic_load || ok=1
	return "$ok"
}
ktap_test_result "no page pool left, pinned pages all released, the module unloads" leaks

ktap_finished
