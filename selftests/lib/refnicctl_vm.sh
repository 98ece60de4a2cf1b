#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# refnicctl against the live module: dev add/show/del (also across
# namespaces), link set/show, stats, fault set/show/clear, monitor, JSON
# output, and the exit statuses and one-line "refnicctl: " errors a script
# relies on. Skipped while the kernel has no refnic generic netlink family.
set -uo pipefail

# shellcheck source=/dev/null
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

ctl=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
[ "$(id -u)" -eq 0 ] || { ktap_skip_all "needs root"; exit "$KSFT_SKIP"; }
[ -x "$ctl" ] || { ktap_skip_all "$ctl not built (make lib)"; exit "$KSFT_SKIP"; }

loaded=0
tmp=$(mktemp -d /tmp/refnicctl.XXXXXX)
ns=refnicctl-ns$$
# shellcheck disable=SC2317 # only called from the EXIT trap
cleanup() {
	[ -n "${monitor_pid:-}" ] && kill "$monitor_pid" 2>/dev/null
	ip link del rct0 2>/dev/null
	ip link del rct2 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	ip netns del "$ns-2" 2>/dev/null
	[ -n "${plain_pid:-}" ] && kill "$plain_pid" 2>/dev/null
	rm -rf "$tmp"
	if [ "$loaded" -eq 1 ]; then
		refnic_unload_wait
	fi
}
trap cleanup EXIT
if ! refnic_loaded; then
	refnic_load || { echo "not ok 1 insmod $REFNIC_KO"; exit "$KSFT_FAIL"; }
	loaded=1
fi
if ! "$ctl" dev show >/dev/null 2>"$tmp/err"; then
	if grep -q 'not registered' "$tmp/err"; then
		ktap_skip_all "the refnic generic netlink family is not registered"
		exit "$KSFT_SKIP"
	fi
fi

ktap_print_header
ktap_set_plan 15

json() { # json EXPR < JSON: evaluate a python expression over the parsed value `v`
	python3 -c "import json, sys; v = json.load(sys.stdin); print($1)"
}
check() { # check NAME COMMAND...: one KTAP result
	local name=$1
	shift
	if out=$("$@" 2>&1); then ktap_test_pass "$name"; else ktap_test_fail "$name: $out"; fi
}

# Waits are bounded at 30 s, 6x that on the debug kernel (as lib_net.sh).
wait_tenths=300
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && wait_tenths=1800
# listening PID: wait until the monitor PID blocks in recvfrom (45 on
# x86_64), which it first does after joining the group: the family lookup
# before it never blocks, its answer is queued by the send.
listening() {
	local i
	[ "$(uname -m)" = x86_64 ] || { echo "# not x86_64: not waiting for the monitor"; return 0; }
	for ((i = 0; i < wait_tenths; i++)); do
		[ -d "/proc/$1" ] || { echo "# refnicctl monitor (pid $1) exited"; return 1; }
		[ "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" = 45 ] && return 0
		sleep 0.1
	done
	echo "# refnicctl monitor (pid $1) is not listening after $((wait_tenths / 10)) s"
	return 1
}
# seen PATTERN FILE: wait until FILE has a line matching PATTERN.
seen() {
	local i
	for ((i = 0; i < wait_tenths; i++)); do
		grep -q "$1" "$2" && return 0
		sleep 0.1
	done
	return 1
}

"$ctl" -j monitor >"$tmp/events" 2>&1 &
monitor_pid=$!
listening "$monitor_pid"

add_ok() {
	"$ctl" -j dev add name rct2 peer rct3 queues 2 rx-ring 256 tx-ring 4k >"$tmp/add" &&
		[ "$(json 'v["ifname"], v["peer_ifname"], v["queues"], v["tx_ring"]' <"$tmp/add")" = "rct2 rct3 2 4096" ]
}
check "dev add -j: name, peer, queues, rings" add_ok

show_ok() {
	"$ctl" -j dev show >"$tmp/show" &&
		json '" ".join(sorted(d.get("ifname", "") for d in v if d.get("ifname", "").startswith("rct")))' <"$tmp/show" |
		grep -qx "rct2 rct3" &&
		"$ctl" dev show rct2 | grep -q '^[0-9]*: rct2: peer rct3 ' &&
		"$ctl" d sh rct2 | grep -q '^[0-9]*: rct2: peer rct3 ' &&
		[ "$("$ctl" -j dev show rct2 | json 'len(v), v[0]["ifname"]')" = "1 rct2" ]
}
check "dev show lists both ports (also abbreviated: d sh)" show_ok

