#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Choosing a kernel (scripts/kernel.sh, the Makefile's KERNEL=): the two
# supported series are listed and accepted; any other is refused in one
# line that names them, by kernel.sh (exit 2) and by make before it builds
# or boots anything. Reads nothing of the build area.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kernel=$repo/scripts/kernel.sh
fail=0
check() { # check NAME: the last command's status was 0
	local rc=$?
	if [ "$rc" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}

out=$("$kernel" --list)
[ "$out" = "$(printf '6.12\n7.3')" ]
check "--list: 6.12 and 7.3 ($(tr '\n' ' ' <<<"$out"))"
for k in 6.12 7.3; do
	out=$("$kernel" --check "$k" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [ -z "$out" ]
	check "--check $k: accepted, silently ($rc: $out)"
done
for k in 6.1 7.4 5.10 x; do
	out=$("$kernel" --check "$k" 2>&1)
	rc=$?
	[ "$rc" = 2 ] && [ "$out" = "kernel.sh: unsupported kernel '$k'; supported: 6.12 7.3" ]
	check "--check $k: refused in one line naming the supported ones, exit 2 ($rc: $out)"
done
# (A make of its own: not one ctest or make check runs it under.)
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$repo" check KERNEL=5.10 2>&1)
rc=$?
[ "$rc" != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
	grep -q "kernel.sh: unsupported kernel '5.10'; supported: 6.12 7.3" <<<"$out"
check "make check KERNEL=5.10: refused before anything runs, one line ($rc: $out)"
echo "# $([ "$fail" = 0 ] && echo all passed || echo some failed)"
exit "$fail"
