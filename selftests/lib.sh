# SPDX-License-Identifier: GPL-2.0
#
# Shared setup for refnic's shell selftests: where things are, KTAP output
# (the kernel's own ktap_helpers.sh), and the module under test. Source it.

REFNIC_REPO=${REFNIC_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# The module under test: Debian's kernel by default, the debug kernel's build
# when `make check-debug` passes another one.
REFNIC_KO=${REFNIC_KO:-$REFNIC_REPO/kmod/refnic.ko}

# shellcheck source=/dev/null
. "$REFNIC_REPO/build/selftests/kselftest/ktap_helpers.sh"

refnic_loaded() {
	[ -d /sys/module/refnic ]
}

refnic_load() {
	refnic_loaded || insmod "$REFNIC_KO" "$@"
}

refnic_unload() {
	! refnic_loaded || rmmod refnic
}
