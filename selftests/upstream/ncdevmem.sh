#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# devmem TCP acceptance: the upstream ncdevmem (built from Debian's
# linux-source-6.12 by scripts/upstream-selftests.sh) over a refnic pair in
# two namespaces. As server in B it first runs its built-in bind tests
# (binding no queue fails, binding with tcp-data-split off fails, binding
# with it on succeeds, deactivating the bound queue fails), then sets RSS to
# queues 0-1, steers its flow (ethtool -N ... queue 2), binds a 64 MB udmabuf
# to RX queue 2 and receives a stream from A, validating every byte of every
# dmabuf frag (-v 7: the byte cycle 1..6,0). Then checked on B's counters:
# the payload went into the dmabuf on queue 2 (rx2_devmem_bytes) and no
# unsplit frame reached the bound queue. ncdevmem runs "sudo ethtool": the
# harness's PATH has the sudo shim and refnic-ethtool, which can set
# tcp-data-split where Debian's ethtool 6.1 cannot.
#
# Env: REFNIC_DEVMEM_MIB (default 256) sets the stream's size.
set -u
. "$(dirname "$0")/../net/lib_net.sh"

MIB=${REFNIC_DEVMEM_MIB:-256}
BYTES=$((MIB << 20))
BIN=${UPSTREAM_NCDEVMEM:-${REFNIC_BUILD:-$REFNIC_REPO/build}/upstream/ncdevmem}
QUEUE=2
PORT=5201

ktap_print_header
[ -x "$BIN" ] || { ktap_set_plan 0; ktap_exit_fail_msg "no $BIN (scripts/upstream-selftests.sh)"; }
[ -e /dev/udmabuf ] || net_skip_all "no /dev/udmabuf (CONFIG_UDMABUF)"
command -v socat >/dev/null || net_skip_all "needs socat"
net_init
ktap_set_plan 6
net_setup queues 4
net_quiet_v6
net_static_neigh
PATH=$REFNIC_REPO/scripts:$PATH
# ncdevmem sits at the end of a pipe: make sure it goes (and unbinds).
NET_CLEANUP+=("pkill -f '^$BIN '")

sumB() { net_estat "$NS_B" "$DEV_B" "$1"; }

d0=$(sumB rx${QUEUE}_devmem_bytes)
u0=$(net_equeue_sum "$NS_B" "$DEV_B" rx devmem_unsplit)

# The server: per-frag chatter filtered out, the rest kept.
net_bg server net_ns "$NS_B" sh -c \
	"'$BIN' -l -f '$DEV_B' -s '$V4_B' -c '$V4_A' -p $PORT -t $QUEUE -q 1 -v 7 2>&1 >/dev/null |
	 grep --line-buffered -v -e '^received frag' -e '^recvmsg ret' -e '^total_received' -e '^Validated'"
listening() { grep -q 'Waiting or connection' "$NET_TMP/server.out"; }
for ((i = 0; i < 120 * NET_SCALE; i++)); do
	listening || ! net_bg_running server || sleep 0.5
	listening && break
done
if ! listening; then
	net_bg_show server
	net_msg "ncdevmem did not get to listening"
fi
ktap_test_result "ncdevmem's bind tests pass and it binds queue $QUEUE" listening

send() {
	# The flow ncdevmem steered: source port $PORT too.
	net_devmem_send "$NS_A" "$V4_B" "$PORT" "$BYTES" ",sourceport=$PORT,reuseaddr"
}
rc_send=0 rc_srv=0
if listening; then
	send || rc_send=$?
	net_bg_wait server $((600 * NET_SCALE)) || rc_srv=$?
else
	pkill -f "^$BIN " || true
	net_bg_kill server
	rc_srv=1
fi
sed 's/^/# server: /' "$NET_TMP/server.out" | tail -n 30
received() {
	[ "$rc_send" = 0 ] && [ "$rc_srv" = 0 ] && grep -q 'client exited' "$NET_TMP/server.out" &&
		! grep -q 'Failed validation\|flow steering error\|FAIL' "$NET_TMP/server.out"
}
ktap_test_result "$MIB MiB received into the dmabuf, every byte validated (-v 7)" received

d1=$(sumB rx${QUEUE}_devmem_bytes)
net_msg "rx${QUEUE}_devmem_bytes moved by $((d1 - d0))"
ktap_test_result "the payload went into the dmabuf on queue $QUEUE" [ $((d1 - d0)) -ge "$BYTES" ]
ktap_test_result "no unsplit frame reached the bound queue" \
	[ "$(net_equeue_sum "$NS_B" "$DEV_B" rx devmem_unsplit)" = "$u0" ]

after() { # queue 2, unbound, takes a normal TCP flow again
	local p0 out want
	ip netns exec "$NS_B" ethtool -N "$DEV_B" flow-type tcp4 dst-port $((PORT + 1)) \
		action $QUEUE >/dev/null || return 1
	p0=$(sumB rx${QUEUE}_packets) d0=$(sumB rx${QUEUE}_devmem_bytes)
	net_tcp_start after "$NS_A" "$NS_B" "$V4_B" $((8 << 20)) $((PORT + 1)) 3 &&
		net_tcp_wait after 300 || return 1
	net_msg "after: rx${QUEUE}_packets +$(($(sumB rx${QUEUE}_packets) - p0))"
	[ $(($(sumB rx${QUEUE}_packets) - p0)) -gt 1000 ] &&
		[ "$(sumB rx${QUEUE}_devmem_bytes)" = "$d0" ]
}
ktap_test_result "after unbinding, queue $QUEUE carries normal TCP intact" after
net_health_test
ktap_finished
