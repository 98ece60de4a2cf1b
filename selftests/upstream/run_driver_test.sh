#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Run one of the kernel's own driver selftests (tools/testing/selftests/
# drivers/net, installed by scripts/upstream-selftests.sh) against a device
# and report it as one KTAP test, the upstream KTAP nested inside.
#
# Usage: run_driver_test.sh [--name NAME] TEST
#   TEST  ping.py, stats.py, queues.py, hw/rss_ctx.py ... (relative to
#         drivers/net) or a path relative to the installed kselftest dir.
#   NAME  name of the result line (default: TEST).
#
# Environment (the upstream contract, see drivers/net/README.rst):
#   NETIF                   device under test (required: without it upstream
#                           falls back to netdevsim, which Debian's kernel lacks)
#   LOCAL_V4 / LOCAL_V6     its addresses
#   REMOTE_V4 / REMOTE_V6   the peer's addresses
#   REMOTE_TYPE=netns       peer lives in a network namespace ...
#   REMOTE_ARGS=<netns>     ... of this name
#   DISRUPTIVE=0            upstream knob: skip tests that take the link down
# Our knobs:
#   UPSTREAM_KSFT_DIR       installed selftests (default build/upstream/kselftest,
#                           on 7.x build/upstream-7.3/kselftest)
#   UPSTREAM_TIMEOUT        seconds for the whole test file (default 300). Under
#                           TCG python alone needs 6-7 s to start a test file.
#   UPSTREAM_FAIL_ON_SKIP=1 count SKIP/XFAIL cases as failures (for a driver
#                           that is expected to support everything the test checks)
#   UPSTREAM_ALLOW_XFAIL=RE ... except SKIP/XFAIL cases whose result line, from
#                           the case name on, matches the extended regex RE
#                           (6.12's tests say XFAIL where 7.3's say SKIP)
#   REFNIC_UPSTREAM_SKIP_CASES="CASE=REASON;..." cases (function names) that
#                           SKIP with REASON instead of running: wall-clock
#                           limits no TCG VM meets (slow/sitecustomize.py)
#
# Exit: 0 pass, 1 fail, 4 skip. The result is derived from the upstream KTAP
# lines as well as the exit code: any "not ok" fails, whatever python exits.
# A test that only skipped is a skip. On exit (also on timeout or a signal)
# the device's admin state and channel counts are put back if the test left
# them changed (its own deferred clean-up does not run when it is killed).
set -euo pipefail
shopt -s lastpipe

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"
build=${REFNIC_BUILD:-$repo/build}
# The running kernel's own selftests: 6.12's from linux-source-6.12, 7.x's
# from linux-source-7.3 (scripts/upstream-selftests.sh 7.3), whose ynl specs
# know the attributes that kernel sends. 7.3's tests want the tools of their
# time first on PATH (scripts/upstream-tools.sh: ethtool 7.2 with --json,
# iproute2 7.3), and run_7.3.sh's environment.
case $REFNIC_SERIES in
6.12) ksft=${UPSTREAM_KSFT_DIR:-$build/upstream/kselftest} ;;
*)
	ksft=${UPSTREAM_KSFT_DIR:-$build/upstream-7.3/kselftest}
	PATH=$build/tools/bin:$PATH
	export KSFT_MACHINE_SLOW=yes LOCAL_PREFIX_V6=${LOCAL_PREFIX_V6:-2001:db8:2::/64}
	# iproute2 7.3's ip must not load the refnic plugin built for ip 6.1.
	unset IP_LIB_DIR
	;;
esac
# Scaled as the harness scales the tests' own limits (6 on the debug
# kernel); TESTS gives the test more than this, so this one fires first.
tmo=$((${UPSTREAM_TIMEOUT:-300} * ${REFNIC_TIMEOUT_SCALE:-1}))

name=
if [ "${1:-}" = "--name" ]; then
	name=${2:?--name needs a value}
	shift 2
fi
test=${1:-}
name=${name:-${test:-run_driver_test}}

# One KTAP document with a single result, for the paths that never start
# the upstream test. $1: 0/1/4, $2: reason.
result_only() {
	echo "KTAP version 1"
	echo "1..1"
	case $1 in
	0) echo "ok 1 $name${2:+ # $2}" ;;
	4) echo "ok 1 $name # SKIP $2" ;;
	*) echo "not ok 1 $name # $2" ;;
	esac
	exit "$1"
}

# A harness that globs selftests/upstream/*.sh runs us without arguments.
[ -n "$test" ] || result_only 4 "usage: run_driver_test.sh [--name NAME] TEST"
[ "$EUID" -eq 0 ] || result_only 4 "needs root"
[ -n "${NETIF:-}" ] || result_only 4 "NETIF not set (upstream would use netdevsim, absent from Debian's kernel)"
[ -f "$ksft/run_kselftest.sh" ] ||
	result_only 1 "no installed selftests in $ksft (run scripts/upstream-selftests.sh on the host)"
# Checks and state probes below read /sys and /run rather than running ip:
# under TCG every exec costs 0.2-0.5 s. (ip netns exec gives a namespace its
# own /sys, so this also holds when we run inside one.)
sysdev=/sys/class/net/$NETIF
[ -e "$sysdev" ] || result_only 1 "NETIF=$NETIF does not exist"
if [ "${REMOTE_TYPE:-}" = netns ] && [ ! -e "/run/netns/${REMOTE_ARGS:-}" ]; then
	result_only 1 "REMOTE_ARGS=${REMOTE_ARGS:-} is not a network namespace"
fi

path=
for p in "$ksft/drivers/net/$test" "$ksft/$test"; do
	if [ -f "$p" ]; then
		path=$p
		break
	fi
done
[ -n "$path" ] || result_only 1 "no upstream test $test under $ksft"

