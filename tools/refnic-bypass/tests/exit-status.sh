#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# refnic-bypass's exit statuses and error lines as a script sees them, on any machine: usage
# errors are 2 with the message and the usage on stderr before anything is done, help and
# version are 0, and a setup that cannot work is 1 with one "refnic-bypass: " line on stderr: no
# such device; and on lo, no /dev/refnic without the module, else the kernel refusing to bind a
# queue of a device that is not a refnic port.
# Usage: exit-status.sh REFNIC_BYPASS
set -u
tool=$1
failures=0

expect() { # expect STATUS STDERR-PATTERN ARGS...
	want=$1 pattern=$2
	shift 2
	err=$(timeout 30 "$tool" "$@" 2>&1 >/dev/null)
	got=$?
	first=$(printf '%s\n' "$err" | head -n 1)
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: refnic-bypass $*: exit $got, expected $want ($err)"
		failures=$((failures + 1))
	elif [ -n "$pattern" ] && ! printf '%s\n' "$first" | grep -q -- "$pattern"; then
		echo "FAIL: refnic-bypass $*: stderr '$first' does not match '$pattern'"
		failures=$((failures + 1))
	elif [ "$want" -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
		echo "FAIL: refnic-bypass $*: more than one line on stderr: $err"
		failures=$((failures + 1))
	else
		echo "ok: refnic-bypass $* -> $got${first:+: $first}"
	fi
}

expect 0 "" --help
expect 0 "" rx -i r0 -q 0 --help
expect 0 "" help tx
expect 0 "" -V
expect 2 "^refnic-bypass: no command given; see 'refnic-bypass --help'\$"
expect 2 "^refnic-bypass: unknown command \"listen\": expected rx, tx or echo; see 'refnic-bypass --help'\$" listen
expect 2 "^refnic-bypass: rx needs a device (-i DEV); see 'refnic-bypass --help'\$" rx
expect 2 "^refnic-bypass: tx needs --dst-mac MAC; see 'refnic-bypass --help'\$" tx -i lo -q 0
expect 2 "^refnic-bypass: --verify is an option of rx, not echo; see 'refnic-bypass --help'\$" \
	echo -i lo -q 0 --verify
expect 2 "^refnic-bypass: invalid batch \"0\": expected a number from 1 to 4096; see 'refnic-bypass --help'\$" \
	rx -i lo -q 0 --batch 0
expect 2 "^refnic-bypass: unexpected \"lo\": the device and queue are options now (rx -i lo -q 0); see 'refnic-bypass --help'\$" \
	rx lo 0
expect 2 "^refnic-bypass: option \"--count\" given twice; see 'refnic-bypass --help'\$" \
	rx -i lo -q 0 -c 1 --count 2

expect 1 '^refnic-bypass: interface refnic-nodev0: No such device$' rx -i refnic-nodev0 -q 0
expect 1 '^refnic-bypass: \(opening /dev/refnic: No such file or directory; load the refnic module: modprobe refnic (make dkms-install installs it)\|bind queue 0 of ifindex 1 (lo): \)' \
	rx -i lo -q 0 -Q -c 1

"$tool" --help | grep -q 'payload byte 8 + i' || {
	echo "FAIL: --help does not describe the payload pattern"
	failures=$((failures + 1))
}
"$tool" --version | grep -q '^refnic-bypass [0-9]' || {
	echo "FAIL: --version"
	failures=$((failures + 1))
}
[ "$failures" -eq 0 ] && echo "refnic-bypass exit statuses: all as documented"
exit "$failures"
