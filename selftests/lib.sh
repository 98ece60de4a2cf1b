# SPDX-License-Identifier: GPL-2.0
#
# Shared setup for refnic's shell selftests: where things are, KTAP output
# (the kernel's own ktap_helpers.sh), and the module under test. Source it.

REFNIC_REPO=${REFNIC_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# The running kernel's series (6.12, 7.3; also for the debug kernels'
# X.Y.Z-refnic-debug): the one place tests ask which kernel they are on.
REFNIC_SERIES=$(uname -r | cut -d. -f1,2)
# On refnic's debug kernel (scripts/debug-kernel.sh), where everything runs
# some 5x slower, tests that move bulk data move less of it.
REFNIC_DEBUG_KERNEL=0
case $(uname -r) in *-refnic-debug*) REFNIC_DEBUG_KERNEL=1 ;; esac
# The module under test: the harness (run.sh) passes the one built for the
# kernel it boots, or the debug kernel's for `make check-debug`. Run by hand,
# the build for the running kernel's series (build/kmod/<series>/).
REFNIC_KO=${REFNIC_KO:-$("$REFNIC_REPO/scripts/kernel.sh" --get KO "$REFNIC_SERIES")}

# shellcheck source=/dev/null
. "${REFNIC_BUILD:-$REFNIC_REPO/build}/selftests/kselftest/ktap_helpers.sh"

refnic_loaded() {
	[ -d /sys/module/refnic ]
}

refnic_load() {
	refnic_loaded || insmod "$REFNIC_KO" "$@"
}

refnic_unload() {
	! refnic_loaded || rmmod refnic
}

# refnic_unload_wait: unload, retrying for up to 5 s: pairs deleted with
# their namespaces go away asynchronously and hold the module until then.
refnic_unload_wait() {
	local _
	for _ in $(seq 50); do
		refnic_unload 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
