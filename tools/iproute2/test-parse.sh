#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The refnic authors
#
# Tests of link_refnic.so, the iproute2 plugin, that need no refnic driver:
# run "ip link add ... type refnic ..." with the plugin and check the exact
# RTM_NEWLINK request ip sends (recorded by nlcapture.so, an LD_PRELOAD
# shim, and decoded by nldecode.py), the error cases, the help text, the
# "ip -d" printing (fed through "ip monitor file") and the version guard.
# On a kernel without refnic the request fails with "Unknown device type",
# which is fine: what matters is what was sent.  Where the kernel does have
# refnic (the test VM with kmod/refnic.ko loaded), the "live" tests also
# create the pair for real; elsewhere they are reported as SKIP.
#
# Every ip runs in its own network and mount namespace (unshare -n -m)
# with a tmpfs on /run holding a named netns "ns1", so nothing touches the
# host's links or /run/netns.
#
#   tools/iproute2/test-parse.sh        (root; builds into $O first)
#   O=DIR   where link_refnic.so and nlcapture.so are built
#           (default: build/iproute2 in the repo)
#
# Output is KTAP; exit status 0 if every test passed or was skipped, 1 if
# any failed, 4 if the whole run had to be skipped (not root, no tools).

set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
O=${O:-$repo/build/iproute2}
hdr=$repo/uapi/linux/if_refnic.h
decode="$here/nldecode.py"
KSFT_SKIP=4

skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

[ "$(id -u)" = 0 ] || skip_all "needs root (unshare, netns)"
for tool in ip unshare python3 make; do
	command -v "$tool" >/dev/null || skip_all "needs $tool"
done
case $(ip -V) in
*iproute2-6.1.0*) ;;
*) skip_all "the plugin is for iproute2 6.1.0, this is: $(ip -V)" ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Build what we test, plus a copy that claims another iproute2 version.
if ! make -s -C "$here" O="$O" all capture >"$tmp/make.log" 2>&1 ||
	! make -s -C "$here" O="$tmp/old" IPROUTE2_VERSION=0.0.0 all \
		>>"$tmp/make.log" 2>&1; then
	echo "TAP version 13"
	echo "Bail out! build failed:"
	sed 's/^/# /' "$tmp/make.log"
	exit 1
fi

# ---- helpers ----------------------------------------------------------------

# run NAME [--lib DIR] IP-ARGS...: ip in fresh namespaces with the plugin
# from DIR (default $O), recording what it sends.  Leaves NAME.out, .err,
# .rc and .bin (the capture) in $tmp.
run() {
	local name=$1 lib=$O
	shift
	if [ "${1:-}" = --lib ]; then
		lib=$2
		shift 2
	fi
	rm -f "$tmp/$name".*
	IP_LIB_DIR=$lib unshare -n -m -- sh -c '
		mount -t tmpfs tmpfs /run && ip netns add ns1 || exit 99
		cap=$1 preload=$2
		shift 2
		NLCAPTURE_FILE=$cap LD_PRELOAD=$preload exec ip "$@"
	' sh "$tmp/$name.bin" "$O/nlcapture.so" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

# run_sh NAME SCRIPT: like run, for a shell script (the live tests).
run_sh() {
	local name=$1 script=$2
	rm -f "$tmp/$name".*
	IP_LIB_DIR=$O unshare -n -m -- sh -c '
		mount -t tmpfs tmpfs /run && ip netns add ns1 || exit 99
		'"$script" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

rc() { cat "$tmp/$1.rc"; }

# the request ip sent, as a tree; fails on malformed attributes
sent() { python3 "$decode" "$hdr" "$tmp/$1.bin"; }
sent_count() { python3 "$decode" "$hdr" --count "$tmp/$1.bin" 2>/dev/null || echo 0; }

tests=()
ntest=0
nfail=0
diag_file=$tmp/diag

# each test function writes diagnostics to $diag_file and returns
# 0 pass, 1 fail, or 4 skip (reason in $skip_reason)
report() {
	local name=$1 status=$2
	ntest=$((ntest + 1))
	case $status in
	0) echo "ok $ntest $name" ;;
	4) echo "ok $ntest $name # SKIP $skip_reason" ;;
	*)
		echo "not ok $ntest $name"
		nfail=$((nfail + 1))
		;;
	esac
	if [ "$status" != 0 ] && [ -s "$diag_file" ]; then
		sed 's/^/# /' "$diag_file"
	fi
}

diag() { echo "$*" >>"$diag_file"; }
diag_run() {
	diag "exit $(rc "$1"); stderr:"
	sed 's/^/  /' "$tmp/$1.err" >>"$diag_file"
}

