#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What a zero-copy receive queue refuses, and that the queue still works
# after each refusal. B has 4 queue pairs, header split on, RSS on queues
# 0-1 and the test's flow steered to queue 2; refnic-devmem binds a udmabuf
# there (devmem TCP) or, on 7.3, registers an io_uring zcrx area (zcrx).
# Each refusal must come with its errno and a reason (the core's extack, the
# tool's message or refnic's log line):
#   - a queue out of range (B has 4): bind-rx and zcrx;
#   - header split off: bind-rx (7.3's core: EINVAL and its extack; 6.12:
#     refnic, EOPNOTSUPP and a log line) and zcrx (EINVAL);
#   - an XDP program attached (generic XDP, the core's check): bind-rx, zcrx;
#   - a bypass session holding the queue: bind-rx and zcrx (refnic: the
#     queue is not the stack's to rebuild), and a bypass session asked for a
#     queue that has a memory provider;
#   - a queue that already has one: a second bind-rx, zcrx over a dmabuf
#     binding, bind-rx over a zcrx area;
#   - hds-thresh above 0 (refnic splits every frame's headers: fixed 0), 7.3;
#   - zcrx refill entries out of the area or duplicated (skipped), 7.3.
# After them, a validated devmem stream (and on 7.3 a zcrx one) still lands
# on the queue, and no page_pool holds pages once the receivers are gone.
# A queue pair back from a bypass session has its page_pools linked to its
# NAPI again (they were unlinked when it stopped).
set -u
. "$(dirname "$0")/lib_net.sh"

TOOL=${REFNIC_DEVMEM:-${REFNIC_BUILD:-$REFNIC_REPO/build}/cmake/tools/refnic-devmem/refnic-devmem}
BYPASS=${REFNIC_BUILD:-$REFNIC_REPO/build}/cmake/tools/refnic-bypass/refnic-bypass
MIB=8
QUEUE=2
PORT=5201
# xdp_dummy.bpf.o (XDP_PASS) from Linux 7.3's selftests, built by make
# kernel-selftests KERNEL=7.3; the program is the same for both kernels. Its
# xdp.frags program: 7.3 refuses a program without frags on a device that
# splits headers.
XDP_OBJ=${REFNIC_BUILD:-$REFNIC_REPO/build}/upstream-7.3/kselftest/net/lib/xdp_dummy.bpf.o

ktap_print_header
[ -x "$TOOL" ] || { ktap_set_plan 0; ktap_exit_fail_msg "no $TOOL (make lib)"; }
[ -x "$BYPASS" ] || { ktap_set_plan 0; ktap_exit_fail_msg "no $BYPASS (make lib)"; }
command -v socat >/dev/null || net_skip_all "needs socat"
[ -e /dev/udmabuf ] || modprobe udmabuf 2>/dev/null
[ -e /dev/udmabuf ] || net_skip_all "no /dev/udmabuf (CONFIG_UDMABUF)"
ZCRX=1
[ "$REFNIC_SERIES" != 6.12 ] || ZCRX=0
net_init
ktap_set_plan 11
net_setup queues 4
net_quiet_v6
net_static_neigh
NET_CLEANUP+=("pkill -f '^$TOOL '" "pkill -f '^$BYPASS '")

etB() { ip netns exec "$NS_B" ethtool "$@"; }
KMSG_START=$(dmesg | wc -l)
kmsg_new() { dmesg | tail -n +$((KMSG_START + 1)); }
IFINDEX_B=$(net_ifindex "$NS_B" "$DEV_B")

# refused WHAT ERRNO_TEXT REASON CMD...: CMD fails, its output says
# ERRNO_TEXT and REASON (grep -E), or REASON is in the kernel log since the
# test started (a driver's refusal has no extack on this path).
refused() {
	local what=$1 errno=$2 why=$3 out
	shift 3
	if out=$("$@" 2>&1); then
		net_msg "$what: accepted"
		return 1
	fi
	net_msg "$what: $(tr '\n' ' ' <<<"$out" | cut -c1-400)"
	grep -qE "$errno" <<<"$out" || { net_msg "$what: no '$errno'"; return 1; }
	grep -qE "$why" <<<"$out" && return 0
	kmsg_new | grep -qE "$why" && return 0
	net_msg "$what: no '$why' in its output or the kernel log"
	return 1
}

