#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`, `make check-quick` and `make check-debug`: every check in
# one place, each one counted, ending with the line "N passed, N failed,
# N skipped" (the skips listed with their reasons) and a non-zero exit on any
# failure.
#
#   check.sh [full|quick|debug|upstream|vm] [--kernel SERIES] [--subset NAME]
#            [--no-host] [--no-upstream]
#
#   full     lint, host unit tests, dkms build, VM contract, harness
#            self-test, every selftest in the VM (selftests/TESTS; those of
#            selftests/TESTS.numa in a VM of two NUMA nodes, but in a
#            --subset core run); on 7.3 also Linux 7.3's
#            own driver selftests (selftests/upstream/7.3/ci.list, about
#            15 min) unless --no-upstream
#   quick    lint, host unit tests, dkms build, a VM smoke test
#   debug    every selftest on SERIES' debug kernel, in two VMs side by
#            side (REFNIC_DEBUG_VMS=1 for one), a fresh VM every few tests,
#            each VM ending with a kmemleak scan
#   upstream only Linux 7.x's own driver selftests (7.x series only; logs in
#            build/check/SERIES-upstream): check-all.sh runs them in
#            whichever lane is free first, to even the lanes
#   vm       only the VM selftests of --subset NAME (required; logs in
#            build/check/SERIES-NAME): check-all.sh runs each test of
#            the default kernel's selftests/TESTS.spill this way, in
#            whichever lane is free first
#   --kernel SERIES  the kernel to build for and boot, 6.12 or 7.3 (default
#            $REFNIC_KERNEL, else the Makefile's default; scripts/kernel.sh);
#            refnic.ko must be built for it (make kmod KERNEL=SERIES)
#   --subset NAME    only the VM selftests matching selftests/TESTS.NAME
#            (or, given a path, the patterns in that file; the run and its
#            logs are named file-BASENAME)
#   --no-host        leave out what does not depend on the kernel (checkpatch,
#            lint, host unit tests, iproute2 parser tests) and the harness
#            self-test (its planted module is built for make's KERNEL only)
#            and the VM's contract test (vm.sh's interface, the same for
#            every kernel; the VM selftests boot this kernel): for a second
#            kernel checked beside a full run (.ci/run)
#   --no-upstream    full without the upstream 7.x selftests (run apart, as
#            the upstream tier)
#   --resume debug only: leave out the tests that passed, their VM's
#            kmemleak scan included, in an earlier run on a debug kernel of
#            the same build key with refnic built from the same kmod/, the
#            same VM setup and test files (selftests/debug-ledger/SERIES,
#            kept in git), and count them as passed: the tier takes longer
#            than one sitting
#
# The header and the summary name the kernel (series and release), every
# result name starts with the series ("7.3/vm/net/ping"), and the logs go to
# build/check/SERIES (debug: SERIES-debug, upstream: SERIES-upstream), so
# that runs on two kernels can go on side by side and be told apart. The last line stays exactly
# "N passed, N failed, N skipped".
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
tier=full series='' subset='' host=1 upstream=1 resume=0
while [ $# -gt 0 ]; do
	case $1 in
	full | quick | debug | upstream | vm) tier=$1 ;;
	--kernel) series=${2:-} && shift ;;
	--kernel=*) series=${1#*=} ;;
	--subset) subset=${2:-} && shift ;;
	--subset=*) subset=${1#*=} ;;
	--no-host) host=0 ;;
	--no-upstream) upstream=0 ;;
	--resume) resume=1 ;;
	*)
		echo "check.sh: unknown argument '$1' (tier full, quick, debug, upstream or vm; --kernel SERIES, --subset NAME, --no-host, --no-upstream, --resume)" >&2
		exit 2
		;;
	esac
	shift
