#!/usr/bin/env bash
# Build refnic's debug kernel (KASAN, lockdep, kmemleak, DEBUG_NET, fault
# injection, ...) out of tree from Debian's linux-source-6.12, once.
#
#   config = x86_64_defconfig + kvm_guest.config + scripts/debug-kernel.config
#
# Cached by: linux-source package version, sha256 of the fragment, the
# compiler/binutils versions and RECIPE_REV below. A run with nothing changed
# takes well under a second; a changed fragment rebuilds incrementally in the
# same object dir; a new source version or toolchain rebuilds from scratch.
#
# Outputs (a contract; other scripts rely on these paths):
#   build/debug-kernel/vmlinux        ELF, bootable with QEMU -kernel (PVH)
#   build/debug-kernel/modules        -> modules-root/lib/modules/<release>
#                                        (modules.dep etc., stripped .ko)
#   build/debug-kernel/kdir           -> obj (the O= dir): KDIR for
#                                        `make -C kdir M=/path/to/kmod modules`
#   build/debug-kernel/kernelrelease  one line, e.g. 6.12.117-refnic-debug
#   build/debug-kernel/config         copy of the final .config
#   build/debug-kernel/build.log      the kernel's make output
#
# The outputs are valid exactly when build/debug-kernel/stamp exists; it is
# removed before a rebuild starts and written last.
#
# Options: --force (rebuild even if cached), --check (exit 0 if up to date,
# 1 if a build is needed; builds nothing), --clean (wipe the object dir first).
# Env: REFNIC_BUILD (build root), DEBUG_KERNEL_JOBS (default: nproc).
set -euo pipefail

# Bump when the steps below change in a way that alters the result.
RECIPE_REV=1

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath -m "${REFNIC_BUILD:-$here/../build}")
frag=$here/debug-kernel.config
out=$build/debug-kernel
obj=$out/obj
log=$out/build.log
jobs=${DEBUG_KERNEL_JOBS:-$(nproc)}

force=0 check=0 clean=0
for a in "$@"; do
	case $a in
	--force) force=1 ;;
	--check) check=1 ;;
	--clean) clean=1 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "debug-kernel: unknown argument: $a" >&2; exit 2 ;;
	esac
done

t0=$SECONDS
say() { printf 'debug-kernel: [%4ds] %s\n' $((SECONDS - t0)) "$*"; }
die() { printf 'debug-kernel: ERROR: %s\n' "$*" >&2; exit 1; }
dur() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

[ -r "$frag" ] || die "$frag missing"
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed (run make deps)"
toolchain="$(gcc --version | head -n1); $(ld --version | head -n1)"
key="recipe=$RECIPE_REV
source=linux-source-6.12 $pkgver
fragment=$(sha256sum <"$frag" | cut -d' ' -f1)
toolchain=$toolchain"

