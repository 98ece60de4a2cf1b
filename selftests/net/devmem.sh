#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# devmem TCP through refnic-devmem (librefnic's devmem receiver), over a
# refnic pair in two namespaces. B has 4 queues, RSS on queues 0-1, header
# split on and its devmem flow steered to queue 2 (ethtool -N). Checked:
#   - while refnic-devmem holds a udmabuf bound to queue 2, turning header
#     split off and resizing the RX rings are refused with the reason
#     (the 6.12 core checks neither), and so is `ethtool -L combined 2`;
#   - a TCP flow on the other queues runs through the bind and the unbind
#     and arrives byte for byte (only the bound queue is restarted);
#   - the bound queue, replaced through the queue ops (debugfs
#     restart_rxq), keeps its binding;
#   - 64 MiB (16 on the debug kernel) arrive in a dmabuf of that size,
#     every byte validated, once with one SO_DEVMEM_DONTNEED per frag and
#     once batched (ranges of tokens, up to 1024 frags a call): batched
#     makes >= 8x fewer SO_DEVMEM_DONTNEED calls (the syscalls it changes;
#     how many recvmsg calls a transfer takes depends on how frames
#     arrive, and under a loaded host swung from 2,383 to 9,616 for the
#     same 64 MiB: make bench measures all syscalls);
#   - a 4 MiB dmabuf (1024 buffers) takes a 16 MiB stream batched: the
#     receiver hands its tokens back when no data comes for 10 ms, so a
#     batch never keeps what the queue needs to deliver more;
#   - a 1 MiB dmabuf (256 buffers, half the RX ring) takes an 8 MiB stream:
#     not refused, the queue runs on what it has and counts the refills
#     that found no net_iov (rxN_alloc_fail), and nothing stalls;
#   - unbound mid-stream while the process holds frags (--unbind-after):
#     the held frags stay readable and go back after the unbind, the rest
#     of the stream arrives as plain data, all of it validated, and no
#     destroyed page pool keeps pages;
#   - the bound queue's page_pool is deep enough that the batched bursts of
#     SO_DEVMEM_DONTNEED never overflow its ring into the dmabuf provider's
#     slow path: counted with the page_pool_state_hold/release tracepoints
#     on net_iovs (Debian's kernel has no page_pool stats);
#   - with rx-checksumming off, a frame whose payload is in the dmabuf,
#     which the device did not checksum and the stack cannot read to, is
#     dropped by the driver with a reason drop monitors see: the
#     skb:kfree_skb tracepoint shows SKB_CSUM at a refnic location, and
#     rxN_drops counts it;
#   - once unbound, header split can go off and the rings be resized;
#   - the refnic_rx_devmem tracepoint adds up to what rxN_devmem_bytes
#     counts (held after the first transfer).
set -u
. "$(dirname "$0")/lib_net.sh"

TOOL=${REFNIC_DEVMEM:-${REFNIC_BUILD:-$REFNIC_REPO/build}/cmake/tools/refnic-devmem/refnic-devmem}
# The udmabuf's size and each transfer's. 16 MiB on the debug kernel: the
# bind maps and sets up the udmabuf a 4 KiB page at a time under RTNL (6.12;
# the instance lock on 7.3), and at 64 MiB a loaded 6.12 debug VM held RTNL
# past the hung-task detector's 180 s (docs/two-kernels.md).
MIB=64
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && MIB=16
QUEUE=2
PORT=5201

ktap_print_header
[ -x "$TOOL" ] || { ktap_set_plan 0; ktap_exit_fail_msg "no $TOOL (make lib)"; }
[ -e /dev/udmabuf ] || net_skip_all "no /dev/udmabuf (CONFIG_UDMABUF)"
command -v socat >/dev/null || net_skip_all "needs socat"
net_init
ktap_set_plan 15
net_setup queues 4
net_quiet_v6
net_static_neigh
NET_CLEANUP+=("pkill -f '^$TOOL '")

etB() { ip netns exec "$NS_B" ethtool "$@"; }
setup() {
	etB -X "$DEV_B" equal 2 && etB -G "$DEV_B" tcp-data-split on &&
		etB -N "$DEV_B" flow-type tcp4 dst-port $PORT action $QUEUE >/dev/null
}
ktap_test_result "RSS on queues 0-1, header split on, port $PORT steered to queue $QUEUE" setup

# refnic_rx_devmem counted from here, against rx${QUEUE}_devmem_bytes.
TRACED=0
if net_trace_init && net_hist_on refnic_rx_devmem "hist:keys=dev,queue:vals=hitcount,bytes"; then
	TRACED=1
