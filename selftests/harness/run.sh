#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The host half of the test harness: runs a list of kselftest-style tests in
# the QEMU VM and prints KTAP.
#
#   run.sh [--list FILE] [--subset FILE] [--filter REGEX] [--series S]
#          [--kernel VMLINUX --modules DIR] [--module REFNIC_KO] [--numa N]
#          [--timeout-scale N] [--out DIR] [--results FILE] [--print-list]
#
# The list (default selftests/TESTS) has one test per line, "PATH TIMEOUT",
# PATH relative to selftests/ (scripts) or build/selftests/ (built C tests).
# --subset FILE keeps the tests whose name (PATH without .sh) matches one of
# its shell patterns, one a line (e.g. selftests/TESTS.core: kmod/*), and
# none of its patterns written !PATTERN.
# The VM boots the kernel series S (default $REFNIC_KERNEL, else the
# Makefile's default; scripts/kernel.sh), or --kernel/--modules; the module
# under test defaults to refnic.ko built for S (build/kmod/S/kmod/refnic.ko)
# and must have been built for the kernel the VM boots (its vermagic is
# checked first: a mismatch is one failed result saying so, and no VM).
# Each test runs with its own timeout and is judged in the guest by
# guest-run.sh. When the VM dies or hangs (kernel panic, deadlock), the test
# that was running fails with the console tail shown, and the tests after it
# go on in a fresh VM; so do they after a hung task (guest-run.sh fails the
# test; kernel.hung_task_timeout_secs is 30 s times the timeout scale).
# Results ("INDEX<TAB>NAME<TAB>STATUS<TAB>REASON") are written to --results
# for `make check` to count. --print-list prints the tests the list, filter
# and subset select ("PATH TIMEOUT", timeouts scaled) and runs nothing.
# --numa N boots VMs of N NUMA nodes (scripts/vm/vm.sh --numa): the tests
# of selftests/TESTS.numa need two.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
list=$repo/selftests/TESTS
subset=
filter=
scale=1
out=
results=
series=
module=
print_list=0
kernel=
modules=
numa=1

while [ $# -gt 0 ]; do
	case $1 in
	--list) list=$2; shift 2 ;;
	--subset) subset=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--series) series=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--modules) modules=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--timeout-scale) scale=$2; shift 2 ;;
	--numa) numa=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--print-list) print_list=1; shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

mapfile -t tests < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" |
	awk -v s="$scale" '{ printf "%s %d\n", $1, ($2 ? $2 : 60) * s }' |
	{ if [ -n "$filter" ]; then grep -E -- "$filter" || true; else cat; fi })
