#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SUNRECL_before and the like are set by snapshot(), through printf -v.
# shellcheck disable=SC2154
#
# Netlink fuzz test of the refnic generic netlink family. The fuzzer
# (selftests/genl/fuzz.c, built to build/selftests/genl/fuzz; its header
# says how messages are made and mutated) sends at least 100,000 requests,
# mostly mutations of valid ones, from namespace $NS1 (and 1 batch in 16
# from $NS2) while a thread of it creates and deletes pairs concurrently.
# This script adds what only the outside sees, and asserts:
#  - the fuzzer's own checks: every request answered exactly once (by
#    sequence number: an ACK/errno, or NLMSG_DONE for a dump; none lost,
#    none late), every operation succeeded at least once, the churn saw no
#    unexpected error, nothing left in either namespace afterwards;
#  - every handler of the family was reached, counted by kprobe events on
#    each refnic_nl_*_doit/_dumpit/_dump_start (kmod/refnic_nl_gen.h), at
#    least $MIN_HITS times each;
#  - the kernel log is clean from the test's start marker on (the
#    harness's patterns: WARN, BUG, KASAN, lockdep, refcount, leak, ...);
#  - no refnic platform device (card) is left, the module's reference count
#    is back to where it was, and if this script loaded the module, rmmod
#    succeeds;
#  - page pools: in the initial namespace and both test namespaces, no pool
#    that was not there before is left, and the in-flight pages of those
#    that were are back to their count (netdev netlink page-pool-get, with
#    the kernel's YNL library), within 10 s of the last pair going;
#  - slab: SUnreclaim (/proc/meminfo) after the fuzz is within
#    $SLAB_TOL_KB of what it was before it. Both measurements follow a
#    warm-up fuzz of 3,000 requests with the churn (first use grows caches
#    that then stay: per-netns and per-cpu structures, kernfs, slab pages
#    on per-cpu partial lists), all devices gone, and a settle: `echo 3 >
#    drop_caches` twice 1 s apart (the kfree_rcu shrinker drains batched
#    kfree_rcu() frees), a ping per CPU in each namespace (frees skbs
#    deferred to a CPU, skb_attempt_defer_free()) and a shrink of every
#    slab cache (/sys/kernel/slab/*/shrink: 7.x keeps freed objects in
#    per-CPU sheaves and a per-node barn; without the shrink 7.3 ended
#    +1176 to +1696 KiB after ~1,000-1,200 pairs, with it +260 KiB after
#    1,376, measured). The tolerance, 1 MiB by
#    default, is what SLUB's per-cpu partial slabs and the page allocator's
#    per-cpu lists can hold in empty-but-not-returned slab pages on two
#    vCPUs (measured under TCG: +80 to +532 KiB in four runs);
#    a per-request leak of even 16 bytes over 100,000 requests, or one of a
#    few KiB per created pair (about 2,000 pairs are made), is well above it.
#    The caches that grew most are printed either way.
#
# Environment: REFNIC_FUZZ_SEED (printed; replays the same message sequence),
# REFNIC_FUZZ_COUNT (100000; 20000 on the debug kernel), REFNIC_FUZZ_MIN_HITS (100),
# REFNIC_FUZZ_SLAB_TOL_KB (1024).
#
# --self-test: prove the assertions can fail. The fuzzer ignores one answer
# on purpose (--self-test), and 8 pairs are left up after it: "every request
# answered", the page-pool check and the slab check must each report a
# failure. Passes when all three do.
set -u
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