devmem_try() { # devmem_try QUEUE: bind-rx on QUEUE, no traffic expected
	ip netns exec "$NS_B" timeout $((30 * NET_SCALE)) "$TOOL" rx -f "$DEV_B" \
		-t "$1" -p $((PORT + 1)) -s "$V4_B" --udmabuf-size "$MIB"
}
zcrx_try() { # zcrx_try QUEUE
	ip netns exec "$NS_B" timeout $((30 * NET_SCALE)) "$TOOL" zcrx -f "$DEV_B" \
		-t "$1" -p $((PORT + 2)) -s "$V4_B" --area-size "$MIB"
}
bypass_try() { # bypass_try QUEUE
	ip netns exec "$NS_B" timeout $((30 * NET_SCALE)) "$BYPASS" rx -i "$DEV_B" \
		-q "$1" --count 1 --duration 1
}

setup() {
	etB -X "$DEV_B" equal 2 && etB -G "$DEV_B" tcp-data-split on &&
		etB -K "$DEV_B" rx-gro-hw off &&
		etB -N "$DEV_B" flow-type tcp4 dst-port $PORT action $QUEUE >/dev/null
}
ktap_test_result "RSS on queues 0-1, header split on, port $PORT steered to queue $QUEUE" setup

out_of_range() {
	local rc=0
	refused "bind-rx on queue 4" "out of range|Numerical result|Invalid argument" \
		"out of range|queue" devmem_try 4 || rc=1
	if [ "$ZCRX" = 1 ]; then
		refused "zcrx on queue 4" "out of range|Numerical result|Invalid argument" \
			"out of range|queue" zcrx_try 4 || rc=1
	fi
	return $rc
}
ktap_test_result "a queue out of range (4 of 4): bind-rx$([ "$ZCRX" = 1 ] && echo " and zcrx") refused" out_of_range

# Header split off: 7.3's core refuses bind-rx itself (EINVAL, its
# extack); 6.12's binds, and refnic refuses the queue restart, logging why.
# zcrx gets the core's EINVAL without a message (io_uring passes it no
# extack): the reason is the tool's hint.
hds_off() {
	local rc=0 errno why
	etB -G "$DEV_B" tcp-data-split off || return 1
	case $REFNIC_SERIES in
	6.12) errno="Operation not supported" why="a dmabuf needs header split" ;;
	*) errno="Invalid argument" why="tcp-data-split is disabled" ;;
	esac
	refused "bind-rx with header split off" "$errno" "$why" devmem_try $QUEUE || rc=1
	if [ "$ZCRX" = 1 ]; then
		refused "zcrx with header split off" "Invalid argument" "needs header split on" \
			zcrx_try $QUEUE || rc=1
	fi
	etB -G "$DEV_B" tcp-data-split on || rc=1
	return $rc
}
ktap_test_result "header split off: bind-rx$([ "$ZCRX" = 1 ] && echo " and zcrx") refused, each kernel's way" hds_off

with_xdp() {
	local rc=0
	ip -n "$NS_B" link set dev "$DEV_B" xdpgeneric obj "$XDP_OBJ" sec xdp.frags || return 1
	refused "bind-rx under XDP" "File exists|Busy|Invalid|not supported" "XDP" \
		devmem_try $QUEUE || rc=1
	if [ "$ZCRX" = 1 ]; then
		refused "zcrx under XDP" "File exists|Busy|Invalid|not supported" "XDP" \
			zcrx_try $QUEUE || rc=1
	fi
	ip -n "$NS_B" link set dev "$DEV_B" xdpgeneric off || rc=1
	return $rc
}
if [ -f "$XDP_OBJ" ]; then
	ktap_test_result "an XDP program attached (generic): bind-rx$([ "$ZCRX" = 1 ] && echo " and zcrx") refused" with_xdp
else
	ktap_test_skip "an XDP program attached: no $XDP_OBJ (make kernel-selftests KERNEL=7.3)"