# expect_tree NAME: run's request must equal the tree on stdin, and ip
# must have got as far as the kernel: exit 0 (kernel has refnic) or 2
# (ip's exit status for a netlink error, e.g. "Unknown device type").
expect_tree() {
	local name=$1 got
	cat >"$tmp/$name.want"
	case $(rc "$name") in
	0 | 2) ;;
	*)
		diag "ip did not reach the kernel"
		diag_run "$name"
		return 1
		;;
	esac
	if grep -q "not loading" "$tmp/$name.err"; then
		diag "the plugin refused to load"
		diag_run "$name"
		return 1
	fi
	if ! got=$(sent "$name" 2>&1); then
		diag "decoding the request: $got"
		return 1
	fi
	if ! diff -u "$tmp/$name.want" - <<<"$got" >"$tmp/$name.diff"; then
		diag "request differs (-want +got):"
		cat "$tmp/$name.diff" >>"$diag_file"
		return 1
	fi
	return 0
}

# expect_error NAME REGEX: ip must fail before sending a create request,
# with an error message matching REGEX (grep -E).
expect_error() {
	local name=$1 re=$2 n
	case $(rc "$name") in
	0 | 2)
		diag "ip did not fail in parsing"
		diag_run "$name"
		return 1
		;;
	esac
	if ! grep -Eq -- "$re" "$tmp/$name.err"; then
		diag "stderr does not match /$re/"
		diag_run "$name"
		return 1
	fi
	n=$(sent_count "$name")
	if [ "$n" != 0 ]; then
		diag "ip still sent $n create request(s)"
		return 1
	fi
	return 0
}

# ---- parsing: what ip sends ---------------------------------------------

t_help() {
	run help link help refnic
	if [ "$(rc help)" != 0 ]; then
		diag_run help
		return 1
	fi
	local re
	for re in 'type refnic' 'queues QUEUES' 'rx-ring ENTRIES' \
		'tx-ring ENTRIES' 'peer \[ name NAME \] <options>' \
		'QUEUES  := queue pairs, 1\.\.16' 'power of two, 64\.\.4096'; do
		if ! grep -Eq -- "$re" "$tmp/help.out"; then
			diag "usage lacks /$re/:"
			sed 's/^/  /' "$tmp/help.out" >>"$diag_file"
			return 1
		fi
	done
}
tests+=(help)

t_queues_peer_name() {
	run qp link add r0 type refnic queues 4 peer name r1
	expect_tree qp <<'EOF'
ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
IFLA_IFNAME "r0"
IFLA_LINKINFO
  IFLA_INFO_KIND "refnic"
  IFLA_INFO_DATA
    IFLA_REFNIC_QUEUES 4
    IFLA_REFNIC_PEER
      ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
      IFLA_IFNAME "r1"
EOF
}
tests+=(queues_peer_name)

# no options: ip does not call the plugin and sends no IFLA_INFO_DATA
t_no_options() {
	run noopt link add r0 type refnic
	expect_tree noopt <<'EOF'
ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
IFLA_IFNAME "r0"
IFLA_LINKINFO
  IFLA_INFO_KIND "refnic"
EOF
}
tests+=(no_options)

t_all_numbers() {
	run nums link add r0 type refnic queues 0x8 rx-ring 512 tx-ring 4096
	expect_tree nums <<'EOF'
ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
IFLA_IFNAME "r0"
IFLA_LINKINFO
  IFLA_INFO_KIND "refnic"
  IFLA_INFO_DATA
    IFLA_REFNIC_QUEUES 8
    IFLA_REFNIC_RX_RING_SIZE 512
    IFLA_REFNIC_TX_RING_SIZE 4096
EOF
}
tests+=(all_numbers)

# iplink options after "peer" land in the peer's nest, the first device's
# stay at the top: mtu 1400 vs 9000, and "up" only in the peer's ifinfomsg
t_peer_iplink_options() {
	run peeropts link add r0 mtu 1400 type refnic rx-ring 256 tx-ring 128 \
		peer name r1 netns ns1 address 02:00:00:00:00:01 mtu 9000 \
		numtxqueues 4 numrxqueues 2 up
	expect_tree peeropts <<'EOF'
ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
IFLA_MTU 1400
IFLA_IFNAME "r0"
IFLA_LINKINFO
  IFLA_INFO_KIND "refnic"
  IFLA_INFO_DATA
    IFLA_REFNIC_RX_RING_SIZE 256
    IFLA_REFNIC_TX_RING_SIZE 128
    IFLA_REFNIC_PEER
      ifinfomsg family=0 type=0 index=0 flags=0x1 change=0x1
      IFLA_NET_NS_FD <fd>
      IFLA_ADDRESS 02:00:00:00:00:01
      IFLA_MTU 9000
      IFLA_NUM_TX_QUEUES 4
      IFLA_NUM_RX_QUEUES 2
      IFLA_IFNAME "r1"
EOF
}
tests+=(peer_iplink_options)

