#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# refnic-devmem's exit statuses and error lines as a script sees them, on any machine: usage
# errors are 2 before anything is done, help and version are 0, and a setup that cannot work is
# 1 with one "refnic-devmem: " line on stderr: no such device; and on lo, no /dev/udmabuf on a
# kernel without the udmabuf driver, else lo having no parent device to attach a dmabuf to
# (refused before bind-rx, which WARNs on such a device in Linux 6.12).
# Usage: exit-status.sh REFNIC_DEVMEM
set -u
tool=$1
failures=0

expect() { # expect STATUS STDERR-PATTERN ARGS...
	want=$1 pattern=$2
	shift 2
	err=$(timeout 30 "$tool" "$@" 2>&1 >/dev/null)
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: refnic-devmem $*: exit $got, expected $want ($err)"
		failures=$((failures + 1))
	elif [ -n "$pattern" ] && ! printf '%s\n' "$err" | grep -q -- "$pattern"; then
		echo "FAIL: refnic-devmem $*: stderr '$err' does not match '$pattern'"
		failures=$((failures + 1))
	elif [ -n "$err" ] && [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
		echo "FAIL: refnic-devmem $*: more than one line on stderr: $err"
		failures=$((failures + 1))
	else
		echo "ok: refnic-devmem $* -> $got${err:+: $err}"
	fi
}

expect 0 "" --help
expect 0 "" rx --help
expect 0 "" -V
expect 0 "" help rx
expect 2 "^refnic-devmem: no command given; see 'refnic-devmem --help'\$"
expect 2 "^refnic-devmem: unknown command \"send\": expected rx, zcrx or tx; see 'refnic-devmem --help'\$" send
expect 2 "^refnic-devmem: rx needs a port (-p PORT); see 'refnic-devmem --help'\$" rx -f lo -t 0
expect 2 "^refnic-devmem: invalid release mode \"lazy\": expected per-frag or batched; see 'refnic-devmem --help'\$" \
	rx -f lo -t 0 -p 5201 --release lazy
expect 2 "^refnic-devmem: option \"--start-queue\" given twice; see 'refnic-devmem --help'\$" \
	rx -f lo -t 0 -t 1 -p 5201
expect 2 "^refnic-devmem: option \"-i\" is now \"-f\" (ncdevmem's letter); see 'refnic-devmem --help'\$" \
	rx -i lo -q 0 -p 5201
expect 2 "^refnic-devmem: option \"-c\" is not rx's (tx takes it); see 'refnic-devmem --help'\$" \
	rx -f lo -t 0 -p 5201 -c 10.0.0.1
expect 2 "^refnic-devmem: tx needs the receiver's address (-s ADDR); see 'refnic-devmem --help'\$" \
	tx -f lo -p 5201
expect 2 "^refnic-devmem: ambiguous option \"--s\": --start-queue, --server; see 'refnic-devmem --help'\$" \
	rx --s 1

expect 1 '^refnic-devmem: interface refnic-nodev0: No such device$' rx -f refnic-nodev0 -t 0 -p 5201
expect 1 '^refnic-devmem: .*\(/dev/udmabuf\|lo has no parent device\)' rx -f lo -t 0 -p 5201

"$tool" --help | grep -q 'refnic-ethtool -G IFNAME tcp-data-split on' || {
	echo "FAIL: --help does not say to turn header split on"
	failures=$((failures + 1))
}
"$tool" --version | grep -q '^refnic-devmem [0-9]' || {
	echo "FAIL: --version"
	failures=$((failures + 1))
}
[ "$failures" -eq 0 ] && echo "refnic-devmem exit statuses: all as documented"
exit "$failures"
