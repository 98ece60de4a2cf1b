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
expect 0 "" -V
expect 2 '^refnicctl: no command given' 
expect 2 '^refnicctl: unknown object "frob"' frob
expect 2 '^refnicctl: invalid queues 0: 1 to 16 (see refnicctl dev --help)$' dev add queues 0
expect 2 '^refnicctl: link set needs at least one' link set r0
expect 2 '^refnicctl: unknown option "-x"' -x dev show
expect 2 '^refnicctl: fault set needs either rate' fault r0 set stall-txq queue 0
expect 0 "" dev set r0 tcp-data-split on --help
expect 2 '^refnicctl: invalid tcp-data-split "yes": expected on, off or auto (see refnicctl dev --help)$' \
	dev set r0 tcp-data-split yes
expect 2 '^refnicctl: "tcp-data-split" needs a value: on, off or auto (see refnicctl dev --help)$' \
	dev set r0 tcp-data-split
expect 2 '^refnicctl: dev set needs tcp-data-split on|off|auto (see refnicctl dev --help)$' dev set r0
expect 2 '^refnicctl: dev set needs a device' dev set
expect 2 '^refnicctl: unknown "hds" for dev set' dev set r0 hds on
expect 2 '^refnicctl: "tcp-data-split" given twice' dev set r0 tcp-data-split on tcp-data-split off

# Runtime errors: without refnic.ko (the build host) the family is missing; with it, the
# device is. Either way: status 1 and one line.
expect 1 '^refnicctl: ' dev show refnic-nodev0
expect 1 '^refnicctl: ' link set refnic-nodev0 carrier off
# dev set goes through ethtool netlink, which every host has: only the device is missing.
expect 1 '^refnicctl: no device "refnic-nodev0": No such device$' dev set refnic-nodev0 tcp-data-split on

"$refnicctl" --version | grep -q '^refnicctl [0-9]' || {
	echo "FAIL: --version"
	failures=$((failures + 1))
}
[ "$failures" -eq 0 ] && echo "refnicctl exit statuses: all as documented"
exit "$failures"
