#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# shellcheck disable=SC2016 # stubs and checks are code in single quotes, run later
#
# scripts/dkms-install.sh and the Makefile's install targets on the host,
# with no kernel module built and nothing installed: the host's files come
# from a scratch root (REFNIC_SYSROOT) and dkms, uname, id, modinfo and
# mokutil are stubs on a PATH that holds only what the script may use. The
# VM dependency installer (make deps: apt-get, dpkg-query, sudo, QEMU) is
# poisoned on that PATH: any call is recorded and fails the run. The real
# dkms install and uninstall run in the VM (selftests/kmod/dkms.sh).
#
#   scripts/tests/dkms-install-host.sh      (any user; ctest install.dkms-host)
#
# Output is KTAP; exit status 0 when every test passed, 1 otherwise.
set -u

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
version=$(<"$repo/kmod/VERSION")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Whether the host's own /usr/src has this version already: the script must
# write only below REFNIC_SYSROOT (checked at the end).
host_src=/usr/src/refnic-$version
host_src_before=0
# shellcheck disable=SC2034 # read in an eval below
[ ! -e "$host_src" ] || host_src_before=1

stubs=$tmp/stubs
poison=$tmp/poison.log # calls of the dependency installer's tools
calls=$tmp/dkms.log    # the stub dkms's calls, one a line
state=$tmp/dkms.state  # what the stub dkms status prints
mkdir -p "$stubs"
: >"$poison"

# The real tools the scripts and the Makefile use, and nothing else.
for tool in bash sh sed grep cat cp mkdir rm find tail tee sort od tr paste mktemp \
	dirname basename head env ls realpath nproc make; do
	path=$(command -v "$tool") || { echo "Bail out! no $tool on this host"; exit 1; }
	ln -s "$path" "$stubs/$tool"
done

stub() {
	printf '#!/bin/bash\n%s\n' "$2" >"$stubs/$1"
	chmod +x "$stubs/$1"
}
for tool in apt-get apt-cache dpkg-query dpkg sudo qemu-system-x86_64 busybox; do
	stub "$tool" "echo \"$tool \$*\" >>'$poison'; echo 'POISON: $tool called' >&2; exit 99"
done
stub uname 'case $1 in -r) echo "$FAKE_KVER" ;; -m) echo x86_64 ;; *) echo Linux ;; esac'
stub id '[ "$1" = -u ] && echo "${FAKE_UID:-0}" || echo "uid=${FAKE_UID:-0}"'
stub x86_64-linux-gnu-gcc-12 'exit 0'
stub mokutil 'case $1 in
--sb-state) echo "SecureBoot ${FAKE_SB:-disabled}" ;;
--test-key) if [ "${FAKE_ENROLLED:-0}" = 1 ]; then echo "$2 is already enrolled"; else echo "$2 is not enrolled"; fi ;;
esac'
stub modinfo 'case $1 in
-k) [ -f "$REFNIC_SYSROOT/installed" ] && echo "/lib/modules/$2/updates/dkms/refnic.ko" ;;
-F) echo "${FAKE_SIGNER-DKMS module signing key}" ;;
esac'
# dkms: records each call; FAKE_DKMS_FAIL=STEP makes that step fail as
# dkms does.
stub dkms "state='$state'; calls='$calls'"'
echo "$*" >>"$calls"
step=$1
if [ "$step" != status ] && [ "${FAKE_DKMS_FAIL:-}" = "$step" ]; then
	case $step in
	add) echo "Error! DKMS tree already contains: refnic-$5" >&2 ;;
	build) mkdir -p "$REFNIC_SYSROOT/var/lib/dkms/refnic/$5/build"
		echo "refnic_main.c:12: error: PLANTED-BUILD-ERROR" >"$REFNIC_SYSROOT/var/lib/dkms/refnic/$5/build/make.log"
		echo "Error! Bad return status for module build on kernel: $7 (x86_64)" >&2 ;;
	*) echo "Error! dkms $step planted failure" >&2 ;;
	esac
	exit 10
