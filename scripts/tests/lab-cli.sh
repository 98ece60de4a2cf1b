#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make lab's host side: an unknown experiment is refused with the known
# ones before any VM boots (scripts/lab.sh and scripts/lab-guest.py alike),
# --list names each with its lesson, and each experiment's plot is drawn
# from a run's JSON (scripts/tests/lab/, trimmed from real runs) as SVG and
# PNG; a file that is no experiment's results is refused in one line. The
# plots are skipped when Debian's python has no matplotlib.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$here/../lab.sh
guest=$here/../lab-guest.py
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MPLCONFIGDIR=$tmp/mpl
fail=0
check() { # check NAME: the last command's status was 0
	local rc=$?
	if [ "$rc" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}

known="known: irq-poll, recycle, doorbell, mmio-read, napi-budget, placement"
out=$(REFNIC_KERNEL=none "$lab" no-such-thing 2>&1)
rc=$?
[ "$rc" = 2 ] && [ "$out" = "lab: unknown experiment 'no-such-thing'; $known" ]
check "lab.sh refuses an unknown experiment with the list, exit 2, no VM ($rc: $out)"
out=$("$py" "$guest" no-such-thing 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q "unknown experiment 'no-such-thing'; $known" <<<"$out"
check "lab-guest.py refuses it too, exit 2"
"$lab" --check recycle && ! "$lab" --check no-such-thing 2>/dev/null
check "lab.sh --check (make lab's test before it builds) tells a known name from an unknown one"
out=$(make -s -C "$here/../.." lab EXP=no-such-thing 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q "unknown experiment 'no-such-thing'; $known" <<<"$out" &&
	! grep -q 'cmake\|Entering directory' <<<"$out"
check "make lab EXP=unknown refuses before building anything"
out=$("$lab" --list)
grep -Eq '^irq-poll +Busy polling trades CPU for latency' <<<"$out" &&
	grep -Eq '^recycle +Returning buffers in batches' <<<"$out" &&
	grep -Eq '^doorbell +A doorbell is an MMIO write' <<<"$out" &&
	grep -Eq '^mmio-read +A register read is a non-posted' <<<"$out" &&
	grep -Eq '^napi-budget +The NAPI budget bounds what one queue takes' <<<"$out" &&
	grep -Eq '^placement +Where interrupts and threads run matters' <<<"$out"
check "--list names each experiment with its lesson"

if "$py" -c 'import matplotlib' 2>/dev/null; then
	for e in irq-poll recycle doorbell mmio-read napi-budget placement; do
		cp "$here/lab/$e.json" "$tmp/"
		"$py" "$guest" --replot "$tmp/$e.json" 2>/dev/null && grep -q '<svg' "$tmp/$e.svg"
		check "$e: the plot drawn again from its JSON, as SVG"
		"$py" "$guest" --replot "$tmp/$e.json" --out "$tmp/$e.png" 2>/dev/null &&
			[ "$(head -c 4 "$tmp/$e.png" | tail -c 3)" = PNG ]
		check "$e: and as PNG"
	done
else
	echo "skip: the plots: $py cannot import matplotlib (apt-get install python3-matplotlib)"
fi
echo '{"experiment": "nope"}' >"$tmp/bad.json"
out=$("$py" "$guest" --replot "$tmp/bad.json" 2>&1)
rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "unknown experiment 'nope'" <<<"$out"
check "results of an unknown experiment refused in one line"
exit "$fail"
