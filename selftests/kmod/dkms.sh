#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make dkms-install and make dkms-uninstall for real, against the headers
# of the kernel the VM runs: dkms adds, builds and installs refnic, modprobe
# loads the module dkms built (not build/kmod's), and the uninstall leaves
# nothing of it behind. The VM's root is the host's, read-only: what dkms
# writes (/usr/src, /var/lib/dkms, /lib/modules/RELEASE) goes to overlays on
# a tmpfs, in a mount namespace of the test's own that ends with it. Debian's
# headers serve 6.12; for 7.3, whose Debian headers package needs gcc-14, the
# tree make deps KERNEL=7.3 prepared (scripts/kernel.sh KDIR) stands in as
# /lib/modules/RELEASE/build, linked in the overlay.
# Skips, saying why, without root, without dkms in the image (the host's
# root), without headers for the running kernel, on the debug kernel (this
# is packaging, not the module), or when the overlays cannot be mounted.
set -u
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

skip() {
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

[ "$(id -u)" -eq 0 ] || skip "needs root"
[ "$REFNIC_DEBUG_KERNEL" = 0 ] || skip "packaging, not the module: not run on the debug kernel"
command -v dkms >/dev/null || skip "dkms is not installed in the VM's root (the host's): apt-get install dkms"

kver=$(uname -r)
version=$(<"$REFNIC_REPO/kmod/VERSION")
tree=
if [ ! -e "/lib/modules/$kver/build/Makefile" ]; then
	tree=$("$REFNIC_REPO/scripts/kernel.sh" --get KDIR "$REFNIC_SERIES" 2>/dev/null)
	tree_kver=$("$REFNIC_REPO/scripts/kernel.sh" --get KVER "$REFNIC_SERIES" 2>/dev/null)
	if [ "$tree_kver" != "$kver" ] || [ ! -e "$tree/Makefile" ]; then
		skip "no headers for $kver: neither /lib/modules/$kver/build nor a tree of make deps KERNEL=$REFNIC_SERIES"
	fi
fi

# Everything below in a mount namespace of its own.
if [ "${REFNIC_DKMS_TEST_NS:-}" != 1 ]; then
	REFNIC_DKMS_TEST_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

tmp=$(mktemp -d /tmp/dkms-test.XXXXXX)
mounted=()
loaded=0
# shellcheck disable=SC2317 # only called from the EXIT trap
cleanup() {
	local i
	[ "$loaded" = 0 ] || rmmod refnic 2>/dev/null
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[$i]}" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# overlay DIR NAME: DIR writable from here on, its changes in $tmp/NAME
overlay() {
	local err
	mkdir -p "$tmp/$2/upper" "$tmp/$2/work"
	err=$(mount -t overlay "refnic-dkms-$2" \
		-o "lowerdir=$1,upperdir=$tmp/$2/upper,workdir=$tmp/$2/work" "$1" 2>&1) ||
		skip "cannot mount an overlay on $1: $err"
	mounted+=("$1")
}
overlay /usr/src usr-src
overlay /var/lib/dkms var-lib-dkms
overlay "/lib/modules/$kver" modules
[ -z "$tree" ] || ln -sfn "$tree" "/lib/modules/$kver/build"

ktap_print_header
ktap_set_plan 8

step() { # LOG make ARGS...: runs it, its output in LOG, shown on failure
	local log=$1
	shift
	"$@" >"$log" 2>&1 && return 0
	ktap_print_msg "$* failed:"
	tail -n 40 "$log" | sed 's/^/#   /'
	return 1
}

installed_status() {
	dkms status -m refnic -v "$version" -k "$kver" 2>/dev/null | grep -q ': installed'
}
sources_copied() {
	[ -f "/usr/src/refnic-$version/dkms.conf" ] && [ -f "/usr/src/refnic-$version/kmod/Kbuild" ]
}
ko=
dkms_module() {
	ko=$(modinfo -k "$kver" -n refnic 2>/dev/null) &&
		[[ $ko == "/lib/modules/$kver/updates/dkms/refnic.ko"* ]] &&
		[ "$(modinfo -F version "$ko")" = "$version" ] &&
		[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ]
}
# modprobe loads the module dkms built: its srcversion, its version
loads_dkms_module() {
	refnic_unload_wait || return 1
	modprobe refnic || return 1
	loaded=1
	[ "$(cat /sys/module/refnic/srcversion)" = "$(modinfo -F srcversion "$ko")" ] &&
		[ "$(cat /sys/module/refnic/version)" = "$version" ] &&
		rmmod refnic && loaded=0
}
nothing_left() {
	[ -z "$(dkms status -m refnic 2>/dev/null)" ] && [ ! -e "/usr/src/refnic-$version" ] &&
		[ ! -e "${ko:-/nonexistent}" ] && ! modinfo -k "$kver" refnic >/dev/null 2>&1
}

if step "$tmp/install.log" make -C "$REFNIC_REPO" dkms-install; then
	ktap_test_pass "make dkms-install for $kver${tree:+ (headers: $tree)}"
	grep -E '^dkms-install: (refnic|warning)' "$tmp/install.log" | sed 's/^/# /'
else
	ktap_test_fail "make dkms-install for $kver${tree:+ (headers: $tree)}"
fi
ktap_test_result "dkms status: refnic/$version installed for $kver" installed_status
ktap_test_result "the sources in /usr/src/refnic-$version" sources_copied
ktap_test_result "modinfo -k $kver finds dkms's refnic.ko in updates/dkms, version $version, vermagic $kver" \
	dkms_module
ktap_test_result "modprobe refnic loads the module dkms built, rmmod unloads it" loads_dkms_module
if step "$tmp/uninstall.log" make -C "$REFNIC_REPO" dkms-uninstall; then
	ktap_test_pass "make dkms-uninstall"
else
	ktap_test_fail "make dkms-uninstall"
fi
ktap_test_result "nothing left: dkms status, /usr/src/refnic-$version, the module, modinfo" nothing_left
uninstall_again() {
	step "$tmp/again.log" make -C "$REFNIC_REPO" dkms-uninstall &&
		grep -q 'not installed through dkms' "$tmp/again.log"
}
ktap_test_result "make dkms-uninstall again: nothing to remove, and says so" uninstall_again
ktap_finished
