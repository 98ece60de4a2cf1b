#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Linux 7.3 beside Debian 12's 6.12, without touching the host's package
# set: `make deps KERNEL=7.3` (scripts/deps.sh installs the host packages the
# build needs, then runs this). Debian 12 has no 7.3, so the newest 7.3.y is
# fetched from trixie-backports with an apt configuration of its own (own
# sources list, index, state and cache under build/kernels/7.3/apt) and
# unpacked with dpkg-deb, never installed. Layout (read by scripts/kernel.sh):
#
#   build/kernels/7.3/debs/         the five .debs (source, binary, modules,
#                                   base = config, headers = Module.symvers)
#   build/kernels/7.3/root/         all five unpacked; .unpacked = their version
#   build/kernels/7.3/linux-source  -> linux-source-<version> (kernel-source.sh)
#   build/kernels/7.3/kdir/         O= tree: Debian's config, olddefconfig,
#                                   modules_prepare, Debian's Module.symvers;
#                                   `make -C kdir M=DIR modules` builds for 7.3
#   build/kernels/7.3/modules-root/lib/modules/<kver>/   modules, depmod'ed
#   build/kernels/7.3/vmlinux       ELF, extracted by scripts/vm/vm.sh
#   build/kernels/7.3/kver          the release, e.g. 7.3.4+deb13-amd64
#   build/kernels/7.3/stamp         the cache key; written last
#   build/kernels/7.3/deps.log      apt's and make's output of the last run
#
# Why the kdir is built here and Debian's kbuild package is not used: its
# modpost, objtool and resolve_btfids need glibc 2.38 (Debian 12 has 2.36)
# and its Makefile names gcc-14. Debian 12's gcc-12 builds modules that load
# into Debian's gcc-14-built kernel (vermagic matches; see
# ../shared/notes/kernel-7.3.md).
#
# Cached: every step is keyed by the package version (the kdir also by the
# compiler), so a run with nothing new takes about a second. The index is
# refreshed at most once a day; if it cannot be, a complete cached set is
# used. A missing or unreachable package set fails with one line.
set -euo pipefail

series=7.3
# Bump when the steps below change in a way that alters the result.
RECIPE_REV=1

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath -m "${REFNIC_BUILD:-$here/../build}")
d=$build/kernels/$series
apt_dir=$d/apt
debs=$d/debs
root=$d/root
kdir=$d/kdir
mroot=$d/modules-root
log=$d/deps.log

t0=$SECONDS
say() { printf 'deps-%s: [%3ds] %s\n' "$series" $((SECONDS - t0)) "$*"; }
die() {
	echo "deps-$series: $*" >&2
	exit 1
}

mkdir -p "$apt_dir/lists/partial" "$apt_dir/state" "$apt_dir/cache/archives/partial" "$debs/partial"
: >"$log"

# trixie is there for what backports packages may need from it; only main.
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing (apt-get install debian-archive-keyring)"
sources=$(for suite in trixie trixie-backports; do
	echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main"
done)
# rewritten only when it changes: a newer sources list invalidates apt's cache
[ "$(cat "$apt_dir/sources.list" 2>/dev/null)" = "$sources" ] || echo "$sources" >"$apt_dir/sources.list"
# Nothing of the host's apt state is read or written: its sources,
# preferences (pins) and dpkg status stay out; its apt.conf.d (proxies)
# still applies, except that our binary caches are kept (Docker-style
# configs turn them off; without them every apt-cache call takes seconds).
mkdir -p "$apt_dir/empty.d"
apt_opts=(
	-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=$apt_dir/empty.d"
	-o Dir::Etc::preferences=/dev/null -o "Dir::Etc::preferencesparts=$apt_dir/empty.d"
	-o "Dir::State=$apt_dir/state" -o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::State::status=$apt_dir/state/status" -o "Dir::Cache=$apt_dir/cache"
	-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin
	-o APT::Architecture=amd64 -o APT::Sandbox::User=root
)
: >>"$apt_dir/state/status"
ac() { apt-cache "${apt_opts[@]}" "$@" 2>>"$log"; }

# ---- what is cached ----------------------------------------------------------
toolchain="$(gcc --version | head -n1); $(ld --version | head -n1)"
key_of() { printf 'recipe=%s\nversion=%s\nkver=%s\ntoolchain=%s\n' "$RECIPE_REV" "$1" "$2" "$toolchain"; }
complete() {
	local kv
	kv=$(cat "$d/kver" 2>/dev/null) && [ -f "$d/stamp" ] && [ -s "$d/vmlinux" ] &&
		[ -f "$mroot/lib/modules/$kv/modules.dep" ] && [ -f "$kdir/Module.symvers" ]
}
cached_version=$(sed -n 's/^version=//p' "$d/stamp" 2>/dev/null || true)
use_cached() { # use_cached WHY: fall back to the complete cached set, or fail
	complete || die "$1"
	say "warning: $1; using the cached $(cat "$d/kver") ($cached_version)" >&2
	exit 0
}

# ---- the index: refreshed at most once a day --------------------------------
if [ -z "$(find "$apt_dir/updated" -mmin -1440 2>/dev/null)" ]; then
	if apt-get "${apt_opts[@]}" -q --error-on=any update >>"$log" 2>&1; then
		touch "$apt_dir/updated"
	elif ! compgen -G "$apt_dir/lists/*trixie-backports*Packages*" >/dev/null; then
		use_cached "cannot fetch the trixie-backports index (network? see $log)"
	else
		say "warning: cannot refresh the trixie-backports index, using the one from $(date -r "$apt_dir/updated" '+%F %R' 2>/dev/null || echo before)" >&2
	fi
