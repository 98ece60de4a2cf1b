#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves the harness can fail: runs the planted suite (planted.list) in the
# VM and checks that each planted problem is reported as a failure for the
# right reason, that skips and passes are told apart, and that the tests
# after a kernel panic still run in a fresh VM. Runs on the host; prints KTAP.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/selftests/harness-selftest
results=$out.tsv

rc=0
"$repo/selftests/harness/run.sh" --list "$repo/selftests/harness/planted.list" \
	--out "$out" --results "$results" "$@" > "$out.log" 2>&1 || rc=$?

# A run with a deadline 90 s away: time to boot and start the first test,
# which hangs, and no time for the second.
drc=0
REFNIC_DEADLINE=$(($(date +%s) + 90)) "$repo/selftests/harness/run.sh" \
	--list "$repo/selftests/harness/planted-deadline.list" --out "$out-deadline" \
	--results "$out-deadline.tsv" "$@" > "$out-deadline.log" 2>&1 || drc=$?

echo "TAP version 13"
echo "1..16"
n=0
failed=0
check() {
	# description index status reason-regex [results]
	local line status reason
	n=$((n + 1))
	line=$(awk -F'\t' -v i="$2" '$1 == i' "${5:-$results}" 2>/dev/null)
	status=$(echo "$line" | cut -f3)
	reason=$(echo "$line" | cut -f4-)
	if [ "$status" = "$3" ] && echo "$reason" | grep -Eq -- "$4"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1 # got '${status:-nothing}' '${reason}'"
		failed=1
	fi
}

check "a passing test passes" 1 pass '^$'
check "'not ok' with exit 0 fails" 2 fail 'not ok 2 planted failing subtest'
check "a hanging test times out and fails" 3 fail 'timed out after 8s'
check "a kernel WARN fails the test" 4 fail 'kernel log: WARNING: .*refnic_planted_warn'
check "exit 4 is a skip with its reason" 5 skip 'planted skip reason'
check "a clock jump voids the attempt; the rerun in a fresh VM counts" 6 pass '^$'
check "a kernel panic fails the test" 7 fail 'VM died'
check "tests after a panic run in a fresh VM" 8 pass '^$'
check "an oops ends its test at once" 9 fail 'kernel oops, test killed: .*BUG: '
check "tests after an oops run in a fresh VM" 10 pass '^$'
check "a page pool left behind fails the test" 11 fail 'page pools left in the initial namespace .* after the test'
check "a test that gives everything back passes" 12 pass '^$'

n=$((n + 1))
if [ "$rc" -ne 0 ] && grep -q 'Kernel panic' "$out.log" &&
	grep -q "clock jumped .* ahead of the host's while harness/planted/clock_jump ran" "$out.log"; then
	echo "ok $n the run fails as a whole, shows the panic's console tail and the voided attempt"
else
	echo "not ok $n the run fails as a whole, shows the panic's console tail and the voided attempt # run.sh exit $rc"
	failed=1
fi

check "a test running at the run's deadline is stopped there" 1 fail \
	"stopped after [0-9]+s at the run's deadline" "$out-deadline.tsv"
check "no test starts after the deadline" 2 fail "not run: the run's deadline" "$out-deadline.tsv"
n=$((n + 1))
if [ "$drc" -ne 0 ] && grep -q '^# Totals: pass:0 fail:2' "$out-deadline.log"; then
	echo "ok $n the run with a deadline ends with its summary, failed"
else
	echo "not ok $n the run with a deadline ends with its summary, failed # run.sh exit $drc"
	failed=1
fi

if [ "$failed" -ne 0 ]; then
	echo "# harness output:"
	sed 's/^/#   /' "$out.log"
	echo "# harness output, the run with a deadline:"
	sed 's/^/#   /' "$out-deadline.log"
fi
exit "$failed"
