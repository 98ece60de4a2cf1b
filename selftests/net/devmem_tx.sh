#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# devmem TX (Linux 7.x) through `refnic-devmem tx` (librefnic's
# devmem::Sender), over a refnic pair in two namespaces: A sends from a
# udmabuf bound to its port for TX, the NIC reading the payload out of the
# dmabuf; B receives into a udmabuf bound to its queue 2 (`refnic-devmem
# rx`, header split on, the flow steered there), so neither CPU touches a
# payload byte. Checked:
#   - a port plugged in without module parameter devmem_tx offers no netmem
#     TX: bind-tx is refused with the core's reason, and the tool names the
#     parameter;
#   - with devmem_tx=1, 16 MiB (8 on the debug kernel) arrive validated in
#     B's dmabuf, every sendmsg is reported complete and none copied, and
#     A's txN_devmem_bytes grow by at least the stream (the payload went to
#     the device as net_iovs, not through the skb's pages);
#   - the refnic_tx_devmem tracepoint adds up to what txN_devmem_bytes
#     count over that stream;
#   - the same cut into 3000-byte iovecs (ncdevmem -z 3000, upstream's
#     check_tx_chunks): frags that start and end mid-page arrive intact;
#   - with the link model dropping 1 % of A's frames, the retransmissions
#     (clones of frames whose payload is the dmabuf's) fill the gaps: the
#     stream arrives validated and A's devmem bytes exceed it;
#   - A's queue pairs restarted mid-stream (debugfs reset_queue all, as a
#     TX timeout does; queue_resets counts it): frames on the ring are
#     dropped and resent, the stream arrives validated and every send
#     completes.
#   - the sender killed (SIGKILL) mid-stream while A's link, slowed to 50
#     Mbit/s, keeps frames on its TX rings: the rings empty, and a new
#     sender's stream arrives validated.
# On 6.12 everything is skipped: its netdev family has no bind-tx.
set -u
. "$(dirname "$0")/lib_net.sh"

TOOL=${REFNIC_DEVMEM:-${REFNIC_BUILD:-$REFNIC_REPO/build}/cmake/tools/refnic-devmem/refnic-devmem}
MIB=16
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && MIB=8
QUEUE=2
PORT=5201
PARAM=/sys/module/refnic/parameters/devmem_tx

ktap_print_header
[ "$REFNIC_SERIES" != 6.12 ] || net_skip_all "devmem TX is Linux 6.16's and later (6.12's netdev family has no bind-tx)"
[ -x "$TOOL" ] || { ktap_set_plan 0; ktap_exit_fail_msg "no $TOOL (make lib)"; }
[ -e /dev/udmabuf ] || net_skip_all "no /dev/udmabuf (CONFIG_UDMABUF)"
net_init
[ -w "$PARAM" ] || net_bail "no $PARAM: is this refnic built for 7.x?"
ktap_set_plan 8
PARAM_WAS=$(cat "$PARAM")
NET_CLEANUP+=("echo $PARAM_WAS >$PARAM" "pkill -f '^$TOOL '")

etB() { ip netns exec "$NS_B" ethtool "$@"; }
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl

# tx_run NAME ARGS...: refnic-devmem tx from A to B, JSON in $NET_TMP/NAME.out.
tx_run() {
	local name=$1
	shift
	ip netns exec "$NS_A" "$TOOL" tx -f "$DEV_A" -s "$V4_B" -p $PORT -j "$@" \
		>"$NET_TMP/$name.out" 2>"$NET_TMP/$name.err"
}

# The default: the pair's ports offer no netmem TX.
refused() {
	local rc
	tx_run refused --bytes 4096
	rc=$?
	net_bg_show refused
	[ "$rc" = 1 ] && grep -q "Driver does not support netmem TX" "$NET_TMP/refused.err" &&
		grep -q "devmem_tx=1" "$NET_TMP/refused.err"
}
echo 0 >"$PARAM"
net_ns_setup
net_pair_add queues 4
ktap_test_result "without devmem_tx: bind-tx refused, with the core's reason and the parameter" refused