fi
rx_devmem_bytes() { net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_devmem_bytes"; }
RX_DEVMEM0=$(rx_devmem_bytes)

# A flow on the RSS queues for the whole test.
BG_BYTES=$((64 << 20))
net_tcp_start other "$NS_A" "$NS_B" "$V4_B" "$BG_BYTES" 5301 9 --pace-secs 60

# devmem_start MODE [NAME UDMABUF_MIB [ARGS...]]: refnic-devmem in B
# (background job dm-NAME, NAME defaulting to MODE), bound and listening.
devmem_start() {
	local name=${2:-$1}
	rm -f "$NET_TMP/dm-$name.out" "$NET_TMP/dm-$name.err"
	net_bg "dm-$name" net_ns "$NS_B" "$TOOL" rx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--udmabuf-size "${3:-$MIB}" -v 7 --release "$1" -j "${@:4}"
	net_bg_wait_text "dm-$name" listening
}

# devmem_send NAME [MIB]: the validated stream into it (MIB MiB, default
# $MIB); JSON summary in DM_JSON.
devmem_send() {
	local bytes=$((${2:-$MIB} << 20))
	net_devmem_send "$NS_A" "$V4_B" "$PORT" "$bytes" ||
		{ net_msg "sender failed"; return 1; }
	net_bg_wait "dm-$1" $((300 * NET_SCALE)) || { net_bg_show "dm-$1"; return 1; }
	DM_JSON=$NET_TMP/dm-$1.out
	net_msg "$1: $(cat "$DM_JSON")"
	[ "$(jget "$DM_JSON" "(d['devmem_bytes'] == $bytes and d['validate'] == 7 and
		d['ifname'] == '$DEV_B' and d['queues'] == [$QUEUE] and d['binding'] > 0)")" = True ]
}

# Turning header split off under a bound queue: 7.3's core refuses it
# itself (ethnl_set_rings) before the driver is asked; on 6.12 refnic does.
case $REFNIC_SERIES in
6.12) HDS_OFF_MSG="dmabuf bound, which needs header split" ;;
*) HDS_OFF_MSG="can't disable tcp-data-split while device has memory provider enabled" ;;
esac
while_bound() {
	devmem_start per-frag || return 1
	net_refused "tcp-data-split off" "$HDS_OFF_MSG" \
		etB -G "$DEV_B" tcp-data-split off &&
		net_refused "rx ring resize" "unbind it to resize the RX rings" etB -G "$DEV_B" rx 1024 &&
		net_refused "ethtool -L combined 2" "" etB -L "$DEV_B" combined 2
}
ktap_test_result "while bound: header split off, RX ring resize, fewer channels refused" while_bound

# The bound queue replaced through the queue ops (debugfs restart_rxq, as
# the core restarts a queue, with the queue's config: on 7.x the payload
# buffer size the binding set): the stream below then lands in the dmabuf.
PDEV_B=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
ktap_test_result "while bound: queue $QUEUE replaced through the queue ops (debugfs restart_rxq)" \
	eval "echo $QUEUE >/sys/kernel/debug/refnic/drv-$PDEV_B/restart_rxq"

ktap_test_result "$MIB MiB into the dmabuf, validated, one SO_DEVMEM_DONTNEED per frag" \
	devmem_send per-frag
traced_devmem() {
	local counted traced
	counted=$(($(rx_devmem_bytes) - RX_DEVMEM0))
	traced=$(net_hist_sum refnic_rx_devmem bytes "dev=$DEV_B" "queue=$QUEUE")
	net_msg "rx${QUEUE}_devmem_bytes moved $counted, refnic_rx_devmem traced $traced"
	[ "$counted" -ge $((MIB << 20)) ] && [ "$traced" = "$counted" ]
}
if [ "$TRACED" = 1 ]; then
	ktap_test_result "refnic_rx_devmem: the bytes rx${QUEUE}_devmem_bytes counts" traced_devmem
else
	ktap_test_skip "refnic_rx_devmem: no tracefs instance with hist triggers"
fi
per_frag=$(jget "$NET_TMP/dm-per-frag.out" "d['dontneed_calls']" 2>/dev/null || echo 0)
per_frag_all=$(jget "$NET_TMP/dm-per-frag.out" "d['syscalls']" 2>/dev/null || echo 0)