fi
case $step in
status) cat "$state" 2>/dev/null ;;
add) echo "refnic/$5: added" >"$state" ;;
build) echo "Sign command: /lib/modules/$7/build/scripts/sign-file"
	echo "Signing key: /var/lib/dkms/mok.key"
	echo "Public certificate (MOK): /var/lib/dkms/mok.pub"
	echo "refnic/$5, $7, x86_64: built" >"$state" ;;
install) echo "refnic/$5, $7, x86_64: installed" >"$state"; : >"$REFNIC_SYSROOT/installed" ;;
remove) : >"$state"; rm -f "$REFNIC_SYSROOT/installed" ;;
esac
exit 0'

cp "$stubs/dkms" "$tmp/dkms.stub"

# A host root: Debian 12 with the headers of KVER (.config with every option
# refnic asks for, Debian's .kernelvariables naming gcc-12).
make_root() { # KVER
	local root=$tmp/root kdir
	rm -rf "$root"
	kdir=$root/lib/modules/$1/build
	mkdir -p "$kdir" "$root/etc" "$root/usr/src" "$root/boot"
	printf 'ID=debian\nVERSION_ID="12"\n' >"$root/etc/os-release"
	echo "include /usr/src/linux-headers-$1-common/Makefile" >"$kdir/Makefile"
	printf 'CONFIG_%s=y\n' MODULES NET INET PAGE_POOL IRQ_DOMAIN NET_DEVMEM DMA_SHARED_BUFFER \
		UDMABUF PAGE_POOL_STATS DEBUG_FS NET_RX_BUSY_POLL MEMCG CC_IS_GCC >"$kdir/.config"
	printf '%s\n' 'CC = $(if $(DEBIAN_KERNEL_USE_CCACHE),$(CCACHE)) $(CROSS_COMPILE)gcc-12' \
		'override CROSS_COMPILE = x86_64-linux-gnu-' >"$kdir/.kernelvariables"
	: >"$calls"
	: >"$state"
}

root=$tmp/root
kver=6.12.117+deb12-amd64
export REFNIC_SYSROOT=$root FAKE_KVER=$kver

# [VAR=VALUE...] run [ARGS...]: the script under the stub PATH; stdout and
# stderr in $out, status in $rc
out=$tmp/out
rc=0
run() {
	env PATH="$stubs" "$repo/scripts/dkms-install.sh" "$@" >"$out" 2>&1
	rc=$?
}
make_target() { # TARGET [VAR=VALUE...]
	local target=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$stubs" "$@" \
		make -s -C "$repo" "$target" BUILD="$tmp/build" >"$out" 2>&1
	rc=$?
}

n=0
failed=0
# check DESCRIPTION CONDITION...: one KTAP result; on failure the output
check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $desc"
	else
		echo "not ok $n $desc"
		echo "# status $rc, output:"
		sed 's/^/#   /' "$out"
		failed=$((failed + 1))
	fi
}
has() { grep -qF -- "$1" "$out"; }
lacks() { ! grep -qF -- "$1" "$out"; }
status() { [ "$rc" = "$1" ]; }
called() { grep -qxF -- "$1" "$calls"; }
no_dkms_calls() { [ ! -s "$calls" ]; }

echo "TAP version 13"

# --- the Makefile ------------------------------------------------------------
for target in dkms-install dkms-uninstall install; do
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$stubs" make -n -C "$repo" "$target" BUILD="$tmp/fresh" >"$out" 2>&1
	rc=$?
	check "make -n $target runs no dependency installer (deps.sh, apt-get, kernel setup)" \
		eval '! grep -Eq "deps(-[0-9.]+)?\.sh|apt-get|kernel-source\.sh|debug-kernel" "$out"'
done