# A pair plugged in with devmem_tx=1.
ip -n "$NS_A" link del "$DEV_A"
echo 1 >"$PARAM"
net_pair_add queues 4
net_quiet_v6
net_static_neigh
setup() {
	etB -X "$DEV_B" equal 2 && etB -G "$DEV_B" tcp-data-split on &&
		etB -N "$DEV_B" flow-type tcp4 dst-port $PORT action $QUEUE >/dev/null
}

# tx_devmem_bytes: A's txN_devmem_bytes, all queues.
tx_devmem_bytes() {
	ip netns exec "$NS_A" ethtool -S "$DEV_A" |
		awk '/^ *tx[0-9]+_devmem_bytes:/ { n += $2 } END { print n + 0 }'
}

# send NAME BYTES [tx ARGS...]: B's devmem receiver up, A sends BYTES from
# its udmabuf; both ends' JSON checked. $DURING, if set, runs once the
# stream is flowing.
send() {
	local name=$1 bytes=$2 before after
	shift 2
	net_bg "rx-$name" net_ns "$NS_B" "$TOOL" rx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--udmabuf-size "$MIB" -v 7 -j
	net_bg_wait_text "rx-$name" listening || return 1
	before=$(tx_devmem_bytes)
	net_bg "tx-$name" net_ns "$NS_A" "$TOOL" tx -f "$DEV_A" -s "$V4_B" -p $PORT -j \
		--bytes "$bytes" --udmabuf-size "$MIB" "$@"
	if [ -n "${DURING:-}" ]; then
		wait_until 60 flowing "$before" || { net_msg "no devmem bytes left A"; return 1; }
		$DURING || return 1
	fi
	net_bg_wait "tx-$name" $((300 * NET_SCALE)) || { net_bg_show "tx-$name"; return 1; }
	net_bg_wait "rx-$name" $((300 * NET_SCALE)) || { net_bg_show "rx-$name"; return 1; }
	after=$(tx_devmem_bytes)
	net_msg "tx: $(cat "$NET_TMP/tx-$name.out")"
	net_msg "rx: $(cat "$NET_TMP/rx-$name.out")"
	net_msg "A's tx devmem bytes: +$((after - before))"
	[ "$(jget "$NET_TMP/tx-$name.out" "(d['bytes'] == $bytes and d['copied'] == 0 and
		d['completed'] == d['sendmsg_calls'] > 0 and d['validate'] == 7)")" = True ] &&
		[ "$(jget "$NET_TMP/rx-$name.out" "(d['devmem_bytes'] == $bytes and
			d['validate'] == 7)")" = True ] &&
		[ $((after - before)) -ge "$bytes" ]
}

# flowing BEFORE: A's devmem bytes moved past BEFORE.
flowing() { [ "$(tx_devmem_bytes)" -gt "$1" ]; }

ktap_test_result "with devmem_tx=1: B's header split on, port $PORT steered to queue $QUEUE" setup
# refnic_tx_devmem counted through the first stream, against
# txN_devmem_bytes.
TRACED=0
if net_trace_init && net_hist_on refnic_tx_devmem "hist:keys=dev,queue:vals=hitcount,bytes"; then
	TRACED=1
fi
TX_DEVMEM0=$(tx_devmem_bytes)
ktap_test_result "$MIB MiB sent from A's dmabuf into B's, validated, none copied" \
	send whole $((MIB << 20))
traced_devmem() {
	local counted traced
	counted=$(($(tx_devmem_bytes) - TX_DEVMEM0))
	traced=$(net_hist_sum refnic_tx_devmem bytes "dev=$DEV_A" "queue=*")
	net_msg "A's txN_devmem_bytes moved $counted, refnic_tx_devmem traced $traced"
	[ "$counted" -ge $((MIB << 20)) ] && [ "$traced" = "$counted" ]
}
if [ "$TRACED" = 1 ]; then
	ktap_test_result "refnic_tx_devmem: the bytes A's txN_devmem_bytes count" traced_devmem