# The page_pool tracepoints on net_iovs only (netmem bit 0), in a trace
# instance of their own: a hold is a net_iov the pool took from the dmabuf
# provider, a release one it gave back. Without overflow every release comes
# at unbind, after the last hold; a net_iov the ring had no room for goes
# back to the provider at once (a release) and the pool must take another
# (a later hold).
TRACE=/sys/kernel/tracing
POOL_TRACE=$TRACE/instances/refnic_devmem_pool
pool_trace_start() {
	local e
	[ -d "$TRACE/instances" ] || mount -t tracefs nodev "$TRACE" 2>/dev/null
	mkdir "$POOL_TRACE" || return 1
	NET_CLEANUP+=("rmdir $POOL_TRACE")
	echo 8192 > "$POOL_TRACE/buffer_size_kb"
	for e in page_pool_state_hold page_pool_state_release; do
		echo 'netmem & 1' > "$POOL_TRACE/events/page_pool/$e/filter" &&
			echo 1 > "$POOL_TRACE/events/page_pool/$e/enable" || return 1
	done
}
pool_trace_stop() {
	echo 0 > "$POOL_TRACE/events/page_pool/enable"
	cat "$POOL_TRACE/trace" > "$NET_TMP/pool.trace"
	echo 0 > "$POOL_TRACE/events/page_pool/page_pool_state_hold/filter"
	echo 0 > "$POOL_TRACE/events/page_pool/page_pool_state_release/filter"
}

batched() { pool_trace_start && devmem_start batched && devmem_send batched; }
ktap_test_result "$MIB MiB into the dmabuf, validated, SO_DEVMEM_DONTNEED batched" batched
pool_trace_stop

