#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel's own driver selftests, for one of two kernel series:
#
# 6.12 (default), from Debian's linux-source-6.12, into BUILD_DIR/upstream:
#
#   upstream/kselftest/   installed tools/testing/selftests targets drivers/net
#                         and drivers/net/hw (with net/lib/py, ynl and specs);
#                         run_kselftest.sh works from here
#   upstream/ncdevmem     tools/testing/selftests/net/ncdevmem (devmem TCP tool)
#   upstream/build.log    output of the last build
#
# 7.3, from linux-source-7.3, into BUILD_DIR/upstream-7.3:
#
#   upstream-7.3/kselftest/   drivers/net, drivers/net/hw and net/lib installed,
#                             C helpers (ncdevmem, toeplitz, so_txtime, psp_responder,
#                             napi_id_helper, csum, gro, xdp_helper) and BPF objects
#                             (xdp_dummy.bpf.o, nk_forward.bpf.o ...) built; iou-zcrx,
#                             which the upstream Makefile drops (Debian's liburing
#                             has no zcrx calls), built with lib/uring/liburing.h
#   upstream-7.3/netdevsim/netdevsim.ko   netdevsim, out of tree (Debian's 7.3
#                             config has NETDEVSIM unset)
#   upstream-7.3/build.log    output of the last build
#   Sources: UPSTREAM_73_SRC, the unpacked linux-source-7.3, and
#   UPSTREAM_73_KOBJ, an O= tree prepared with modules_prepare for Debian's
#   7.3 kernel (defaults: KSRC and KDIR of `scripts/kernel.sh 7.3`, i.e. what
#   `make deps KERNEL=7.3` set up; else /tmp/t73/linux and /tmp/t73/obj).
#   Needs clang-19 and the other tools scripts/upstream-tools.sh installs.
#
# Usage: scripts/upstream-selftests.sh [6.12|7.3] [BUILD_DIR]   (default
# BUILD_DIR: $REFNIC_BUILD or ./build). Quiet on success; on failure prints the
# compiler error and exits 1.
#
# The linux-source copy is never written: the selftests and headers_install
# use O= (both then agree on O/usr/include for KHDR_INCLUDES), and because
# tools/net/ynl and the selftests' ynl.mk only build in place, ncdevmem is
# built in a scratch mini-tree (upstream/src) holding just the parts it needs
# (for 7.3 the whole selftests build runs in such a tree: drivers/net and
# drivers/net/hw build ynl users of their own).
# A stamp keyed on the source version and this script's hash makes a second
# run a no-op; anything else rebuilds from clean, which is cheap and avoids
# trusting half-finished output.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
series=6.12
case ${1:-} in
6.12 | 7.3)
	series=$1
	shift
	;;
esac
build=$(realpath -m "${1:-${REFNIC_BUILD:-$here/../build}}")

# Shared by both series: a log per step, appended to $log, shown on failure.
fail() {
	cat "$steplog" >>"$log"
	echo "upstream-selftests: $step failed (full log: $log)" >&2
	# The compiler's own diagnostics are what the caller needs; otherwise
	# (python traceback, make error) the tail of the failing step says it.
	if grep -q 'error:' "$steplog"; then
		grep -B3 -A8 'error:' "$steplog" | head -n 60 >&2
	else
		tail -n 30 "$steplog" >&2
	fi
	rm -f "$steplog"
	exit 1
}

run() {
	step=$1
	shift
	echo "=== $step: $*" >>"$log"
	"$@" >"$steplog" 2>&1 || fail
	cat "$steplog" >>"$log"
	rm -f "$steplog"
}

