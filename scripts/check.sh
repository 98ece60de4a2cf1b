#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`, `make check-quick` and `make check-debug`: every check in
# one place, each one counted, ending with the line "N passed, N failed,
# N skipped" (the skips listed with their reasons) and a non-zero exit on any
# failure.
#
#   check.sh full     lint, host unit tests, dkms build, harness self-test,
#                     every selftest in the VM
#   check.sh quick    lint, host unit tests, dkms build, a VM smoke test
#   check.sh debug    every selftest in the VM on the debug kernel, then a
#                     kmemleak scan
set -uo pipefail

tier=${1:-full}
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
logs=$build/check
rm -rf "$logs"
mkdir -p "$logs"
kver=$(cat "$build/kver")
ksrc=$build/linux-source

pass=0
fail=0
skip=0
failures=()
skips=()

result() {
	# name status reason
	case $2 in
	pass) pass=$((pass + 1)); echo "ok      $1" ;;
	skip) skip=$((skip + 1)); skips+=("$1: $3"); echo "skip    $1: $3" ;;
	*) fail=$((fail + 1)); failures+=("$1: $3"); echo "FAIL    $1: $3" ;;
	esac
}

# Run one check; its output goes to build/check/NAME.log and is shown when it
# fails.
step() {
	local name=$1 log=$logs/$1.log
	shift
	if "$@" > "$log" 2>&1; then
		result "$name" pass ""
	else
		result "$name" fail "see $log"
		tail -n 40 "$log" | sed 's/^/        /'
	fi
}

# Count each line of a harness results file (INDEX NAME STATUS REASON).
count_results() {
	local prefix=$1 file=$2 name status reason
	while IFS=$'\t' read -r _ name status reason; do
		result "$prefix$name" "$status" "$reason"
	done < "$file"
}

checkpatch() {
	"$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f \
		$(cd "$repo" && git ls-files -co --exclude-standard kmod |
			grep -E '(\.[ch]|/Kbuild|/Makefile)$' | sed "s|^|$repo/|")
}

# clang-format and clang-tidy over lib/ and tools/, as CMake's lint tests
# define them (cmake/RefnicLint.cmake); a missing tool is a failure.
lint() {
	ctest --test-dir "$build/cmake" -R "^lint\\.$1\$" --no-tests=error --output-on-failure
}

host_unit_tests() {
	local log=$logs/ctest.log
	ctest --test-dir "$build/cmake" -L host --output-on-failure > "$log" 2>&1
	awk -v logfile="$log" '/Test +#[0-9]+: / {
		name = $0
		sub(/.*Test +#[0-9]+: /, "", name)
		sub(/ .*/, "", name)
		if ($0 ~ /Passed/)
			r = "pass\t"
		else if ($0 ~ /Skipped|Not Run/)
			r = "skip\tskipped by ctest, see " logfile
		else
			r = "fail\tsee " logfile
		printf "0\t%s\t%s\n", name, r
	}' "$log" > "$logs/ctest.tsv"
	[ -s "$logs/ctest.tsv" ] ||
		printf '0\tctest\tfail\tno host tests ran, see %s\n' "$log" > "$logs/ctest.tsv"
	count_results "unit/" "$logs/ctest.tsv"
}

dkms_build() {
	local version src tree
	version=$(cat "$repo/kmod/VERSION")
	src=$build/dkms/src
	tree=$build/dkms/tree
	rm -rf "$build/dkms"
	mkdir -p "$src/refnic-$version" "$tree"
	cp -r "$repo/kmod" "$repo/uapi" "$repo/dkms.conf" "$src/refnic-$version/"
	make -s -C "$src/refnic-$version/kmod" KVER="$kver" clean >/dev/null 2>&1
	dkms build -m refnic -v "$version" -k "$kver" \
		--sourcetree "$src" --dkmstree "$tree" &&
		ls "$tree/refnic/$version/$kver/x86_64/module/"refnic.ko*
}

