#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs refnic.ko on this host through DKMS, which rebuilds it for every
# kernel installed later. It needs what a module build needs and nothing
# more: the running kernel's headers, dkms, make and the compiler the kernel
# was built with. It installs no packages: it checks for those, and for a
# kernel refnic builds for with the options it needs, and names what is
# missing (with the package names on Debian and its derivatives; elsewhere
# it works the same and says what to look for).
#
#   dkms-install.sh            check, then install (root):  make dkms-install
#   dkms-install.sh --check    check only, as any user
#   dkms-install.sh --remove   uninstall every refnic version (root):
#                              make dkms-uninstall
#
# Exit status: 0 done, 1 something is missing or dkms failed (its output is
# shown, and the build log's end when the build failed), 2 bad usage.
#
# Tests only: REFNIC_SYSROOT=DIR reads and writes the host's files
# (/etc/os-release, /etc/dkms, /lib/modules, /boot, /sys, /usr/src) below
# DIR; the commands (uname, id, dkms, modinfo, mokutil, ...) come from PATH.
set -uo pipefail

prog=dkms-install
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${REFNIC_SYSROOT:-}
version=$(<"$repo/kmod/VERSION")
# The kernels refnic builds for: dkms.conf's BUILD_EXCLUSIVE_KERNEL (6.12
# from 6.12.34, and 7.3).
fits=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$repo/dkms.conf")

usage() {
	sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
	echo "$prog: $*" >&2
	exit 1
}

warn() {
	echo "$prog: warning: $*" >&2
}

mode=install
case ${1:-} in
'') ;;
--check) mode=check ;;
--remove) mode=remove ;;
-h | --help) usage && exit 0 ;;
*) echo "$prog: unknown argument '$1' (--check, --remove or --help)" >&2 && exit 2 ;;
esac
[ $# -le 1 ] || { echo "$prog: one argument at most, got: $*" >&2 && exit 2; }

kver=$(uname -r)
kdir=$root/lib/modules/$kver/build

# Debian and its derivatives (Ubuntu: ID_LIKE=debian) get package names.
debian=0
if [ -r "$root/etc/os-release" ]; then
	# shellcheck disable=SC1091 # the host's, read at run time
	os=$(. "$root/etc/os-release" && echo "${ID:-} ${ID_LIKE:-}")
	case " $os " in *" debian "*) debian=1 ;; esac
fi

# --- what is missing ---------------------------------------------------------
problems=() # one line each: what is missing and what it is for
packages=() # Debian packages that would fix them

missing() {
	problems+=("$1")
	[ -z "${2:-}" ] || packages+=("$2")
}

# kconfig NAME: y, m or nothing, from the headers' .config, their
# autoconf.h, or /boot/config-KVER
config_file=
for f in "$kdir/.config" "$root/boot/config-$kver"; do
	[ -r "$f" ] && config_file=$f && break
done
autoconf=$kdir/include/generated/autoconf.h
kconfig() {
	if [ -n "$config_file" ]; then
		sed -n "s/^CONFIG_$1=\\(.*\\)\$/\\1/p" "$config_file" | head -n 1
	elif [ -r "$autoconf" ]; then
		if grep -q "^#define CONFIG_$1 1\$" "$autoconf"; then
			echo y
		elif grep -q "^#define CONFIG_$1_MODULE 1\$" "$autoconf"; then
			echo m
		fi
	fi
}

# What refnic cannot do without, and what it does less of without.
required=(
	"MODULES:loadable modules"
	"NET:networking"
	"INET:TCP/IP"
	"PAGE_POOL:page_pool, which refnic's receive buffers come from"
	"IRQ_DOMAIN:interrupt domains, through which the device model raises its interrupts"
)
optional=(
	"NET_DEVMEM:devmem TCP (refnic-devmem, ncdevmem) will not work"
	"DMA_SHARED_BUFFER:dmabufs, which devmem TCP binds, will not work"
	"UDMABUF:/dev/udmabuf, where refnic-devmem gets its dmabuf, will be missing"
	"PAGE_POOL_STATS:ethtool -S will have no page_pool counters (rx_pp_*)"
	"DEBUG_FS:the device model's debugfs files (counters, fault injection) will be missing"
	"NET_RX_BUSY_POLL:busy polling will not work"
	"MEMCG:refnic's memory will not be charged to memory cgroups"
)

check_kernel_config() {
	local entry name value
	if [ -z "$config_file" ] && [ ! -r "$autoconf" ]; then
		warn "cannot read the configuration of $kver ($kdir/.config, $autoconf or" \
			"$root/boot/config-$kver): its options are not checked"
		return
	fi
	for entry in "${required[@]}"; do
		name=${entry%%:*}
		value=$(kconfig "$name")
		[ "$value" = y ] || [ "$value" = m ] ||
			missing "this kernel has no CONFIG_$name (${entry#*:}): refnic cannot work on it"
	done
	for entry in "${optional[@]}"; do
		name=${entry%%:*}
		value=$(kconfig "$name")
		[ "$value" = y ] || [ "$value" = m ] ||
			warn "this kernel has no CONFIG_$name: ${entry#*:}"
	done
}