done
kinfo=$("$repo/scripts/kernel.sh" ${series:+"$series"}) || exit 2
eval "$kinfo"
export REFNIC_KERNEL=$KERNEL # every VM below boots it
subset_file=
# The debug tier leaves out what proves nothing more on a debug kernel
# (selftests/TESTS.debug) unless a subset is named.
[ "$tier" != debug ] || [ -n "$subset" ] || subset=debug
[ "$tier" != vm ] || [ -n "$subset" ] || { echo "check.sh: the vm tier needs --subset NAME" >&2; exit 2; }
if [ -n "$subset" ]; then
	subset_file=$repo/selftests/TESTS.$subset
	# A path names a list of its own (check-all.sh's pool: one test each),
	# its run and logs named file-BASENAME, apart from the tiers' and the
	# named subsets' (core leaves out the NUMA tests, by name).
	case $subset in */*) subset_file=$subset subset=file-${subset##*/} ;; esac
	[ -r "$subset_file" ] || { echo "check.sh: no subset list $subset_file" >&2; exit 2; }
fi

logs=$build/check/$KERNEL
kernel_desc="$KERNEL ($KVER)"
if [ "$tier" = debug ]; then
	logs=$build/check/$KERNEL-debug
	dbg_release=$(cat "$DEBUG_OUT/kernelrelease" 2>/dev/null || echo none)
	kernel_desc="$KERNEL debug ($dbg_release)"
elif [ "$tier" = upstream ]; then
	logs=$build/check/$KERNEL-upstream
	kernel_desc="$KERNEL ($KVER), upstream driver selftests"
elif [ "$tier" = vm ]; then
	logs=$build/check/$KERNEL-$subset
fi
rm -rf "$logs"
mkdir -p "$logs"
# checkpatch comes from Debian 12's linux-source-6.12 whatever the kernel
tools_ksrc=$build/linux-source

echo "check.sh $tier: kernel $kernel_desc${subset:+, subset $subset}$([ "$host" = 1 ] || echo ', kernel checks only'); logs in $logs"

pass=0
fail=0
skip=0
failures=()
skips=()

result() {
	# name status reason; the name gets the series in front
	local name=$KERNEL/$1
	case $2 in
	pass) pass=$((pass + 1)); echo "ok      $name" ;;
	skip) skip=$((skip + 1)); skips+=("$name: $3"); echo "skip    $name: $3" ;;
	*) fail=$((fail + 1)); failures+=("$name: $3"); echo "FAIL    $name: $3" ;;
	esac
}

