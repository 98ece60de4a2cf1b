#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-VM half of the test harness: runs the queued tests one by one and
# judges each. Started by selftests/harness/run.sh through scripts/vm/vm.sh.
#
#   guest-run.sh OUTDIR FIRST_INDEX
#
# OUTDIR is the writable share. It holds `queue` (lines "PATH TIMEOUT"), and
# this script appends one line per finished test to `results`
# ("INDEX<TAB>NAME<TAB>pass|fail|skip<TAB>REASON"), keeps the test's output
# in `logs/`, and names the running test in `current`, so that the host can
# tell which test took the kernel down if the VM dies.
#
# A test fails when it exits non-zero (4 is kselftest's skip), when it runs
# past its timeout, when its output has a KTAP "not ok" line that is not a
# SKIP/XFAIL/TODO (run_kselftest.sh-style tools exit 0 on those), or when the
# kernel logged a warning, bug, oops, lock, memory or page_pool problem, a
# hung task or a module that does not fit the kernel while it ran, or set a
# new taint flag.
#
# A test during which the guest's clock jumped far ahead of the host's is
# void: this script ends the VM asking for a fresh one (`fresh-vm`) without
# recording it, and the test runs again there (REFNIC_TEST_ATTEMPT=2). A
# second jump fails it.
#
# A run with a deadline (OUTDIR/deadline: the host's time in seconds since
# the epoch, from REFNIC_DEADLINE; CI's 90 minutes) starts no test after it
# and stops a running one there: each fails, saying so, and the run still
# ends with its summary.
#
# A kernel oops (its task is killed, often holding RTNL, so that whatever
# comes next blocks) or a hung task (the kernel's hung-task detector
# reports a task blocked in D
# state for kernel.hung_task_timeout_secs, which run.sh sets) fails the
# running test at once: such a task cannot be killed, so neither the test's
# timeout nor its end would ever come. The rest of the queue then needs a
# fresh VM: this script writes `fresh-vm` to OUTDIR and ends the VM, and
# run.sh goes on with the next test.
set -uo pipefail

out=$1
index=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)

# Kernel log lines that fail the test that was running when they appeared.
dmesg_bad='WARNING:|BUG:|Oops|general protection fault|Kernel panic|kernel BUG|'
dmesg_bad+='refcount_t:|possible circular locking|possible recursive locking|'
dmesg_bad+='inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|'
dmesg_bad+='lockdep is turned off|KASAN|UBSAN|suspected memory leak|'
dmesg_bad+='unreferenced object|stalled pool shutdown|'
dmesg_bad+='unregister_netdevice: waiting|blocked for more than|soft lockup|'
dmesg_bad+='hard LOCKUP|detected stalls|list_add corruption|list_del corruption|'
dmesg_bad+='DMA-API:|Call Trace:|hung_task|'
# a module built for another kernel: refused, tests then fail on insmod
dmesg_bad+='version magic|disagrees about version of symbol|Unknown symbol'
hung_re='blocked for more than|hung_task'
# An oops kills the task it hit, often holding RTNL or a device's lock:
# every later step then blocks. Like a hung task it ends the test at once
# and the rest of the queue goes on in a fresh VM.
oops_re='Oops|BUG: unable to handle|general protection fault|kernel BUG'
# Warnings that are not refnic's, excused whole (the "cut here" block that
# holds the line) with the reason in the test's log; anything else in the
# same test still fails it:
# - udmabuf maps its sg table for CPU access against its misc device, whose
#   DMA-API limit is the default 64 KiB segment while sg_alloc_table_from_
#   pages() merges contiguous pages past it. Only a DMA_API_DEBUG kernel
#   reports it, the first time a tool (refnic-devmem) calls
#   DMA_BUF_IOCTL_SYNC on a udmabuf.
dmesg_excused='DMA-API: misc udmabuf: mapping sg segment longer than device claims to support'

# Taint bits that mean the kernel hit trouble: M (4) machine check, B (5)
# bad page, D (7) died/oops, W (9) warning, L (14) soft lockup.
taint_bad_mask=$(( (1 << 4) | (1 << 5) | (1 << 7) | (1 << 9) | (1 << 14) ))

mkdir -p "$out/logs"

# DMA_API_DEBUG reports one error per boot unless told otherwise: an
# excused one must not hide refnic's.
if [ -w /sys/kernel/debug/dma-api/all_errors ]; then
	echo 1 > /sys/kernel/debug/dma-api/all_errors
fi