link_ok() {
	"$ctl" link set rct2 rate 25gbit latency 20us loss 0.1% &&
		"$ctl" link set rct2 carrier off &&
		"$ctl" link show rct2 | grep -q ': carrier off rate 25gbit latency 20us loss 0.1%$' &&
		[ "$("$ctl" -j link show rct2 | json 'v[0]["link"]["rate_bps"], v[0]["link"]["latency_ns"], v[0]["link"]["loss_ppm"]')" = "25000000000 20000 1000" ]
}
check "link set changes only what is given" link_ok

stats_ok() {
	"$ctl" -j stats show rct2 >"$tmp/stats" &&
		[ "$(json '" ".join(sorted(q["type"] + str(q["queue"]) for q in v[0]["queue_stats"]))' <"$tmp/stats")" = "rx0 rx1 tx0 tx1" ] &&
		"$ctl" stats show rct2 | grep -q '^queue  type' &&
		"$ctl" -s stats show rct2 | grep -q 'irq-moderated'
}
check "stats: a row per queue, every counter with -s" stats_ok

fault_ok() {
	"$ctl" fault set rct2 fail-alloc queue 1 rate 10% &&
		"$ctl" fault show rct2 | grep -q ': queue 1 fail-alloc rate 10% injected ' &&
		"$ctl" fault clear rct2 fail-alloc queue 1 &&
		! "$ctl" fault show rct2 | grep -q 'fail-alloc rate'
}
check "fault set, show, clear" fault_ok

errors_ok() {
	local err status
	err=$("$ctl" link set refnic-nodev0 carrier on 2>&1 >/dev/null)
	status=$?
	[ "$status" -eq 1 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == "refnicctl: "* ]] || return 1
	err=$("$ctl" dev show lo 2>&1 >/dev/null)
	status=$?
	[ "$status" -eq 1 ] && [[ $err == "refnicctl: "* ]] || return 1
	"$ctl" dev add queues 99 2>/dev/null
	[ $? -eq 2 ]
}
check "exit statuses 1 and 2, one-line errors" errors_ok

netns_ok() {
	ip netns add "$ns" &&
		"$ctl" -j dev add name rct0 peer rct1 peer-netns "$ns" >"$tmp/ns" &&
		json 'v["peer_netnsid"]' <"$tmp/ns" >/dev/null &&
		ip netns exec "$ns" "$ctl" dev show rct1 | grep -q ': rct1: peer rct0' &&
		"$ctl" dev del rct0 && ! ip netns exec "$ns" ip link show rct1 2>/dev/null
}
check "dev add across namespaces, dev del removes both" netns_ok

help_ok() {
	local obj
	for obj in dev link stats fault monitor; do
		"$ctl" "$obj" --help | grep -q "refnicctl.* $obj" || { echo "$obj --help"; return 1; }
	done
	"$ctl" --help | grep -q '^Usage: refnicctl' &&
		[ "$("$ctl" -V)" = "refnicctl $(cat "$REFNIC_REPO/kmod/VERSION")" ]
}
check "--help on every object, -V is the project's version" help_ok

# Every listing without DEV: all ports of the namespace.
lists_ok() {
	[ "$("$ctl" -j stats | json 'sorted(s.get("ifname", "") for s in v if s.get("ifname", "").startswith("rct"))')" = "['rct2', 'rct3']" ] &&
		[ "$("$ctl" -j link show | json 'sorted(d.get("ifname", "") for d in v if d.get("ifname", "").startswith("rct"))')" = "['rct2', 'rct3']" ] &&
		"$ctl" fault set rct3 drop-completion queue 1 count 3 &&
		"$ctl" fault show | grep -q 'rct3: queue 1 drop-completion count 3' &&
		[ "$("$ctl" -j fault show | json 'any(f["type"] == "drop-completion" and f["count"] == 3 for f in v)')" = True ] &&
		"$ctl" fault clear rct3 drop-completion queue 1
}
check "stats, link show and fault show without DEV list every port" lists_ok

