#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# selftests/upstream/slow/sitecustomize.py against 7.3's real lib.py.utils,
# three cases: an iperf3 that blocks SIGTERM is described and killed, its
# child with it, when cmd.process() asked it to terminate; another tool
# that blocks SIGTERM still raises the timeout; an iperf3 that exits on
# SIGTERM is left alone. (An iperf3 in State D is not staged.) 6.12's
# process() hands its timeout to communicate() as input, so it waits without
# a limit: nothing to hook there. Exit 77 (skip) when 7.3's selftests are
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
trap 'pkill -KILL -f "$tmp/" 2>/dev/null; pkill -KILL -f "sleep 1001" 2>/dev/null; rm -rf "$tmp"' EXIT
check() { # check NAME: the last command's status was 0
	local rc=$?
	if [ "$rc" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}

# Tools that block SIGTERM (as iperf3 3.12 is left after longjmp()ing out
# of its handler), with a child that inherits the mask; one that does not.
mkdir -p "$tmp/stubborn" "$tmp/polite"
for name in iperf3 hang; do
	printf '%s\n' '#!/usr/bin/python3' 'import signal, subprocess, time' \
		'signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})' \
		"subprocess.Popen(['sleep', '1001'])" 'while True:' '    time.sleep(0.2)' \
		>"$tmp/stubborn/$name"
	chmod +x "$tmp/stubborn/$name"
done
printf '%s\n' '#!/usr/bin/python3' 'import time' 'while True:' '    time.sleep(0.2)' \
	>"$tmp/polite/iperf3"
chmod +x "$tmp/polite/iperf3"

out=$(cd "$tmp" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$repo/selftests/upstream/slow:$tree" \
	timeout 60 python3 - "$tmp" 2>&1 <<'EOF'
import subprocess, sys, time
import lib.py.utils as utils

tmp = sys.argv[1]


def started(path):
    c = utils.cmd(f'{path} -s -1 -p 5201', background=True)
    time.sleep(1)  # python has blocked SIGTERM by then, even under load
    return c


c = started(f'{tmp}/stubborn/iperf3')
c.process(terminate=True, timeout=1)
print('stubborn-iperf3', c.proc.returncode)
gone = subprocess.run(['pgrep', '-f', 'sleep 1001']).returncode == 1
print('stubborn-iperf3 child', 'gone' if gone else 'alive')

c = started(f'{tmp}/stubborn/hang')
try:
    c.process(terminate=True, timeout=1)
    print('stubborn-hang returned')
except subprocess.TimeoutExpired:
    print('stubborn-hang timeout')
subprocess.run(['pkill', '-KILL', '-f', f'{tmp}/stubborn/hang'])
subprocess.run(['pkill', '-KILL', '-f', 'sleep 1001'])

print('polite-start', flush=True)
c = started(f'{tmp}/polite/iperf3')
c.process(terminate=True, timeout=5)
print('polite-iperf3', c.proc.returncode)
EOF
)

grep -q '^stubborn-iperf3 -9$' <<<"$out" &&
	grep -q '^# refnic: .*outlived SIGTERM and the timeout: State S.*SigBlk 0*4000' <<<"$out" &&
	grep -q '^# refnic: killed with every holder of its output' <<<"$out" &&
	grep -q '^stubborn-iperf3 child gone$' <<<"$out"
check "an iperf3 that blocks SIGTERM is described and killed, its child too"
grep -q '^stubborn-hang timeout$' <<<"$out"
check "another tool that blocks SIGTERM still times out"
grep -q '^polite-iperf3 -15$' <<<"$out" && ! sed -n '/^polite-start$/,$p' <<<"$out" | grep -q '^# refnic'
check "an iperf3 that exits on SIGTERM is left alone"
[ "$fail" = 0 ] || printf '%s\n' "$out" | sed 's/^/    /'
exit "$fail"