# The compiler the kernel was built with, which its kbuild calls: Debian's
# headers name it in .kernelvariables (CC = ... $(CROSS_COMPILE)gcc-12);
# otherwise clang for a clang-built kernel, else gcc.
kernel_compiler() {
	local cc='' cross=''
	if [ -r "$kdir/.kernelvariables" ]; then
		# shellcheck disable=SC2016 # a make variable, matched as text
		cc=$(sed -n 's/^CC *= *.*\$(CROSS_COMPILE)\([^ ]*\).*/\1/p' "$kdir/.kernelvariables")
		cross=$(sed -n 's/^override CROSS_COMPILE *= *\([^ ]*\).*/\1/p' "$kdir/.kernelvariables")
	fi
	if [ -n "$cc" ]; then
		echo "$cross$cc"
	elif [ "$(kconfig CC_IS_CLANG)" = y ]; then
		echo clang
	else
		echo gcc
	fi
}

check_requirements() {
	local cc
	if ! [[ $kver =~ $fits ]]; then
		die "refnic builds for Linux 6.12 (6.12.34 or later) and 7.3" \
			"(tested: $("$repo/scripts/kernel.sh" --list | paste -sd, | sed 's/,/, /g'));" \
			"this kernel is $kver. Boot one of those and run this again."
	fi
	if [ ! -r "$kdir/Makefile" ]; then
		missing "the headers of the running kernel $kver ($kdir)" "linux-headers-$kver"
	elif [ -z "$config_file" ] && [ ! -r "$autoconf" ]; then
		missing "the headers in $kdir are incomplete (no .config, no include/generated/autoconf.h)" \
			"linux-headers-$kver"
	else
		check_kernel_config
		cc=$(kernel_compiler)
		command -v "$cc" >/dev/null ||
			missing "$cc, the compiler $kver was built with (its headers call it)" \
				"${cc#"$(uname -m)"-linux-gnu-}"
		if [ "$(kconfig LD_IS_LLD)" = y ] && ! command -v ld.lld >/dev/null; then
			missing "ld.lld, the linker $kver was built with" lld
		fi
	fi
	command -v make >/dev/null || missing "make" make
	command -v dkms >/dev/null || missing "dkms" dkms

	[ "${#problems[@]}" -gt 0 ] || return 0
	echo "$prog: refnic cannot be built for $kver yet; missing:" >&2
	printf '  - %s\n' "${problems[@]}" >&2
	if [ "${#packages[@]}" -gt 0 ] && [ "$debian" = 1 ]; then
		echo "Install with: apt-get install ${packages[*]}" >&2
	elif [ "${#packages[@]}" -gt 0 ]; then
		echo "Install them with your distribution's package manager (the kernel headers" \
			"package is often called kernel-devel or kernel-headers, matching $kver)." >&2
	fi
	exit 1
}

# --- Secure Boot -------------------------------------------------------------
# Whether the kernel refuses modules without a signature it trusts: module
# parameter sig_enforce (CONFIG_MODULE_SIG_FORCE or module.sig_enforce), or
# lockdown, which Debian's kernels turn on under Secure Boot.
secure_boot_on() {
	local var
	if command -v mokutil >/dev/null; then
		mokutil --sb-state 2>/dev/null | grep -q 'SecureBoot enabled' && return 0
	fi
	for var in "$root"/sys/firmware/efi/efivars/SecureBoot-*; do
		[ -r "$var" ] || continue
		# 4 bytes of attributes, then the value
		[ "$(od -An -tu1 -j4 -N1 "$var" | tr -d ' ')" = 1 ] && return 0
	done
	return 1
}

signatures_enforced() {
	[ "$(cat "$root/sys/module/module/parameters/sig_enforce" 2>/dev/null)" = Y ] && return 0
	grep -Eq '\[(integrity|confidentiality)\]' "$root/sys/kernel/security/lockdown" 2>/dev/null &&
		return 0
	secure_boot_on
}

# The certificate dkms signs with: what its build said, else its
# configuration, else its default.
mok_certificate() {
	local cert conf
	cert=$(sed -n 's/^Public certificate (MOK): *//p' "$log" 2>/dev/null | tail -n 1)
	if [ -z "$cert" ]; then
		for conf in "$root/etc/dkms/framework.conf" "$root"/etc/dkms/framework.conf.d/*.conf; do
			[ -r "$conf" ] || continue
			cert=$(sed -n 's/^[[:space:]]*mok_certificate=["'\'']\{0,1\}\([^"'\'']*\).*/\1/p' \
				"$conf" | tail -n 1)
		done
	fi
	echo "${cert:-/var/lib/dkms/mok.pub}"
}