# the other way round: "up" for the first device stays out of the peer;
# and "peer r1" without "name" works as for veth (iplink_parse's rule)
t_main_up_bare_peer_name() {
	run mainup link add r0 up type refnic peer r1
	expect_tree mainup <<'EOF'
ifinfomsg family=0 type=0 index=0 flags=0x1 change=0x1
IFLA_IFNAME "r0"
IFLA_LINKINFO
  IFLA_INFO_KIND "refnic"
  IFLA_INFO_DATA
    IFLA_REFNIC_PEER
      ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
      IFLA_IFNAME "r1"
EOF
}
tests+=(main_up_bare_peer_name)

# "peer" alone: an empty peer description, the kernel names the peer
t_empty_peer() {
	run emptypeer link add r0 type refnic queues 2 peer
	expect_tree emptypeer <<'EOF'
ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
IFLA_IFNAME "r0"
IFLA_LINKINFO
  IFLA_INFO_KIND "refnic"
  IFLA_INFO_DATA
    IFLA_REFNIC_QUEUES 2
    IFLA_REFNIC_PEER
      ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0
EOF
}
tests+=(empty_peer)

# ---- parsing: errors ----------------------------------------------------

count_re='"queues" must be from 1 to 16'

t_err_queues_abc() {
	run e1 link add r0 type refnic queues abc peer name r1
	expect_error e1 "argument \"abc\" is wrong: $count_re"
}
tests+=(err_queues_abc)

t_err_queues_zero() {
	run e2 link add r0 type refnic queues 0
	expect_error e2 "argument \"0\" is wrong: $count_re"
}
tests+=(err_queues_zero)

t_err_queues_negative() {
	run e3 link add r0 type refnic queues -1
	expect_error e3 "argument \"-1\" is wrong: $count_re"
}
tests+=(err_queues_negative)

t_err_queues_overflow() {
	run e4 link add r0 type refnic queues 4294967296
	expect_error e4 "argument \"4294967296\" is wrong: $count_re"
}
tests+=(err_queues_overflow)

t_err_rx_ring_trailing() {
	run e5 link add r0 type refnic rx-ring 12x
	expect_error e5 'argument "12x" is wrong: "rx-ring" must be a power of two from 64 to 4096'
}
tests+=(err_rx_ring_trailing)

t_err_queues_above_max() {
	run e5q link add r0 type refnic queues 17
	expect_error e5q "argument \"17\" is wrong: $count_re"
}
tests+=(err_queues_above_max)

t_err_rx_ring_not_power_of_two() {
	run e5r link add r0 type refnic rx-ring 1000
	expect_error e5r 'argument "1000" is wrong: "rx-ring" must be a power of two from 64 to 4096'
}
tests+=(err_rx_ring_not_power_of_two)

t_err_tx_ring_below_min() {
	run e5t link add r0 type refnic tx-ring 32
	expect_error e5t 'argument "32" is wrong: "tx-ring" must be a power of two from 64 to 4096'
}
tests+=(err_tx_ring_below_min)

t_err_tx_ring_missing() {
	run e6 link add r0 type refnic tx-ring
	expect_error e6 'Command line is not complete'
}
tests+=(err_tx_ring_missing)

t_err_duplicate() {
	run e7 link add r0 type refnic queues 2 queues 3
	expect_error e7 'duplicate "queues": "3"'
}
tests+=(err_duplicate)

t_err_unknown_option() {
	run e8 link add r0 type refnic speed 10
	expect_error e8 'refnic: unknown option "speed"; try "ip link help refnic"'
}
tests+=(err_unknown_option)

t_err_peer_type() {
	run e9 link add r0 type refnic peer name r1 type veth
	expect_error e9 'duplicate "type": "veth"'
}
tests+=(err_peer_type)

# a bad peer option is reported by ip's own iplink_parse
t_err_peer_bad_mtu() {
	run e10 link add r0 type refnic peer name r1 mtu abc
	expect_error e10 'argument "abc" is wrong: Invalid "mtu" value'
}
tests+=(err_peer_bad_mtu)

t_err_add_help() {
	run e11 link add r0 type refnic help
	expect_error e11 'Usage: ip link <options> type refnic'
}
tests+=(err_add_help)

# ---- printing -----------------------------------------------------------

