#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Run one upstream driver selftest (through run_driver_test.sh) against a
# fresh device pair: the device under test in one network namespace, the
# remote end in another (REMOTE_TYPE=netns), as drivers/net/README.rst has it.
#
# Usage: on_pair.sh KIND [TEST]
#   KIND  refnic: a refnic pair (`ip link add ... type refnic`; loads the
#                 module from REFNIC_KO when it is not loaded, and unloads
#                 it again afterwards). Every case must pass: skips fail,
#                 except the XFAILs/SKIPs of what refnic has no notion of
#                 (pause frames, FEC, native and offloaded XDP), as
#                 upstream expects of such a device.
#         veth:   a veth pair. Proves that the upstream tests build and run
#                 in this environment independently of refnic.
#   TEST  ping.py (default), stats.py, queues.py, ...
#
# ON_PAIR_QUEUES: queue pairs of each device (default 2).
#
# Needs root. Exit 0/1/4 as KTAP. Addresses are from the documentation
# ranges 192.0.2.0/24 and 2001:db8::/64. Both ends live in namespaces of
# their own: the dev machines' eth0 is 192.0.2.2/24 with its gateway at
# 192.0.2.1, so putting these addresses in the initial namespace would
# hijack its default route.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kind=${1:-}
test=${2:-ping.py}
name=${kind}_${test%.py}
name=${name//\//_}
loaded=0

# Namespace names are unique per run so that parallel or leftover runs cannot
# collide; inside them fixed interface names will do.
nsl=refnic-dut-$$
ns=refnic-peer-$$
dut=dut0
peer=peer0

setup_failed() {
	echo "KTAP version 1"
	echo "1..1"
	echo "not ok 1 $name # setup: $1"
	exit 1
}

skip() {
	printf 'KTAP version 1\n1..1\nok 1 %s # SKIP %s\n' "$name" "$1"
	exit 4
}

case $kind in
veth | refnic) ;;
*) setup_failed "usage: on_pair.sh veth|refnic [TEST]" ;;
esac
[ "$EUID" -eq 0 ] || skip "needs root"
if [ "$kind" = refnic ]; then
	# shellcheck source=/dev/null
	. "$here/../lib.sh"
	[ -f "${IP_LIB_DIR:-}/link_refnic.so" ] ||
		skip "needs the iproute2 refnic plugin: IP_LIB_DIR=${IP_LIB_DIR:-unset} has no link_refnic.so"
	if ! refnic_loaded; then
		[ -f "$REFNIC_KO" ] || skip "no module at $REFNIC_KO (not built?)"
		out=$(refnic_load 2>&1) || setup_failed "insmod $REFNIC_KO: $out"
		loaded=1
	fi
fi

# shellcheck disable=SC2317 # only called from the EXIT trap
cleanup() {
	# Deleting the namespaces destroys the pair with them.
	ip netns del "$ns" 2>/dev/null || true
	ip netns del "$nsl" 2>/dev/null || true
	if [ "$loaded" -eq 1 ]; then
		# The pair goes away with its namespaces, asynchronously.
		refnic_unload_wait || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Batched: under TCG every exec of ip costs ~0.5 s. On failure ip -batch
# names the failing line and the kernel's reason.
batch() { # batch [ip options...], ip commands on stdin
	local out
	out=$(ip "$@" -batch - 2>&1) || setup_failed "ip $* -batch: $out"
}
batch <<EOF
netns add $nsl
netns add $ns
EOF
# No DAD at all, link-local addresses included: while an address is tentative
# the first v6 ping can fail (seen with ping.py's 0.5 s wait).
for n in "$nsl" "$ns"; do
	out=$(ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 2>&1) || setup_failed "sysctl in $n: $out"
done
# Two queues each way by default, so that queues.py can also remove and
# re-add one.
nq=${ON_PAIR_QUEUES:-2}
if [ "$kind" = veth ]; then
	link="link add $dut numtxqueues $nq numrxqueues $nq type veth peer name $peer netns $ns numtxqueues $nq numrxqueues $nq"
else
	link="link add $dut type refnic queues $nq peer name $peer netns $ns"
	export UPSTREAM_FAIL_ON_SKIP=1
	# What refnic does not model: pause frames, FEC (7.3 adds FEC
	# histograms), native and offloaded XDP (7.3's ping.py), more than
	# 16 queues (rss_ctx.py's 32 contexts of 2 queues each); and what a
	# caller skips for the machine (REFNIC_UPSTREAM_SKIP_CASES).
	allow='stats\.check_(pause|fec|fec_hist)|ping\.test_xdp_(native_sb|offload)|rss_ctx\.test_rss_context32'
	IFS=';' read -ra skips <<<"${REFNIC_UPSTREAM_SKIP_CASES:-}"
	for item in "${skips[@]}"; do
		allow+="|[a-z_0-9]+\\.${item%%=*} # SKIP"
	done
	export UPSTREAM_ALLOW_XFAIL="^($allow) "
fi
batch -n "$nsl" <<EOF
$link
addr add 192.0.2.1/24 dev $dut
addr add 2001:db8::1/64 dev $dut nodad
link set lo up
link set $dut up
EOF
batch -n "$ns" <<EOF
addr add 192.0.2.2/24 dev $peer
addr add 2001:db8::2/64 dev $peer nodad
link set lo up
link set $peer up
EOF

# Wait (bounded) for carrier on both ends and no tentative address left.
settled() { # settled NETNS DEV
	local out
	out=$(printf 'link show dev %s\naddr show tentative\n' "$2" | ip -n "$1" -o -batch -) &&
		grep -q 'state UP' <<<"$out" && ! grep -q tentative <<<"$out"
}
ready() { settled "$nsl" "$dut" && settled "$ns" "$peer"; }
for _ in $(seq 100); do
	ready && break
	sleep 0.1
done
ready || setup_failed "$kind link did not come up within 10 s"

# ip netns exec also gives the test a /sys of that namespace (queues.py
# counts /sys/class/net/NETIF/queues).
rc=0
ip netns exec "$nsl" env NETIF="$dut" LOCAL_V4=192.0.2.1 REMOTE_V4=192.0.2.2 \
	LOCAL_V6=2001:db8::1 REMOTE_V6=2001:db8::2 \
	REMOTE_TYPE=netns REMOTE_ARGS="$ns" \
	"$here/run_driver_test.sh" --name "$name" "$test" || rc=$?
exit "$rc"