# dev add netns NS: port 0 goes there too; names are per namespace.
netns_both_ok() {
	ip netns add "$ns-2" &&
		"$ctl" -j dev add name rct4 netns "$ns-2" peer rct5 peer-netns "$ns-2" >"$tmp/ns2" &&
		ip netns exec "$ns-2" "$ctl" dev show rct4 | grep -q ': rct4: peer rct5 ' &&
		! ip link show rct4 2>/dev/null &&
		ip netns exec "$ns-2" "$ctl" dev del rct5 &&
		ip netns del "$ns-2"
}
check "dev add netns NS peer-netns NS puts both ports there" netns_both_ok

# Without CAP_NET_ADMIN: reads work, changes fail with EPERM, exit 1.
unpriv_ok() {
	local err status
	command -v setpriv >/dev/null || { echo "no setpriv"; return 1; }
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$ctl" dev show rct2 >/dev/null || return 1
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$ctl" link set rct2 latency 1ms 2>&1)
	status=$?
	[ "$status" -eq 1 ] && [[ $err == "refnicctl: "*"ermi"* ]] || { echo "status $status: $err"; return 1; }
}
check "unprivileged: dev show works, link set fails with EPERM (exit 1)" unpriv_ok

# Header split through ethtool netlink, shown by dev show.
hds_ok() {
	local err status
	"$ctl" dev show rct2 | grep -q ' tcp-data-split off$' || return 1
	[ "$("$ctl" -j dev show rct2 | json 'v[0]["tcp_data_split"]')" = off ] || return 1
	[ -z "$("$ctl" dev set rct2 tcp-data-split on 2>&1)" ] || return 1
	"$ctl" dev show rct2 | grep -q ' tcp-data-split on$' || return 1
	"$ctl" dev show rct3 | grep -q ' tcp-data-split off$' || return 1
	"$ctl" dev set "$(cat /sys/class/net/rct2/ifindex)" tcp-data-split auto || return 1
	"$ctl" dev show rct2 | grep -q ' tcp-data-split off$' || return 1
	err=$("$ctl" dev set rct2 tcp-data-split maybe 2>&1)
	status=$?
	[ "$status" -eq 2 ] && [[ $err == *'invalid tcp-data-split "maybe"'* ]] || { echo "status $status: $err"; return 1; }
	err=$("$ctl" dev set refnic-nodev0 tcp-data-split on 2>&1)
	status=$?
	[ "$status" -eq 1 ] && [ "$err" = 'refnicctl: no device "refnic-nodev0": No such device' ] ||
		{ echo "status $status: $err"; return 1; }
}
check "dev set tcp-data-split on|auto, dev show and -j report it, errors" hds_ok

"$ctl" monitor >"$tmp/plain" 2>&1 &
plain_pid=$!
listening "$plain_pid"
"$ctl" dev del rct2
seen 'dev-deleted [0-9]*: rct2:' "$tmp/plain"
kill "$plain_pid" 2>/dev/null
wait "$plain_pid" 2>/dev/null
plain_ok() { grep -q 'dev-deleted.*rct2' "$tmp/plain" || { cat "$tmp/plain"; return 1; }; }
check "monitor (text): one line per event" plain_ok

seen '"event":"dev-deleted".*"ifname":"rct2"\|"ifname":"rct2".*"event":"dev-deleted"' "$tmp/events"
kill "$monitor_pid" 2>/dev/null
wait "$monitor_pid" 2>/dev/null
monitor_pid=
monitor_ok() {
	python3 - "$tmp/events" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
kinds = {e["event"] for e in events
         if e.get("dev", {}).get("ifname") == "rct2" or e.get("fault", {}).get("ifname") == "rct2"}
missing = {"dev-added", "link-changed", "fault", "dev-deleted"} - kinds
sys.exit(f"missing {sorted(missing)} in {len(events)} events" if missing else 0)
PY
}
check "monitor -j: dev-added, link-changed, fault, dev-deleted" monitor_ok

del_ok() { ! ip link show rct2 2>/dev/null && ! ip link show rct3 2>/dev/null; }
check "dev del removes the pair" del_ok

ktap_finished