if [ "$series" = 7.3 ]; then
	pick() { # first existing dir among the arguments
		local d
		for d in "$@"; do
			[ -d "$d" ] && { realpath "$d"; return; }
		done
		echo "upstream-selftests: none of $* exists" >&2
		exit 1
	}
	# scripts/kernel.sh names the 7.3 tree `make deps KERNEL=7.3` set up.
	k73() { REFNIC_BUILD="$build" "$here/kernel.sh" --get "$1" 7.3 2>/dev/null || echo /nonexistent; }
	src=$(pick ${UPSTREAM_73_SRC:-"$(k73 KSRC)" /tmp/t73/linux})
	kobj=$(pick ${UPSTREAM_73_KOBJ:-"$(k73 KDIR)" /tmp/t73/obj})
	[ -f "$src/tools/testing/selftests/drivers/net/hw/Makefile" ] ||
		{ echo "upstream-selftests: $src is no linux source tree" >&2; exit 1; }
	[ -f "$kobj/include/config/kernel.release" ] ||
		{ echo "upstream-selftests: $kobj is no prepared O= tree (modules_prepare)" >&2; exit 1; }
	clang=${CLANG:-clang-19}
	command -v "$clang" >/dev/null ||
		{ echo "upstream-selftests: no $clang (scripts/upstream-tools.sh)" >&2; exit 1; }
	out=$build/upstream-7.3
	log=$out/build.log
	stamp=$out/.stamp
	steplog=$out/step.log
	srcver=$(make -s -C "$src" kernelversion 2>/dev/null)
	uring=$here/../lib/uring
	key="$srcver $(cat "$kobj/include/config/kernel.release") $("$clang" --version | head -n1) $(cat "${BASH_SOURCE[0]}" "$uring/liburing.h" | sha256sum | cut -d' ' -f1)"
	mkdir -p "$out"
	exec 9>"$out/.lock"
	flock 9
	ksft=$out/kselftest
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] &&
		[ -f "$ksft/run_kselftest.sh" ] && [ -f "$out/netdevsim/netdevsim.ko" ]; then
		exit 0
	fi
	obj=$out/obj
	mini=$out/src
	rm -f "$stamp"
	rm -rf "$obj" "$mini" "$ksft" "$out/netdevsim"
	: >"$log"
	jobs=$(nproc)

	# 1. uAPI headers into O/usr/include (KHDR_INCLUDES); the mini-tree's
	#    usr/ points there too, for the rules that use top_srcdir/usr/include
	#    (bpf.mk's clang, net/lib's CFLAGS) instead.
	run headers_install nice -n 10 make -C "$src" O="$obj" -j"$jobs" headers_install

	# 2. A writable mini-tree: the selftests, tools/ (ynl and libbpf build in
	#    place or need tools/build, tools/scripts, tools/include), the specs
	#    and raw uAPI (ynl's Makefile.deps includes include/uapi headers).
	#    ynl-gen-c walks up from the spec to a MAINTAINERS file and loops
	#    forever without one.
	mini_tree() {
		(cd "$src" && rsync -aR --exclude '*.o' --exclude '__pycache__' \
			tools/ Documentation/netlink/ include/uapi/ scripts/subarch.include scripts/bpf_doc.py \
			Makefile "$mini/") &&
			: >"$mini/MAINTAINERS" &&
			ln -sfn "$obj/usr" "$mini/usr"
	}
	run mini-tree mini_tree

	# 3. Build and install. FORCE_TARGETS: the top Makefile otherwise hides a
	#    failing target when another one built.
	run kselftest-install nice -n 10 make -C "$mini/tools/testing/selftests" -j"$jobs" \
		TARGETS="drivers/net drivers/net/hw" O="$obj" FORCE_TARGETS=1 \
		CLANG="$clang" KSFT_INSTALL_PATH="$ksft" install
	# iou-zcrx (iou-zcrx.py's helper): the hw Makefile leaves it out unless
	#    liburing has io_uring_register_ifq(), which Debian's has not. Built
	#    here, its source unchanged, with the project's liburing.h (raw
	#    io_uring syscalls over 7.3's uAPI) first on its include path.
	run iou-zcrx nice -n 10 gcc -O2 -Wall -Wno-unused-variable -isystem "$obj/usr/include" \
		-I "$uring" "$src/tools/testing/selftests/drivers/net/hw/iou-zcrx.c" \
		-o "$ksft/drivers/net/hw/iou-zcrx"
	# Everything the tests look for must be there: a missing binary makes
	# a test skip or fail in the VM, long after the build.
	check_installed() {
		local f missing=
		for f in drivers/net/napi_id_helper drivers/net/so_txtime drivers/net/psp_responder \
			drivers/net/hw/ncdevmem drivers/net/hw/toeplitz drivers/net/hw/iou-zcrx \
			drivers/net/hw/nk_forward.bpf.o drivers/net/hw/nk_primary_rx_redirect.bpf.o \
			net/lib/csum net/lib/gro net/lib/xdp_helper net/lib/xdp_dummy.bpf.o \
			net/lib/xdp_native.bpf.o net/lib/xdp_metadata.bpf.o run_kselftest.sh; do
			[ -e "$ksft/$f" ] || missing+=" $f"
		done
		[ -z "$missing" ] || { echo "not installed:$missing"; return 1; }
	}
	run check-installed check_installed
	run compileall python3 -m compileall -q -j0 "$ksft"

	# 4. netdevsim, out of tree against the prepared 7.3 O= tree. Every
	#    symbol it selects (NET_DEVLINK, PAGE_POOL, NET_SHAPER) is =y in
	#    Debian's config; PSAMPLE=m makes it depend on psample.ko.
	nsim=$out/netdevsim
	run netdevsim-copy cp -r "$src/drivers/net/netdevsim" "$nsim"
	run netdevsim nice -n 10 make -C "$kobj" M="$nsim" CONFIG_NETDEVSIM=m -j"$jobs" modules
	[ "$(modinfo -F vermagic "$nsim/netdevsim.ko" | cut -d' ' -f1)" = "$(cat "$kobj/include/config/kernel.release")" ] ||
		{ step=netdevsim-vermagic; echo "vermagic mismatch" >"$steplog"; fail; }

	rm -rf "$mini"
	echo "$key" >"$stamp"
	exit 0
