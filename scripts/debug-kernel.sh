#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build refnic's debug kernel (KASAN, lockdep, kmemleak, DEBUG_NET, fault
# injection, ...) out of tree, once per kernel series:
#
#   --kernel 6.12                from Debian's linux-source-6.12
#                                (scripts/kernel-source.sh), into build/debug-kernel/
#   --kernel 7.3 (or any X.Y)    from the source tree in KSRC of
#                                `scripts/kernel.sh X.Y`; if that script is
#                                missing or fails (series not set up yet),
#                                from $DEBUG_KERNEL_SRC; into build/debug-kernel-X.Y/
#
#   config = x86_64_defconfig + kvm_guest.config, then merged with
#            scripts/kconfig/merge_config.sh -m (a later file wins):
#              scripts/debug-kernel.config            (all series)
#              <src>/tools/testing/selftests/drivers/net/config     } if the
#              <src>/tools/testing/selftests/drivers/net/hw/config  } source has them
#              scripts/debug-kernel-X.Y.config        (if it exists)
#            then olddefconfig. Every symbol the merge asked for is checked
#            in the final .config; any that Kconfig dropped or changed fails
#            the build, listed (values a later file overrode are reported).
#
# Cached by: source identity (6.12: the linux-source-6.12 package version;
# others: the source path, its Makefile version and mtime, and every *VER*
# variable kernel.sh prints), sha256 of the two refnic fragments, the
# compiler/binutils/pahole versions and RECIPE_REV below. A run with nothing
# changed takes well under a second; a changed fragment rebuilds
# incrementally in the same object dir; a new source or toolchain rebuilds
# from scratch. After changing a source tree in place, use --force.
#
# Outputs in OUT = build/debug-kernel (6.12) or build/debug-kernel-X.Y
# (a contract; other scripts rely on these paths):
#   OUT/vmlinux        ELF, bootable with QEMU -kernel (PVH); DWARF stripped
#                      if the config has any (.BTF stays); kdir/vmlinux is
#                      the unstripped one
#   OUT/modules        -> modules-root/lib/modules/<release>
#                         (modules.dep etc., stripped .ko)
#   OUT/kdir           -> obj (the O= dir): KDIR for
#                         `make -C kdir M=/path/to/kmod modules`
#                         (it refers to the source tree: keep that in place)
#   OUT/kernelrelease  one line, e.g. 6.12.117-refnic-debug
#   OUT/config         copy of the final .config
#   OUT/build.log      the kernel's make output (and the merge's)
#
# The outputs are valid exactly when OUT/stamp exists; it is removed before a
# rebuild starts and written last.
#
# Options: --kernel X.Y (series, default $REFNIC_KERNEL, else the Makefile's
# default kernel, as scripts/kernel.sh has it), --force (rebuild even if
# cached), --check (exit 0 if up to date, 1 if a build is needed; builds
# nothing), --clean (wipe the object dir first), --config-only (configure
# and verify in a scratch dir, write OUT/config-only.config, build nothing,
# leave the cache alone; about a minute).
# Env: REFNIC_BUILD (build root), DEBUG_KERNEL_JOBS (default: nproc),
# DEBUG_KERNEL_SRC (source tree for a series other than 6.12, used only when
# scripts/kernel.sh is missing or fails for that series).
set -euo pipefail

# Bump when the steps below change in a way that alters the result.
RECIPE_REV=2

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath -m "${REFNIC_BUILD:-$here/../build}")
frag=$here/debug-kernel.config
jobs=${DEBUG_KERNEL_JOBS:-$(nproc)}

series=${REFNIC_KERNEL:-$("$here/kernel.sh" --get KERNEL 2>/dev/null || echo 7.3)}
force=0 check=0 clean=0 config_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || { echo "debug-kernel: --kernel needs a series (e.g. 7.3)" >&2; exit 2; }
		series=$2; shift ;;
	--kernel=*) series=${1#*=} ;;
	--force) force=1 ;;
	--check) check=1 ;;
	--clean) clean=1 ;;
	--config-only) config_only=1 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "debug-kernel: unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || { echo "debug-kernel: --kernel $series: expected a series like 6.12 or 7.3" >&2; exit 2; }

if [ "$series" = 6.12 ]; then
	out=$build/debug-kernel # the original path, kept for 6.12
else
	out=$build/debug-kernel-$series
fi
sfrag=$here/debug-kernel-$series.config # optional
obj=$out/obj
log=$out/build.log