pool_deep_enough() {
	local rx_ring pool_ring counts holds early lost
	rx_ring=$(ip netns exec "$NS_B" ethtool -g "$DEV_B" |
		awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
	pool_ring=$((4 * rx_ring))
	# holds, releases before the last hold, releases in all
	counts=$(awk '/page_pool_state_hold:/ { h++; early = r }
		/page_pool_state_release:/ { r++ }
		END { print h + 0, early + 0, r + 0 }' "$NET_TMP/pool.trace")
	read -r holds early lost <<<"$counts"
	grep -q "LOST.*EVENTS" "$NET_TMP/pool.trace" &&
		{ net_msg "the trace buffer overflowed"; return 1; }
	net_msg "bound pool: $holds net_iovs taken from the dmabuf for $MIB MiB ($((MIB << 8)) buffers of 4 KiB), $early given back before the last was taken, $lost in all; RX ring $rx_ring, pool ring $pool_ring (4x)"
	[ "$holds" -gt 0 ] && [ "$early" -eq 0 ] && [ "$lost" -eq "$holds" ]
}
ktap_test_result "bound page_pool never overflowed into the dmabuf provider's slow path" \
	pool_deep_enough
batch=$(jget "$NET_TMP/dm-batched.out" "d['dontneed_calls']" 2>/dev/null || echo 0)
batch_all=$(jget "$NET_TMP/dm-batched.out" "d['syscalls']" 2>/dev/null || echo 0)

fewer() {
	net_msg "SO_DEVMEM_DONTNEED calls: per-frag $per_frag, batched $batch; all syscalls: per-frag $per_frag_all, batched $batch_all"
	[ "$batch" -gt 0 ] && [ $((per_frag / batch)) -ge 8 ]
}
ktap_test_result "batched release makes >= 8x fewer SO_DEVMEM_DONTNEED calls than per-frag" fewer

# A dmabuf of 1024 buffers, fewer than the RX ring (512) and a full batch
# (1024 tokens) hold together: the receiver must hand its tokens back when
# no data comes (10 ms), or the queue runs dry and the stream stalls.
small() { devmem_start batched small 4 && devmem_send small 16; }
ktap_test_result "a 4 MiB dmabuf takes a 16 MiB stream, batched (tokens handed back when data pauses)" small

# A dmabuf of 256 buffers, half the RX ring (512): the ring is never full,
# and a refill finds the provider dry until the receiver hands tokens back.
# It is not refused: the driver is not told a binding's size (neither is a
# hardware driver's). The queue runs on what it has and counts each refill
# that found nothing (rxN_alloc_fail); nothing stalls (the health check at
# the end).
tiny() {
	local af0 af1
	af0=$(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_alloc_fail") || return 1
	devmem_start batched tiny 1 && devmem_send tiny 8 || return 1
	af1=$(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_alloc_fail") || return 1
	net_msg "rx${QUEUE}_alloc_fail: $af0 -> $af1"
	[ "$af1" -gt "$af0" ]
}
ktap_test_result "a 1 MiB dmabuf, half the RX ring, takes an 8 MiB stream; refills that found nothing counted" tiny

# Unbinding while the process holds data: refnic-devmem closes the
# binding's netlink socket once 2 MiB arrived, holding the frags of that
# recvmsg and its batched tokens. The core restarts queue 2 without the
# dmabuf (frames in flight there are dropped, and TCP resends them); the
# held frags stay readable and are handed back after the unbind, and the
# rest of the stream arrives as plain data. All of it validated; then no
# destroyed page pool is left holding pages.
unbind_held() {
	local bytes=$((8 << 20))
	devmem_start batched unbind 8 --unbind-after 2 || return 1
	net_devmem_send "$NS_A" "$V4_B" "$PORT" "$bytes" || { net_msg "sender failed"; return 1; }
	net_bg_wait dm-unbind $((300 * NET_SCALE)) || { net_bg_show dm-unbind; return 1; }
	net_msg "unbind: $(cat "$NET_TMP/dm-unbind.out")"
	[ "$(jget "$NET_TMP/dm-unbind.out" "(d['bytes'] == $bytes and d['validate'] == 7 and
		d['unbound_at'] >= 2 << 20 and d['held_at_unbind'] > 0 and
		d['devmem_bytes'] >= 2 << 20 and d['plain_bytes'] > 0 and
		d['frags_freed'] == d['frags'])")" = True ] || return 1
	net_flush_deferred "$NS_B"
	net_tool "$NS_B" pp-wait --ifindex "$(net_ifindex "$NS_B" "$DEV_B")" --queues 4 \
		--timeout $((20 * NET_SCALE)) >/dev/null
}
ktap_test_result "unbound after 2 MiB holding frags: they stay valid, the rest arrives plain, all validated" unbind_held

other_ok() {
	net_tcp_wait other 600 && [ "$NET_TCP_SHA" = "$(net_sha "$BG_BYTES" 9)" ]
}
ktap_test_result "a flow on the other queues ran through bind and unbind intact" other_ok

# The skb:kfree_skb tracepoint in a trace instance of its own while a
# stream goes to the bound queue with rx-checksumming off: the handshake
# (headers only, readable) gets through, every segment with payload is
# dropped (and retransmitted, and dropped again) until the receiver is
# killed.
DROP_TRACE=$TRACE/instances/refnic_devmem_drop
csum_drop() {
	local d0 drops hits=0 i
	[ -d "$TRACE/instances" ] || mount -t tracefs nodev "$TRACE" 2>/dev/null
	mkdir "$DROP_TRACE" || return 1
	NET_CLEANUP+=("rmdir $DROP_TRACE" "echo 0 > $DROP_TRACE/events/skb/kfree_skb/enable")
	echo 1 > "$DROP_TRACE/events/skb/kfree_skb/enable" || return 1
	etB -K "$DEV_B" rx off || return 1
	d0=$(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_drops")
	if devmem_start batched; then
		ip netns exec "$NS_A" timeout $((10 * NET_SCALE)) \
			sh -c "head -c 65536 /dev/zero | socat -u - TCP4:$V4_B:$PORT"
		for ((i = 0; i < 20 * NET_SCALE; i++)); do
			hits=$(grep -cE 'kfree_skb:.* location=refnic_[^ ]+.* reason: SKB_CSUM' "$DROP_TRACE/trace")
			[ "$hits" -gt 0 ] && break
			sleep 0.5
		done
	fi
	net_bg_kill dm-batched
	echo 0 > "$DROP_TRACE/events/skb/kfree_skb/enable"
	etB -K "$DEV_B" rx on || return 1
	drops=$(($(net_estat "$NS_B" "$DEV_B" "rx${QUEUE}_drops") - d0))
	net_msg "rx-checksumming off: $drops frames dropped on queue $QUEUE, $hits kfree_skb events at refnic with reason SKB_CSUM"
	grep -E 'kfree_skb:.* location=refnic_' "$DROP_TRACE/trace" | head -n 2 | sed 's/^/# /'
	[ "$hits" -gt 0 ] && [ "$drops" -ge "$hits" ]
}
ktap_test_result "rx-checksumming off: an unreadable frame is dropped with reason SKB_CSUM (skb:kfree_skb)" \
	csum_drop

unbound() {
	etB -G "$DEV_B" rx 1024 && etB -G "$DEV_B" tcp-data-split off && etB -G "$DEV_B" rx 512
}
ktap_test_result "unbound: RX ring resize and header split off accepted" unbound
net_health_test
ktap_finished