if [ -n "$subset" ]; then
	mapfile -t patterns < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$subset")
	kept=()
	for t in "${tests[@]}"; do
		name=${t%% *}
		name=${name%.sh}
		keep=0
		for p in "${patterns[@]}"; do
			# shellcheck disable=SC2053 # a pattern, unquoted on purpose
			case $p in
			!*) if [[ $name == ${p#!} ]]; then keep=0 && break; fi ;;
			*) if [[ $name == $p ]]; then keep=1; fi ;;
			esac
		done
		[ "$keep" = 0 ] || kept+=("$t")
	done
	tests=("${kept[@]}")
fi

if [ "$print_list" = 1 ]; then
	[ "${#tests[@]}" -eq 0 ] || printf '%s\n' "${tests[@]}"
	exit 0
fi

# The series' files unless everything is given (the debug kernel).
vm_args=()
if [ -z "$kernel" ] || [ -z "$modules" ] || [ -z "$module" ]; then
	kinfo=$("$repo/scripts/kernel.sh" ${series:+"$series"}) || exit 2
	eval "$kinfo"
	vm_args+=(--series "$KERNEL")
	module=${module:-$KO}
	modules=${modules:-$MODULES}
fi
[ -z "$kernel" ] || vm_args+=(--kernel "$kernel")
vm_args+=(--modules "$modules" --numa "$numa")
# The detector's report fails the running test (guest-run.sh); 30 s is far
# beyond any legitimate D-state wait, scaled like the test timeouts for slow
# (debug) kernels.
vm_args+=(--sysctl "kernel.hung_task_timeout_secs=$((30 * scale))")

out=${out:-$repo/build/selftests/run-$(date +%Y%m%d-%H%M%S)-$$}
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
results=${results:-$out/summary.tsv}

# Tests read the tools they need from here first: `ethtool` that can set
# tcp-data-split, and a `sudo` for upstream scripts.
vm_env=(--env "PATH=$repo/build/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	--env "REFNIC_REPO=$repo" --env "REFNIC_KO=$module"
	--env "IP_LIB_DIR=$repo/build/iproute2"
	--env "REFNIC_TIMEOUT_SCALE=$scale") # the C tests' per-case limits (refnic_harness.h)
# The soak's schedule (net/soak.sh; make soak sets them), and a forced
# NET_SCALE (lib_net.sh: a test's slow-kernel settings on a fast one).
for v in SOAK_MINUTES SOAK_SEED SOAK_MIN SOAK_KINDS REFNIC_NET_SCALE; do
	[ -z "${!v:-}" ] || vm_env+=(--env "$v=${!v}")
done
# The source of the kernel under test: its YNL specs (nettool.py).
ksrc=$("$repo/scripts/kernel.sh" --get KSRC ${series:+"$series"} 2>/dev/null) || ksrc=
[ -z "$ksrc" ] || vm_env+=(--env "REFNIC_KSRC=$ksrc")

echo "TAP version 13"
: > "$out/results"
# A deadline (host seconds since the epoch: CI's time limit, .ci/run): the
# guest starts no test after it and stops a running one there.
deadline=${REFNIC_DEADLINE:-}
[ -z "$deadline" ] || echo "$deadline" > "$out/deadline"

# A module built for another kernel is refused by it (version magic), and
# every test would fail on insmod: say why once, up front.
release=$(basename "$(realpath "$modules")")
if [ -f "$module" ]; then
	built_for=$(modinfo -F vermagic "$module" 2>/dev/null | cut -d' ' -f1)
	if [ "$built_for" != "$release" ]; then
		why="$module is built for ${built_for:-an unknown kernel}, but the VM boots $release"
		[ -z "${KERNEL:-}" ] || why+=" (make kmod KERNEL=$KERNEL)"
		echo "1..1"
		echo "not ok 1 refnic.ko # $why"
		printf '1\trefnic.ko\tfail\t%s\n' "$why" | tee "$results" > "$out/results"
		exit 1
	fi
fi
echo "1..${#tests[@]}"

next=0
while [ "$next" -lt "${#tests[@]}" ]; do
	printf '%s\n' "${tests[@]:$next}" > "$out/queue"
	rm -f "$out/current"
	# The boot, scaled as the tests are: a debug kernel takes 80-170 s
	# to load the module under TCG, more on a busy host, and a budget
	# that did not count it stopped a test before its own timeout.
	budget=$((60 * scale))
	for t in "${tests[@]:$next}"; do
		budget=$((budget + ${t##* } + 15))
	done
	if [ -n "$deadline" ] && [ "$(($(date +%s) + 30))" -ge "$deadline" ]; then
		for t in "${tests[@]:$next}"; do
			next=$((next + 1))
			name=${t%% *}
			printf '%s\t%s\tfail\t%s\n' "$next" "${name%.sh}" \
				"not run: the run's deadline (REFNIC_DEADLINE) had passed" >> "$out/results"
			echo "not ok $next ${name%.sh} # not run: the run's deadline (REFNIC_DEADLINE) had passed"
		done
		break
	fi
	# The guest stops its tests at the deadline; the VM gets a minute more.
	[ -z "$deadline" ] || [ "$budget" -le "$((deadline - $(date +%s) + 60))" ] ||
		budget=$((deadline - $(date +%s) + 60))

	vm_rc=0
	console=$out/console-$next.log
	"$repo/scripts/vm/vm.sh" "${vm_args[@]}" "${vm_env[@]}" --out "$out" \
		--console "$console" --timeout "$budget" \
		run -- "$repo/selftests/harness/guest-run.sh" "$out" "$((next + 1))" \
		2> "$out/vm-$next.stderr" || vm_rc=$?

	done_count=$(wc -l < "$out/results")
	if [ "$done_count" -ge "${#tests[@]}" ]; then
		break
	fi
	# guest-run.sh asked for a fresh VM (a hung task): nobody else to blame
	if [ -e "$out/fresh-vm" ]; then
		rm -f "$out/fresh-vm"
		next=$done_count
		continue
	fi

	# The VM ended before every test reported: the one named in `current`
	# (or, if the VM never got that far, the next one) takes the blame.
	crashed=$(cat "$out/current" 2>/dev/null || true)
	next=$done_count
	t=${tests[$next]}
	name=${t%% *}
	name=${name%.sh}
	[ -n "$crashed" ] || crashed=$name
	case $vm_rc in
	124) why="VM hung (whole-VM timeout)" ;;
	0) why="VM exited before the test reported a result" ;;
	*) why="VM died (exit $vm_rc): kernel panic or QEMU failure" ;;
	esac
	# Show the console from just before the first sign of trouble (the
	# panic message comes before its backtrace), or its tail.
	first=$(grep -nE -m 1 'Kernel panic|BUG:|Oops|general protection|blocked for more than' "$console" 2>/dev/null |
		cut -d: -f1 || true)
	echo "# $crashed: $why; console:"
	if [ -n "$first" ]; then
		sed -n "$((first > 5 ? first - 5 : 1)),$((first + 55))p" "$console"
	else
		tail -n 40 "$console" 2>/dev/null || true
	fi | sed "s/^/#   /"
	printf '%s\t%s\t%s\t%s\n' "$((next + 1))" "$crashed" fail "$why" >> "$out/results"
	echo "not ok $((next + 1)) $crashed # $why"
	next=$((next + 1))
done

cp "$out/results" "$results"
pass=$(awk -F'\t' '$3 == "pass"' "$out/results" | wc -l)
fail=$(awk -F'\t' '$3 == "fail"' "$out/results" | wc -l)
skip=$(awk -F'\t' '$3 == "skip"' "$out/results" | wc -l)
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" -eq 0 ]
