# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared setup of refnic's net/ selftests. Source it after setting `set -u`.
#
# Each test gets two network namespaces, $NS_A and $NS_B, and a refnic pair
# with one port in each ($DEV_A in $NS_A, $DEV_B in $NS_B, addressed $V4_A/
# $V6_A and $V4_B/$V6_B). Names carry the test's PID: interface names show up
# in /proc/interrupts, which every namespace shares. net_init loads refnic
# when it is not loaded (and the EXIT trap unloads it again then), and the
# trap deletes the pair and the namespaces and kills what the test started.
#
# The heavy lifting (traffic, byte-for-byte checks, counter snapshots, the
# RSS oracle, netdev netlink) is in nettool.py, run in a namespace with
# `net_tool NS SUBCOMMAND ...`; each call prints one JSON line.

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

NET_DIR=$REFNIC_REPO/selftests/net
NETTOOL=$NET_DIR/nettool.py
NS_A=rfa-$$
NS_B=rfb-$$
DEV_A=ra$$
DEV_B=rb$$
V4_A=192.0.2.1
V4_B=192.0.2.2
V6_A=2001:db8::1
V6_B=2001:db8::2
NET_TMP=
NET_LOADED=0
NET_CLEANUP=()  # extra cleanup commands (eval'd), last first
declare -A NET_PID=()

# Under the debug kernel (KASAN, lockdep, kmemleak) everything is several
# times slower again; in-test time bounds are multiplied by this.
if [ -n "${REFNIC_NET_SCALE:-}" ]; then
	NET_SCALE=$REFNIC_NET_SCALE
elif [ -e /proc/lockdep ] || [ -e /sys/kernel/debug/kmemleak ]; then
	NET_SCALE=6
else
	NET_SCALE=1
fi

net_msg() {
	ktap_print_msg "$@"
}

# net_refused WHAT WANT CMD...: CMD fails and its output says WANT (a
# basic regex; empty: any reason). Says what it got either way.
net_refused() {
	local what=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		net_msg "$what was accepted"
		return 1
	fi
	net_msg "$what: $out"
	grep -q "$want" <<<"$out" || { net_msg "$what: does not say '$want'"; return 1; }
}