t0=$SECONDS
say() { printf 'debug-kernel: [%4ds] %s\n' $((SECONDS - t0)) "$*"; }
die() { printf 'debug-kernel: ERROR: %s\n' "$*" >&2; exit 1; }
dur() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

[ -r "$frag" ] || die "$frag missing"
[ -e "$sfrag" ] || sfrag=''
toolchain="$(gcc --version | head -n1); $(ld --version | head -n1); pahole $(pahole --version 2>/dev/null || echo none)"

# makefile_version DIR: "VERSION.PATCHLEVEL.SUBLEVEL" from DIR/Makefile.
makefile_version() {
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } END { if (v != "") print v "." p "." s }' "$1/Makefile"
}

src='' # known before the lock for series other than 6.12 (the key needs it)
if [ "$series" = 6.12 ]; then
	pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
		die "linux-source-6.12 is not installed (run make deps)"
	srcid="linux-source-6.12 $pkgver"
else
	vers='' how=''
	if [ -e "$here/kernel.sh" ]; then
		if ks_out=$("$here/kernel.sh" "$series"); then
			# Shell assignments (printf %q); evaluated in a subshell.
			src=$(eval "$ks_out" >/dev/null; printf '%s' "${KSRC:-}")
			[ -n "$src" ] || die "scripts/kernel.sh $series printed no KSRC"
			# Version-like variables (KVER ...) go into the cache key.
			vers=$(grep -E '^[A-Za-z_]*VER[A-Za-z_]*=' <<<"$ks_out" | sort | tr '\n' ' ') || true
			how="scripts/kernel.sh $series"
		elif [ -n "${DEBUG_KERNEL_SRC:-}" ]; then
			echo "debug-kernel: scripts/kernel.sh $series failed; using DEBUG_KERNEL_SRC=$DEBUG_KERNEL_SRC" >&2
		else
			die "scripts/kernel.sh $series failed (see above) and DEBUG_KERNEL_SRC is not set"
		fi
	elif [ -z "${DEBUG_KERNEL_SRC:-}" ]; then
		die "no source for $series: scripts/kernel.sh does not exist and DEBUG_KERNEL_SRC is not set"
	fi
	if [ -z "$how" ]; then
		src=$DEBUG_KERNEL_SRC
		how="DEBUG_KERNEL_SRC"
	fi
	[ -n "$src" ] && [ -f "$src/Makefile" ] || die "kernel source not found at '$src' (from $how)"
	src=$(realpath "$src")
	kv=$(makefile_version "$src")
	case $kv in
	"$series".*) ;;
	*) die "$src is Linux $kv, not $series (from $how)" ;;
	esac
	srcid="$src $kv $(stat -c %Y "$src/Makefile") $vers"
fi
key="recipe=$RECIPE_REV
series=$series
source=$srcid
fragment=$(sha256sum <"$frag" | cut -d' ' -f1)
series-fragment=$([ -n "$sfrag" ] && sha256sum <"$sfrag" | cut -d' ' -f1 || echo none)
toolchain=$toolchain"

