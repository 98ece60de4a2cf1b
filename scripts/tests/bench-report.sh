#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/bench-report.py on two small bench JSONs (scripts/tests/bench/):
# the paired table (median of the per-round ratios, their spread, the
# verdict on the median; a round whose veth value is 0 or missing left out),
# the baseline's ratio and the change beside it, the plot written, and a
# JSON of another schema refused in one line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
report=$here/../bench-report.py
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check NAME: the last command's status was 0
	local rc=$?
	if [ "$rc" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}

out=$("$py" "$report" "$here/bench/run.json" --baseline "$here/bench/baseline.json" \
	--plot "$tmp/bench.png" 2>&1)
check "exit 0"
grep -qx 'tcp-1500         Gbit/s      1.100     2.000  0.556x   0.550-0.650    >= 0.5  meets      0.500x   +11.1%' <<<"$out"
check "tcp-1500: median of the paired ratios, spread, baseline and change"
grep -qx 'udp-64           kpps       95.000   120.000  0.833x   0.833-0.833    >= 0.7  meets      0.833x    +0.0%' <<<"$out"
check "udp-64: the rounds without a veth value left out of the ratios"
[ -s "$tmp/bench.png" ] && [ "$(head -c 4 "$tmp/bench.png" | tail -c 3)" = PNG ]
check "the plot is a PNG"

sed 's/"schema": *1/"schema": 9/' "$here/bench/run.json" >"$tmp/other.json"
err=$("$py" "$report" "$tmp/other.json" 2>&1)
[ $? -ne 0 ] && [ "$err" = "$tmp/other.json: bench JSON schema 9, this reader knows 1" ]
check "another schema is refused in one line"

[ "$fail" = 0 ] || { echo "$out"; exit 1; }