fi

# pools_ok: every RX queue of B has its pools, on its NAPI, and no
# destroyed pool holds pages (nettool.py pp-wait; 6.12's page-pool-get
# keeps the NAPI id a pool was created with, so the driver's own flag in
# its debugfs "rings" is read too).
PDEV_B=$(basename "$(ip netns exec "$NS_B" readlink -f "/sys/class/net/$DEV_B/device")")
pools_ok() {
	local unlinked
	net_flush_deferred "$NS_B"
	net_tool "$NS_B" pp-wait --ifindex "$IFINDEX_B" --queues 4 \
		--timeout $((20 * NET_SCALE)) >/dev/null || return 1
	unlinked=$(grep -E '^rxq[0-9]+ .* pp_napi 0$' "/sys/kernel/debug/refnic/drv-$PDEV_B/rings")
	[ -z "$unlinked" ] || { net_msg "pools not on their NAPI: $unlinked"; return 1; }
}

# The bypass session takes UDP on queue 3 (port 7000): a rule of its own.
BP_QUEUE=3
with_bypass() {
	local rc=0 rule
	rule=$(etB -N "$DEV_B" flow-type udp4 dst-port 7000 action $BP_QUEUE |
		awk '/Added rule with ID/ { print $NF }')
	net_bg bp net_ns "$NS_B" "$BYPASS" rx -i "$DEV_B" -q $BP_QUEUE \
		--count 1000000 --duration $((120 * NET_SCALE))
	net_bg_wait_text bp "rx on $DEV_B queue $BP_QUEUE" || { net_bg_show bp; return 1; }
	refused "bind-rx on the bypass queue" "Device or resource busy" \
		"held by a bypass session" devmem_try $BP_QUEUE || rc=1
	if [ "$ZCRX" = 1 ]; then
		refused "zcrx on the bypass queue" "Device or resource busy|busy" \
			"held by a bypass session" zcrx_try $BP_QUEUE || rc=1
	fi
	net_bg_kill bp
	[ -z "$rule" ] || etB -N "$DEV_B" delete "$rule" || rc=1
	# The queue pair is the stack's again, its page_pools linked to its
	# NAPI as before the session (page-pool-get's napi-id).
	pools_ok || rc=1
	return $rc
}
ktap_test_result "a bypass session on the queue: bind-rx$([ "$ZCRX" = 1 ] && echo " and zcrx") refused (EBUSY, logged)" with_bypass