# --- device state to restore ------------------------------------------------
admin_up() { # IFF_UP in the device flags
	local flags
	read -r flags <"$sysdev/flags" && (((flags & 0x1) != 0))
}

# "rx 4 tx 4 combined 0 ..." from ethtool -l's current settings (ethtool 6.1
# has no JSON for -l); empty if the device has no channel API.
channels() {
	ethtool -l "$NETIF" 2>/dev/null | awk '
		/^Current hardware settings:/ { cur = 1; next }
		cur && $2 ~ /^[0-9]+$/ {
			k = tolower($1); sub(":", "", k); printf "%s %s ", k, $2
		}'
}

was_up=0
admin_up && was_up=1
chan0=$(channels)

restored=0
restore() {
	[ "$restored" -eq 0 ] || return 0
	restored=1
	[ -e "$sysdev" ] || return 0
	if [ -n "$chan0" ] && [ "$(channels)" != "$chan0" ]; then
		echo "# restoring channels of $NETIF: $chan0"
		# shellcheck disable=SC2086 # word splitting of "key value" pairs
		ethtool -L "$NETIF" $chan0 || echo "# could not restore channels"
	fi
	if [ "$was_up" -eq 1 ] && ! admin_up; then
		echo "# setting $NETIF back up"
		ip link set dev "$NETIF" up || true
	elif [ "$was_up" -eq 0 ] && admin_up; then
		ip link set dev "$NETIF" down || true
	fi
}

tmpd=
pid=
# shellcheck disable=SC2317 # only called from the EXIT trap
cleanup() {
	# Stop the test if we are interrupted: timeout(1) passes the signal on to
	# the test and its process group (socat, iperf3 ... started by it).
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	restore
	[ -z "$tmpd" ] || rm -rf "$tmpd"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- run ----------------------------------------------------------------------
echo "KTAP version 1"
echo "1..1"
echo "# Subtest: $name"
echo "# upstream ${path#"$ksft"/} on NETIF=$NETIF" \
	"remote=${REMOTE_TYPE:-none}:${REMOTE_ARGS:-} timeout=${tmo}s"

case $path in
*.py) runner=(python3 -u "./${path##*/}") ;;
*) runner=("./${path##*/}") ;;
esac

# A FIFO rather than a pipeline so that we know the test's pid for clean-up
# and can parse its output as it streams.
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/run_driver_test.XXXXXX")
mkfifo "$tmpd/out"
start=$SECONDS
(
	cd "$(dirname "$path")"
	# The installed tree is read-only in the VM; compiled .pyc come with the build.
	export PYTHONDONTWRITEBYTECODE=1
	# slow/: on a slow (debug) kernel upstream's 5 s readiness deadlines
	# (a listener, a file) are scaled as the tests' own limits are,
	# REFNIC_UPSTREAM_SKIP_CASES skips what no TCG VM can meet, and (7.x's
	# lib only: 6.12's process() has no timeout) an iperf3 left with
	# SIGTERM blocked past process()'s timeout is killed.
	if [ "${REFNIC_TIMEOUT_SCALE:-1}" -gt 1 ]; then
		export REFNIC_UPSTREAM_DEADLINE_SCALE=$REFNIC_TIMEOUT_SCALE
	fi
	export PYTHONPATH=$here/slow${PYTHONPATH:+:$PYTHONPATH}
	exec timeout --kill-after=10 "$tmo" "${runner[@]}" </dev/null
) >"$tmpd/out" 2>&1 &
pid=$!

pass=0 fail=0 skip=0 xfail=0 xfail_ok=0
allow=${UPSTREAM_ALLOW_XFAIL:-}
while IFS= read -r line; do
	printf '    %s\n' "$line"
	case $line in
	"not ok "*) fail=$((fail + 1)) ;;
	"ok "*"# SKIP"* | "ok "*"# skip"*)
		skip=$((skip + 1))
		if [ -n "$allow" ] && [[ ${line#ok * } =~ $allow ]]; then
			xfail_ok=$((xfail_ok + 1))
		fi
		;;
	"ok "*"# XFAIL"*)
		xfail=$((xfail + 1))
		if [ -n "$allow" ] && [[ ${line#ok * } =~ $allow ]]; then
			xfail_ok=$((xfail_ok + 1))
		fi
		;;
	"ok "*) pass=$((pass + 1)) ;;
	esac
done <"$tmpd/out"
rc=0
wait "$pid" || rc=$?
pid=
secs=$((SECONDS - start))

restore

counts="pass:$pass fail:$fail skip:$skip xfail:$xfail, ${secs}s"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "not ok 1 $name # timed out after ${tmo}s (UPSTREAM_TIMEOUT) $counts"
	exit 1
elif [ "$rc" -eq 4 ] && [ "$fail" -eq 0 ]; then
	echo "ok 1 $name # SKIP upstream test skipped ($counts)"
	exit 4
elif [ "$rc" -ne 0 ] || [ "$fail" -gt 0 ]; then
	echo "not ok 1 $name # exit $rc, $counts"
	exit 1
elif [ $((pass + skip + xfail)) -eq 0 ]; then
	echo "not ok 1 $name # no KTAP results from upstream test"
	exit 1
elif [ "${UPSTREAM_FAIL_ON_SKIP:-0}" = 1 ] && [ $((skip + xfail - xfail_ok)) -gt 0 ]; then
	echo "not ok 1 $name # skips not allowed (UPSTREAM_FAIL_ON_SKIP=1, allowed: ${allow:-none}), $counts"
	exit 1
elif [ "$pass" -eq 0 ]; then
	echo "ok 1 $name # SKIP every case skipped ($counts)"
	exit 4
fi
echo "ok 1 $name # $counts"
exit 0
