#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The module describes itself: version (the one in kmod/VERSION and
# dkms.conf), license, description, and the vermagic of the running kernel it
# was built for.
set -u
. "$(dirname "$0")/../lib.sh"

field() {
	modinfo -F "$1" "$REFNIC_KO"
}

version=$(cat "$REFNIC_REPO/kmod/VERSION")
vermagic=$(field vermagic)

# ktap_test_result runs its command unquoted: keep each check one word.
version_matches() { [ "$(field version)" = "$version" ]; }
dkms_version_matches() { grep -qx "PACKAGE_VERSION=\"$version\"" "$REFNIC_REPO/dkms.conf"; }
license_is_gpl() { [ "$(field license)" = GPL ]; }
has_description() { [ -n "$(field description)" ]; }
built_for_running_kernel() { [ "${vermagic%% *}" = "$(uname -r)" ]; }

ktap_print_header
ktap_set_plan 5
ktap_test_result "version is $version" version_matches
ktap_test_result "dkms.conf has the same version" dkms_version_matches
ktap_test_result "license is GPL" license_is_gpl
ktap_test_result "has a description" has_description
ktap_print_msg "vermagic: $vermagic, running: $(uname -r)"
ktap_test_result "vermagic is the running kernel's" built_for_running_kernel
ktap_finished