net_skip_all() { # net_skip_all REASON: the whole test cannot run here
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

net_bail() { # net_bail REASON: setup failed, the test cannot go on
	ktap_exit_fail_msg "$*"
}

# ---- setup and teardown -----------------------------------------------------

net_cleanup() {
	local rc=$? i name pid
	trap - EXIT
	for ((i = ${#NET_CLEANUP[@]} - 1; i >= 0; i--)); do
		eval "${NET_CLEANUP[i]}" 2>/dev/null || true
	done
	for name in "${!NET_PID[@]}"; do
		pid=${NET_PID[$name]}
		kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	ip -n "$NS_A" link del "$DEV_A" 2>/dev/null
	ip -n "$NS_B" link del "$DEV_B" 2>/dev/null
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	[ -n "$NET_TMP" ] && rm -rf "$NET_TMP"
	if [ "$NET_LOADED" = 1 ] && refnic_loaded; then
		if ! rmmod refnic; then
			echo "# cleanup: rmmod refnic failed"
			[ "$rc" -ne 0 ] || rc=1
		fi
	fi
	exit "$rc"
}

# net_init: check prerequisites (a missing one skips the whole test), load
# refnic if needed, install the cleanup trap.
net_init() {
	[ "$(id -u)" -eq 0 ] || net_skip_all "needs root"
	command -v python3 >/dev/null || net_skip_all "needs python3"
	command -v ethtool >/dev/null || net_skip_all "needs ethtool"
	[ -f "${IP_LIB_DIR:-}/link_refnic.so" ] ||
		net_skip_all "needs the iproute2 refnic plugin: IP_LIB_DIR=${IP_LIB_DIR:-unset} has no link_refnic.so"
	[ -f "$REFNIC_KO" ] || refnic_loaded || net_skip_all "no module at $REFNIC_KO (not built?)"
	NET_TMP=$(mktemp -d /tmp/refnic-net.XXXXXX)
	trap net_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	if ! refnic_loaded; then
		local out
		out=$(refnic_load 2>&1) || net_bail "insmod $REFNIC_KO: $out"
		NET_LOADED=1
	fi
}

# net_batch [ip options...] <<<"commands": ip -batch, bail out on error.
net_batch() {
	local out
	out=$(ip "$@" -batch - 2>&1) || net_bail "ip $* -batch: $out"
}

# net_ns_setup: create the two namespaces (no DAD, loopback up).
net_ns_setup() {
	local ns out
	net_batch <<-EOF
	netns add $NS_A
	netns add $NS_B
	EOF
	for ns in "$NS_A" "$NS_B"; do
		# No DAD; IPv6 addresses survive ip link set down.
		out=$(ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.all.keep_addr_on_down=1 \
			net.ipv6.conf.default.keep_addr_on_down=1 2>&1) || net_bail "sysctl in $ns: $out"
		ip -n "$ns" link set lo up || net_bail "lo up in $ns"
	done
}

# net_pair_add [refnic options...]: the pair, addressed and up, carrier on.
# Options go to `ip link add ... type refnic`, e.g. "queues 4 rx-ring 256".
net_pair_add() {
	local out
	out=$(ip -n "$NS_A" link add "$DEV_A" type refnic "$@" \
		peer name "$DEV_B" netns "$NS_B" 2>&1) ||
		net_bail "ip link add $DEV_A type refnic $* peer name $DEV_B netns $NS_B: $out"
	net_pair_up
}

# net_pair_up: address both ports of an existing pair, bring them up, wait
# for carrier.
net_pair_up() {
	net_batch -n "$NS_A" <<-EOF
	addr add $V4_A/24 dev $DEV_A
	addr add $V6_A/64 dev $DEV_A nodad
	link set $DEV_A up
	EOF
	net_batch -n "$NS_B" <<-EOF
	addr add $V4_B/24 dev $DEV_B
	addr add $V6_B/64 dev $DEV_B nodad
	link set $DEV_B up
	EOF
	net_wait_link "$NS_A" "$DEV_A" up 20 || net_bail "$DEV_A: no carrier within 20 s"
	net_wait_link "$NS_B" "$DEV_B" up 20 || net_bail "$DEV_B: no carrier within 20 s"
}

# net_setup [refnic options...]: namespaces and pair.
net_setup() {
	net_ns_setup
	net_pair_add "$@"
}

# net_static_neigh: permanent neighbour entries both ways, so that no ARP
# or ND traffic muddles exact packet counts.
net_static_neigh() {
	local mac_a mac_b
	mac_a=$(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/address")
	mac_b=$(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/address")
	net_batch -n "$NS_A" <<-EOF
	neigh replace $V4_B lladdr $mac_b dev $DEV_A nud permanent
	neigh replace $V6_B lladdr $mac_b dev $DEV_A nud permanent
	EOF
	net_batch -n "$NS_B" <<-EOF
	neigh replace $V4_A lladdr $mac_a dev $DEV_B nud permanent
	neigh replace $V6_A lladdr $mac_a dev $DEV_B nud permanent
	EOF
}

# net_quiet_v6: no router solicitations or MLD reports on the pair's links
# (they would land on some queue at an unpredictable time).
net_quiet_v6() {
	local ns dev
	for ns in "$NS_A" "$NS_B"; do
		[ "$ns" = "$NS_A" ] && dev=$DEV_A || dev=$DEV_B
		ip netns exec "$ns" sysctl -qw \
			"net.ipv6.conf.$dev.router_solicitations=0" \
			"net.ipv6.conf.$dev.accept_ra=0" \
			net.ipv6.conf.all.force_mld_version=2 \
			"net.ipv6.conf.$dev.mldv2_unsolicited_report_interval=0" \
			>/dev/null 2>&1 || true
	done
}

# net_carrier NS DEV: prints 1 (carrier), 0 (none) or "" (device down).
net_carrier() {
	ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null
}

# net_wait_link NS DEV up|down [SECS]: wait until the device's carrier
# (and, for up, its addresses leaving tentative) reaches the state.
net_wait_link() {
	local ns=$1 dev=$2 want=$3 secs=${4:-10} i out
	for ((i = 0; i < secs * 10; i++)); do
		out=$(printf 'link show dev %s\naddr show dev %s tentative\n' "$dev" "$dev" |
			ip -n "$ns" -o -batch - 2>/dev/null)
		if [ "$want" = up ]; then
			grep -q 'LOWER_UP' <<<"$out" && ! grep -q tentative <<<"$out" && return 0
		else
			grep -q 'NO-CARRIER' <<<"$out" && return 0
		fi
		sleep 0.1
	done
	return 1
}

# wait_until SECS CMD...: until CMD succeeds, at most SECS (scaled), trying
# every 0.2 s.
wait_until() {
	local end=$((SECONDS + $1 * NET_SCALE))
	shift
	until "$@"; do
		[ "$SECONDS" -le "$end" ] || return 1
		sleep 0.2
	done
}

# net_settle [SECS]: wait until neither port has received or completed a
# frame for a second (at most SECS, default 10, scaled): the link-up chatter
# (MLD reports, an early ARP) is through before a test counts exact frames,
# and the last frames of a transfer are counted before it reads totals.
net_settle() {
	local end=$((SECONDS + ${1:-10} * NET_SCALE)) last="" now
	while :; do
		now="$(cat <(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/statistics/rx_packets" \
			"/sys/class/net/$DEV_A/statistics/tx_packets") \
			<(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/statistics/rx_packets" \
			"/sys/class/net/$DEV_B/statistics/tx_packets") | tr '\n' ' ')"
		[ "$now" = "$last" ] && return 0
		[ "$SECONDS" -le "$end" ] ||
			{ net_msg "frames still arriving after $((${1:-10} * NET_SCALE)) s: $now"; return 1; }
		last=$now
		sleep 1
	done
}

net_ifindex() { # net_ifindex NS DEV
	ip netns exec "$1" cat "/sys/class/net/$2/ifindex"
}

# ---- running things ---------------------------------------------------------

net_ns() { # net_ns NS CMD...: run CMD in NS
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# Python starts without site (-S) here: nettool.py and these snippets use
# the standard library only (nettool.py loads site itself for YNL), and
# under TCG site's import cost 0.4 s a start.
net_tool() { # net_tool NS SUBCOMMAND ARGS...: nettool.py in NS
	local ns=$1
	shift
	ip netns exec "$ns" python3 -S "$NETTOOL" "$@"
}

# net_bg NAME CMD...: start CMD in the background, stdout to
# $NET_TMP/NAME.out, stderr to $NET_TMP/NAME.err; the trap kills it.
# net_tool and net_ns are expanded to the commands they run, so that the PID
# recorded is the program's own (ip netns exec execs it) and killing it
# leaves nothing behind.
net_bg() {
	local name=$1
	shift
	case $1 in
	net_tool) set -- ip netns exec "$2" python3 -S "$NETTOOL" "${@:3}" ;;
	net_ns) set -- ip netns exec "${@:2}" ;;
	esac
	"$@" >"$NET_TMP/$name.out" 2>"$NET_TMP/$name.err" &
	NET_PID[$name]=$!
}

# net_bg_running NAME: is it still running?
net_bg_running() {
	kill -0 "${NET_PID[$1]}" 2>/dev/null
}

# net_bg_wait NAME [SECS]: wait for NAME to exit (at most SECS, scaled);
# returns its exit status, or 124 (and kills it) on timeout.
net_bg_wait() {
	local name=$1 secs=${2:-60} pid=${NET_PID[$1]} i rc
	for ((i = 0; i < secs * NET_SCALE * 10; i++)); do
		net_bg_running "$name" || break
		sleep 0.1
	done
	if net_bg_running "$name"; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		unset "NET_PID[$name]"
		return 124
	fi
	wait "$pid"
	rc=$?
	unset "NET_PID[$name]"
	return "$rc"
}

net_bg_kill() { # net_bg_kill NAME
	local pid=${NET_PID[$1]:-}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	unset "NET_PID[$1]"
}

# net_bg_show NAME: its output and errors, as KTAP comments.
net_bg_show() {
	sed "s/^/# $1: /" "$NET_TMP/$1.out" "$NET_TMP/$1.err" 2>/dev/null
}

# net_wait_file FILE [SECS]: wait for FILE to exist.
net_wait_file() {
	local i
	for ((i = 0; i < ${2:-30} * NET_SCALE * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# net_bg_wait_text NAME TEXT [SECS]: wait until background job NAME's stderr
# says TEXT (a tool's "listening": ready), at most SECS (default 60, scaled);
# false, with the job's output shown, if it ends or the time runs out first.
net_bg_wait_text() {
	local i
	for ((i = 0; i < ${3:-60} * NET_SCALE * 5; i++)); do
		grep -q "$2" "$NET_TMP/$1.err" 2>/dev/null && return 0
		net_bg_running "$1" || break
		sleep 0.2
	done
	net_bg_show "$1"
	return 1
}

# jget FILE EXPR...: print Python expressions over the JSON object in FILE
# (as d), one per line: jget x.json 'd["bytes"]' 'len(d["flows"])'
jget() {
	python3 -S - "$@" <<-'EOF'
	import json, sys
	with open(sys.argv[1]) as f:
	    d = json.loads(f.read().strip().splitlines()[-1])
	for e in sys.argv[2:]:
	    print(eval(e, {}, {'d': d}))
	EOF
}

# ---- data -----------------------------------------------------------------------

# net_gen BYTES [SEED]: the deterministic stream on stdout.
net_gen() {
	python3 -S -c '
import sys
sys.path.insert(0, sys.argv[1])
from nettool import Stream, BLOCK
n, s = int(sys.argv[2]), Stream(int(sys.argv[3]))
out = sys.stdout.buffer
while n:
    c = s.read(min(n, BLOCK)); out.write(c); n -= len(c)
' "$NET_DIR" "$1" "${2:-1}"
}

# net_sha BYTES [SEED]: sha256 of the first BYTES bytes of stream SEED.
net_sha() {
	python3 -S "$NETTOOL" sha --bytes "$1" --seed "${2:-1}" |
		sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p'
}

# net_devmem_send NS ADDR PORT BYTES [SOCAT_OPTS]: BYTES of the stream
# ncdevmem -v 7 validates (the byte cycle 1..6,0), from NS to ADDR:PORT over
# TCP; SOCAT_OPTS are added to socat's TCP4 address (",sourceport=...").
net_devmem_send() {
	ip netns exec "$1" sh -c "yes \"\$(printf '\\001\\002\\003\\004\\005\\006')\" |
		tr '\\n' '\\0' | head -c $4 | socat -u - TCP4:$2:$3${5:-}"
}

# net_tcp_start NAME NS_TX NS_RX ADDR BYTES [PORT] [SEED] [send options...]:
# start a verified TCP transfer of BYTES bytes of stream SEED from NS_TX to
# ADDR (in NS_RX). Wait for it with net_tcp_wait NAME.
net_tcp_start() {
	local name=$1 ns_tx=$2 ns_rx=$3 addr=$4 bytes=$5 port=${6:-5201} seed=${7:-1}
	shift 7 2>/dev/null || shift $#
	rm -f "$NET_TMP/$name.ready"
	net_bg "$name-rx" net_tool "$ns_rx" recv "$addr" "$port" --bytes "$bytes" \
		--seed "$seed" --ready "$NET_TMP/$name.ready" --timeout $((120 * NET_SCALE))
	net_wait_file "$NET_TMP/$name.ready" 30 || {
		net_bg_show "$name-rx"
		return 1
	}
	net_bg "$name-tx" net_tool "$ns_tx" send "$addr" "$port" --bytes "$bytes" \
		--seed "$seed" --timeout $((120 * NET_SCALE)) "$@"
}

# net_tcp_wait NAME [SECS]: wait for both ends; true when the receiver got
# exactly what the sender sent: as many bytes, each one the stream's (the
# receiver compares every byte). NET_TCP_SHA is the sha256 of what the
# receiver got, for tests to hold against the stream's (net_sha).
net_tcp_wait() {
	local name=$1 secs=${2:-300} rc_tx=0 rc_rx=0 tx rx want
	net_bg_wait "$name-tx" "$secs" || rc_tx=$?
	net_bg_wait "$name-rx" 60 || rc_rx=$?
	tx=$NET_TMP/$name-tx.out
	rx=$NET_TMP/$name-rx.out
	if [ "$rc_tx" -ne 0 ] || [ "$rc_rx" -ne 0 ]; then
		net_msg "$name: sender exit $rc_tx, receiver exit $rc_rx"
		net_bg_show "$name-tx"
		net_bg_show "$name-rx"
		return 1
	fi
	mapfile -t tx < <(jget "$tx" 'd["bytes"]' 'd["secs"]')
	mapfile -t rx < <(jget "$rx" 'd["bytes"]' 'd["sha256"]' 'd["first_mismatch"]')
	net_msg "$name: sent ${tx[0]} bytes in ${tx[1]} s, received ${rx[0]}, sha256 ${rx[1]:0:16}..."
	if [ "${tx[0]}" != "${rx[0]}" ] || [ "${rx[2]}" != None ]; then
		net_msg "$name: MISMATCH: sent ${tx[0]}, received ${rx[0]}, first wrong byte ${rx[2]}"
		return 1
	fi
	NET_TCP_SECS=${tx[1]}
	NET_TCP_SHA=${rx[1]}
	return 0
}

# ---- counters -------------------------------------------------------------------

# net_estat NS DEV FIELD: one ethtool -S counter.
net_estat() {
	ip netns exec "$1" ethtool -S "$2" | awk -v f="$3" '$1 == f":" { print $2; found = 1 } END { exit !found }'
}

# net_wait_estat NS DEV FIELD MIN [SECS]: wait until ethtool -S FIELD is at
# least MIN (at most SECS, default 10, scaled). For counters of frames still
# on their way when the sender returns: a wait for them, not a sleep.
net_wait_estat() {
	wait_until "${5:-10}" _net_estat_ge "$1" "$2" "$3" "$4"
}

_net_estat_ge() {
	local v
	v=$(net_estat "$1" "$2" "$3") && [ "$v" -ge "$4" ]
}

# net_equeue_sum NS DEV KIND FIELD: sum of the per-queue ethtool -S counters
# KIND<q>_FIELD (net_equeue_sum NS DEV rx packets sums rx0_packets, ...).
net_equeue_sum() {
	ip netns exec "$1" ethtool -S "$2" |
		awk -v k="$3" -v f="$4" '
		{ n = $1; sub(/:$/, "", n) }
		n ~ ("^" k "[0-9]+_" f "$") { s += $2; found = 1 }
		END { print s + 0; exit !found }'
}

# net_link_stat NS DEV FIELD: one ip -s link counter (rx_packets, tx_bytes,
# rx_dropped, rx_missed_errors, ...), from /sys/class/net/DEV/statistics.
net_link_stat() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}

# net_wait_link_stat NS DEV FIELD MIN [SECS]: wait until the ip -s link
# counter FIELD is at least MIN (at most SECS, default 10, scaled): the
# twin of net_wait_estat for /sys/class/net/DEV/statistics.
net_wait_link_stat() {
	wait_until "${5:-10}" _net_link_stat_ge "$1" "$2" "$3" "$4"
}

_net_link_stat_ge() {
	[ "$(net_link_stat "$1" "$2" "$3")" -ge "$4" ]
}

# net_snap NS DEV FILE: ethtool -S and ip -s link counters, as JSON in FILE.
net_snap() {
	net_tool "$1" stats "$2" >"$3"
}

# net_nstat NS COUNTER: a SNMP/netstat counter of the namespace (absolute).
net_nstat() {
	ip netns exec "$1" nstat -asz "$2" | awk -v c="$2" '$1 == c { print $2; f = 1 } END { if (!f) print 0 }'
}

# net_irq_of DEV-qN: the IRQ number /proc/interrupts names so.
net_irq_of() {
	awk -v n="$1" '$NF == n { sub(/:$/, "", $1); print $1; exit }' /proc/interrupts
}

# net_irq_counts IRQ: its per-CPU counts, space separated, in the order of
# the CPU columns of /proc/interrupts.
net_irq_counts() {
	awk -v i="$1:" 'NR == 1 { c = NF } $1 == i { s = $2; for (k = 3; k <= c + 1; k++) s = s " " $k; print s; exit }' /proc/interrupts
}

# net_irq_cpus: the CPU numbers of the /proc/interrupts columns.
net_irq_cpus() {
	head -n 1 /proc/interrupts | sed 's/CPU//g'
}

# net_cpumask N: CPUs 0 to N-1 as a cpumask file (xps_cpus, smp_affinity)
# takes it, for any N: 32-bit hex words, most significant first, comma
# separated (one shift of 1 << N overflows from N = 63 on).
net_cpumask() {
	local n=$1 mask=''
	while [ "$n" -ge 32 ]; do
		mask=ffffffff${mask:+,$mask}
		n=$((n - 32))
	done
	[ "$n" -eq 0 ] || mask=$(printf %x $(((1 << n) - 1)))${mask:+,$mask}
	echo "${mask:-0}"
}

# Counters that count a lost or refused frame, in net_snap's flattened
# names (nettool.py diff): on a clean link none of them may move.
NET_DROP_COUNTERS='^link\.(rx|tx)_(errors|dropped|missed_errors|over_errors|fifo_errors|length_errors|crc_errors|frame_errors|aborted_errors|carrier_errors)$|^ethtool\.(rx[0-9]+_(nobuf|drops|alloc_fail|alloc_backoffs|csum_bad)|tx[0-9]+_drops|tx_timeouts|tx_hangs|queue_resets|rx_stalls|lost_irqs)$'

# The same, once each: ip -s link's totals (which fold in the per-queue and
# device counters), for summing.
NET_LINK_DROPS='^link\.(rx|tx)_(dropped|missed_errors|errors|fifo_errors|over_errors)$'

# net_diff BEFORE AFTER [diff options]: counters that moved, as KTAP
# comments; the status of nettool.py diff.
net_diff() {
	local out rc=0
	out=$(python3 -S "$NETTOOL" diff "$@" 2>&1) || rc=$?
	grep '^nettool:' <<<"$out" | sed 's/^nettool:/#/'
	return "$rc"
}

# net_healthy: neither port counted a TX timeout or hang, a queue reset, an
# RX stall or a lost interrupt (ethtool -S tx_timeouts, tx_hangs,
# queue_resets, rx_stalls, lost_irqs: the service task's findings, which on a working
# device are false alarms) and the kernel logged no NETDEV WATCHDOG. None
# is a WARN, so the harness would not notice them.
net_healthy() {
	local ns dev f v ok=0
	for ns in "$NS_A" "$NS_B"; do
		[ "$ns" = "$NS_A" ] && dev=$DEV_A || dev=$DEV_B
		ip -n "$ns" link show dev "$dev" >/dev/null 2>&1 || continue
		for f in tx_timeouts tx_hangs queue_resets rx_stalls lost_irqs; do
			v=$(net_estat "$ns" "$dev" "$f") || { net_msg "$dev: no $f in ethtool -S"; ok=1; continue; }
			[ "$v" = 0 ] || { net_msg "$dev: $f = $v"; ok=1; }
		done
	done
	if dmesg | grep -q 'NETDEV WATCHDOG'; then
		dmesg | grep 'NETDEV WATCHDOG\|timed out' | head -n 5 | sed 's/^/# /'
		ok=1
	fi
	return "$ok"
}

net_health_test() {
	ktap_test_result "no TX timeout, queue reset, RX stall, lost interrupt or NETDEV WATCHDOG on either port" net_healthy
}

# net_flush_deferred NS: run the NET_RX softirq once on every CPU (a
# loopback ping pinned to it, in NS). TCP hands the skbs it is done with back
# to the CPU that received them (skb_attempt_defer_free()), which frees them
# at its next NET_RX softirq; a CPU with no more traffic sits on them, and
# on their page_pool pages, until then. Waiting for page pools to drain
# without this would wait for that.
net_flush_deferred() {
	local cpu
	for cpu in $(net_irq_cpus); do
		taskset -c "$cpu" ip netns exec "$1" ping -q -c 1 -W 1 127.0.0.1 >/dev/null 2>&1
	done
}

# net_pools_gone NS: no page pool of the namespace is left (10 s for
# deferred release).
net_pools_gone() {
	local i out
	net_flush_deferred "$1"
	for ((i = 0; i < 10 * NET_SCALE; i++)); do
		out=$(net_tool "$1" ynl page-pool-get) || return 1
		grep -q '"dump": \[\]' <<<"$out" && return 0
		sleep 1
	done
	net_msg "page pools left in $1: $out"
	return 1
}

# net_xps_only NS DEV Q QUEUES: every CPU's transmit on DEV goes to TX
# queue Q of its QUEUES (XPS).
net_xps_only() {
	local all i m
	all=$(net_cpumask "$(nproc --all)")
	for ((i = 0; i < $4; i++)); do
		[ "$i" = "$3" ] && m=$all || m=0
		ip netns exec "$1" sh -c "echo $m > /sys/class/net/$2/queues/tx-$i/xps_cpus" ||
			net_bail "cannot set xps_cpus of tx-$i"
	done
}

# net_tx_steered NS DEV Q DST: five pings to DST leave DEV on TX queue Q.
net_tx_steered() {
	local before after
	before=$(net_estat "$1" "$2" "tx${3}_packets")
	ip netns exec "$1" ping -q -c 5 -i 0.1 -W 5 "$4" >/dev/null || return 1
	# Replies came, but a queue counts its frames as it completes them.
	net_wait_estat "$1" "$2" "tx${3}_packets" $((before + 5)) 5
	after=$(net_estat "$1" "$2" "tx${3}_packets")
	net_msg "tx${3}_packets $before -> $after"
	[ $((after - before)) -ge 5 ]
}

# net_udp_burst NS DST [CPU]: UDP datagrams to DST, more than a TX queue
# takes at once (its ring or BQL stops it), without blocking; sent from CPU
# (so from the TX queue XPS gives it) when given.
net_udp_burst() {
	${3:+taskset -c "$3"} ip netns exec "$1" python3 -S -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 8 << 20)  # SO_SNDBUFFORCE
s.setblocking(False)
for _ in range(800):
    try:
        s.sendto(bytes(1000), (sys.argv[1], 9))
    except BlockingIOError:
        break
' "$2"
}

# ---- tracepoints -------------------------------------------------------------
# In-kernel hist triggers count refnic's events (no trace buffer to
# overflow), in a tracefs instance of the test's own: nobody else's
# tracing is touched, and what a killed run leaves goes with the instance.
# The cleanup removes the triggers (last first), then the instance.
NET_TRACE=

# net_trace_init: create the instance; fails when tracefs, refnic's events
# or hist triggers (CONFIG_HIST_TRIGGERS) are missing.
net_trace_init() {
	[ -n "$NET_TRACE" ] && return 0
	[ -e /sys/kernel/tracing/events/refnic/refnic_napi_poll/hist ] || return 1
	mkdir "/sys/kernel/tracing/instances/refnic-test-$$" || return 1
	NET_TRACE=/sys/kernel/tracing/instances/refnic-test-$$
	NET_CLEANUP+=("rmdir '$NET_TRACE'")
}

net_event_dir() { # net_event_dir EVENT: its directory in the instance
	case $1 in
	refnic_hw_*) echo "$NET_TRACE/events/refnic_hw/$1" ;;
	*) echo "$NET_TRACE/events/refnic/$1" ;;
	esac
}

# net_hist_on EVENT SPEC: a hist trigger ("hist:keys=...:vals=..."),
# removed at exit. Appended: opening the trigger file with O_TRUNC removes
# every trigger of the event.
net_hist_on() {
	local dir
	dir=$(net_event_dir "$1")
	echo "$2" >>"$dir/trigger" || return 1
	NET_CLEANUP+=("echo '!$2' >>'$dir/trigger'")
}

# net_hist_sum EVENT VAL [KEY=VALUE ...]: the sum of VAL (hitcount or a
# value field) over the entries of EVENT's histograms whose keys match,
# read live, or from $NET_HIST_DIR/EVENT when a test set NET_HIST_DIR to a
# copy. With "filtered" among the keys, only the histogram of the trigger
# with a filter. A histogram that lacks one of the keys asked for counts
# nothing; KEY=* asks only that the key be there (which histogram of an
# event to read). Keys print as "{ bus: 1, queue: 0 }": numbers, not the
# names TP_printk gives them. At most 3 keys a histogram.
net_hist_sum() {
	local event=$1 val=$2 file
	shift 2
	file=${NET_HIST_DIR:+$NET_HIST_DIR/$event}
	[ -n "$file" ] || file=$(net_event_dir "$event")/hist
	awk -v val="$val" -v want="$*" '
		BEGIN { n = split(want, w, " ") }
		/^# trigger info:/ { filt = ($0 ~ / if /) ? 1 : 0; next }
		/^\{/ {
			line = $0
			keys = substr(line, 2, index(line, "}") - 2)
			rest = substr(line, index(line, "}") + 1)
			ok = 1
			for (i = 1; i <= n; i++) {
				if (w[i] == "filtered") { if (!filt) ok = 0; continue }
				split(w[i], kv, "=")
				if (kv[2] == "*") {
					if (keys !~ ("(^|,) *" kv[1] ": ")) ok = 0
				} else if (keys !~ ("(^|,) *" kv[1] ": *" kv[2] " *(,|$)")) {
					ok = 0
				}
			}
			if (!ok) next
			if (want !~ /filtered/ && filt) next
			m = split(rest, f, /[ :]+/)
			for (i = 1; i < m; i++)
				if (f[i] == val) { s += f[i + 1]; break }
		}
		END { print s + 0 }' "$file"
}
