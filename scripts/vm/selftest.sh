#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SC2016: the single-quoted $... are meant for the guest shell.
# SC2015: "A && ok || bad" is fine, ok never fails.
# shellcheck disable=SC2016,SC2015
# Self-test of the refnic test VM (scripts/vm/vm.sh): boots the VM ~20 times
# (about 1.5 minutes under TCG) and checks the interface contract: exit
# status propagation, exact argv/stdout/stderr, --env/--setup/--out/--timeout,
# 124/125/126/141, modules, namespaces, /dev/fd, python3, the shell mode.
# Usage: scripts/vm/selftest.sh [extra vm.sh options, e.g. --kernel K --modules M]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
cd "$repo"
vm=("$here/vm.sh" "$@")
mkdir -p "${REFNIC_BUILD:-$repo/build}/vm"
tmp=$(mktemp -d "${REFNIC_BUILD:-$repo/build}/vm/selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fails=0
ok() { echo "ok   $1"; }
bad() {
	echo "FAIL $1${2:+: $2}"
	fails=$((fails + 1))
}
# check NAME EXPECTED_STATUS EXPECTED_STDOUT -- vm.sh args...
check() {
	local name=$1 want_rc=$2 want_out=$3 rc=0 got
	shift 4
	got=$("${vm[@]}" "$@" 2>"$tmp/err") || rc=$?
	if [ "$rc" != "$want_rc" ]; then
		bad "$name" "exit $rc, wanted $want_rc; stderr: $(tail -n 5 "$tmp/err")"
	elif [ "$want_out" != '*' ] && [ "$got" != "$want_out" ]; then
		bad "$name" "stdout '$got', wanted '$want_out'"
	else
		ok "$name"
	fi
}

start=$EPOCHREALTIME
check "run true" 0 "" -- run -- true
echo "     (round trip $(((${EPOCHREALTIME/./} - ${start/./}) / 1000)) ms)"
want='*'
[ $# -gt 0 ] || want=$("$repo/scripts/kernel.sh" --get KVER)
check "uname -r" 0 "$want" -- run -- uname -r
check "exit status" 3 "" -- run -- sh -c 'exit 3'
check "argv exact" 0 "[a b][it's][\"q\"][\$HOME][][x
y][*][A=B]" -- run -- printf '[%s]' 'a b' "it's" '"q"' '$HOME' '' 'x
y' '*' 'A=B'
check "env" 0 "1|bar baz|it's|/root|$repo" -- --env 'FOO=bar baz' --env "Q=it's" run -- \
	sh -c 'echo "$REFNIC_VM|$FOO|$Q|$HOME|$PWD"'
check "setup ok" 0 "1" -- --setup 'echo s1' --setup 'echo s2 >&2; modprobe veth' run -- \
	sh -c 'lsmod | grep -c "^veth "'
[ "$(tr '\n' ' ' <"$tmp/err")" = "s1 s2 " ] && ok "setup output on stderr" || bad "setup output on stderr" "$(cat "$tmp/err")"
check "setup fails" 126 "" -- --setup 'exit 4' run -- echo never
grep -q 'setup command #1 failed' "$tmp/err" && ok "setup failure reported" || bad "setup failure reported"
check "command not found" 127 "" -- run -- no-such-command-xyz

# stdout/stderr separate and byte-exact
head -c 3000000 /dev/urandom >"$tmp/blob"
rc=0
"${vm[@]}" run -- sh -c "cat '$tmp/blob'; cat '$tmp/blob' >&2" >"$tmp/o" 2>"$tmp/e" || rc=$?
if [ "$rc" = 0 ] && cmp -s "$tmp/blob" "$tmp/o" && cmp -s "$tmp/blob" "$tmp/e"; then
	ok "stdout/stderr byte-exact"
else
	bad "stdout/stderr byte-exact" "rc=$rc"
fi
rc=0
"${vm[@]}" run -- sh -c 'echo o1; echo e1 >&2; sleep 0.2; echo o2' >"$tmp/both" 2>&1 || rc=$?
[ "$rc" = 0 ] && [ "$(sort "$tmp/both" | tr '\n' ' ')" = "e1 o1 o2 " ] && ok "2>&1 into a file" ||
	bad "2>&1 into a file" "$(cat "$tmp/both")"

check "reopen /dev/stdout, lingering daemon" 0 "a
b" -- run -- bash -c \
	'echo a >/dev/stdout; echo b | tee /dev/stderr; (sleep 100 &)'
grep -qx b "$tmp/err" && ok "tee /dev/stderr" || bad "tee /dev/stderr" "$(cat "$tmp/err")"

# --out: writable, at the same path, also below /tmp (a tmpfs in the guest)
mkdir -p "$tmp/out"
check "--out write" 0 "" -- --out "$tmp/out" run -- sh -c 'echo hi >"$REFNIC_OUT/f" && [ "$REFNIC_OUT" = "'"$tmp/out"'" ]'
[ "$(cat "$tmp/out/f" 2>/dev/null)" = hi ] && [ -s "$tmp/out/console.log" ] && ok "--out result + console.log" ||
	bad "--out result + console.log"
tout=$(mktemp -d /tmp/refnic-vm-selftest.XXXXXX)
check "--out below /tmp" 0 "" -- --out "$tout" run -- sh -c 'echo t >"$REFNIC_OUT/f"'
[ "$(cat "$tout/f" 2>/dev/null)" = t ] && ok "--out below /tmp result" || bad "--out below /tmp result"
rm -rf "$tout"

check "veth + autoload + netns + /dev/fd + python3" 0 "hi 1" -- run -- bash -c '
	set -e
	modprobe veth
	ip link add vsa type veth peer name vsb
	ip link add dm0 type dummy      # autoloaded by the kernel via modprobe
	ip netns add x
	ip link set vsb netns x
	ip -n x link show vsb >/dev/null
	unshare -U -r true              # user namespaces (not a chroot)
	[ "$(hostname)" = refnic-vm ] && ip link show lo | grep -q UP
	[ -w /tmp ] && [ -w /run ] && [ -w /root ] && [ -w /dev/shm ] && ! touch /usr/x 2>/dev/null
	[ -d "/lib/modules/$(uname -r)/kernel" ] && [ -e /sys/kernel/tracing/trace ]
	[ -e /sys/fs/cgroup/cgroup.controllers ] && [ -d /sys/kernel/debug ] && [ -d /sys/fs/bpf ]
	echo -n "$(cat <(echo hi)) "
	python3 -c "print(1)"'

set +e
"${vm[@]}" --timeout 60 run -- yes 2>"$tmp/err" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 141 ] && ok "broken pipe" || bad "broken pipe" "exit $rc, wanted 141"
check "kernel panic" 125 "" -- run -- sh -c 'echo c >/proc/sysrq-trigger'
grep -q 'Kernel panic' "$tmp/err" && ok "panic console tail" || bad "panic console tail"
check "timeout" 124 "" -- --timeout 15 run -- sleep 1000

# A working directory below /tmp (where CI may clone) stays visible, although
# the guest has a fresh tmpfs on /tmp.
mkdir -p "/tmp/refnic-vm-selftest.$$"
echo visible >"/tmp/refnic-vm-selftest.$$/probe"
got=$(cd "/tmp/refnic-vm-selftest.$$" && "${vm[@]}" run -- cat probe 2>"$tmp/err") || true
rm -rf "/tmp/refnic-vm-selftest.$$"
[ "$got" = visible ] && ok "cwd below /tmp" || bad "cwd below /tmp" "got '$got'"

# shell mode driven through a pipe
out=$(printf 'echo "tty=$(tty)"\nexit 5\n' | "${vm[@]}" --timeout 120 shell 2>&1) && rc=0 || rc=$?
[ "$rc" = 5 ] && grep -q 'tty=/dev/hvc0' <<<"$out" && ok "shell via pipe" || bad "shell via pipe" "rc=$rc"

if [ "$fails" -eq 0 ]; then
	echo "all VM self-tests passed"
else
	echo "$fails VM self-test(s) FAILED"
	exit 1
fi