outputs_ok() {
	[ -f "$out/vmlinux" ] && [ -f "$out/kernelrelease" ] &&
	[ -f "$out/modules/modules.dep" ] && [ -f "$out/kdir/Module.symvers" ] &&
	[ -f "$out/kdir/.config" ]
}
cached() { [ $force = 0 ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$key" ] && outputs_ok; }

if [ $config_only = 0 ] && cached; then
	[ $check = 1 ] && exit 0
	say "up to date: $(cat "$out/kernelrelease") ($out)"
	exit 0
fi
[ $check = 1 ] && exit 1

mkdir -p "$out"
# One builder at a time; a second caller waits, then finds the cache valid.
exec 9>"$out/.lock"
if [ $config_only = 0 ] && ! flock -n 9; then
	say "another $series debug-kernel build is running; waiting for it"
	flock 9
	if cached; then say "up to date: $(cat "$out/kernelrelease")"; exit 0; fi
fi

if [ "$series" = 6.12 ]; then
	src=$(REFNIC_BUILD=$build "$here/kernel-source.sh" | tail -n1)
	src=$(realpath "$src")
	[ -f "$src/Makefile" ] || die "kernel source not found at $src"
	recreate="rm -rf $src && scripts/kernel-source.sh"
	srcver=$pkgver
else
	recreate="re-create it ($how)"
	srcver=$kv
fi
# `make O=` refuses a configured source tree; say why up front.
if [ -e "$src/.config" ] || [ -d "$src/include/config" ]; then
	die "$src is not clean (has .config or include/config); $recreate"
fi

if [ $config_only = 1 ]; then
	obj=$(mktemp -d "$out/config-only.XXXXXX")
	log=$obj/build.log
	trap 'rm -rf "$obj"' EXIT
else
	rm -f "$out/stamp"
	# Incremental only if just the fragment/recipe changed; otherwise start over.
	objid=$(printf 'src=%s\ntoolchain=%s' "$src" "$toolchain")
	if [ $clean = 1 ] || [ ! -f "$obj/.refnic-objid" ] ||
	   [ "$(cat "$obj/.refnic-objid")" != "$objid" ]; then
		[ -d "$obj" ] && say "wiping object dir (new source/toolchain, or --clean)"
		rm -rf "$obj"
	fi
	mkdir -p "$obj"
	printf '%s\n' "$objid" >"$obj/.refnic-objid"
fi

: >"$log"
# Low priority: nice 19 and idle I/O class, unless the caller chose a
# niceness itself (`nice -n 10 scripts/debug-kernel.sh`): then that one. At
# 19 the build all but stops while the VMs of others run at 0.
if [ "$(nice)" -gt 0 ]; then
	nice_cmd=(nice -n 0)
else
	nice_cmd=(nice -n 19)
	command -v ionice >/dev/null && nice_cmd+=(ionice -c 3)
fi
kmake() {
	"${nice_cmd[@]}" make -C "$src" O="$obj" "$@" >>"$log" 2>&1 || {
		echo "---- last 60 lines of $log ----" >&2
		tail -n 60 "$log" >&2
		die "make $* failed (full log: $log)"
	}
}

say "$series: source $src ($srcver), objects $obj, log $log"

# --- configure --------------------------------------------------------------
ts=$SECONDS
# The merge order; a later file wins.
frags=("$frag")
for f in "$src"/tools/testing/selftests/drivers/net/config \
         "$src"/tools/testing/selftests/drivers/net/hw/config; do
	if [ -f "$f" ]; then frags+=("$f"); else say "(this source has no ${f#"$src"/})"; fi
done
[ -n "$sfrag" ] && frags+=("$sfrag")
short() { case $1 in "$src"/*) echo "${1#"$src"/tools/testing/selftests/}" ;; *) basename "$1" ;; esac; }
say "configure: x86_64_defconfig + kvm_guest.config + $(for f in "${frags[@]}"; do printf '%s ' "$(short "$f")"; done)"
kmake x86_64_defconfig
kmake kvm_guest.config
# merge_config.sh (6.12's) leaves temporary files in its working directory.
(cd "$obj" && KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" -m \
	-O "$obj" "$obj/.config" "${frags[@]}") >>"$log" 2>&1 ||
	die "merge_config.sh failed (log: $log)"
kmake olddefconfig

# Verify: the last value any merged file gave a symbol must be in .config.
declare -A want wfrom wopt
overridden=()
for f in "${frags[@]}"; do
	optional=0
	while IFS= read -r line; do
		if [ "$line" = "# refnic: optional" ]; then optional=1; continue; fi
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			sym=${BASH_REMATCH[1]} val=n
		else
			optional=0; continue
		fi
		if [ -n "${want[$sym]+x}" ] && [ "${want[$sym]}" != "$val" ]; then
			overridden+=("$sym=${want[$sym]} ($(short "${wfrom[$sym]}")) overridden by =$val ($(short "$f"))")
		fi
		want[$sym]=$val wfrom[$sym]=$f wopt[$sym]=$optional
		optional=0
	done <"$f"
done
bad=() warn=()
for sym in $(printf '%s\n' "${!want[@]}" | sort); do
	got=$(sed -n "s/^$sym=//p" "$obj/.config")
	[ -n "$got" ] || got=n
	if [ "$got" != "${want[$sym]}" ]; then
		msg="$sym: wanted ${want[$sym]} ($(short "${wfrom[$sym]}")), got $got"
		if [ "${wopt[$sym]}" = 1 ]; then warn+=("$msg"); else bad+=("$msg"); fi
	fi
done
for o in "${overridden[@]}"; do say "note: $o"; done
for w in "${warn[@]}"; do say "warning (optional symbol): $w"; done
if [ ${#bad[@]} -gt 0 ]; then
	printf 'debug-kernel: ERROR: %d requested config symbol(s) not as requested after olddefconfig:\n' ${#bad[@]} >&2
	printf '  %s\n' "${bad[@]}" >&2
	if [ $config_only = 1 ]; then
		cp "$obj/.config" "$out/config-only.config"
		echo "  (check their 'depends on' in Kconfig; config is $out/config-only.config)" >&2
	else
		echo "  (check their 'depends on' in Kconfig; config is $obj/.config)" >&2
	fi
	exit 1
fi
say "configure done in $(dur $((SECONDS - ts))): all ${#want[@]} requested symbols verified"
if [ $config_only = 1 ]; then
	cp "$obj/.config" "$out/config-only.config"
	say "config-only: wrote $out/config-only.config"
	exit 0
fi

# --- build ------------------------------------------------------------------
ts=$SECONDS
touch "$obj/.refnic-build-start"
say "build: make -j$jobs vmlinux modules (nice $("${nice_cmd[@]}" nice); 20-40 min on 2 idle cores from scratch)"
kmake -j"$jobs" vmlinux modules
# Only meaningful after the build's syncconfig has read CONFIG_LOCALVERSION.
release=$(cat "$obj/include/config/kernel.release")
[ -n "$release" ] || die "no kernel release in $obj/include/config/kernel.release"
say "build done in $(dur $((SECONDS - ts))): $release"

# `make O=` must not have written into the source tree.
if stray=$(find "$src" -newer "$obj/.refnic-build-start" -print -quit) && [ -n "$stray" ]; then
	say "warning: the build wrote into the source tree (e.g. $stray)"
fi

# --- install ------------------------------------------------------------------
ts=$SECONDS
say "modules_install (stripped)"
rm -rf "$out/modules-root.tmp"
kmake INSTALL_MOD_PATH="$out/modules-root.tmp" INSTALL_MOD_STRIP=1 modules_install
moddir=$out/modules-root.tmp/lib/modules/$release
[ -f "$moddir/modules.dep" ] || die "modules_install produced no $moddir/modules.dep"
# Keep the tree self-contained: no links back into the object dir.
rm -f "$moddir/build" "$moddir/source"

if grep -q '^CONFIG_DEBUG_INFO=y' "$obj/.config"; then
	# DWARF is hundreds of MB; QEMU needs none of it. Allocated sections
	# (.BTF, the PVH note) stay.
	objcopy --strip-debug "$obj/vmlinux" "$out/vmlinux.tmp"
else
	cp "$obj/vmlinux" "$out/vmlinux.tmp"
fi
cp "$obj/.config" "$out/config.tmp"
printf '%s\n' "$release" >"$out/kernelrelease.tmp"

rm -rf "$out/modules-root"
mv "$out/modules-root.tmp" "$out/modules-root"
ln -sfn "modules-root/lib/modules/$release" "$out/modules"
ln -sfn obj "$out/kdir"
mv "$out/vmlinux.tmp" "$out/vmlinux"
mv "$out/config.tmp" "$out/config"
mv "$out/kernelrelease.tmp" "$out/kernelrelease"

# --- check the contract -----------------------------------------------------
file_ok() { [ -s "$1" ] || die "missing output: $1"; }
file_ok "$out/vmlinux"
file_ok "$out/modules/modules.dep"
file_ok "$out/kdir/Module.symvers"
file_ok "$out/kdir/scripts/mod/modpost"
file_ok "$out/kdir/include/generated/autoconf.h"
grep -qw _printk "$out/kdir/Module.symvers" || die "kdir/Module.symvers lacks vmlinux symbols"
# The PVH entry point is an ELF note (XEN_ELFNOTE_PHYS32_ENTRY = 18, owner "Xen").
# grep without -q: it reads to the end, so readelf never dies of SIGPIPE,
# which pipefail would take for a missing section.
readelf -n "$out/vmlinux" | grep -A1 -w Xen | grep -iE '0x0*12\b|PHYS32' >/dev/null ||
	die "$out/vmlinux has no PVH entry note (is CONFIG_PVH on?)"
if grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$obj/.config"; then
	readelf -S "$out/vmlinux" | grep -w '\.BTF' >/dev/null || die "$out/vmlinux has no .BTF section"
fi
say "install done in $(dur $((SECONDS - ts)))"

printf '%s\n' "$key" >"$out/stamp"
say "done in $(dur $((SECONDS - t0))): $release"
say "  vmlinux $out/vmlinux ($(du -m "$out/vmlinux" | cut -f1) MB)"
say "  modules $out/modules ($(find -L "$out/modules" -name '*.ko' | wc -l) modules)"
say "  kdir    $out/kdir"