# "ip monitor file" prints RTM_NEWLINK messages read from a file through
# the same print_linkinfo() as "ip link show", so -d reaches print_opt
# without a driver: all attributes, no IFLA_INFO_DATA, and only one.
t_print_details() {
	local want got
	python3 "$decode" "$hdr" --monitor "$tmp/monitor-input.bin" \
		r0 refnic IFLA_REFNIC_QUEUES=4 IFLA_REFNIC_RX_RING_SIZE=512 \
		IFLA_REFNIC_TX_RING_SIZE=256 -- \
		r1 refnic -- \
		r2 refnic IFLA_REFNIC_QUEUES=2 || return 1
	run mon -d monitor file "$tmp/monitor-input.bin"
	if [ "$(rc mon)" != 0 ]; then
		diag_run mon
		return 1
	fi
	got=$(grep -E '^ +refnic' "$tmp/mon.out" | sed 's/ *$//')
	want=$'    refnic queues 4 rx-ring 512 tx-ring 256\n    refnic\n    refnic queues 2'
	if [ "$got" != "$want" ]; then
		diag "ip -d monitor output:"
		sed 's/^/  /' "$tmp/mon.out" >>"$diag_file"
		diag_run mon
		return 1
	fi
}
tests+=(print_details)

# ---- the iproute2 version guard -----------------------------------------

# a plugin built for another iproute2 must not be used: ip carries on as if
# there were no plugin (so options are "Garbage") and says why, once
t_guard_refuses() {
	run g1 --lib "$tmp/old" link add r0 type refnic queues 4 peer name r1
	expect_error g1 'Garbage instead of arguments "queues' || return 1
	local msg='link_refnic.so: not loading: built for iproute2-0.0.0, but this ip is another version'
	if [ "$(grep -cF "$msg" "$tmp/g1.err")" != 1 ]; then
		diag "want exactly one \"$msg\""
		diag_run g1
		return 1
	fi
}
tests+=(guard_refuses)

# ... while "type refnic" without options still goes to the kernel
t_guard_still_adds_plain() {
	run g2 --lib "$tmp/old" link add r0 type refnic
	# expect_tree rejects the refusal message itself; check by hand
	case $(rc g2) in
	0 | 2) ;;
	*)
		diag_run g2
		return 1
		;;
	esac
	local got
	got=$(sent g2 2>&1)
	if [ "$got" != "$(printf '%s\n' \
		'ifinfomsg family=0 type=0 index=0 flags=0x0 change=0x0' \
		'IFLA_IFNAME "r0"' 'IFLA_LINKINFO' '  IFLA_INFO_KIND "refnic"')" ]; then
		diag "request: $got"
		return 1
	fi
}
tests+=(guard_still_adds_plain)

# ---- live: only where the kernel knows refnic ---------------------------

kernel_has_refnic() {
	run_sh probe 'ip link add r0 type refnic'
	[ "$(rc probe)" = 0 ]
}

t_live_peer_netns() {
	if ! kernel_has_refnic; then
		skip_reason="kernel has no refnic: $(head -n1 "$tmp/probe.err")"
		return 4
	fi
	run_sh live 'ip link add r0 type refnic queues 2 peer name r1 netns ns1 || exit 10
		ip link show r0 >/dev/null || exit 11
		ip -n ns1 link show r1 >/dev/null || exit 12
		ip link show r1 >/dev/null 2>&1 && exit 13
		exit 0'
	if [ "$(rc live)" != 0 ]; then
		diag "step $(rc live) failed (10 add, 11 r0, 12 r1 in ns1, 13 r1 also here)"
		diag_run live
		return 1
	fi
}
tests+=(live_peer_netns)

# "ip -d -j link show": kind refnic, and whatever refnic data the driver
# reports is under info_data with numeric values matching the request
t_live_show_json() {
	if ! kernel_has_refnic; then
		skip_reason="kernel has no refnic"
		return 4
	fi
	run_sh livejson 'ip link add r0 type refnic queues 2 rx-ring 256 tx-ring 256 peer name r1 || exit 10
		ip -d link show r0 >&2
		exec ip -d -j link show r0'
	if [ "$(rc livejson)" != 0 ]; then
		diag_run livejson
		return 1
	fi
	if ! python3 - "$tmp/livejson.out" >>"$diag_file" 2>&1 <<'EOF'; then
import json, sys
link = json.load(open(sys.argv[1]))[0]
info = link["linkinfo"]
assert info["info_kind"] == "refnic", info
data = info.get("info_data", {})
want = {"queues": 2, "rx_ring": 256, "tx_ring": 256}
assert set(data) <= set(want), data
for key, val in data.items():
    assert val == want[key], (key, val)
print("info_data:", data)
EOF
		diag_run livejson
		return 1
	fi
}
tests+=(live_show_json)

# ---- main ----------------------------------------------------------------

echo "TAP version 13"
echo "1..${#tests[@]}"
for t in "${tests[@]}"; do
	: >"$diag_file"
	skip_reason=
	"t_$t"
	report "$t" $?
done
echo "# $((ntest - nfail)) passed, $nfail failed of $ntest"
[ "$nfail" = 0 ]