else
	ktap_test_skip "refnic_tx_devmem: no tracefs instance with hist triggers"
fi
ktap_test_result "4 MiB in 3000-byte iovecs (ncdevmem -z), validated" \
	send chunks $((4 << 20)) -z 3000

lossy() {
	ip netns exec "$NS_A" "$CTL" link set "$DEV_A" loss 1% || return 1
	send lossy $((8 << 20))
	local rc=$?
	ip netns exec "$NS_A" "$CTL" link set "$DEV_A" loss 0 || return 1
	return "$rc"
}
NET_CLEANUP+=("ip netns exec $NS_A $CTL link set $DEV_A loss 0")
ktap_test_result "8 MiB with 1% of A's frames lost, retransmitted from the dmabuf, validated" lossy

pdev=$(basename "$(ip netns exec "$NS_A" readlink -f "/sys/class/net/$DEV_A/device")")

# The sender killed (SIGKILL) while A's link, held to 50 Mbit/s by the
# link model, keeps its frames queued on the TX rings: the process's dmabuf
# binding goes with it while the device still reads payload from it. The
# frames complete (every TX ring empties), and a new sender with a new
# binding gets a stream through, validated.
tx_rings_empty() { # A's debugfs rings: every TX queue's tail at its head
	awk '$1 ~ /^txq/ { for (i = 2; i < NF; i++) { if ($i == "tail") t = $(i + 1); if ($i == "head") h = $(i + 1) }
		if (t != h) busy = 1 } END { exit busy }' "/sys/kernel/debug/refnic/drv-$pdev/rings"
}
killed() {
	local before
	ip netns exec "$NS_A" "$CTL" link set "$DEV_A" rate 50mbit || return 1
	net_bg rx-killed net_ns "$NS_B" "$TOOL" rx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--udmabuf-size "$MIB" -j
	net_bg_wait_text rx-killed listening || return 1
	before=$(tx_devmem_bytes)
	net_bg tx-killed net_ns "$NS_A" "$TOOL" tx -f "$DEV_A" -s "$V4_B" -p $PORT -j \
		--bytes $((64 << 20)) --udmabuf-size "$MIB"
	wait_until 60 flowing "$before" || { net_msg "no devmem bytes left A"; return 1; }
	tx_rings_empty && net_msg "A's TX rings were empty at the kill (the test proves less)"
	pkill -KILL -f "^$TOOL tx " && pkill -KILL -f "^$TOOL rx "
	net_bg_wait tx-killed 30 >/dev/null
	net_bg_wait rx-killed 30 >/dev/null
	wait_until 60 tx_rings_empty || { net_msg "A's TX rings did not empty"; return 1; }
	ip netns exec "$NS_A" "$CTL" link set "$DEV_A" rate 0 || return 1
	send after-kill $((4 << 20))
}
NET_CLEANUP+=("ip netns exec $NS_A $CTL link set $DEV_A rate 0")
ktap_test_result "the sender killed with frames on A's TX rings: they complete, and a new binding's 4 MiB arrive" killed

reset_all() { echo all >"/sys/kernel/debug/refnic/drv-$pdev/reset_queue"; }
restart() {
	local r0 r1
	r0=$(net_estat "$NS_A" "$DEV_A" queue_resets)
	DURING=reset_all send restart $((16 << 20)) || return 1
	net_wait_estat "$NS_A" "$DEV_A" queue_resets $((r0 + 1))
	r1=$(net_estat "$NS_A" "$DEV_A" queue_resets)
	net_msg "A's queue_resets: $r0 -> $r1"
	[ "$r1" -gt "$r0" ]
}
ktap_test_result "16 MiB across a restart of A's queue pairs, validated, every send complete" restart
