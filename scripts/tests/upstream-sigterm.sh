#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# selftests/upstream/slow/sitecustomize.py against 7.3's real lib.py.utils:
# an iperf3 that ignores SIGTERM is described and killed when cmd.process()
# asked it to terminate; any other tool that ignores SIGTERM still raises
# the timeout; an iperf3 that exits on SIGTERM is left alone. (6.12's
# process() hands its timeout to communicate() as input, so it waits without
# a limit: nothing to hook there.) Exit 77 (skip) when 7.3's selftests are
# not built (scripts/upstream-selftests.sh 7.3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${REFNIC_BUILD:-$repo/build}
tree=$build/upstream-7.3/kselftest/net
if [ ! -f "$tree/lib/py/utils.py" ]; then
	echo "skip: 7.3's upstream selftests are not built (scripts/upstream-selftests.sh 7.3)"
	exit 77
fi
fail=0
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
check() { # check NAME: the last command's status was 0
	local rc=$?
	if [ "$rc" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}

# Tools that ignore SIGTERM, with a child that does too; one that does not.
mkdir -p "$tmp/stubborn" "$tmp/polite"
for name in iperf3 hang; do
	printf '#!/bin/sh\ntrap "" TERM\nwhile :; do sleep 0.2; done\n' >"$tmp/stubborn/$name"
	chmod +x "$tmp/stubborn/$name"
done
printf '#!/bin/sh\nexec sleep 1000\n' >"$tmp/polite/iperf3"
chmod +x "$tmp/polite/iperf3"

out=$(cd "$tmp" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$repo/selftests/upstream/slow:$tree" \
	timeout 60 python3 - "$tmp" 2>&1 <<'EOF'
import subprocess, sys, time
import lib.py.utils as utils

tmp = sys.argv[1]


def started(path):
    c = utils.cmd(f'{path} -s -1 -p 5201', background=True)
    time.sleep(0.3)  # the trap is set before the shell's first sleep
    return c


c = started(f'{tmp}/stubborn/iperf3')
c.process(terminate=True, timeout=1)
print('stubborn-iperf3', c.proc.returncode)

c = started(f'{tmp}/stubborn/hang')
try:
    c.process(terminate=True, timeout=1)
    print('stubborn-hang returned')
except subprocess.TimeoutExpired:
    print('stubborn-hang timeout')
subprocess.run(['pkill', '-KILL', '-f', f'{tmp}/stubborn/hang'])

c = started(f'{tmp}/polite/iperf3')
c.process(terminate=True, timeout=5)
print('polite-iperf3', c.proc.returncode)
EOF
)

grep -q '^stubborn-iperf3 -9$' <<<"$out" &&
	grep -q '^# refnic: .*ignored SIGTERM past the timeout: State S' <<<"$out" &&
	grep -q '^# refnic: killed: iperf3' <<<"$out" && ! pgrep -f "$tmp/stubborn/iperf3" >/dev/null
check "an iperf3 that ignores SIGTERM is described and killed, its child too"
grep -q '^stubborn-hang timeout$' <<<"$out"
check "any other tool that ignores SIGTERM still times out"
grep -q '^polite-iperf3 -15$' <<<"$out" && [ "$(grep -c '^# refnic' <<<"$out")" -le 8 ] &&
	[ "$(grep -c '^# refnic: killed' <<<"$out")" = 1 ]
check "an iperf3 that exits on SIGTERM is left alone"
[ "$fail" = 0 ] || printf '%s\n' "$out" | sed 's/^/    /'
exit "$fail"