# dm_start NAME: a devmem receiver on QUEUE (background job NAME), listening.
dm_start() {
	rm -f "$NET_TMP/$1.out" "$NET_TMP/$1.err"
	net_bg "$1" net_ns "$NS_B" "$TOOL" rx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--udmabuf-size "$MIB" -v 7 -j
	net_bg_wait_text "$1" listening
}
# zc_start NAME [ARG...]: a zcrx receiver on QUEUE (background job NAME)
# with ARGs (default: -v 7), listening.
zc_start() {
	local name=$1
	shift
	[ $# -gt 0 ] || set -- -v 7
	rm -f "$NET_TMP/$name.out" "$NET_TMP/$name.err"
	net_bg "$name" net_ns "$NS_B" "$TOOL" zcrx -f "$DEV_B" -t $QUEUE -p $PORT -s "$V4_B" \
		--area-size "$MIB" -j "$@"
	net_bg_wait_text "$name" listening
}
# zcrx_case DESC FN: a case of 7.3's (io_uring zcrx), skipped on 6.12
zcrx_case() {
	if [ "$ZCRX" = 1 ]; then
		ktap_test_result "$1" "$2"
	else
		ktap_test_skip "$1: io_uring zcrx is Linux 7.3's"
	fi
}
# stream NAME FIELD: the validated stream into receiver NAME, all of it
# zero copy (its JSON's FIELD: devmem_bytes, or bytes for zcrx).
stream() {
	local bytes=$((MIB << 20))
	net_devmem_send "$NS_A" "$V4_B" "$PORT" "$bytes" || { net_msg "sender failed"; return 1; }
	net_bg_wait "$1" $((300 * NET_SCALE)) || { net_bg_show "$1"; return 1; }
	net_msg "$1: $(cat "$NET_TMP/$1.out")"
	[ "$(jget "$NET_TMP/$1.out" "d['$2'] == $bytes and d['validate'] == 7")" = True ]
}

bound_twice() {
	local rc=0
	dm_start dm || { net_bg_show dm; return 1; }
	refused "a second bind-rx" "Device or resource busy|File exists|Invalid" \
		"bound|memory provider|busy|in use" devmem_try $QUEUE || rc=1
	if [ "$ZCRX" = 1 ]; then
		refused "zcrx over the dmabuf" "Device or resource busy|File exists|Invalid" \
			"bound|memory provider|busy|in use" zcrx_try $QUEUE || rc=1
	fi
	refused "a bypass session on the bound queue" "Device or resource busy|busy" \
		"a dmabuf is bound to the queue" bypass_try $QUEUE || rc=1
	stream dm devmem_bytes || rc=1
	return $rc
}
ktap_test_result "a dmabuf bound: a second bind-rx$([ "$ZCRX" = 1 ] && echo ", zcrx") and a bypass session refused; then the stream lands, validated" bound_twice

zcrx_bound() {
	local rc=0
	zc_start zc || { net_bg_show zc; return 1; }
	refused "bind-rx over the zcrx area" "Device or resource busy|File exists|Invalid" \
		"bound|memory provider|busy|in use" devmem_try $QUEUE || rc=1
	stream zc bytes || rc=1
	return $rc
}
zcrx_case "a zcrx area registered: bind-rx refused; then the stream lands, validated" zcrx_bound

# The refill ring fed garbage (refnic-devmem --refill-garbage): after each
# batch handed back, an offset just past the area, one far beyond it and a
# duplicate. io_uring skips them; the stream arrives whole (not validated:
# a duplicate may return a buffer the process still reads), and the next
# receiver gets a validated stream.
zcrx_garbage() {
	local rc=0 bytes=$((MIB << 20))
	zc_start zg --refill-garbage || { net_bg_show zg; return 1; }
	net_devmem_send "$NS_A" "$V4_B" "$PORT" "$bytes" || { net_msg "sender failed"; return 1; }
	net_bg_wait zg $((300 * NET_SCALE)) || { net_bg_show zg; return 1; }
	net_msg "zg: $(cat "$NET_TMP/zg.out")"
	[ "$(jget "$NET_TMP/zg.out" "d['bytes'] == $bytes and d['refill_garbage'] > 0")" = True ] || rc=1
	zc_start zc2 || { net_bg_show zc2; return 1; }
	stream zc2 bytes || rc=1
	return $rc
}
zcrx_case "the refill ring fed garbage (out of the area, duplicates): skipped, the stream whole; the next one validated" zcrx_garbage

# Debian 12's ethtool 6.1 has no hds-thresh: the one make deps builds.
ETHTOOL_NEW=${REFNIC_BUILD:-$REFNIC_REPO/build}/tools/bin/ethtool
hds_thresh() {
	refused "ethtool -G hds-thresh 256" "Invalid argument" "exceeds maximum" \
		ip netns exec "$NS_B" "$ETHTOOL_NEW" -G "$DEV_B" hds-thresh 256
}
if [ "$ZCRX" = 1 ] && [ ! -x "$ETHTOOL_NEW" ]; then
	ktap_test_skip "hds-thresh: no $ETHTOOL_NEW (make deps)"
elif [ "$ZCRX" = 1 ]; then
	ktap_test_result "hds-thresh 256 refused: EINVAL, exceeds the maximum (refnic's is 0, fixed)" hds_thresh
else
	ktap_test_skip "hds-thresh: ethtool's ETHTOOL_A_RINGS_HDS_THRESH is Linux 6.13's"
fi

still_works() {
	dm_start dm2 || { net_bg_show dm2; return 1; }
	stream dm2 devmem_bytes
}
ktap_test_result "after every refusal: a validated devmem stream on queue $QUEUE" still_works

ktap_test_result "no memory provider left, every queue's page_pools on its NAPI, none destroyed holding pages" pools_ok

ktap_finished
