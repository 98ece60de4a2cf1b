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
expect 2 '^refnic-devmem: no command given (see refnic-devmem --help)$'
expect 2 '^refnic-devmem: unknown command "tx"' tx
expect 2 '^refnic-devmem: rx needs a port (-p PORT)' rx -i lo -q 0
expect 2 '^refnic-devmem: invalid release mode "lazy"' rx -i lo -q 0 -p 5201 --release lazy
expect 2 '^refnic-devmem: queue 0 given twice' rx -i lo -q 0 -q 0 -p 5201

expect 1 '^refnic-devmem: interface refnic-nodev0: No such device$' rx -i refnic-nodev0 -q 0 -p 5201
expect 1 '^refnic-devmem: .*\(/dev/udmabuf\|lo has no parent device\)' rx -i lo -q 0 -p 5201

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
