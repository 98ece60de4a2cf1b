#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# refnicctl's exit statuses and error lines as a script sees them, on any machine: usage errors
# are 2 before anything is done, help and version are 0, and a runtime failure (no refnic family
# on the build host, or no such device) is 1 with one "refnicctl: " line on stderr.
# Usage: exit-status.sh REFNICCTL
set -u
refnicctl=$1
failures=0

expect() { # expect STATUS STDERR-PATTERN ARGS...
	want=$1 pattern=$2
	shift 2
	err=$("$refnicctl" "$@" 2>&1 >/dev/null)
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: refnicctl $*: exit $got, expected $want ($err)"
		failures=$((failures + 1))
	elif [ -n "$pattern" ] && ! printf '%s\n' "$err" | grep -q -- "$pattern"; then
		echo "FAIL: refnicctl $*: stderr '$err' does not match '$pattern'"
		failures=$((failures + 1))
	elif [ -n "$err" ] && [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
		echo "FAIL: refnicctl $*: more than one line on stderr: $err"
		failures=$((failures + 1))
	fi
}

expect 0 "" --help
expect 0 "" dev --help
expect 0 "" link set r0 --help
expect 0 "" fault help
expect 0 "" help fault set
expect 0 "" fault set help
expect 0 "" -V
expect 2 "^refnicctl: no command given; see 'refnicctl --help'\$"
expect 2 "^refnicctl: unknown object \"frob\": expected dev, link, bus, stats, fault, monitor, top, ring or help; see 'refnicctl --help'\$" frob
expect 2 "^refnicctl: invalid queues \"0\": expected a number from 1 to 16; see 'refnicctl dev --help'\$" dev add queues 0
expect 2 "^refnicctl: link set needs at least one of rate, latency, loss, carrier; see 'refnicctl link --help'\$" link set r0
expect 2 "^refnicctl: unknown option \"-x\"; see 'refnicctl --help'\$" -x dev show
expect 2 "^refnicctl: fault set needs either rate R% or count N; see 'refnicctl fault --help'\$" \
	fault set r0 stall-txq queue 0
expect 0 "" dev set r0 tcp-data-split on --help
expect 2 "^refnicctl: invalid tcp-data-split \"yes\": expected on, off or auto; see 'refnicctl dev --help'\$" \
	dev set r0 tcp-data-split yes
expect 2 "^refnicctl: \"tcp-data-split\" needs a value: on, off or auto; see 'refnicctl dev --help'\$" \
	dev set r0 tcp-data-split
expect 2 "^refnicctl: dev set needs tcp-data-split on|off|auto; see 'refnicctl dev --help'\$" dev set r0
expect 2 "^refnicctl: dev set needs a device; see 'refnicctl dev --help'\$" dev set
expect 2 "^refnicctl: unknown keyword \"hds\" for dev set: expected tcp-data-split; see 'refnicctl dev --help'\$" \
	dev set r0 hds on
expect 2 "^refnicctl: \"tcp-data-split\" given twice; see 'refnicctl dev --help'\$" \
	dev set r0 tcp-data-split on tcp-data-split off
expect 0 "" bus set r0 gen 4 --help
expect 2 "^refnicctl: bus set needs at least one of read-ns, gen, lanes, node, remote-ns; see 'refnicctl bus --help'\$" bus set r0
expect 2 "^refnicctl: invalid lanes \"3\": expected 1, 2, 4, 8 or 16; see 'refnicctl bus --help'\$" \
	bus set r0 lanes 3
expect 2 "^refnicctl: invalid node \"-1\": expected a NUMA node number or none; see 'refnicctl bus --help'\$" \
	bus set r0 node -1
# Abbreviations, and the 0.2.0 spellings that now name the new one.
expect 2 "^refnicctl: ambiguous verb \"s\" for fault: set, show; see 'refnicctl fault --help'\$" fault s
expect 2 "^refnicctl: ambiguous keyword \"l\" for link set: latency, loss; see 'refnicctl link --help'\$" \
	link set r0 l 1ms
expect 2 "^refnicctl: \"stats DEV\" is now \"stats show DEV\"; see 'refnicctl stats --help'\$" stats r0
expect 2 "^refnicctl: \"fault DEV set\" is now \"fault set DEV\"; see 'refnicctl fault --help'\$" \
	fault r0 set stall-txq queue 0 count 1
expect 2 "^refnicctl: \"fault DEV show\" is now \"fault show DEV\"; see 'refnicctl fault --help'\$" fault r0

# Runtime errors: without refnic.ko (the build host) the family is missing; with it, the
# device is. Either way: status 1 and one line.
expect 1 '^refnicctl: ' dev show refnic-nodev0
expect 1 '^refnicctl: ' d sh refnic-nodev0
# Without the module the line names the fix.
if ! grep -q '^refnic ' /proc/modules 2>/dev/null; then
	expect 1 '^refnicctl: the refnic generic netlink family is not registered; load the refnic module: modprobe refnic (make dkms-install installs it)' \
		dev show
fi
expect 1 '^refnicctl: ' link set refnic-nodev0 carrier off
expect 1 '^refnicctl: ' bus set refnic-nodev0 gen 4 lanes 8
expect 1 '^refnicctl: ' bus show refnic-nodev0
# dev set goes through ethtool netlink, which every host has: only the device is missing.
expect 1 '^refnicctl: no device "refnic-nodev0": No such device$' dev set refnic-nodev0 tcp-data-split on

"$refnicctl" --version | grep -q '^refnicctl [0-9]' || {
	echo "FAIL: --version"
	failures=$((failures + 1))
}
[ "$failures" -eq 0 ] && echo "refnicctl exit statuses: all as documented"
exit "$failures"
