#!/usr/bin/env bash
# Build the kernel's own driver selftests and ncdevmem from Debian's
# linux-source-6.12, into BUILD_DIR/upstream:
#
#   upstream/kselftest/   installed tools/testing/selftests targets drivers/net
#                         and drivers/net/hw (with net/lib/py, ynl and specs);
#                         run_kselftest.sh works from here
#   upstream/ncdevmem     tools/testing/selftests/net/ncdevmem (devmem TCP tool)
#   upstream/build.log    output of the last build
#
# Usage: scripts/upstream-selftests.sh [BUILD_DIR]   (default: $REFNIC_BUILD or
# ./build). Quiet on success; on failure prints the compiler error and exits 1.
#
# The linux-source copy is never written: the selftests and headers_install
# use O= (both then agree on O/usr/include for KHDR_INCLUDES), and because
# tools/net/ynl and the selftests' ynl.mk only build in place, ncdevmem is
# built in a scratch mini-tree (upstream/src) holding just the parts it needs.
# A stamp keyed on the source version and this script's hash makes a second
# run a no-op; anything else rebuilds from clean, which is cheap and avoids
# trusting half-finished output.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(realpath -m "${1:-${REFNIC_BUILD:-$here/../build}}")
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