FUZZ_BIN=${REFNIC_FUZZ_BIN:-$REFNIC_REPO/build/selftests/genl/fuzz}
KSRC=$REFNIC_REPO/build/linux-source
NETDEV_SPEC=$KSRC/Documentation/netlink/specs/netdev.yaml
NS1=rfz-$$
NS2=rfz2-$$
# refnic's debug kernel (scripts/debug-kernel.sh names it X.Y.Z-refnic-debug)
# is several times slower per request (KASAN, lockdep, kmemleak): a fifth of
# the requests, which still reach every handler MIN_HITS times (checked).
# KASAN's quarantine keeps freed objects in slab there, so the slab check
# gives way to the kmemleak scan the debug tier runs after the tests.
DEBUG_KERNEL=$REFNIC_DEBUG_KERNEL # lib.sh
COUNT=${REFNIC_FUZZ_COUNT:-$((DEBUG_KERNEL ? 20000 : 100000))}
MIN_HITS=${REFNIC_FUZZ_MIN_HITS:-100}
SLAB_TOL_KB=${REFNIC_FUZZ_SLAB_TOL_KB:-1024}
SEED=${REFNIC_FUZZ_SEED:-$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ))}
TRACE=/sys/kernel/tracing
GROUP=refnic_fuzz
INSTANCE=$TRACE/instances/refnic_fuzz_$$
SELF_TEST=0
[ "${1:-}" = --self-test ] && SELF_TEST=1

# The family's handlers (kmod/refnic_nl_gen.h).
HANDLERS=(dev_get_doit dev_get_dumpit dev_new_doit dev_del_doit link_set_doit
	  stats_get_doit stats_get_dump_start stats_get_dumpit fault_set_doit
	  fault_get_dump_start fault_get_dumpit bus_set_doit)

# The harness's list of kernel log lines that fail a test.
DMESG_BAD='WARNING:|BUG:|Oops|general protection fault|Kernel panic|kernel BUG|'
DMESG_BAD+='refcount_t:|possible circular locking|possible recursive locking|'
DMESG_BAD+='inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|'
DMESG_BAD+='lockdep is turned off|KASAN|UBSAN|suspected memory leak|'
DMESG_BAD+='unreferenced object|stalled pool shutdown|'
DMESG_BAD+='unregister_netdevice: waiting|blocked for more than|soft lockup|'
DMESG_BAD+='hard LOCKUP|detected stalls|list_add corruption|list_del corruption|'
DMESG_BAD+='DMA-API:|Call Trace:'

LOADED=0
PROBES=0
TMP=
PLANTED=()

cleanup() {
	local rc=$? h
	trap - EXIT
	if [ "$PROBES" = 1 ]; then
		echo 0 > "$INSTANCE/events/$GROUP/enable" 2>/dev/null
		rmdir "$INSTANCE" 2>/dev/null
		for h in "${HANDLERS[@]}"; do
			echo "-:$GROUP/rfz_$h" >> "$TRACE/kprobe_events" 2>/dev/null
		done
	fi
	for h in "${PLANTED[@]}"; do
		ip -n "$NS1" link del "$h" 2>/dev/null
	done
	ip netns del "$NS1" 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
	if [ "$LOADED" = 1 ] && refnic_loaded && ! rmmod refnic 2>/dev/null; then
		echo "# cleanup: rmmod refnic failed"
		[ "$rc" -ne 0 ] || rc=1
	fi
	exit "$rc"
}

msg() { ktap_print_msg "$@"; }

