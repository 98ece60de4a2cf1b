#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A pair whose ports fail to register (issue 14, item 8; kmod/refnic_rtnl.c
# refnic_pair_register(), kmod/refnic_netdev.c refnic_priv_destructor()).
# The peer (port 1) registers first, then port 0. register_netdevice()
# fails before ndo_init for a name that is taken, and after it for an
# ifindex that is taken, and then calls the port's destructor itself, with
# RTNL held; a port registered before the failure is unregistered, and its
# destructor runs later without RTNL. Each way, in a fresh namespace:
#  - the peer's name is lo's: EEXIST, before the peer's ndo_init;
#  - the peer's ifindex is lo's (1): EBUSY, the peer's destructor runs with
#    RTNL held (it never registered);
#  - port 0's name is the peer's: EEXIST once the peer has registered, which
#    is unregistered again;
#  - port 0's ifindex is the peer's: EBUSY once the peer has registered;
#    port 0's destructor runs with RTNL held, the peer's later;
#  - the same with the peer brought up by the request (`peer ... up`), so
#    that it is opened (queues, IRQs, NAPI, its link work) before port 0
#    fails, and closed again.
# Each request fails with its errno, leaves no port and no card behind (the
# refnic platform devices and the module's reference count are as before;
# max_cards is set to the cards present plus one, so that a card slot a
# failure kept would refuse the next request with ENOSPC), and, where
# kprobes allow, the destructors and registrations counted are exactly the
# path named. A deadlock on RTNL would hang the request (the harness's
# timeout and hung-task scan catch it); the harness fails the test on any
# WARN, lockdep, KASAN or kmemleak report. Last, the names and indices the
# failures used make a pair, which is deleted.
set -u
# shellcheck source=../net/lib_net.sh
. "$(dirname "$0")/../net/lib_net.sh"

PARAMS=/sys/module/refnic/parameters
TRACE=/sys/kernel/tracing
GROUP=refnic_regfail
INSTANCE=$TRACE/instances/refnic_regfail_$$
# kprobe event name -> refnic function
declare -A PROBE=([rfr_destructor]=refnic_priv_destructor [rfr_registered]=refnic_port_registered)
PROBES=0

ktap_print_header
net_init
ktap_set_plan 6
net_ns_setup
NS=$NS_A

probes_del() {
	local e
	echo 0 > "$INSTANCE/events/$GROUP/enable"
	rmdir "$INSTANCE"
	for e in "${!PROBE[@]}"; do
		echo "-:$GROUP/$e" >> "$TRACE/kprobe_events"
	done
	PROBES=0
}
# probes_add: count entries of PROBE's functions (kprobe_profile); false
# where kprobe events are not available.
probes_add() {
	local e
	[ -w "$TRACE/kprobe_events" ] || mount -t tracefs nodev "$TRACE" 2>/dev/null
	[ -w "$TRACE/kprobe_events" ] || return 1
	PROBES=1
	for e in "${!PROBE[@]}"; do
		echo "p:$GROUP/$e refnic:${PROBE[$e]}" >> "$TRACE/kprobe_events" || return 1
	done
	# Counted, not recorded: an instance of their own, its buffer off.
	mkdir "$INSTANCE" && echo 0 > "$INSTANCE/tracing_on" &&
		echo 1 > "$INSTANCE/events/$GROUP/enable"
}
NET_CLEANUP+=('[ "$PROBES" = 1 ] && probes_del')
if ! probes_add; then
	net_msg "no kprobe events: which path each failure took is not checked"
	[ "$PROBES" = 1 ] && probes_del
fi
# hits EVENT: entries counted so far.
hits() {
	awk -v e="$1" '$1 == e { print $2; f = 1 } END { if (!f) print 0 }' "$TRACE/kprobe_profile"
}

# What must be as before after each failure.
pdevs() { find /sys/bus/platform/devices -maxdepth 1 -name 'refnic.*' | wc -l; }
refcnt() { cat /sys/module/refnic/refcnt; }
PDEVS0=$(pdevs)
REFCNT0=$(refcnt)
# shellcheck disable=SC2034 # read by the cleanup below (eval)
SAVED_MAX_CARDS=$(cat "$PARAMS/max_cards")
NET_CLEANUP+=('echo "$SAVED_MAX_CARDS" > "$PARAMS/max_cards"')
echo $((PDEVS0 / 2 + 1)) > "$PARAMS/max_cards" ||
	net_bail "cannot set max_cards to $((PDEVS0 / 2 + 1))"