# Run one check; its output goes to build/check/NAME.log and is shown when it
# fails.
step() {
	local name=$1 log=$logs/$1.log start=$SECONDS
	shift
	if "$@" > "$log" 2>&1; then
		result "$name" pass ""
		echo "        took $((SECONDS - start)) s"
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
	# shellcheck disable=SC2046 # one argument per file
	"$tools_ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
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

# dkms build against the kernel's build tree, named explicitly: 7.3's is
# the tree scripts/deps-7.3.sh prepared (Debian's 7.3 kbuild does not run on
# Debian 12), 6.12's is dkms' default /lib/modules/KVER/build.
dkms_build() {
	local version dir=$build/dkms/$KERNEL src tree
	version=$(cat "$repo/kmod/VERSION")
	src=$dir/src
	tree=$dir/tree
	rm -rf "$dir"
	mkdir -p "$src/refnic-$version" "$tree"
	cp -r "$repo/kmod" "$repo/uapi" "$repo/dkms.conf" "$src/refnic-$version/"
	make -s -C "$src/refnic-$version/kmod" KDIR="$KDIR" clean >/dev/null 2>&1
	dkms build -m refnic -v "$version" -k "$KVER" --kernelsourcedir "$KDIR" \
		--sourcetree "$src" --dkmstree "$tree" &&
		ls "$tree/refnic/$version/$KVER/x86_64/module/"refnic.ko*
}

vm_smoke() {
	"$repo/scripts/vm/vm.sh" --timeout 120 run -- sh -c \
		"insmod '$KO' && grep -q '^refnic ' /proc/modules && rmmod refnic && ! dmesg | grep -E 'WARNING|BUG|Oops'"
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

# Cases a test skipped inside a run that passed as a whole (its nested
# "ok N case # SKIP reason" lines): listed in the summary, not counted, so
# that a check that could not be judged on this host is seen. retried:
# the cases that passed on their second run (upstream_73), listed likewise.
case_skips=() retried=()
note_case_skips() {
	local prefix=$1 log=$2 line
	while IFS= read -r line; do
		case_skips+=("$KERNEL/$prefix$line")
	done < <(awk '/^# +ok [0-9]+ .*# SKIP/ {
		sub(/^# +ok [0-9]+ /, "")
		held[n++] = $0
		next
	}
	/^(not )?ok [0-9]+ / {
		name = $0
		sub(/^(not )?ok [0-9]+ /, "", name)
		sub(/ #.*/, "", name)
		for (i = 0; i < n; i++)
			print name ": " held[i]
		n = 0
	}' "$log")
}

# vm_selftests PREFIX RUN_SH_ARGS...: the selftests in the VM, counted
vm_selftests() {
	local prefix=$1
	shift
	"$repo/selftests/harness/run.sh" "$@" ${subset_file:+--subset "$subset_file"} \
		--results "$logs/selftests.tsv" | tee "$logs/selftests.log" | grep -E '^(not )?ok '
	show_vm_failures "$logs/selftests.log"
	note_case_skips "$prefix" "$logs/selftests.log"
	count_results "$prefix" "$logs/selftests.tsv"
}

# numa_selftests: selftests/TESTS.numa, in a VM of two NUMA nodes
numa_selftests() {
	"$repo/selftests/harness/run.sh" --series "$KERNEL" --numa 2 \
		--list "$repo/selftests/TESTS.numa" --out "$build/selftests/run-$KERNEL-numa" \
		--timeout-scale "${REFNIC_TIMEOUT_SCALE:-1}" --results "$logs/selftests-numa.tsv" |
		tee "$logs/selftests-numa.log" | grep -E '^(not )?ok '
	show_vm_failures "$logs/selftests-numa.log"
	note_case_skips "vm-numa/" "$logs/selftests-numa.log"
	count_results "vm-numa/" "$logs/selftests-numa.tsv"
}

# The debug tier's ledger (--resume): a line per test that passed there,
# "NAME<TAB>FINGERPRINT<TAB>DATE", the fingerprint covering what the pass
# vouches for (debug_fingerprints). It is in the source tree, to be
# committed: the list takes longer than one sitting on a 2-core machine,
# and a fresh clone builds the same debug kernel and module again. A run
# first drops the lines that no longer hold (all of them without --resume),
# then appends.
ledger=$repo/selftests/debug-ledger/$KERNEL

# debug_base: the part of every test's fingerprint that all share: the
# debug kernel's build key (its source package, config fragments and
# toolchain) and config, the module's sources (kmod/: what was built, not
# the bytes of the build, so that a rebuild elsewhere matches), the VM's
# setup. Empty (no resume) when any of it cannot be read.
debug_base() {
	local vm ko
	vm=$(cd "$repo" && git ls-files -z -co --exclude-standard -- scripts/vm |
		xargs -0 -r sha1sum) || return 0
	[ -r "$DEBUG_KO" ] || return 0
	ko=$(cd "$repo" && git ls-files -z -co --exclude-standard -- kmod |
		xargs -0 -r sha1sum) || return 0
	[ -r "$DEBUG_OUT/stamp" ] && [ -r "$DEBUG_OUT/config" ] || return 0
	{ cat "$DEBUG_OUT/stamp" "$DEBUG_OUT/config"; echo "$ko"; echo "$vm"; } |
		sha1sum | cut -c1-16
}

# debug_fingerprints BASE: "NAME FINGERPRINT" for each "PATH TIMEOUT" line
# on stdin: BASE and the test's own files (selftests/PATH, PATH.*). What
# the tests share besides (lib.sh, the tools) is left out on purpose: the
# tier proves the module under the kernel's checkers, and a tool's change
# is proven by make check.
debug_fingerprints() {
	local path name files
	while read -r path _; do
		name=${path%.sh}
		files=$(cd "$repo/selftests" && git ls-files -z -co --exclude-standard -- \
			"$name" "$name.*" | xargs -0 -r sha1sum)
		echo "$name $({ echo "$1"; echo "$files"; } | sha1sum | cut -c1-16)"
	done
}

# debug_lane N: lane N takes REFNIC_DEBUG_CHUNK tests at a time from the
# lanes' shared queue ($logs/queue, under $logs/queue.lock) and runs them
# in a VM (run.sh boots one per chunk) until the queue is empty, noting
# them in lane-N.list: a lane that is done takes the next tests instead of
# idling while the other still runs its share. A run cut short keeps what
# finished. A pass enters the ledger only once the VM that ran it ended
# with a clean kmemleak scan: after a hung task or a panic, run.sh goes on
# in a fresh VM, and only the tests of a chunk's last VM (console-N.log:
# it began at test N + 1) are covered by its scan.
debug_lane() {
	local i=$1 n=0 chunk c tsv out last name fd
	while :; do
		c=$(printf '%03d' "$n")
		chunk=$logs/lane-$i.chunk-$c
		exec {fd}>>"$logs/queue.lock"
		flock "$fd"
		head -n "$chunk_size" "$logs/queue" > "$chunk"
		sed -i "1,${chunk_size}d" "$logs/queue"
		exec {fd}>&-
		if [ ! -s "$chunk" ]; then
			rm -f "$chunk"
			break
		fi
		n=$((n + 1))
		cat "$chunk" >> "$logs/lane-$i.list"
		tsv=$chunk.tsv
		out=$build/selftests/run-$KERNEL-debug-$i-$c
		"$repo/selftests/harness/run.sh" --list "$chunk" --out "$out" \
			--kernel "$DEBUG_OUT/vmlinux" --modules "$DEBUG_OUT/modules" \
			--module "$DEBUG_KO" --timeout-scale 6 --results "$tsv"
		touch "$tsv"
		# a test with no result (run.sh stopped or failed) failed
		while read -r name _; do
			name=${name%.sh}
			awk -F'\t' -v n="$name" '$2 == n { f = 1 } END { exit !f }' "$tsv" ||
				printf '0\t%s\tfail\tno result (see %s)\n' "$name" "$out" >> "$tsv"
		done < "$chunk"
		# what each VM reports of its own: its scan, its module check
		sed -i -E "s#\t(kmemleak-scan|refnic\.ko)\t#\tlane-$i-chunk$c/\1\t#" "$tsv"
		grep -q $'/kmemleak-scan\tpass' "$tsv" || continue
		last=$(find "$out" -maxdepth 1 -name 'console-*.log' | sed -E 's/.*-([0-9]+)\.log$/\1/' |
			sort -n | tail -n 1)
		awk -F'\t' -v first="${last:-0}" -v date="$(date -u +%FT%TZ)" '
			NR == FNR { fp[$1] = $2; next }
			$1 > first && $3 == "pass" && ($2 in fp) { print $2 "\t" fp[$2] "\t" date }
		' FS=' ' "$logs/fingerprints" FS='\t' "$tsv" >> "$ledger"
	done
}

# stop_lanes: kill the debug lanes' process groups (pids), VMs included
stop_lanes() {
	local p
	for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null; done
}

# The debug tier's selftests: the list (after --subset, and --resume's
# passed tests) run by REFNIC_DEBUG_VMS lanes side by side (default: one
# per host core, at most 2), taking from one queue, longest timeout first
# (timeouts only hint at times: a fixed split by them left one lane idle
# for the last hour of a run); the debug kernel runs every test some 5x
# slower and the list takes hours in one VM. Each lane boots a VM every
# few tests (debug_lane); each VM ends with its own kmemleak scan, named
# after its lane and chunk.
debug_selftests() {
	local lanes=${REFNIC_DEBUG_VMS:-$(nproc)} chunk_size=${REFNIC_DEBUG_CHUNK:-4}
	local i p base interrupted=0 pids=() tests=() earlier=()
	[ "$lanes" -ge 1 ] 2>/dev/null || lanes=1
	[ "$lanes" -le 2 ] || lanes=2
	[ "$chunk_size" -ge 1 ] 2>/dev/null || chunk_size=4
	mapfile -t tests < <("$repo/selftests/harness/run.sh" --print-list \
		${subset_file:+--subset "$subset_file"})
	if [ "${#tests[@]}" -eq 0 ]; then
		result vm-debug fail "no selftests to run${subset:+ in subset $subset}"
		return
	fi
	base=$(debug_base)
	printf '%s\n' "${tests[@]}" | debug_fingerprints "$base" > "$logs/fingerprints"
	# The ledger keeps, of this list's tests, the passes that still hold
	# (their fingerprint is today's; none without --resume: they run
	# again), and the lines of tests outside the list as they are.
	if [ -z "$base" ]; then
		ledger=/dev/null
	else
		mkdir -p "$(dirname "$ledger")"
		touch "$ledger"
		awk -F'\t' -v resume="$resume" '
			NR == FNR { split($0, f, " "); listed[f[1]] = 1; now[f[1] "\t" f[2]] = 1; next }
			!($1 in listed) || (resume == 1 && (($1 "\t" $2) in now) && !seen[$1]++)
		' "$logs/fingerprints" "$ledger" > "$logs/ledger.kept"
		cat "$logs/ledger.kept" > "$ledger"
	fi
	if [ "$resume" = 1 ] && [ -n "$base" ]; then
		# this list's tests whose name and fingerprint are in the ledger
		mapfile -t earlier < <(awk 'NR == FNR { split($0, f, "\t"); done[f[1] " " f[2]] = 1; next }
			($0 in done) { print $1 }' "$ledger" "$logs/fingerprints" 2>/dev/null)
		echo "debug: resuming; passed earlier as they are now: ${earlier[*]:-none}"
		mapfile -t tests < <(printf '%s\n' "${tests[@]}" |
			awk 'NR == FNR { done[$0] = 1; next }
			     { name = $1; sub(/\.sh$/, "", name) } !(name in done)' \
				<(printf '%s\n' "${earlier[@]}") -)
	elif [ "$resume" = 1 ]; then
		echo "debug: cannot fingerprint the debug kernel, module or sources: not resuming"
	fi
	for p in "${earlier[@]}"; do
		result "vm-debug/$p" pass ""
	done
	if [ "${#tests[@]}" -eq 0 ]; then
		return
	fi
	rm -rf "$build/selftests/run-$KERNEL-debug-"*
	rm -f "$logs"/lane-*.list "$logs"/lane-*.chunk-* "$logs/queue.lock"
	# Longest first; NR keeps the list's order among equals.
	printf '%s\n' "${tests[@]}" |
		awk '{ print NR, $1, $2 }' | sort -k3,3nr -k1,1n |
		awk '{ print $2, $3 }' > "$logs/queue"
	if [ ! -s "$logs/queue" ]; then
		result vm-debug fail "the list could not be queued for the lanes (in $logs)"
		return
	fi
	# The lanes run for hours: stop their VMs with this script.
	trap 'interrupted=1; stop_lanes' INT TERM
	trap stop_lanes EXIT
	for ((i = 0; i < lanes; i++)); do
		setsid bash -c "$(declare -f debug_lane); $(declare -p repo build KERNEL \
			DEBUG_OUT DEBUG_KO logs ledger chunk_size); debug_lane $i" \
			> "$logs/selftests-$i.log" 2>&1 &
		pids+=("$!")
	done
	echo "debug: ${#pids[@]} VMs side by side, logs $logs/selftests-N.log"
	wait "${pids[@]}"
	pids=()
	trap - INT TERM EXIT
	[ "$interrupted" = 0 ] || result vm-debug fail "interrupted: the lanes were stopped"
	# A test no lane took (every lane died first) did not pass.
	while read -r name _; do
		result "vm-debug/${name%.sh}" fail "not run: no lane took it from the queue"
	done < "$logs/queue"
	for ((i = 0; i < lanes; i++)); do
		[ -s "$logs/lane-$i.list" ] || continue
		grep -E '^(not )?ok ' "$logs/selftests-$i.log" | sed "s/^/lane $i: /"
		show_vm_failures "$logs/selftests-$i.log"
		note_case_skips "vm-debug/" "$logs/selftests-$i.log"
		cat "$logs/lane-$i.chunk-"[0-9][0-9][0-9].tsv > "$logs/selftests-$i.tsv" 2>/dev/null
		if [ -s "$logs/selftests-$i.tsv" ]; then
			count_results "vm-debug/" "$logs/selftests-$i.tsv"
		else
			result "vm-debug/lane-$i" fail "no results, see $logs/selftests-$i.log"
		fi
	done
}

# Linux 7.x's own driver selftests against a refnic pair, counted per case
# (selftests/upstream/7.3/ci.list; docs/upstream-7.3.md): part of a full
# run on 7.x (the core subset's too) unless --no-upstream, and the upstream
# tier. 6.12's run as harness tests.
upstream_73() {
	local log=$logs/upstream-7.3.log
	REFNIC_KO=$KO IP_LIB_DIR=$build/iproute2 "$repo/selftests/upstream/run_7.3.sh" \
		--queues 8 --out "$logs/upstream-7.3" refnic \
		"$repo/selftests/upstream/7.3/ci.list" > "$log" 2>&1
	grep -E '^not ok ' "$log" | sed 's/^/        /'
	count_ktap "vm/upstream-7.3/" "$log"
	# cases ci.list lets fail once (retry:NAME), that passed the second time
	mapfile -t -O "${#retried[@]}" retried < <(sed -n \
		"s|^# \(.*: passed on its second run.*\)|$KERNEL/vm/upstream-7.3/\1|p" "$log")
}

case $tier in
full|quick)
	if [ "$host" = 1 ]; then
		step checkpatch checkpatch
		step driver-model-boundary "$repo/scripts/check-boundary.sh"
		step ynl-spec "$repo/scripts/ynl-gen.sh" --check
		step clang-format lint clang-format
		step clang-tidy lint clang-tidy
		host_unit_tests
		"$repo/tools/iproute2/test-parse.sh" > "$logs/iproute2.log" 2>&1
		count_ktap "iproute2/" "$logs/iproute2.log"
	fi
	step dkms-build dkms_build
	if [ "$tier" = quick ]; then
		step vm-smoke vm_smoke
	else
		if [ "$host" = 1 ]; then
			step vm-contract "$repo/scripts/vm/selftest.sh"
			"$repo/selftests/harness/selftest.sh" > "$logs/harness-selftest.log" 2>&1
			count_ktap "harness-selftest/" "$logs/harness-selftest.log"
		fi
		vm_start=$SECONDS
		vm_selftests "vm/" --series "$KERNEL" --out "$build/selftests/run-$KERNEL" \
			--timeout-scale "${REFNIC_TIMEOUT_SCALE:-1}"
		echo "vm selftests took $((SECONDS - vm_start)) s, from $vm_start s into the run"
		# Not in a second kernel's core lane.
		[ "$subset" = core ] || numa_selftests
		[ "$KERNEL" = 6.12 ] || [ "$upstream" = 0 ] || upstream_73
	fi
	;;
vm)
	vm_selftests "vm/" --series "$KERNEL" --out "$build/selftests/run-$KERNEL-$subset" \
		--timeout-scale "${REFNIC_TIMEOUT_SCALE:-1}"
	;;
upstream)
	if [ "$KERNEL" = 6.12 ]; then
		result upstream-7.3 fail "6.12's upstream selftests are harness tests (selftests/TESTS upstream/*); the upstream tier is for 7.x"
	else
		upstream_73
	fi
	;;
debug)
	if [[ $dbg_release != "$KERNEL".* ]]; then
		result vm-debug fail "the debug kernel in $DEBUG_OUT is $dbg_release, not a $KERNEL kernel (scripts/debug-kernel.sh --kernel $KERNEL)"
	else
		debug_selftests
	fi
	;;
esac

echo
if [ "${#skips[@]}" -gt 0 ]; then
	echo "Skipped:"
	printf '  %s\n' "${skips[@]}"
fi
if [ "${#case_skips[@]}" -gt 0 ]; then
	echo "Cases skipped inside tests that passed (not counted):"
	printf '  %s\n' "${case_skips[@]}"
fi
if [ "${#retried[@]}" -gt 0 ]; then
	echo "Passed on their second run (their list allows one retry, and says why):"
	printf '  %s\n' "${retried[@]}"
fi
if [ "${#failures[@]}" -gt 0 ]; then
	echo "Failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "kernel $kernel_desc${subset:+, subset $subset}: $pass passed, $fail failed, $skip skipped ($((SECONDS / 60)) min $((SECONDS % 60)) s)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