vm_smoke() {
	"$repo/scripts/vm/vm.sh" --timeout 120 run -- sh -c \
		"insmod '$repo/kmod/refnic.ko' && grep -q '^refnic ' /proc/modules && rmmod refnic && ! dmesg | grep -E 'WARNING|BUG|Oops'"
}

# Shows what a failed VM test printed, so that a CI log says why: its nested
# KTAP output without the lines of subtests that passed, at most 60 lines.
show_vm_failures() {
	awk '/^# / {
		if ($0 ~ /^# (# +(Starting|RUN|OK|PASS)|ok [0-9])/)
			next
		block[n++] = $0
		next
	}
	/^(not )?ok [0-9]/ {
		if ($1 == "not") {
			print "        " $0
			for (i = (n > 60 ? n - 60 : 0); i < n; i++)
				print "          " block[i]
		}
		n = 0
	}' "$1"
}

# KTAP "ok N desc" / "not ok N desc # reason" lines into results.
count_ktap() {
	local prefix=$1 file=$2
	sed -nE -e 's/^ok [0-9]+ ([^#]*[^# ])[[:space:]]*# SKIP[[:space:]]*(.*)$/0\t\1\tskip\t\2/p' \
		-e '/# SKIP/!s/^ok [0-9]+ ([^#]*[^# ])[[:space:]]*$/0\t\1\tpass\t/p' \
		-e 's/^not ok [0-9]+ ([^#]*[^# ])[[:space:]]*(# (.*))?$/0\t\1\tfail\t\3/p' "$file" > "$file.tsv"
	[ -s "$file.tsv" ] || printf '0\t%s\tfail\tno KTAP output, see %s\n' "${prefix%/}" "$file" > "$file.tsv"
	count_results "$prefix" "$file.tsv"
}

case $tier in
full|quick)
	step checkpatch checkpatch
	step driver-model-boundary "$repo/scripts/check-boundary.sh"
	step ynl-spec "$repo/scripts/ynl-gen.sh" --check
	step clang-format lint clang-format
	step clang-tidy lint clang-tidy
	host_unit_tests
	"$repo/tools/iproute2/test-parse.sh" > "$logs/iproute2.log" 2>&1
	count_ktap "iproute2/" "$logs/iproute2.log"
	step dkms-build dkms_build
	if [ "$tier" = quick ]; then
		step vm-smoke vm_smoke
	else
		step vm-contract "$repo/scripts/vm/selftest.sh"
		"$repo/selftests/harness/selftest.sh" > "$logs/harness-selftest.log" 2>&1
		count_ktap "harness-selftest/" "$logs/harness-selftest.log"
		"$repo/selftests/harness/run.sh" --out "$build/selftests/run" \
			--results "$logs/selftests.tsv" | tee "$logs/selftests.log" | grep -E '^(not )?ok '
		show_vm_failures "$logs/selftests.log"
		count_results "vm/" "$logs/selftests.tsv"
	fi
	;;
debug)
	dbg=$build/debug-kernel
	"$repo/selftests/harness/run.sh" --out "$build/selftests/run-debug" \
		--kernel "$dbg/vmlinux" --modules "$dbg/modules" \
		--module "$build/debug-kmod/kmod/refnic.ko" --timeout-scale 6 \
		--results "$logs/selftests.tsv" | tee "$logs/selftests.log" | grep -E '^(not )?ok '
	show_vm_failures "$logs/selftests.log"
	count_results "vm-debug/" "$logs/selftests.tsv"
	;;
*)
	echo "check.sh: unknown tier '$tier' (full, quick or debug)" >&2
	exit 2
	;;
esac

echo
if [ "${#skips[@]}" -gt 0 ]; then
	echo "Skipped:"
	printf '  %s\n' "${skips[@]}"
fi
if [ "${#failures[@]}" -gt 0 ]; then
	echo "Failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