net_msg "$PDEVS0 refnic platform devices, module refcnt $REFCNT0, max_cards $((PDEVS0 / 2 + 1)) for the test"

# links: the namespace's interfaces but lo, one per line.
links() { ip -n "$NS" -o link show | awk -F': ' '$2 != "lo" { print $2 }'; }
# What a new namespace has besides lo: nothing on Debian's kernel, the
# fallback tunnels (tunl0, gre0, sit0, ...) where those drivers are built
# in, as on the debug kernel.
LINKS0=$(links)

# nothing_left: no port in the namespace, the card unplugged, the module's
# references back (bounded poll: all of it is done before the request's
# answer, but a late unplug should fail here, not in the next case).
nothing_left() {
	local i
	for ((i = 0; i < 50 * NET_SCALE; i++)); do
		[ "$(links)" = "$LINKS0" ] && [ "$(pdevs)" = "$PDEVS0" ] && [ "$(refcnt)" = "$REFCNT0" ] &&
			return 0
		sleep 0.1
	done
	net_msg "left behind: links [$(links | paste -sd' ')] (before: [$(paste -sd' ' <<<"$LINKS0")]), $(pdevs) refnic platform devices (before: $PDEVS0), module refcnt $(refcnt) (before: $REFCNT0)"
	return 1
}

# refused ERRNO DESTRUCTORS REGISTERED IP-LINK-ADD-ARGS...: `ip link add
# ARGS` in the namespace fails with ERRNO's message (EEXIST or EBUSY: one
# word, as ktap_test_result splits its arguments), leaves nothing behind,
# and (with kprobes) ran DESTRUCTORS port destructors and registered
# REGISTERED ports.
refused() {
	local want ndestr=$2 nreg=$3 out rc=0 d0 r0 d r
	case $1 in
	EEXIST) want="File exists" ;;
	EBUSY) want="Device or resource busy" ;;
	*) net_msg "refused: unknown errno $1"; return 1 ;;
	esac
	shift 3
	[ "$PROBES" = 1 ] && d0=$(hits rfr_destructor) r0=$(hits rfr_registered)
	out=$(ip -n "$NS" link add "$@" 2>&1) && rc=1
	net_msg "ip link add $*: ${out:-succeeded}"
	grep -qF "$want" <<<"$out" || rc=1
	nothing_left || rc=1
	if [ "$PROBES" = 1 ]; then
		d=$(($(hits rfr_destructor) - d0)) r=$(($(hits rfr_registered) - r0))
		net_msg "port destructors run: $d (want $ndestr), ports registered: $r (want $nreg)"
		[ "$d" = "$ndestr" ] && [ "$r" = "$nreg" ] || rc=1
	fi
	return "$rc"
}

# A free ifindex for port 0 where one must be given (the peer's index
# counts only then, as for veth): the namespace has only lo.
IDX=4242

ktap_test_result "the peer's name is taken: EEXIST before its ndo_init, nothing left" \
	refused EEXIST 0 0 "rg0$$" type refnic peer name lo
ktap_test_result "the peer's ifindex is taken: EBUSY, its destructor runs under RTNL, nothing left" \
	refused EBUSY 1 0 "rg0$$" index "$IDX" type refnic peer name "rg1$$" index 1
ktap_test_result "port 0's name is the peer's: EEXIST after the peer registered, which goes again" \
	refused EEXIST 1 1 "rg0$$" type refnic peer name "rg0$$"
ktap_test_result "port 0's ifindex is the peer's: EBUSY after the peer registered, port 0's destructor under RTNL" \
	refused EBUSY 2 1 "rg0$$" index "$IDX" type refnic peer name "rg1$$" index "$IDX"
ktap_test_result "the same with the peer opened first (peer ... up): it is closed and goes again" \
	refused EBUSY 2 1 "rg0$$" index "$IDX" type refnic peer name "rg1$$" index "$IDX" up

# The names and indices the failures used are free, and so is the card slot.
pair_then() {
	local out
	out=$(ip -n "$NS" link add "rg0$$" index "$IDX" type refnic peer name "rg1$$" 2>&1) ||
		{ net_msg "ip link add: $out"; return 1; }
	net_msg "created: $(links | paste -sd' ')"
	[ "$(ip netns exec "$NS" cat "/sys/class/net/rg0$$/ifindex")" = "$IDX" ] &&
		ip -n "$NS" link show "rg1$$" >/dev/null &&
		ip -n "$NS" link del "rg0$$" && nothing_left
}
ktap_test_result "then a pair with those names and that index is created and deleted" pair_then
ktap_finished
