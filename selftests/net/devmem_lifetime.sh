#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A dmabuf bound to a port outlives the pair: `refnic-devmem rx` holds a
# udmabuf bound to B's queue 2, the pair is deleted under it, and only then
# does the receiver end, closing the netlink socket that holds the binding.
# The core unmaps the dmabuf against the port's DMA device at that moment,
# after refnic's card is gone; the device must still be there (refnic keeps
# a port's device for good once a dmabuf was mapped against it). Checked:
# the deletion and the receiver's end both work, the kernel logs nothing
# (the harness fails the test on a WARN, and the debug kernel's KASAN
# reports a use-after-free if the device went with the card), and a new
# pair then carries a devmem stream.
set -u
. "$(dirname "$0")/lib_net.sh"

TOOL=${REFNIC_DEVMEM:-${REFNIC_BUILD:-$REFNIC_REPO/build}/cmake/tools/refnic-devmem/refnic-devmem}
MIB=8
QUEUE=2
PORT=5201

ktap_print_header
[ -x "$TOOL" ] || { ktap_set_plan 0; ktap_exit_fail_msg "no $TOOL (make lib)"; }
[ -e /dev/udmabuf ] || net_skip_all "no /dev/udmabuf (CONFIG_UDMABUF)"
command -v socat >/dev/null || net_skip_all "needs socat"
net_init
ktap_set_plan 3
net_ns_setup
NET_CLEANUP+=("pkill -f '^$TOOL '")

etB() { ip netns exec "$NS_B" ethtool "$@"; }
pair() {
	net_pair_add queues 4
	net_quiet_v6
	net_static_neigh
	etB -X "$DEV_B" equal 2 && etB -G "$DEV_B" tcp-data-split on &&
		etB -N "$DEV_B" flow-type tcp4 dst-port $PORT action $QUEUE >/dev/null
}

# rx_start NAME: the receiver in B, bound and listening.
rx_start() {
	net_bg "$1" net_ns "$NS_B" "$TOOL" rx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--udmabuf-size $MIB -v 7 -j
	net_bg_wait_text "$1" listening
}

deleted_under_binding() {
	pair || return 1
	rx_start held || return 1
	ip -n "$NS_A" link del "$DEV_A" || return 1
	# The receiver still holds the binding; ending it unbinds now.
	net_bg_kill held
	! ip -n "$NS_B" link show "$DEV_B" >/dev/null 2>&1
}
ktap_test_result "pair deleted while a dmabuf is bound, then the binding closed" deleted_under_binding

ktap_test_result "a new pair comes up" pair

stream() {
	local bytes=$((4 << 20))
	rx_start again || return 1
	net_devmem_send "$NS_A" "$V4_B" "$PORT" "$bytes" || return 1
	net_bg_wait again $((120 * NET_SCALE)) || { net_bg_show again; return 1; }
	[ "$(jget "$NET_TMP/again.out" "d['devmem_bytes'] == $bytes")" = True ]
}
ktap_test_result "it carries a validated devmem stream" stream