fi

# The newest 7.3.y, by version sort like scripts/deps.sh picks 6.12's, and
# its package version (the five packages come from one upload).
kver=$(ac search --names-only "^linux-binary-${series//./\\.}\\.[0-9]+\\+deb13-amd64\$" |
	awk '{print $1}' | sed 's/^linux-binary-//' | sort -V | tail -n1)
[ -n "$kver" ] || use_cached "trixie-backports has no linux-binary-$series.*+deb13-amd64"
version=$(ac show "linux-binary-$kver" | sed -n 's/^Version: //p' | sort -V | tail -n1)
key=$(key_of "$version" "$kver")
if [ "$(cat "$d/stamp" 2>/dev/null)" = "$key" ] && complete; then
	say "ok (kernel $kver, cached in $d)"
	exit 0
fi

# ---- download ------------------------------------------------------------------
pkgs=("linux-source-$series" "linux-binary-$kver" "linux-modules-$kver" "linux-base-$kver" "linux-headers-$kver")
deb_of() { compgen -G "$debs/${1}_${version/:/%3a}_*.deb" | head -n1; }
want=() absent=()
for p in "${pkgs[@]}"; do
	[ -n "$(deb_of "$p")" ] && continue
	want+=("$p=$version")
	ac show "$p=$version" >/dev/null || absent+=("$p=$version")
done
[ "${#absent[@]}" -eq 0 ] || use_cached "not in the trixie-backports index: ${absent[*]}"
if [ "${#want[@]}" -gt 0 ]; then
	say "downloading ${want[*]}"
	rm -f "$debs/partial/"*.deb
	(cd "$debs/partial" && apt-get "${apt_opts[@]}" -q download "${want[@]}") >>"$log" 2>&1 ||
		use_cached "cannot download ${want[*]} (network? see $log)"
	mv "$debs/partial/"*.deb "$debs/"
fi
# other versions' packages are dead weight (300 MB a set)
for f in "$debs"/*.deb; do
	[[ $f == *"_${version/:/%3a}_"* ]] || rm -f "$f"
done

# ---- unpack ----------------------------------------------------------------------
# From here on the cached set is being replaced: not complete until the end.
rm -f "$d/stamp" "$d/kver"
if [ "$(cat "$root/.unpacked" 2>/dev/null)" != "$version" ]; then
	say "unpacking $version"
	rm -rf "$root" "$root.tmp"
	mkdir -p "$root.tmp"
	for p in "${pkgs[@]}"; do dpkg-deb -x "$(deb_of "$p")" "$root.tmp"; done
	echo "$version" >"$root.tmp/.unpacked"
	mv "$root.tmp" "$root"
fi
ksrc=$(REFNIC_BUILD=$build "$here/kernel-source.sh" "$series")

# ---- the module build tree -----------------------------------------------------
# In place (an O= tree records its own path): its key file is written last,
# and a tree without the right key is rebuilt from scratch.
kkey=$(key_of "$version" "$kver")
if [ "$(cat "$kdir/.refnic-key" 2>/dev/null)" != "$kkey" ]; then
	say "preparing the module build tree $kdir (1-3 minutes on 2 cores)"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	cp "$root/usr/lib/modules/$kver/config" "$kdir/.config"
	# Debian's config for gcc-14: olddefconfig adjusts only the compiler
	# capability symbols to gcc-12.
	nice -n 10 make -C "$ksrc" O="$kdir" olddefconfig >>"$log" 2>&1 ||
		die "make olddefconfig failed (see $log)"
	nice -n 10 make -C "$ksrc" O="$kdir" KERNELRELEASE="$kver" -j"$(nproc)" modules_prepare >>"$log" 2>&1 ||
		die "make modules_prepare failed (see $log)"
	[ "$(cat "$kdir/include/config/kernel.release")" = "$kver" ] ||
		die "$kdir is for $(cat "$kdir/include/config/kernel.release"), not $kver"
	# modpost checks refnic's imports against the kernel's exports
	cp "$root/usr/src/linux-headers-$kver/Module.symvers" "$kdir/"
	echo "$kkey" >"$kdir/.refnic-key"
fi

# ---- the modules tree the VM mounts as /lib/modules/<kver> ------------------------
if [ "$(cat "$mroot/.unpacked" 2>/dev/null)" != "$version" ]; then
	say "depmod $kver"
	rm -rf "$mroot" "$mroot.tmp"
	mkdir -p "$mroot.tmp/lib/modules"
	# hard links: depmod replaces files (write + rename), root/ stays intact
	cp -al "$root/usr/lib/modules/$kver" "$mroot.tmp/lib/modules/"
	# build/source point to headers that the guest does not have
	rm -f "$mroot.tmp/lib/modules/$kver/build" "$mroot.tmp/lib/modules/$kver/source"
	depmod -b "$mroot.tmp" "$kver" >>"$log" 2>&1 || die "depmod failed (see $log)"
	echo "$version" >"$mroot.tmp/.unpacked"
	mv "$mroot.tmp" "$mroot"
fi
echo "$kver" >"$d/kver"

# ---- the ELF vmlinux (and the VM's initramfs) ------------------------------------
REFNIC_BUILD=$build "$here/vm/vm.sh" --series "$series" prepare >>"$log" 2>&1 ||
	die "scripts/vm/vm.sh --series $series prepare failed (see $log)"

echo "$key" >"$d/stamp"
say "ok (kernel $kver in $d)"