outputs_ok() {
	[ -f "$out/vmlinux" ] && [ -f "$out/kernelrelease" ] &&
	[ -f "$out/modules/modules.dep" ] && [ -f "$out/kdir/Module.symvers" ] &&
	[ -f "$out/kdir/.config" ]
}
cached() { [ $force = 0 ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$key" ] && outputs_ok; }

if cached; then
	[ $check = 1 ] && exit 0
	say "up to date: $(cat "$out/kernelrelease") ($out)"
	exit 0
fi
[ $check = 1 ] && exit 1

mkdir -p "$out"
# One builder at a time; a second caller waits, then finds the cache valid.
exec 9>"$out/.lock"
if ! flock -n 9; then
	say "another debug-kernel build is running; waiting for it"
	flock 9
	if cached; then say "up to date: $(cat "$out/kernelrelease")"; exit 0; fi
fi

src=$(REFNIC_BUILD=$build "$here/kernel-source.sh" | tail -n1)
src=$(realpath "$src")
[ -f "$src/Makefile" ] || die "kernel source not found at $src"
# `make O=` refuses a configured source tree; say why up front.
if [ -e "$src/.config" ] || [ -d "$src/include/config" ]; then
	die "$src is not clean (has .config or include/config); re-create it with:
  rm -rf $src && scripts/kernel-source.sh"
fi

rm -f "$out/stamp"
# Incremental only if just the fragment/recipe changed; otherwise start over.
objid="src=$src
toolchain=$toolchain"
if [ $clean = 1 ] || [ ! -f "$obj/.refnic-objid" ] ||
   [ "$(cat "$obj/.refnic-objid")" != "$objid" ]; then
	[ -d "$obj" ] && say "wiping object dir (new source/toolchain, or --clean)"
	rm -rf "$obj"
fi
mkdir -p "$obj"
printf '%s\n' "$objid" >"$obj/.refnic-objid"

: >"$log"
nice_cmd=(nice -n 19)
command -v ionice >/dev/null && nice_cmd+=(ionice -c 3)
kmake() {
	"${nice_cmd[@]}" make -C "$src" O="$obj" "$@" >>"$log" 2>&1 || {
		echo "---- last 60 lines of $log ----" >&2
		tail -n 60 "$log" >&2
		die "make $* failed (full log: $log)"
	}
}

say "source $src ($pkgver), objects $obj, log $log"

# --- configure --------------------------------------------------------------
ts=$SECONDS
say "configure: x86_64_defconfig + kvm_guest.config + $(basename "$frag")"
kmake x86_64_defconfig
kmake kvm_guest.config
# Merge the fragment: drop every symbol it mentions from .config, append it.
syms=$(sed -nE 's/^(CONFIG_[A-Za-z0-9_]+)=.*/\1/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1/p' "$frag")
grep -vwF -f <(printf '%s\n' $syms) "$obj/.config" >"$obj/.config.merge" || true
grep -E '^(CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set$)' "$frag" >>"$obj/.config.merge"
mv "$obj/.config.merge" "$obj/.config"
kmake olddefconfig

# Verify: every line of the fragment must have survived olddefconfig.
bad=() warn=() optional=0
while IFS= read -r line; do
	if [ "$line" = "# refnic: optional" ]; then optional=1; continue; fi
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
		sym=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
	elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		sym=${BASH_REMATCH[1]} want=n
	else
		optional=0; continue
	fi
	got=$(sed -n "s/^$sym=//p" "$obj/.config")
	[ -n "$got" ] || got=n
	if [ "$got" != "$want" ]; then
		msg="$sym: wanted $want, got $got"
		if [ $optional = 1 ]; then warn+=("$msg"); else bad+=("$msg"); fi
	fi
	optional=0
done <"$frag"
for w in "${warn[@]}"; do say "warning (optional symbol): $w"; done
if [ ${#bad[@]} -gt 0 ]; then
	printf 'debug-kernel: ERROR: %d requested config symbol(s) not as requested after olddefconfig:\n' ${#bad[@]} >&2
	printf '  %s\n' "${bad[@]}" >&2
	echo "  (check their 'depends on' in Kconfig; config is $obj/.config)" >&2
	exit 1
fi
say "configure done in $(dur $((SECONDS - ts))): all $(wc -w <<<"$syms") fragment symbols verified"

# --- build ------------------------------------------------------------------
ts=$SECONDS
touch "$obj/.refnic-build-start"
say "build: make -j$jobs vmlinux modules (nice 19; ~20 min on 2 cores from scratch)"
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

cp "$obj/vmlinux" "$out/vmlinux.tmp"
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
readelf -n "$out/vmlinux" | grep -A1 -w Xen | grep -qiE '0x0*12\b|PHYS32' ||
	die "$out/vmlinux has no PVH entry note (is CONFIG_PVH on?)"
say "install done in $(dur $((SECONDS - ts)))"

printf '%s\n' "$key" >"$out/stamp"
say "done in $(dur $((SECONDS - t0))): $release"
say "  vmlinux $out/vmlinux ($(du -m "$out/vmlinux" | cut -f1) MB)"
say "  modules $out/modules ($(find -L "$out/modules" -name '*.ko' | wc -l) modules)"
say "  kdir    $out/kdir"
