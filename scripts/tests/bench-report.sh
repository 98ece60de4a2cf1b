#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/bench-report.py on two small bench JSONs (scripts/tests/bench/):
# the paired table (median of the per-round ratios, their spread, the
# verdict on the median, the device medians over the same rounds; a round
# whose veth value is 0 or missing left out, a workload with no paired
# round n/a; a latency's target a ceiling), the baseline's ratio and the change beside it, the plot
# written as PNG and as SVG, and a bad JSON refused in one line. Skipped
# when Debian's python has no matplotlib (make deps installs it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
report=$here/../bench-report.py
py=/usr/bin/python3
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
	echo "SKIP: $py cannot import matplotlib (apt-get install python3-matplotlib)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check NAME: the last command's status was 0
	local rc=$?
	if [ "$rc" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}
row() { grep -qx "$1" <<<"$out"; }

out=$("$py" "$report" "$here/bench/run.json" --baseline "$here/bench/baseline.json" \
	--plot "$tmp/bench.png" 2>&1)
check "exit 0"
row 'tcp-1500         Gbit/s      1.100     2.000  0.556x 0.550-0.650      >= 0.5  meets      0.500x   +11.1%'
check "tcp-1500: median of the paired ratios, spread, baseline and change"
row 'udp-64           kpps      100.000   120.000  0.833x 0.833-0.833      >= 0.7  meets      0.833x    +0.0%'
check "udp-64: the rounds without a veth value left out, of the medians too"
row 'tcp-9000         Gbit/s        n/a       n/a     n/a no paired round  >= 0.8  n/a           n/a        -'
check "tcp-9000: no paired round, n/a"
row 'tcp-rr           us p50    350.000   250.000  1.400x 1.300-1.500      <= 1.2  above           -        -'
check "tcp-rr: a latency, lower is better: the target a ceiling"
[ "$(head -c 4 "$tmp/bench.png" | tail -c 3)" = PNG ]
check "the plot is a PNG"
"$py" "$report" "$here/bench/run.json" --plot "$tmp/bench.svg" >/dev/null &&
	grep -q '<svg' "$tmp/bench.svg"
check "and an SVG"

sed 's/"schema": *1/"schema": 9/' "$here/bench/run.json" >"$tmp/other.json"
if err=$("$py" "$report" "$tmp/other.json" 2>&1); then false; else
	[ "$err" = "$tmp/other.json: bench JSON schema 9, this reader knows 1" ]
fi
check "another schema is refused in one line"
echo '[]' >"$tmp/list.json"
if err=$("$py" "$report" "$tmp/list.json" 2>&1); then false; else
	[ "$err" = "$tmp/list.json: not a bench JSON (no object)" ]
fi
check "a JSON that is no object is refused in one line"

[ "$fail" = 0 ] || { echo "$out"; exit 1; }