make_root "$kver"
make_target dkms-install
check "make dkms-install on a fresh tree (no build/): adds, builds and installs for the running kernel" \
	eval 'status 0 && called "add -m refnic -v $version" &&
	called "build -m refnic -v $version -k $kver" && called "install -m refnic -v $version -k $kver" &&
	[ -f "$root/usr/src/refnic-$version/dkms.conf" ] && [ -d "$root/usr/src/refnic-$version/kmod" ] &&
	has "refnic $version installed for $kver"'
check "make dkms-install never called the VM dependency installer" eval '[ ! -s "$poison" ]'

: >"$calls"
make_target dkms-install
check "a second make dkms-install removes the version dkms has first, then installs" \
	eval 'status 0 && [ "$(head -n 2 "$calls" | tail -n 1)" = "remove -m refnic -v $version --all" ] &&
	called "install -m refnic -v $version -k $kver"'

: >"$calls"
make_target dkms-uninstall
check "make dkms-uninstall: dkms remove of every version, /usr/src/refnic-$version gone" \
	eval 'status 0 && called "remove -m refnic -v $version --all" &&
	[ ! -e "$root/usr/src/refnic-$version" ] && [ ! -s "$state" ]'
make_target dkms-uninstall
check "make dkms-uninstall with nothing installed says so and succeeds" \
	eval 'status 0 && has "not installed through dkms"'

# --- requirements ------------------------------------------------------------
make_root "$kver"
rm -rf "$root/lib/modules/$kver/build"
run
check "no headers (Debian): exit 1, names /lib/modules/KVER/build and linux-headers-KVER" \
	eval 'status 1 && has "/lib/modules/$kver/build" &&
	has "apt-get install linux-headers-$kver" && no_dkms_calls'

make_root "$kver"
rm "$stubs/dkms" "$stubs/x86_64-linux-gnu-gcc-12"
run
check "no dkms, no gcc-12 (the compiler the headers call): both named, apt-get install gcc-12 dkms" \
	eval 'status 1 && has "x86_64-linux-gnu-gcc-12" && has "apt-get install gcc-12 dkms"'
cp "$tmp/dkms.stub" "$stubs/dkms"
stub x86_64-linux-gnu-gcc-12 'exit 0'

make_root "$kver"
printf 'ID=fedora\nID_LIKE="rhel centos"\n' >"$root/etc/os-release"
rm -rf "$root/lib/modules/$kver/build"
run
check "off Debian, no headers: what is missing, no apt-get, the package to look for" \
	eval 'status 1 && has "/lib/modules/$kver/build" && lacks "apt-get" && has "kernel-devel"'

make_root "$kver"
printf 'ID=fedora\n' >"$root/etc/os-release"
rm "$root/lib/modules/$kver/build/.kernelvariables"
stub gcc 'exit 0'
run
check "off Debian with headers, gcc and dkms: the generic path installs" \
	eval 'status 0 && called "install -m refnic -v $version -k $kver"'

make_root 6.1.0-28-amd64
FAKE_KVER=6.1.0-28-amd64 run
check "Linux 6.1: refused, naming 6.12 (6.12.34 or later) and 7.3" \
	eval 'status 1 && has "6.12 (6.12.34 or later) and 7.3" && has "this kernel is 6.1.0-28-amd64" && no_dkms_calls'

make_root 6.13.2
FAKE_KVER=6.13.2 run
check "Linux 6.13: refused" eval 'status 1 && has "6.12 (6.12.34 or later) and 7.3"'

make_root 7.4.1-amd64
FAKE_KVER=7.4.1-amd64 run
check "Linux 7.4 (not tested): refused" \
	eval 'status 1 && has "6.12 (6.12.34 or later) and 7.3" && no_dkms_calls'

make_root 6.12.33-amd64
FAKE_KVER=6.12.33-amd64 run
check "Linux 6.12.33 (older than page_pool_destroy() unmapping in-flight pages): refused" \
	eval 'status 1 && has "this kernel is 6.12.33-amd64" && no_dkms_calls'

