#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The iproute2 plugin's own tests (tools/iproute2/test-parse.sh) where the
# kernel knows refnic, so that its "live" tests create real pairs: on the
# host they can only be skipped. Here a skipped live test is a failure.
# The plugin is built afresh into a scratch directory (the repo is
# read-only in the VM).
set -uo pipefail

# shellcheck source=/dev/null
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ "$(id -u)" -eq 0 ] || { ktap_skip_all "needs root"; exit "$KSFT_SKIP"; }
loaded=0
tmp=$(mktemp -d /tmp/iproute2-plugin.XXXXXX)
# shellcheck disable=SC2317 # only called from the EXIT trap
cleanup() {
	rm -rf "$tmp"
	if [ "$loaded" -eq 1 ]; then
		# Pairs go away with test-parse's namespaces, asynchronously.
		refnic_unload_wait
	fi
}
trap cleanup EXIT

if ! refnic_loaded; then
	if ! out=$(refnic_load 2>&1); then
		ktap_print_header
		ktap_set_plan 1
		ktap_test_fail "insmod $REFNIC_KO: $out"
		exit "$KSFT_FAIL"
	fi
	loaded=1
fi

O=$tmp/build "$REFNIC_REPO/tools/iproute2/test-parse.sh" >"$tmp/ktap" 2>&1
rc=$?
cat "$tmp/ktap"
if grep -E '^ok [0-9]+ live_.*# SKIP' "$tmp/ktap"; then
	echo "# a live test was skipped although refnic is loaded"
	exit "$KSFT_FAIL"
fi
if ! grep -qE '^ok [0-9]+ live_' "$tmp/ktap"; then
	echo "# no live test passed"
	[ "$rc" -ne 0 ] || rc=$KSFT_FAIL
fi
exit "$rc"