# After the install: when the kernel enforces signatures, say whether
# refnic.ko will load and, if not or if that cannot be told, how to enroll
# dkms's key (MOK).
explain_signing() {
	local ko=$1 signer cert enrolled
	signatures_enforced || return 0
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	cert=$(mok_certificate)
	if [ -z "$signer" ]; then
		cat >&2 <<-EOF
			$prog: Secure Boot (or module signature enforcement) is on, and dkms did not
			  sign refnic.ko: the kernel will refuse it ("Key was rejected by service").
			  dkms signs with the kernel's scripts/sign-file and its key ($cert,
			  made with openssl); check the dkms output above for why it did not.
		EOF
		return 0
	fi
	enrolled=unknown
	if command -v mokutil >/dev/null; then
		if mokutil --test-key "$cert" 2>&1 | grep -q 'is already enrolled'; then
			enrolled=yes
		else
			enrolled=no
		fi
	fi
	[ "$enrolled" != yes ] || return 0
	{
		echo "$prog: Secure Boot is on: the kernel loads only modules signed with a key it trusts."
		echo "  dkms signed refnic.ko with its own key (certificate $cert, signer \"$signer\"),"
		if [ "$enrolled" = no ]; then
			echo "  which is not enrolled yet, so modprobe refnic fails with \"Key was rejected by service\"."
		else
			echo "  which the kernel may not trust yet (mokutil, Debian package mokutil, would tell)."
		fi
		echo "  Enroll it once as a Machine Owner Key:"
		echo "    mokutil --import $cert   # asks for a one-time password"
		echo "    reboot                   # MokManager: Enroll MOK, Continue, Yes, the password"
		echo "  then: modprobe refnic"
	} >&2
}

# --- dkms --------------------------------------------------------------------
log=
# run_dkms STEP ARGS...: dkms STEP ARGS, its output shown and kept in $log;
# a failure ends the script saying which step failed.
run_dkms() {
	local step=$1 status make_log
	echo "$prog: dkms $*"
	dkms "$@" 2>&1 | tee -a "$log"
	status=${PIPESTATUS[0]}
	[ "$status" -eq 0 ] && return 0
	if [ "$step" = build ] && [ "$status" -eq 77 ]; then
		die "dkms build refused $kver (status 77): dkms.conf's BUILD_EXCLUSIVE_KERNEL" \
			"does not match it"
	fi
	make_log=$root/var/lib/dkms/refnic/$version/build/make.log
	if [ "$step" = build ] && [ -r "$make_log" ]; then
		echo "$prog: the end of $make_log:" >&2
		tail -n 30 "$make_log" | sed 's/^/  /' >&2
	fi
	die "dkms $step failed (status $status, its output is above)"
}

# The versions of refnic dkms knows: "refnic/0.2.0, KVER, ARCH: installed"
# (dkms 3), "refnic, 0.2.0, ...: installed" (dkms 2), "refnic/0.2.0: added".
registered_versions() {
	dkms status -m refnic 2>/dev/null |
		sed -n -E 's/^refnic(\/|, )([^,:]+).*/\2/p' | sort -u
}

remove_registered() {
	local v
	for v in $(registered_versions); do
		run_dkms remove -m refnic -v "$v" --all
		rm -rf "$root/usr/src/refnic-$v"
	done
}

need_root() {
	[ "$(id -u)" = 0 ] || die "needs root: sudo make $1"
}

case $mode in
check)
	check_requirements
	echo "$prog: refnic $version can be built for $kver"
	exit 0
	;;
remove)
	need_root dkms-uninstall
	command -v dkms >/dev/null || die "dkms is not installed: nothing to remove"
	log=$(mktemp) || die "mktemp failed"
	trap 'rm -f "$log"' EXIT
	if [ -z "$(registered_versions)" ]; then
		rm -rf "$root/usr/src/refnic-$version"
		echo "$prog: refnic is not installed through dkms; nothing to remove"
		exit 0
	fi
	remove_registered
	rm -rf "$root/usr/src/refnic-$version"
	echo "$prog: refnic removed from dkms and /usr/src"
	[ ! -d "$root/sys/module/refnic" ] || echo "$prog: refnic is still loaded: rmmod refnic"
	exit 0
	;;
esac

check_requirements
need_root dkms-install
log=$(mktemp) || die "mktemp failed"
trap 'rm -f "$log"' EXIT

# One refnic at a time: any version dkms knows (this one too: a reinstall)
# goes first.
remove_registered

src=$root/usr/src/refnic-$version
rm -rf "$src"
mkdir -p "$src" || die "cannot create $src"
cp -r "$repo/kmod" "$repo/uapi" "$repo/dkms.conf" "$src/" || die "cannot copy the sources to $src"
# No objects of an earlier build in the tree (builds from before build/kmod/
# left them in kmod/).
find "$src/kmod" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod' \
	-o -name '*.mod.c' -o -name Module.symvers -o -name modules.order \) -delete

run_dkms add -m refnic -v "$version"
run_dkms build -m refnic -v "$version" -k "$kver"
run_dkms install -m refnic -v "$version" -k "$kver"

ko=$(modinfo -k "$kver" -n refnic 2>/dev/null)
[ -n "$ko" ] || die "dkms installed refnic, but modinfo -k $kver does not find it"
echo "$prog: refnic $version installed for $kver ($ko); load it with: modprobe refnic"
explain_signing "$ko"
exit 0
