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

ktap_print_header
ktap_set_plan 5
ktap_test_result "version is $version" [ "$(field version)" = "$version" ]
ktap_test_result "dkms.conf has the same version" \
	grep -qx "PACKAGE_VERSION=\"$version\"" "$REFNIC_REPO/dkms.conf"
ktap_test_result "license is GPL" [ "$(field license)" = GPL ]
ktap_test_result "has a description" [ -n "$(field description)" ]
vermagic=$(field vermagic)
ktap_print_msg "vermagic: $vermagic, running: $(uname -r)"
ktap_test_result "vermagic is the running kernel's" [ "${vermagic%% *}" = "$(uname -r)" ]
ktap_finished