# excuse KMSG: drop from KMSG each warning block holding a $dmesg_excused
# line, keep it in KMSG.excused; succeeds if it dropped any.
excuse() {
	awk -v re="$dmesg_excused" -v ex="$1.excused" '
		function flush(keep) {
			if (keep) printf "%s", blk
			else { printf "%s", blk > ex; dropped = 1 }
			blk = ""; inblk = 0; hit = 0
		}
		/-+\[ cut here \]-+/ { if (inblk) flush(!hit); inblk = 1 }
		inblk { blk = blk $0 "\n"; if ($0 ~ re) hit = 1
			if ($0 ~ /---\[ end trace/) flush(!hit); next }
		{ print }
		END { if (inblk) flush(!hit); exit !dropped }' "$1" > "$1.kept" &&
		mv "$1.kept" "$1"
	local rc=$?
	rm -f "$1.kept"
	return "$rc"
}

# Why a test's output reads as failed, or nothing.
ktap_failure() {
	grep -E '^[[:space:]]*(not ok|Bail out!)' "$1" |
		grep -Eiv '#[[:space:]]*(SKIP|XFAIL|TODO)' | head -n 1
}

skip_reason() {
	local r
	r=$(grep -Eio '#[[:space:]]*SKIP.*' "$1" | tail -n 1 | sed -E 's/^#[[:space:]]*SKIP[[:space:]:]*//I')
	echo "${r:-test exited with KSFT_SKIP (4)}"
}

record() {
	# index name status reason
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$out/results"
	sync "$out/results" 2>/dev/null || sync
	if [ "$3" = fail ]; then
		echo "not ok $1 $2 # $4"
	elif [ "$3" = skip ]; then
		echo "ok $1 $2 # SKIP $4"
	else
		echo "ok $1 $2"
	fi
}

# What a test must give back once it has ended (its devices deleted, its
# processes gone): every user page pinned for DMA (/proc/vmstat: dmabufs of
# udmabuf, zcrx areas, bypass umems) released, and no page pool left in the
# initial namespace that was not there before it (a pool whose device went
# away with a namespace is out of view; the kernel's "stalled pool
# shutdown" warning, which the log scan fails on, covers those). Freeing
# is deferred (namespace cleanup, RCU, io_uring teardown): up to 30 s, six
# times that on the debug kernel, before it counts.
pins_held() {
	awk '$1 == "nr_foll_pin_acquired" { a = $2 } $1 == "nr_foll_pin_released" { r = $2 }
		END { print a - r }' /proc/vmstat
}
page_pools() { # the ids of the initial namespace's page pools, sorted, or "?"
	# Without refnic loaded none of its pools is left (a pool outliving its
	# device is the log scan's); a netlink dump costs a Python start under
	# TCG, so it is made only then, and without YNL (seconds more a call).
	[ -d /sys/module/refnic ] || return 0
	python3 -S "$repo/selftests/harness/page_pools.py" 2>/dev/null || echo '?'
}
leak_wait=30
{ [ -e /proc/lockdep ] || [ -e /sys/kernel/debug/kmemleak ]; } && leak_wait=180
# The pools a clean leak check saw are the next test's "before": nothing
# runs between two tests, and it spares a dump per test.
pools_seen=/run/refnic-harness-pools
# leaks PINS POOLS: why the test did not give everything back, or nothing
leaks() {
	local end=$((SECONDS + leak_wait)) pins pools extra
	while :; do
		pins=$(pins_held)
		pools=$(page_pools)
		extra=$(comm -13 <(tr ' ' '\n' <<<"$2" | sort) <(tr ' ' '\n' <<<"$pools" | sort) | grep -v '^$' | tr '\n' ' ')
		if [ "$pins" -le "$1" ] && { [ -z "$extra" ] || [ "$pools" = '?' ]; }; then
			[ "$pools" = '?' ] || echo "$pools" > "$pools_seen"
			return 0
		fi
		[ "$SECONDS" -lt "$end" ] || break
		sleep 1
	done
	[ "$pins" -le "$1" ] || echo "pinned pages not released $leak_wait s after the test: $((pins - $1)) more held than before it"
	[ -z "$extra" ] || echo "page pools left in the initial namespace $leak_wait s after the test: ids ${extra% }"
}

# The host's clock in seconds: the time the 9p server stamps on a file
# created on the writable share. Under TCG the guest's TSC is the host's
# raw TSC, so a host that is paused or migrated can make the guest's clocks
# jump days ahead at once; then every timeout, watchdog and stall detector
# in the guest fires together. A test whose guest time ran far ahead of the
# host's is void, not failed: it runs again in a fresh VM, once.
host_now() {
	local f="$out/.host-clock"
	: > "$f" && stat -c %Y "$f" && rm -f "$f"
}
clock_jump_slack=60	# seconds the guest may run ahead before it counts
deadline=$(cat "$out/deadline" 2>/dev/null) || deadline=

# Start clean: boot messages are not any test's fault, but a boot-time
# problem is worth showing once.
if dmesg | grep -Eq "$dmesg_bad"; then
	echo "# warning: the kernel log had problems before any test ran:"
	dmesg | grep -E -m 5 "$dmesg_bad" | sed 's/^/#   /'
fi
dmesg -C

# The hung-task watcher: blocks on the kernel log (no polling), and on a
# report logs what every CPU is running (sysrq l) and writes the kernel
# stack of every runnable or blocked task to $out/hung-stacks.log: the
# detector shows only the blocked task, not the lock holder that may be
# spinning or preempted. Then it gives the kernel a moment to log, flags
# the hang and kills the running test's `timeout` process (its pid in
# $pidfile), which ends the wait below even when the test itself is stuck
# for good. One report per VM is enough: the VM ends after it.
pidfile=/run/refnic-harness-test.pid
hungflag=/run/refnic-harness-hung
(
	line=$(grep -E -m 1 "$hung_re|$oops_re" < <(exec dmesg --follow-new 2>/dev/null)) || exit 0
	echo l > /proc/sysrq-trigger
	for t in /proc/[0-9]*/task/[0-9]*; do
		case $(awk '/^State:/ { print $2 }' "$t/status" 2>/dev/null) in
		R | D) echo "task ${t##*/} ($(cat "$t/comm" 2>/dev/null)):" &&
			sed 's/^/  /' "$t/stack" 2>/dev/null ;;
		esac
	done > "$out/hung-stacks.log"
	sleep 2
	echo "$line" > "$hungflag"
	kill -KILL "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null
) > /dev/null 2>&1 &
watcher=$!

