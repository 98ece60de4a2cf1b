#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# io_uring zero-copy receive (zcrx, Linux 7.3) through `refnic-devmem zcrx`
# (librefnic's zcrx::Receiver), over a refnic pair in two namespaces. B has
# 4 queues, RSS on queues 0-1, header split on and the zcrx flow steered to
# queue 2 (ethtool -N); refnic's hds-thresh is 0, as zcrx needs. Checked:
#   - registering a zcrx queue with header split off fails with EINVAL (the
#     kernel gives no reason there; the tool names the setup it needs);
#   - while registered, the kernel refuses header split off and fewer
#     channels, each with its reason (the memory provider);
#   - 32 MiB (8 on the debug kernel) arrive in the area, every byte
#     validated, all of it through the device into queue 2's net_iovs
#     (rx2_devmem_bytes: zero copy, not the kernel's copy fallback), with
#     the refill queue's tail stored once per 64 entries, and once per
#     entry: the tool's own count of tail stores, 8x fewer batched;
#   - a 4 MiB area (1024 buffers, the RX ring holding 512 of them) takes a
#     16 MiB stream: the receiver hands back what it holds when data pauses;
#   - with --rx-buf-len 8192 (the queue config's rx_page_size; the area of
#     2 MiB huge pages, as io_uring needs for buffers larger than a page)
#     a stream arrives validated; 131072, more than refnic's device fills,
#     is refused with ERANGE and a log line saying what it takes;
#   - a receiver killed (-9) mid-stream frees the queue: the memory
#     provider goes, no page pool is left holding pages, and a new receiver
#     gets a whole stream;
#   - with the link model dropping 1 % of A's frames, retransmits fill the
#     gaps: 8 MiB validated, all of it zero copy;
#   - no TX timeout, queue reset or stall until then;
#   - B's queue pairs restarted mid-stream (debugfs reset_queue all, as a
#     TX timeout does): queue 2's page_pool is rebuilt from the provider
#     and 16 MiB arrive validated, all zero copy;
#   - a TCP flow on the other queues runs intact through all of it;
#   - the pair deleted under a receiver mid-stream: the receiver ends (it
#     is killed if it waits on), and no page pool is left in either
#     namespace.
# Each receiver starts once the last one's provider is gone: the kernel
# tears an io_uring down after the process that owned it has exited.
# On 6.12 everything is skipped: zcrx is Linux 7.3's.
set -u
. "$(dirname "$0")/lib_net.sh"

TOOL=${REFNIC_DEVMEM:-${REFNIC_BUILD:-$REFNIC_REPO/build}/cmake/tools/refnic-devmem/refnic-devmem}
MIB=32
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && MIB=8
QUEUE=2
PORT=5201

ktap_print_header
[ "$REFNIC_SERIES" != 6.12 ] || net_skip_all "io_uring zero-copy receive is Linux 7.3's (IORING_REGISTER_ZCRX_IFQ)"
[ -x "$TOOL" ] || { ktap_set_plan 0; ktap_exit_fail_msg "no $TOOL (make lib)"; }
command -v socat >/dev/null || net_skip_all "needs socat"
net_init
ktap_set_plan 14
net_setup queues 4
net_quiet_v6
net_static_neigh
NET_CLEANUP+=("pkill -f '^$TOOL '")

etB() { ip netns exec "$NS_B" ethtool "$@"; }
IFINDEX_B=$(net_ifindex "$NS_B" "$DEV_B")

# A flow on the RSS queues for the whole test.
BG_BYTES=$((64 << 20))
net_tcp_start other "$NS_A" "$NS_B" "$V4_B" "$BG_BYTES" 5301 9 --pace-secs 60

# no_provider: no RX queue of B has an io_uring memory provider (the last
# receiver's ring torn down).
no_provider() {
	local i out
	for ((i = 0; i < 40 * NET_SCALE; i++)); do
		out=$(net_tool "$NS_B" ynl queue-get) || return 1
		grep -q io-uring <<<"$out" || return 0
		sleep 0.5
	done
	net_msg "io-uring provider still on a queue: $out"
	return 1
}