fi
out=$build/upstream
log=$out/build.log
stamp=$out/.stamp

# kernel-source.sh unpacks once (keyed by package version) and prints the dir.
src=$(REFNIC_BUILD="$build" "$here/kernel-source.sh")
src=$(realpath "$src")

key="$(basename "$src") $(sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1)"

mkdir -p "$out"
# Two builders (a helper and CI, say) must not interleave rm -rf and make.
exec 9>"$out/.lock"
flock 9

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] &&
	[ -x "$out/ncdevmem" ] && [ -f "$out/kselftest/run_kselftest.sh" ]; then
	exit 0
fi

obj=$out/obj
mini=$out/src
ksft=$out/kselftest
rm -f "$stamp"
rm -rf "$obj" "$mini" "$ksft" "$out/ncdevmem"
: >"$log"

jobs=$(nproc)
step=

steplog=$out/step.log

# 1. Sanitised uAPI headers into O/usr/include, the path the selftests
#    Makefile derives for KHDR_INCLUDES from the same O=.
run headers_install make -C "$src" O="$obj" -j"$jobs" headers_install

# 2. drivers/net and drivers/net/hw selftests; install pulls in net/lib/py,
#    tools/net/ynl (as net/lib/ynl) and the netlink specs.
run kselftest-install make -C "$src/tools/testing/selftests" -j"$jobs" \
	TARGETS="drivers/net drivers/net/hw" O="$obj" KSFT_INSTALL_PATH="$ksft" install

# Byte-compile once here: in the VM the tree is read-only, so python could not
# cache and would recompile lib/py and ynl on every test start (slow under TCG).
# The guest runs this very python3 (the host root is shared).
run compileall python3 -m compileall -q -j0 "$ksft"

# 3. ncdevmem. Mini-tree: ynl (generated code lands in it), the specs and
#    their schemas (ynl-gen-c validates against Documentation/netlink/*.yaml), raw uAPI
#    (ynl's Makefile.deps force-includes include/uapi/linux/netdev.h) and the
#    selftests' net dir with lib.mk and kselftest headers. ynl-gen-c walks up
#    from the spec to a MAINTAINERS file to find the tree root and loops
#    forever without one.
mini_tree() {
	(cd "$src" && rsync -aR \
		tools/net/ynl/ Documentation/netlink/ include/uapi/ \
		tools/testing/selftests/lib.mk tools/testing/selftests/kselftest.h \
		tools/testing/selftests/kselftest_harness.h tools/testing/selftests/kselftest/ \
		tools/testing/selftests/net/ "$mini/")
	: >"$mini/MAINTAINERS"
}
run mini-tree mini_tree

nc_out=$obj/ncdevmem-build
mkdir -p "$nc_out"
# The selftests' own rule: ynl.mk builds libynl.a (GENS=netdev) and adds the
# ynl include paths; KHDR_INCLUDES points at the headers from step 1.
run ncdevmem make -C "$mini/tools/testing/selftests/net" -j"$jobs" \
	OUTPUT="$nc_out" KHDR_INCLUDES="-isystem $obj/usr/include" "$nc_out/ncdevmem"
run ncdevmem-install install -m 755 "$nc_out/ncdevmem" "$out/ncdevmem"

echo "$key" >"$stamp"
