#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check` without KERNEL=: every check on the default kernel and, side
# by side, the core selftests (selftests/TESTS.core) on each other supported
# kernel (scripts/kernel.sh --list). Part of the default kernel's work is a
# pool that either lane takes from once its own part is done: a 7.x default
# kernel's upstream driver selftests and the tests of selftests/TESTS.spill
# (which TESTS.main leaves out of the default kernel's lane). `make check
# KERNEL=X.Y` runs every check on that one kernel instead (scripts/check.sh).
#
# make has built everything for the default kernel; the other kernels' setup
# and refnic.ko are built here, one after the other (they share build/);
# then the checks run in parallel: each VM is single-threaded TCG (vm.sh's
# default), so the two VMs take one host core each. Their output is streamed
# with a "[SERIES] " prefix, kept whole in build/check/SERIES.out (a pool
# item's in build/check/SERIES-NAME.out), and their
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
# One lane per kernel: the default kernel's runs every check but the pool's,
# the other's its core subset. The pool is the default kernel's work that
# either lane can do: a 7.x kernel's upstream driver selftests (check.sh's
# upstream tier, about 15 minutes) and each test of selftests/TESTS.spill,
# longest first. A lane done with its own part takes the pool's next item,
# one at a time, so that the lanes end together whatever each part costs on
# the machine at hand (fixed lanes were balanced by hand, and were wrong
# as often as the tests changed).
export REFNIC_TIMEOUT_SCALE=${REFNIC_TIMEOUT_SCALE:-2}
pool=build/check/pool
rm -rf "$pool" build/check/*.lane-secs build/check/*.lane-outs
mkdir -p "$pool"
if [ "${#runs[@]}" -gt 1 ]; then
	[ "$main" = 6.12 ] || echo upstream >> "$pool/todo"
	# One list per test: check.sh vm --subset PATH runs it in a VM of its
	# own. Read as run.sh reads a subset (comments and blanks out); a
	# !PATTERN there would leave nothing to run: not one.
	while read -r t; do
		case $t in '!'*) continue ;; esac
		f=$pool/spill-${t//\//_}
		echo "$t" > "$f"
		echo "vm $f" >> "$pool/todo"
	done < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' selftests/TESTS.spill)
fi
# pool_take: the pool's next item, taken under a lock; nothing when empty
# (or when the lock cannot be had: the summary then reports what is left).
pool_take() {
	local fd item
	exec {fd}>> "$pool/lock" || return 1
	flock "$fd" || { exec {fd}>&-; return 1; }
	item=$(head -n 1 "$pool/todo" 2>/dev/null)
	[ -z "$item" ] || sed -i 1d "$pool/todo"
	exec {fd}>&-
	echo "$item"
}
# run_check OUT PREFIX ARGS...: check.sh ARGS, its output kept in OUT and
# streamed with PREFIX.
run_check() {
	local out=$1 prefix=$2
	shift 2
	scripts/check.sh "$@" 2>&1 | tee "$out" | sed -u "s/^/[$prefix] /"
}
pids=()
for k in "${runs[@]}"; do
	args=(full --kernel "$k")
	[ "$k" = "$main" ] || args+=(--subset core --no-host)
	# The pool's share and what the core lane runs for both are left out
	# here (TESTS.main).
	if [ "$k" = "$main" ] && [ "${#runs[@]}" -gt 1 ]; then
		args+=(--subset main)
		[ "$main" = 6.12 ] || args+=(--no-upstream)
	fi
	(
		lane_start=$SECONDS
		pooled=''
		run_check "build/check/$k.out" "$k" "${args[@]}"
		# Each pool item's output is noted in the lane's list, for the
		# summary.
		while item=$(pool_take) && [ -n "$item" ]; do
			item_start=$SECONDS
			name=${item##*/}
			echo "build/check/$main-$name.out" >> "build/check/$k.lane-outs"
			case $item in
			upstream)
				run_check "build/check/$main-upstream.out" "$main upstream" \
					upstream --kernel "$main" ;;
			vm\ *)
				run_check "build/check/$main-$name.out" "$main $name" \
					vm --kernel "$main" --subset "${item#vm }" ;;
			esac
			d=$((SECONDS - item_start))
			pooled+="${pooled:+, }$name $((d / 60)) min $((d % 60)) s"
		done
		echo "$((SECONDS - lane_start)) ${pooled:+(pool: $pooled)}" > "build/check/$k.lane-secs"
	) &
	pids+=("$!")
done
for p in "${pids[@]}"; do wait "$p"; done
# Every lane's own run counts (a lane that died before it started fails
# below, its output missing), then the pool items each lane ran; an item
# no lane ran, or a lane that did not finish, is a failure.
outs=()
for k in "${runs[@]}"; do
	outs+=("build/check/$k.out")
	[ ! -r "build/check/$k.lane-outs" ] ||
		mapfile -t -O "${#outs[@]}" outs < "build/check/$k.lane-outs"
	[ -r "build/check/$k.lane-secs" ] || fail_run "$k" "the lane ended before its last step"
done
if [ -s "$pool/todo" ]; then
	while read -r item; do
		fail_run "$main" "pool item ${item##*/} was not run"
	done < "$pool/todo"
fi

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
	if read -r s pooled 2>/dev/null < "build/check/$k.lane-secs"; then
		took+=", lane $k $((s / 60)) min $((s % 60)) s${pooled:+ $pooled}"
	else
		took+=", lane $k unfinished"
	fi
done
summaries+=("Time: $took")

echo
lanes="the full checks on $main${others[*]:+, the core selftests on ${others[*]}}"
[ "${#runs[@]}" -lt 2 ] || lanes+=", the pool ($([ "$main" = 6.12 ] || echo "$main's upstream driver selftests and ")selftests/TESTS.spill) shared"
echo "== CI summary: $lanes"
printf '%s\n' "${summaries[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
	echo "Failed, all lanes:"
	printf '%s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
exit "$rc"