# provider_gone: that, and no destroyed page pool holds pages.
provider_gone() {
	no_provider || return 1
	net_flush_deferred "$NS_B"
	net_tool "$NS_B" pp-wait --ifindex "$IFINDEX_B" --queues 4 --timeout $((20 * NET_SCALE)) >/dev/null
}

# zcrx_start NAME [AREA_MIB [ARGS...]]: refnic-devmem zcrx in B (background
# job zc-NAME), registered and listening; or its failure.
zcrx_start() {
	local name=$1 area=${2:-$MIB}
	shift 2 2>/dev/null || shift $#
	no_provider || return 1
	DEVMEM_BYTES0=$(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_devmem_bytes")
	rm -f "$NET_TMP/zc-$name.out" "$NET_TMP/zc-$name.err"
	net_bg "zc-$name" net_ns "$NS_B" "$TOOL" zcrx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--area-size "$area" -v 7 -j "$@"
	net_bg_wait_text "zc-$name" listening
}

# zcrx_send NAME MIB: the validated stream into it, all of it into queue
# $QUEUE's net_iovs; JSON summary in ZC_JSON.
zcrx_send() {
	net_devmem_send "$NS_A" "$V4_B" "$PORT" $(($2 << 20)) ||
		{ net_msg "sender failed"; net_bg_show "zc-$1"; return 1; }
	zcrx_check "$@"
}

# zcrx_check NAME MIB: the receiver's end: MIB MiB validated, all of it into
# queue $QUEUE's net_iovs.
zcrx_check() {
	local bytes=$(($2 << 20)) zc
	net_bg_wait "zc-$1" $((300 * NET_SCALE)) || { net_bg_show "zc-$1"; return 1; }
	ZC_JSON=$NET_TMP/zc-$1.out
	zc=$(($(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_devmem_bytes") - DEVMEM_BYTES0))
	net_msg "$1: $(cat "$ZC_JSON"); rx${QUEUE}_devmem_bytes +$zc"
	[ "$zc" -ge "$bytes" ] ||
		{ net_msg "only $zc of $bytes bytes went into net_iovs: the rest was copied"; return 1; }
	[ "$(jget "$ZC_JSON" "(d['bytes'] == $bytes and d['validate'] == 7 and
		d['ifname'] == '$DEV_B' and d['queue'] == $QUEUE)")" = True ]
}

refused_without_hds() {
	local out
	etB -G "$DEV_B" tcp-data-split off || return 1
	out=$(ip netns exec "$NS_B" "$TOOL" zcrx -f "$DEV_B" -t $QUEUE -p $PORT 2>&1) &&
		{ net_msg "registered without header split: $out"; return 1; }
	net_msg "$out"
	grep -q "Invalid argument" <<<"$out" && grep -q "tcp-data-split on" <<<"$out"
}
ktap_test_result "header split off: registering a zcrx queue fails with EINVAL, the tool names the setup" \
	refused_without_hds

setup() {
	etB -X "$DEV_B" equal 2 && etB -G "$DEV_B" tcp-data-split on &&
		etB -N "$DEV_B" flow-type tcp4 dst-port $PORT action $QUEUE >/dev/null
}
ktap_test_result "RSS on queues 0-1, header split on, port $PORT steered to queue $QUEUE" setup

# -L is tried without the ntuple rule, which would refuse it for its own reason.
fewer_channels_refused() {
	local id rc=0
	id=$(etB -n "$DEV_B" | awk '/^Filter:/ { print $2; exit }')
	etB -N "$DEV_B" delete "$id" || return 1
	net_refused "ethtool -L combined 2" "memory provider" etB -L "$DEV_B" combined 2 || rc=1
	etB -N "$DEV_B" flow-type tcp4 dst-port $PORT action $QUEUE >/dev/null || rc=1
	return $rc
}
batched() {
	zcrx_start batched || return 1
	net_refused "header split off" "memory provider" etB -G "$DEV_B" tcp-data-split off &&
		fewer_channels_refused && zcrx_send batched "$MIB"
}
ktap_test_result "$MIB MiB zero-copy into the area, validated, refill batched by 64 (header split off and -L refused meanwhile)" \
	batched
batched_stores=$(jget "$NET_TMP/zc-batched.out" "d['refill_batches']" 2>/dev/null || echo 0)

per_entry() { zcrx_start per-entry "$MIB" --refill-batch 1 && zcrx_send per-entry "$MIB"; }
ktap_test_result "$MIB MiB into the area, validated, refill tail stored per entry" per_entry
entry_stores=$(jget "$NET_TMP/zc-per-entry.out" "d['refill_batches']" 2>/dev/null || echo 0)

fewer() {
	net_msg "refill tail stores: per entry $entry_stores, batched $batched_stores"
	[ "$batched_stores" -gt 0 ] && [ $((entry_stores / batched_stores)) -ge 8 ]
}
ktap_test_result "the tool's own count: batched refill stores the refill tail >= 8x less often" fewer

small() { zcrx_start small 4 && zcrx_send small 16; }
ktap_test_result "a 4 MiB area takes a 16 MiB stream (entries handed back when data pauses)" small

killed() {
	local p0 i frames=0
	zcrx_start killed || return 1
	p0=$(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_packets")
	net_bg tx-killed net_devmem_send "$NS_A" "$V4_B" "$PORT" $((MIB << 20))
	# Kill it once data flows: the area then holds buffers the socket owns.
	for ((i = 0; i < 50 * NET_SCALE; i++)); do
		frames=$(($(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_packets") - p0))
		[ "$frames" -gt 100 ] && break
		sleep 0.2
	done
	[ "$frames" -gt 100 ] || { net_msg "only $frames frames on queue $QUEUE"; return 1; }
	net_bg_running zc-killed || { net_msg "the receiver ended before the kill"; net_bg_show zc-killed; return 1; }
	net_msg "killed after $frames frames on queue $QUEUE"
	kill -KILL "${NET_PID[zc-killed]}"
	wait "${NET_PID[zc-killed]}" 2>/dev/null
	unset "NET_PID[zc-killed]"
	net_bg_wait tx-killed 60
	provider_gone || return 1
	zcrx_start after-kill && zcrx_send after-kill 4
}
ktap_test_result "killed (-9) mid-stream: provider gone, no pool holds pages, the next receiver gets a whole stream" \
	killed

# Buffers of 8 KiB (--rx-buf-len: the queue config's rx_page_size): the
# area then is of 2 MiB huge pages, which io_uring needs for buffers larger
# than a page; refnic takes up to 64 KiB and refuses 128 KiB (ERANGE,
# logged: io_uring passes no extack).
HUGE_WAS=$(cat /proc/sys/vm/nr_hugepages)
NET_CLEANUP+=("echo $HUGE_WAS >/proc/sys/vm/nr_hugepages")
echo $((HUGE_WAS + 2 * MIB / 2)) >/proc/sys/vm/nr_hugepages
large_bufs() {
	provider_gone || return 1
	zcrx_start large "$MIB" --rx-buf-len 8192 || return 1
	grep -q "8192-byte buffers" "$NET_TMP/zc-large.err" || { net_bg_show zc-large; return 1; }
	zcrx_send large "$MIB"
}
ktap_test_result "--rx-buf-len 8192: $MIB MiB into 8 KiB buffers of a huge-page area, validated, all zero copy" \
	large_bufs
too_large() {
	local out
	provider_gone || return 1
	if out=$(ip netns exec "$NS_B" "$TOOL" zcrx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--area-size 4 --rx-buf-len 131072 2>&1); then
		net_msg "--rx-buf-len 131072 accepted"
		return 1
	fi
	net_msg "$out"
	grep -q "Numerical result out of range" <<<"$out" &&
		dmesg | grep -q "$DEV_B: rx page size 131072 refused: refnic takes a power of 2 from 4096 to 65536"
}
ktap_test_result "--rx-buf-len 131072: refused, ERANGE, refnic logs what it takes" too_large

# wait_frames N: more than N frames on queue $QUEUE since P0 (set by the caller).
wait_frames() {
	local i frames=0
	for ((i = 0; i < 50 * NET_SCALE; i++)); do
		frames=$(($(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_packets") - P0))
		[ "$frames" -gt "$1" ] && return 0
		sleep 0.2
	done
	net_msg "only $frames frames on queue $QUEUE"
	return 1
}

CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
NET_CLEANUP+=("ip netns exec $NS_A $CTL link set $DEV_A loss 0")
lossy() {
	local rc
	ip netns exec "$NS_A" "$CTL" link set "$DEV_A" loss 1% || return 1
	zcrx_start lossy && zcrx_send lossy 8
	rc=$?
	ip netns exec "$NS_A" "$CTL" link set "$DEV_A" loss 0 || return 1
	return "$rc"
}
ktap_test_result "8 MiB with 1% of A's frames lost: retransmits fill the gaps, validated, all zero copy" lossy
# Before the restart below, which counts as a queue reset.
net_health_test

# B's queue pairs restarted mid-stream (debugfs reset_queue all, as a TX
# timeout does): queue $QUEUE's page_pool is rebuilt from the io_uring
# provider, which keeps the buffers the process holds.
pdev_b=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
restart() {
	local r0 r1
	provider_gone || return 1
	zcrx_start restart || return 1
	r0=$(net_estat "$NS_B" "$DEV_B" queue_resets)
	P0=$(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_packets")
	net_bg tx-restart net_devmem_send "$NS_A" "$V4_B" "$PORT" $((16 << 20))
	wait_frames 100 || return 1
	echo all >"/sys/kernel/debug/refnic/drv-$pdev_b/reset_queue" || return 1
	net_bg_wait tx-restart $((300 * NET_SCALE)) || { net_msg "sender failed"; return 1; }
	zcrx_check restart 16 || return 1
	net_wait_estat "$NS_B" "$DEV_B" queue_resets $((r0 + 1))
	r1=$(net_estat "$NS_B" "$DEV_B" queue_resets)
	net_msg "B's queue_resets: $r0 -> $r1"
	[ "$r1" -gt "$r0" ]
}
ktap_test_result "16 MiB across a restart of B's queue pairs, validated, all zero copy" restart

other_ok() {
	net_tcp_wait other 600 && [ "$NET_TCP_SHA" = "$(net_sha "$BG_BYTES" 9)" ] && provider_gone
}
ktap_test_result "a flow on the other queues ran intact; afterwards no provider and no pool holding pages" \
	other_ok

# The pair deleted under a receiver holding area buffers mid-stream: the
# core takes the provider off the going queue, the receiver fails or is
# killed, and once its io_uring is gone no page pool is left in either
# namespace.
deleted() {
	zcrx_start deleted || return 1
	P0=$(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_packets")
	net_bg tx-deleted net_devmem_send "$NS_A" "$V4_B" "$PORT" $((MIB << 20))
	wait_frames 100 || return 1
	net_bg_running zc-deleted || { net_msg "the receiver ended before the delete"; net_bg_show zc-deleted; return 1; }
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_bg_wait zc-deleted 30 >/dev/null
	net_msg "the receiver after the delete: $(tr '\n' ' ' <"$NET_TMP/zc-deleted.err" | cut -c1-300)"
	net_bg_wait tx-deleted 60 >/dev/null
	net_pools_gone "$NS_B" && net_pools_gone "$NS_A"
}
ktap_test_result "the pair deleted under a receiver mid-stream: receiver ends, no page pool left" deleted
ktap_finished