ktap_print_header
[ "$(id -u)" -eq 0 ] || { ktap_skip_all "needs root"; exit "$KSFT_SKIP"; }
[ -x "$FUZZ_BIN" ] || { ktap_skip_all "no $FUZZ_BIN (make selftests)"; exit "$KSFT_SKIP"; }
[ -f "$NETDEV_SPEC" ] || { ktap_skip_all "no $NETDEV_SPEC (scripts/kernel-source.sh)"; exit "$KSFT_SKIP"; }
TMP=$(mktemp -d /tmp/refnic-fuzz.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if ! refnic_loaded; then
	out=$(refnic_load 2>&1) || ktap_exit_fail_msg "insmod $REFNIC_KO: $out"
	LOADED=1
fi
if ! ip netns add "$NS1" || ! ip netns add "$NS2"; then
	ktap_exit_fail_msg "ip netns add"
fi
ip -n "$NS1" link set lo up
ip -n "$NS2" link set lo up

# ---- measurements -------------------------------------------------------------

cpus() { awk '/^processor/ { print $3 }' /proc/cpuinfo; }

settle() {
	local ns cpu
	for ns in "$NS1" "$NS2"; do
		for cpu in $(cpus); do
			taskset -c "$cpu" ip netns exec "$ns" ping -q -c 1 -W 1 127.0.0.1 >/dev/null 2>&1
		done
	done
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	# Shrink every slab cache: it flushes the per-CPU caches of free objects
	# (partial slabs on 6.12; 7.x's sheaves and their per-node barn, which
	# hold far more) and frees the empty slabs. Objects still allocated stay.
	find /sys/kernel/slab -mindepth 1 -maxdepth 1 -type d \
		-exec sh -c 'for c; do echo 1 > "$c/shrink"; done' sh {} + 2>/dev/null
}

meminfo_kb() { awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo; }

# slab_bytes FILE: "cache bytes" per slab cache (active objects x size).
slab_bytes() {
	awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo > "$1"
}

cards() { find /sys/bus/platform/devices -maxdepth 1 -name 'refnic.*' | wc -l; }

refcnt() { cat /sys/module/refnic/refcnt 2>/dev/null || echo gone; }

# pools FILE: the page pools of the initial and both test namespaces, one
# line each: "ns id ifindex inflight detached".
pools() {
	local ns
	: > "$1"
	for ns in init "$NS1" "$NS2"; do
		local pre=()
		[ "$ns" = init ] || pre=(ip netns exec "$ns")
		"${pre[@]}" python3 - "$KSRC/tools/net/ynl" "$NETDEV_SPEC" "$ns" >> "$1" <<-'EOF' || return 1
		import sys
		sys.path.insert(0, sys.argv[1])
		from lib import YnlFamily
		for p in YnlFamily(sys.argv[2], '').dump('page-pool-get', {}):
		    print(sys.argv[3], p['id'], p.get('ifindex', '-'),
		          p.get('inflight', 0), 'detached' if 'detach-time' in p else 'live')
		EOF
	done
}

# pools_back BEFORE AFTER: no new pool, and the old ones hold what they
# held. Waits up to 10 s for pools of deleted ports to be released.
pools_back() {
	local i bad
	for ((i = 0; i < 10; i++)); do
		pools "$TMP/pools.after" || { msg "page-pool-get failed"; return 1; }
		bad=$(awk 'FILENAME == ARGV[1] { old[$1 " " $2] = $4; next }
			   !(($1 " " $2) in old) || $4 != old[$1 " " $2]' \
			"$1" "$TMP/pools.after")
		[ -z "$bad" ] && return 0
		settle
	done
	msg "page pools (ns id ifindex inflight state) before:"
	sed 's/^/#   /' "$1"
	msg "new or changed since:"
	echo "$bad" | sed 's/^/#   /'
	return 1
}

# snapshot NAME: sets SUNRECL_NAME, PERCPU_NAME, CARDS_NAME, REFCNT_NAME
# and $TMP/slab.NAME.
snapshot() {
	settle
	printf -v "SUNRECL_$1" %s "$(meminfo_kb SUnreclaim)"
	printf -v "PERCPU_$1" %s "$(meminfo_kb Percpu)"
	printf -v "CARDS_$1" %s "$(cards)"
	printf -v "REFCNT_$1" %s "$(refcnt)"
	slab_bytes "$TMP/slab.$1"
}

slab_back() {
	local d=$((SUNRECL_after - SUNRECL_before))
	msg "SUnreclaim ${SUNRECL_before} kB -> ${SUNRECL_after} kB (${d} kB, tolerance ${SLAB_TOL_KB} kB); Percpu ${PERCPU_before} kB -> ${PERCPU_after} kB"
	msg "slab caches that changed most (bytes):"
	awk 'NR == FNR { b[$1] = $2; next } { d = $2 - b[$1]; if (d != 0) print d, $1 }' \
		"$TMP/slab.before" "$TMP/slab.after" | sort -rn | head -n 6 | sed 's/^/#   +/'
	[ "$d" -le "$SLAB_TOL_KB" ]
}

# ---- kprobes ---------------------------------------------------------------------

probes_add() {
	local h
	[ -w "$TRACE/kprobe_events" ] || mount -t tracefs nodev "$TRACE" 2>/dev/null
	[ -w "$TRACE/kprobe_events" ] || { msg "no $TRACE/kprobe_events"; return 1; }
	PROBES=1
	for h in "${HANDLERS[@]}"; do
		echo "p:$GROUP/rfz_$h refnic:refnic_nl_$h" >> "$TRACE/kprobe_events" ||
			{ msg "kprobe on refnic_nl_$h failed"; return 1; }
	done
	# Enabled in an instance of its own, its buffer off: the probes
	# count hits (kprobe_profile) and record nothing.
	mkdir "$INSTANCE" && echo 0 > "$INSTANCE/tracing_on" &&
		echo 1 > "$INSTANCE/events/$GROUP/enable"
}

# hits_read FILE: "event hits" of our probes.
hits_read() {
	awk '$1 ~ /^rfz_/ { print $1, $2 }' "$TRACE/kprobe_profile" > "$1"
}

# hits_ok: every handler reached at least MIN_HITS times since hits.before.
hits_ok() {
	local h n ok=0 line=
	hits_read "$TMP/hits.after"
	for h in "${HANDLERS[@]}"; do
		n=$(awk -v e="rfz_$h" '$1 == e { n[FILENAME] = $2 }
			END { if (ARGV[2] in n) print n[ARGV[2]] - n[ARGV[1]] }' \
			"$TMP/hits.before" "$TMP/hits.after")
		line+=" $h=${n:-?}"
		[ "${n:-0}" -ge "$MIN_HITS" ] || ok=1
	done
	msg "handler entries (kprobe hits):$line"
	return "$ok"
}

probes_del() {
	local h
	echo 0 > "$INSTANCE/events/$GROUP/enable"
	rmdir "$INSTANCE"
	for h in "${HANDLERS[@]}"; do
		echo "-:$GROUP/rfz_$h" >> "$TRACE/kprobe_events"
	done
	PROBES=0
}

# ---- the fuzzer --------------------------------------------------------------------

# fuzz LOG ARGS...: run it in NS1, its output as comments, its status.
fuzz() {
	local log=$1 rc
	shift
	ip netns exec "$NS1" "$FUZZ_BIN" --ns2 "/run/netns/$NS2" "$@" > "$log" 2>&1
	rc=$?
	sed 's/^/# /' "$log"
	return "$rc"
}

# relay LOG: the fuzzer's results as ours.
relay() {
	local line
	while read -r line; do
		case $line in
		"ok "*) ktap_test_pass "fuzz: ${line#ok [0-9]* }" ;;
		"not ok "*) ktap_test_fail "fuzz: ${line#not ok [0-9]* }" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$1")
}

dmesg_clean() {
	local bad
	bad=$(dmesg | sed -n "/refnic-fuzz-$$ start/,\$p" | grep -E "$DMESG_BAD")
	[ -z "$bad" ] && return 0
	msg "kernel log:"
	dmesg | sed -n "/refnic-fuzz-$$ start/,\$p" | grep -E -B 2 -A 20 -m 3 "$DMESG_BAD" |
		head -n 60 | sed 's/^/#   /'
	return 1
}

# ---- self-test ------------------------------------------------------------------------

if [ "$SELF_TEST" = 1 ]; then
	msg "self-test: the checks must catch a lost answer and leaked pairs"
	# 1000 on the debug kernel: two runs of 3000 took past its 1800 s
	# limit on a loaded host, and one lost answer needs no more
	self_count=$((DEBUG_KERNEL ? 1000 : 3000))
	fuzz "$TMP/warm.log" --count "$self_count" --seed 1 --quiet >/dev/null
	pools "$TMP/pools.before"
	snapshot before
	fuzz "$TMP/fuzz.log" --count "$self_count" --seed "$SEED" --self-test --quiet
	rc=$?
	# The planted leak: 8 pairs left up, with page pools holding pages.
	for i in $(seq 8); do
		ip -n "$NS1" link add "rfzl$i" type refnic queues 2 rx-ring 256 \
			peer name "rfzl${i}p" >/dev/null 2>&1 &&
			ip -n "$NS1" link set "rfzl$i" up && ip -n "$NS1" link set "rfzl${i}p" up
		PLANTED+=("rfzl$i")
	done
	# ndo_open fills the pools before `up` returns: the leak is in place.
	snapshot after
	if [ "$rc" -ne 0 ] && grep -q '^not ok [0-9]* every request answered' "$TMP/fuzz.log"; then
		ktap_test_pass "a lost answer fails 'every request answered'"
	else
		ktap_test_fail "a lost answer fails 'every request answered'"
	fi
	if pools_back "$TMP/pools.before"; then
		ktap_test_fail "leaked pairs fail the page pool check"
	else
		ktap_test_pass "leaked pairs fail the page pool check"
	fi
	if slab_back; then
		ktap_test_fail "leaked pairs fail the slab check"
	else
		ktap_test_pass "leaked pairs fail the slab check"
	fi
	ktap_set_plan 3
	ktap_finished
fi

# ---- the test ---------------------------------------------------------------------------

t0=$(date +%s)
msg "seed $SEED (replay: REFNIC_FUZZ_SEED=$SEED), $COUNT requests"
echo "refnic-fuzz-$$ start seed $SEED" > /dev/kmsg

# Warm-up, then the baseline.
fuzz "$TMP/warm.log" --count 3000 --seed 1 --quiet > /dev/null ||
	{ sed 's/^/# warm-up: /' "$TMP/warm.log"; ktap_exit_fail_msg "the warm-up fuzz failed"; }
# The probes go in before the baseline, and out after the last snapshot,
# so that their own memory is in both.
if probes_add; then
	have_probes=1
	hits_read "$TMP/hits.before"
else
	have_probes=0
fi
pools "$TMP/pools.before" || ktap_exit_fail_msg "page-pool-get failed"
snapshot before
msg "before: SUnreclaim ${SUNRECL_before} kB, ${CARDS_before} refnic cards, module refcount ${REFCNT_before}, $(wc -l < "$TMP/pools.before") page pools"

t1=$(date +%s)
fuzz "$TMP/fuzz.log" --count "$COUNT" --seed "$SEED"
fuzz_rc=$?
t2=$(date +%s)
msg "fuzzer exited with status $fuzz_rc after $((t2 - t1)) s"
# Whatever it left (it checks that itself: "cleanup"), so that the checks
# below measure the kernel, not an interrupted run.
for ns in "$NS1" "$NS2"; do
	for dev in $(ip -n "$ns" -o link show type refnic 2>/dev/null |
		     awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		ip -n "$ns" link del "$dev" 2>/dev/null && msg "deleted leftover $dev in $ns"
	done
done
relay "$TMP/fuzz.log"
grep -qE '^(not )?ok 6 ' "$TMP/fuzz.log" ||
	ktap_test_fail "fuzz: the fuzzer ran to its end (status $fuzz_rc)"

if [ "$have_probes" = 1 ]; then
	ktap_test_result "every handler reached at least $MIN_HITS times" hits_ok
else
	ktap_test_fail "every handler reached: no kprobe events (CONFIG_KPROBE_EVENTS, tracefs)"
fi

ktap_test_result "kernel log clean" dmesg_clean

ktap_test_result "page pools back to their state before (no pool left, in-flight pages as before)" \
	pools_back "$TMP/pools.before"

snapshot after
ktap_test_result "refnic cards back to ${CARDS_before} (now ${CARDS_after})" \
	test "$CARDS_after" = "$CARDS_before"
ktap_test_result "module refcount back to ${REFCNT_before} (now ${REFCNT_after})" \
	test "$REFCNT_after" = "$REFCNT_before"
if [ "$DEBUG_KERNEL" = 1 ]; then
	slab_back || true # prints the figures
	ktap_test_skip "slab usage: KASAN's quarantine holds freed objects on the debug kernel (kmemleak checks instead)"
else
	ktap_test_result "slab usage back within ${SLAB_TOL_KB} kB" slab_back
fi
[ "$have_probes" = 1 ] && probes_del

if [ "$LOADED" = 1 ]; then
	ip netns del "$NS1"
	ip netns del "$NS2"
	ktap_test_result "rmmod refnic" rmmod refnic
	LOADED=0
fi
msg "total $(($(date +%s) - t0)) s (fuzz $((t2 - t1)) s)"
ktap_set_plan $((KTAP_TESTNO - 1))
ktap_finished
