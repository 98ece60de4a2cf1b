#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check` without KERNEL=: every check on the default kernel (but the
# tests selftests/TESTS.main leaves to the other lane) and, side
# by side, the core selftests (selftests/TESTS.core) on each other supported
# kernel (scripts/kernel.sh --list), followed in that lane by the default
# kernel's upstream driver selftests when it is a 7.x and by the default
# kernel's selftests/TESTS.spill (which TESTS.main leaves out): tests of the
# default kernel run in the other lane to even the two. `make check
# KERNEL=X.Y` runs every check on that one kernel instead (scripts/check.sh).
#
# make has built everything for the default kernel; the other kernels' setup
# and refnic.ko are built here, one after the other (they share build/);
# then the checks run in parallel: each VM is single-threaded TCG (vm.sh's
# default), so the two VMs take one host core each. Their output is streamed
# with a "[SERIES] " prefix, kept whole in build/check/SERIES.out, and their
# logs go to build/check/SERIES/. The run ends with each kernel's summary
# and one combined line "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

main=$(scripts/kernel.sh --get KERNEL) || exit 1 # the Makefile's default
mapfile -t others < <(scripts/kernel.sh --list | grep -vxF "$main")
mkdir -p build/check

pass=0 fail=0 skip=0 rc=0
summaries=()
failed=() # every lane's failures, repeated last: CI shows only the tail
# fail_run SERIES WHAT: a step that ended a kernel's run before its checks
fail_run() {
	summaries+=("kernel $1: $2" "Failed:" "  $1/$2")
	failed+=("  $1/$2")
	fail=$((fail + 1))
	rc=1
}

# ---- builds, one at a time -------------------------------------------------
# make check built everything for the default kernel; each other kernel
# needs its own setup, refnic.ko and its own upstream selftests (7.3's); the
# other selftests, tools and libraries are kernel-independent.
runs=("$main")
for k in "${others[@]}"; do
	if make deps kmod kernel-selftests KERNEL="$k"; then
		runs+=("$k")
	else
		fail_run "$k" "make deps kmod failed"
	fi
done

echo "check-all: the other kernels' builds took $SECONDS s"
lanes_start=$SECONDS

# ---- checks, side by side -----------------------------------------------------
# Two VMs and the host checks (clang-tidy on both cores) share the host, so
# every test's timeout, a hang guard, is doubled (run.sh --timeout-scale).
# One lane per kernel. A 7.x default kernel's upstream driver selftests
# (check.sh's upstream tier, about 15 minutes) run in the other kernel's
# lane after its core subset: the full suite alone fills the default's lane.
export REFNIC_TIMEOUT_SCALE=${REFNIC_TIMEOUT_SCALE:-2}
upstream_lane=''
spill_lane=''
if [ "${#runs[@]}" -gt 1 ]; then
	spill_lane=${runs[-1]}
	[ "$main" = 6.12 ] || upstream_lane=$spill_lane
fi
outs=()
pids=()
rm -f build/check/*.lane-secs
for k in "${runs[@]}"; do
	args=(full --kernel "$k")
	[ "$k" = "$main" ] || args+=(--subset core --no-host)
	# What the core lane runs for both is left out here (TESTS.main).
	[ "$k" != "$main" ] || [ "${#runs[@]}" -lt 2 ] || args+=(--subset main)
	[ -z "$upstream_lane" ] || [ "$k" != "$main" ] || args+=(--no-upstream)
	outs+=("build/check/$k.out")
	[ "$k" = "$upstream_lane" ] && outs+=("build/check/$main-upstream.out")
	[ "$k" = "$spill_lane" ] && outs+=("build/check/$main-spill.out")
	(
		lane_start=$SECONDS
		scripts/check.sh "${args[@]}" 2>&1 | tee "build/check/$k.out" | sed -u "s/^/[$k] /"
		if [ "$k" = "$upstream_lane" ]; then
			scripts/check.sh upstream --kernel "$main" 2>&1 |
				tee "build/check/$main-upstream.out" | sed -u "s/^/[$main upstream] /"
		fi
		if [ "$k" = "$spill_lane" ]; then
			scripts/check.sh vm --kernel "$main" --subset spill 2>&1 |
				tee "build/check/$main-spill.out" | sed -u "s/^/[$main spill] /"
		fi
		echo "$((SECONDS - lane_start))" > "build/check/$k.lane-secs"
	) &
	pids+=("$!")
done
for p in "${pids[@]}"; do wait "$p"; done

# ---- one summary ----------------------------------------------------------------
for out in "${outs[@]}"; do
	k=$(basename "$out" .out)
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
	if [ -z "$last" ]; then
		fail_run "$k" "check.sh ended before its summary (see $out)"
		continue
	fi
	read -r p _ f _ s _ <<<"${last//,/}"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$f" -eq 0 ] || rc=1
	# check.sh's closing block: Skipped:/Failed: lists and "kernel ...:" line
	mapfile -t block < <(awk '/^$/ { n = 0; delete b; next } { b[n++] = $0 }
		END { for (i = 0; i < n - 1; i++) print b[i] }' "$out")
	summaries+=("${block[@]}")
	mapfile -t -O "${#failed[@]}" failed < <(awk '/^Failed:$/ { f = 1; next }
		/^[^ ]/ { f = 0 } f' <<<"$(printf '%s\n' "${block[@]}")")
done

# kmod/dkms is in neither lane's list (selftests/TESTS.main, TESTS.core):
# said here, so that the summary shows it.
if [ "${#runs[@]}" -gt 1 ]; then
	skip=$((skip + 1))
	summaries+=("Skipped in this run:"
		"  vm/kmod/dkms: a real make dkms-install in the VM compiles refnic under TCG (about 15 min); the host's dkms-build covers every kernel, make check KERNEL=X.Y runs it")
fi

# Where CI's time went: the builds, then each lane (they run side by side).
took="the other kernels' builds $((lanes_start / 60)) min"
for k in "${runs[@]}"; do
	s=$(cat "build/check/$k.lane-secs" 2>/dev/null) || s=
	took+=", lane $k ${s:+$((s / 60)) min $((s % 60)) s}${s:-unfinished}"
done
summaries+=("Time: $took")

echo
lanes="the full checks on $main${others[*]:+, the core selftests on ${others[*]}}"
[ -z "$upstream_lane" ] || lanes+=" then $main's upstream driver selftests"
[ -z "$spill_lane" ] || lanes+=" and $main's spilled ones (selftests/TESTS.spill)"
echo "== CI summary: $lanes"
printf '%s\n' "${summaries[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
	echo "Failed, all lanes:"
	printf '%s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
exit "$rc"