while read -r path timeout; do
	name=${path%.sh}
	log="$out/logs/$(echo "$name" | tr '/' '_').log"

	if [ -x "$repo/selftests/$path" ] && [ -f "$repo/selftests/$path" ]; then
		exe="$repo/selftests/$path"
	elif [ -x "$repo/build/selftests/$path" ]; then
		exe="$repo/build/selftests/$path"
	else
		record "$index" "$name" fail "no executable selftests/$path or build/selftests/$path (not built?)"
		index=$((index + 1))
		continue
	fi

	echo "$name" > "$out/current"
	sync "$out/current" 2>/dev/null || sync
	# A test voided by a clock jump runs again as attempt 2.
	jumped="$out/clock-jumped/$(echo "$name" | tr '/' '_')"
	attempt=1
	[ ! -e "$jumped" ] || attempt=2
	taint_before=$(cat /proc/sys/kernel/tainted)
	pins_before=$(pins_held)
	# No seen list after a leak check that failed or did not run (a test
	# that failed before it, or the first).
	if [ -r "$pools_seen" ]; then
		pools_before=$(cat "$pools_seen")
		rm -f "$pools_seen"
	else
		pools_before=$(page_pools)
	fi
	host_started=$(host_now)
	started=$(date +%s)
	cut_short=
	if [ -n "$deadline" ]; then
		left=$((deadline - host_started))
		if [ "$left" -lt 30 ]; then
			record "$index" "$name" fail "not run: the run's deadline (REFNIC_DEADLINE) had passed"
			index=$((index + 1))
			continue
		fi
		[ "$left" -ge "$timeout" ] || { timeout=$left cut_short=1; }
	fi

	# A session of its own, so that whatever the test left running in the
	# background is killed with it and cannot hold its output open.
	(cd "$(dirname "$exe")" && REFNIC_TEST_ATTEMPT=$attempt exec setsid timeout -k 10 "$timeout" "$exe") \
		> "$log" 2>&1 < /dev/null &
	pid=$!
	echo "$pid" > "$pidfile"
	wait "$pid"
	rc=$?
	rm -f "$pidfile"
	kill -KILL -- "-$pid" 2>/dev/null
	took=$(($(date +%s) - started))
	jump=$((took - ($(host_now) - host_started)))

	sed 's/^/# /' "$log"
	# What each test costs, for balancing CI's lanes (docs/testing.md)
	echo "# $name took ${took} s"

	status=pass
	reason=
	if [ -e "$hungflag" ] && grep -Eq "$oops_re" "$hungflag"; then
		status=fail
		reason="kernel oops, test killed: $(sed -E 's/^\[[^]]*\][[:space:]]*//' "$hungflag")"
	elif [ -e "$hungflag" ]; then
		status=fail
		reason="hung task (blocked longer than kernel.hung_task_timeout_secs=$(cat /proc/sys/kernel/hung_task_timeout_secs)), test killed"
	elif { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ -n "$cut_short" ]; then
		status=fail
		reason="stopped after ${timeout}s at the run's deadline (REFNIC_DEADLINE)"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		status=fail
		reason="timed out after ${timeout}s"
	elif [ "$rc" -eq 4 ]; then
		status=skip
		reason=$(skip_reason "$log")
	elif [ "$rc" -ne 0 ]; then
		status=fail
		reason="exit status $rc"
	else
		bad=$(ktap_failure "$log")
		if [ -n "$bad" ]; then
			status=fail
			reason="exited 0 but reported: ${bad#"${bad%%[![:space:]]*}"}"
		fi
	fi

	if [ "$status" = pass ] && [ ! -e "$hungflag" ]; then
		leak_start=$SECONDS
		leaked=$(leaks "$pins_before" "$pools_before")
		# The harness's own cost, shown when it is more than the dump's.
		[ $((SECONDS - leak_start)) -lt 10 ] ||
			echo "# $name: leak check took $((SECONDS - leak_start)) s"
		if [ -n "$leaked" ]; then
			status=fail
			reason=$(echo "$leaked" | paste -sd ';' | sed 's/;/; /g')
		fi
	fi

	kmsg="$out/logs/$(echo "$name" | tr '/' '_').dmesg"
	dmesg -c > "$kmsg"
	if [ "$jump" -gt "$clock_jump_slack" ] && [ "$attempt" = 1 ]; then
		echo "# the guest's clock jumped $jump s ahead of the host's while $name ran: void, it runs again in a fresh VM; kernel log:"
		grep -E -m 3 "$dmesg_bad" "$kmsg" | sed 's/^/#   /'
		mv "$kmsg" "$kmsg.clock-jump"
		mkdir -p "${jumped%/*}"
		echo "$jump" > "$jumped"
		rm -f "$out/current"
		: > "$out/fresh-vm"
		sync "$out/fresh-vm" 2>/dev/null || sync
		exit 0
	fi
	taint_after=$(cat /proc/sys/kernel/tainted)
	new_taint=$(( (taint_after & ~taint_before) & taint_bad_mask ))
	if excuse "$kmsg"; then
		echo "# excused, not refnic's (guest-run.sh, dmesg_excused):"
		grep -E "$dmesg_excused" "$kmsg.excused" | sed 's/^/#   /'
		# The warning taints (W); another warning still fails below.
		new_taint=$((new_taint & ~(1 << 9)))
	fi
	if grep -Eq "$dmesg_bad" "$kmsg"; then
		status=fail
		first=$(grep -E -m 1 "$dmesg_bad" "$kmsg" | sed -E 's/^\[[^]]*\][[:space:]]*//')
		reason="${reason:+$reason; }kernel log: $first"
		echo "# kernel log during $name:"
		grep -E -B 2 -A 25 -m 3 "$dmesg_bad" "$kmsg" | head -n 60 | sed 's/^/#   /'
	elif [ "$new_taint" -ne 0 ]; then
		status=fail
		reason="${reason:+$reason; }kernel taint changed $taint_before -> $taint_after"
	fi

	if [ "$jump" -gt "$clock_jump_slack" ]; then
		status=fail
		reason="the guest's clock jumped ahead of the host's on both attempts ($(cat "$jumped") s, then $jump s)${reason:+; $reason}"
	elif [ "$attempt" = 2 ]; then
		echo "# $name ran again: its first attempt was void, the guest's clock jumped $(cat "$jumped") s"
	fi
	record "$index" "$name" "$status" "$reason"
	index=$((index + 1))

	if [ -e "$hungflag" ]; then
		echo "# a kernel oops or a task stuck for good: the remaining tests go on in a fresh VM"
		rm -f "$out/current"
		: > "$out/fresh-vm"
		sync "$out/fresh-vm" 2>/dev/null || sync
		exit 0
	fi

	# Leave no state behind for the next test.
	ip -all netns delete 2>/dev/null
done < "$out/queue"

rm -f "$out/current"
kill "$watcher" 2>/dev/null

# On a kernel with kmemleak, finish with one scan: leaks that no single test
# showed (objects freed late, or lost across tests) are reported here.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo kmemleak-scan > "$out/current"
	# kmemleak that turned itself off (an error of its own) keeps its
	# file but refuses to scan: that is no clean scan
	if ! { echo scan > /sys/kernel/debug/kmemleak && sleep 5 &&
		echo scan > /sys/kernel/debug/kmemleak; } 2>/dev/null; then
		record "$index" kmemleak-scan fail "kmemleak refused to scan (disabled?): $(dmesg | grep -m 1 'kmemleak:' || true)"
	elif ! leaks=$(cat /sys/kernel/debug/kmemleak); then
		record "$index" kmemleak-scan fail "cannot read /sys/kernel/debug/kmemleak"
	elif [ -n "$leaks" ]; then
		echo "$leaks" | head -n 80 | sed 's/^/# /'
		record "$index" kmemleak-scan fail "kmemleak: $(echo "$leaks" | grep -c '^unreferenced object') unreferenced objects"
	else
		record "$index" kmemleak-scan pass ""
	fi
	rm -f "$out/current"
fi
exit 0