make_root 7.3.4+deb13-amd64
FAKE_KVER=7.3.4+deb13-amd64 run
check "Linux 7.3.4: installed" \
	eval 'status 0 && called "build -m refnic -v $version -k 7.3.4+deb13-amd64"'

make_root "$kver"
sed -i '/CONFIG_PAGE_POOL=/d' "$root/lib/modules/$kver/build/.config"
run
check "a kernel without CONFIG_PAGE_POOL: exit 1, the option named" \
	eval 'status 1 && has "CONFIG_PAGE_POOL" && no_dkms_calls'

make_root "$kver"
sed -i '/CONFIG_NET_DEVMEM=/d; /CONFIG_UDMABUF=/d' "$root/lib/modules/$kver/build/.config"
run
check "a kernel without NET_DEVMEM and UDMABUF: warnings naming devmem, installed anyway" \
	eval 'status 0 && has "CONFIG_NET_DEVMEM: devmem TCP" && has "CONFIG_UDMABUF" &&
	called "install -m refnic -v $version -k $kver"'

make_root "$kver"
kdir=$root/lib/modules/$kver/build
mkdir -p "$kdir/include/generated"
sed -n 's/^CONFIG_\(.*\)=y$/#define CONFIG_\1 1/p' "$kdir/.config" | grep -v IRQ_DOMAIN \
	>"$kdir/include/generated/autoconf.h"
rm "$kdir/.config"
run
check "the configuration read from autoconf.h when .config is missing" \
	eval 'status 1 && has "CONFIG_IRQ_DOMAIN" && lacks "CONFIG_PAGE_POOL"'

# --- dkms failures -----------------------------------------------------------
make_root "$kver"
FAKE_DKMS_FAIL=add run
check "dkms add fails: exit 1, dkms's error shown, the step named" \
	eval 'status 1 && has "Error! DKMS tree already contains" && has "dkms add failed" &&
	! called "build -m refnic -v $version -k $kver"'

make_root "$kver"
FAKE_DKMS_FAIL=build run
check "dkms build fails: exit 1, the end of make.log shown" \
	eval 'status 1 && has "PLANTED-BUILD-ERROR" && has "dkms build failed" &&
	! called "install -m refnic -v $version -k $kver"'

# --- Secure Boot ---------------------------------------------------------------
make_root "$kver"
FAKE_SB=enabled run
check "Secure Boot on, dkms's key not enrolled: how to enroll it (mokutil --import, reboot)" \
	eval 'status 0 && has "Secure Boot is on" && has "mokutil --import /var/lib/dkms/mok.pub" &&
	has "Key was rejected by service"'

make_root "$kver"
FAKE_SB=enabled FAKE_ENROLLED=1 run
check "Secure Boot on, the key enrolled: nothing to explain" \
	eval 'status 0 && lacks "mokutil --import"'

make_root "$kver"
mkdir -p "$root/sys/module/module/parameters"
echo Y >"$root/sys/module/module/parameters/sig_enforce"
FAKE_SIGNER='' run
check "signatures enforced and the module unsigned: says dkms did not sign it" \
	eval 'status 0 && has "did not" && has "Key was rejected by service"'

# --- privileges ----------------------------------------------------------------
make_root "$kver"
FAKE_UID=1000 run
check "as a user: the checks pass, then 'needs root', nothing done" \
	eval 'status 1 && has "needs root: sudo make dkms-install" && no_dkms_calls'
FAKE_UID=1000 run --check
check "--check as a user: exit 0, nothing done" \
	eval 'status 0 && has "can be built for $kver" && no_dkms_calls'

check "no call of the VM dependency installer in any of the above" eval '[ ! -s "$poison" ]'
check "nothing written to the host's own /usr/src" \
	eval '[ "$host_src_before" = 1 ] || [ ! -e "$host_src" ]'

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
