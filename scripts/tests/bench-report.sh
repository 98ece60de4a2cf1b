#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/bench-report.py on two small bench JSONs (scripts/tests/bench/):
# the paired table (median of the per-round ratios, their spread, the
# verdict on the median, the device medians over the same rounds; a round
# whose veth value is 0 or missing left out, a workload with no paired
# round n/a; a latency's target a ceiling), the baseline's ratio and the change beside it, the plot
# written as PNG and as SVG, a bad JSON refused in one line, and a profiled
# run's table (a canned perf report parsed by scripts/benchprof.py). Skipped
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

# --profile: perf report's lines (a canned one) parsed and summarised per
# CPU by kind of work, and the table bench-report prints from the JSON.
"$py" - "$here/.." "$here/bench/run.json" "$here/bench/perf-report.txt" "$tmp/prof.json" <<'EOF' &&
import json, sys
sys.path.insert(0, sys.argv[1])
import benchprof
doc = json.load(open(sys.argv[2]))
cpus = benchprof.parse(open(sys.argv[3]).read())
doc['profile'] = {'tcp-1500/refnic': {'secs': 4, 'cpus': {
    'tx': benchprof.summary(cpus, 0), 'rx': benchprof.summary(cpus, 1)}}}
json.dump(doc, open(sys.argv[4], 'w'))
EOF
	prof=$("$py" "$report" "$tmp/prof.json" 2>&1)
check "a profiled run's JSON is read"
grep -qx 'refnic (driver and model)             16.2%      20.0%' <<<"$prof"
check "profile: the refnic symbols' share of each CPU ([refnic], or refnic_* in the kernel's)"
grep -qx 'irqs off, charged at re-enable        71.9%       0.0%' <<<"$prof" &&
	grep -qx 'user space                             0.0%      10.0%' <<<"$prof"
check "profile: irq re-enable points and user space are kinds of their own"
grep -qx '  refnic rx CPU 1, busiest: pv_native_safe_halt 60.0%, refnic_toeplitz 20.0%, __memmove_avx_unaligned_erms 10.0%, clear_highpages_kasan_tagged 5.0%, tcp_v4_rcv 5.0%' <<<"$prof"
check "profile: the busiest symbols of each CPU"

[ "$fail" = 0 ] || { echo "$out"; echo "$prof"; exit 1; }
