#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Smoke test for build/upstream/ncdevmem (scripts/upstream-selftests.sh):
# it links, runs, and speaks the 6.12 netdev genetlink family, on its own
# (ncdevmem.sh is the real run, over a refnic pair). It binds nothing:
# binding a device without
# a parent (lo, veth) WARNs in dma_buf_attach, so every bind-rx request goes to
# ifindex 0, which the netdev family's policy rejects (ERANGE, extack
# "integer out of range", bad attribute .ifindex) before any device is looked up.
#
# Usage: ncdevmem_builds.sh   (root; KTAP on stdout; exit 0 pass, 1 fail, 4 skip)
# Env: UPSTREAM_NCDEVMEM overrides the binary's path.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${UPSTREAM_NCDEVMEM:-${REFNIC_BUILD:-$repo/build}/upstream/ncdevmem}
# ncdevmem runs "sudo ethtool ..."; scripts/sudo stands in for sudo.
shim_path=$repo/scripts:$PATH
# An interface name that cannot exist (over IFNAMSIZ): if_nametoindex gives 0.
noif=refnic-no-such-if

n=0 fails=0 passes=0
result() { # $1 ok|fail|skip, $2 name, $3 reason
	n=$((n + 1))
	case $1 in
	ok) passes=$((passes + 1)); echo "ok $n $2${3:+ # $3}" ;;
	skip) echo "ok $n $2 # SKIP $3" ;;
	*) fails=$((fails + 1)); echo "not ok $n $2 # $3" ;;
	esac
}
show() { # indent a captured output as KTAP diagnostics
	local l
	while IFS= read -r l; do echo "# | $l"; done <<<"$1"
}

echo "KTAP version 1"
echo "1..3"

# 1. Present and every shared library resolves (the guest has the host's libs).
if [ ! -x "$bin" ]; then
	result fail ncdevmem_links "$bin missing (run scripts/upstream-selftests.sh on the host)"
elif ldd "$bin" 2>&1 | grep -q 'not found'; then
	show "$(ldd "$bin" 2>&1)"
	result fail ncdevmem_links "unresolved shared libraries"
else
	result ok ncdevmem_links
fi

run_ncdevmem() { # PATH to use; prints combined output, returns exit code
	local rc=0
	PATH=$1 timeout 120 "$bin" -f "$noif" -s 192.0.2.1 -p 5201 -q 1 -t 0 \
		</dev/null 2>&1 || rc=$?
	return "$rc"
}

can_run=1
[ -x "$bin" ] || can_run=0
if [ "$EUID" -ne 0 ]; then
	result skip ncdevmem_runs "needs root"
	result skip ncdevmem_netlink "needs root"
	can_run=0
elif [ ! -e /dev/udmabuf ]; then
	result skip ncdevmem_runs "no /dev/udmabuf (CONFIG_UDMABUF)"
	result skip ncdevmem_netlink "no /dev/udmabuf (CONFIG_UDMABUF)"
	can_run=0
elif [ "$can_run" -eq 0 ]; then
	result fail ncdevmem_runs "no binary"
	result fail ncdevmem_netlink "no binary"
fi

if [ "$can_run" -eq 1 ]; then
	# 2. It starts, maps a 64 MB udmabuf and gets as far as its first
	#    "sudo ethtool -X", which the real ethtool refuses for a missing device.
	rc=0
	out=$(run_ncdevmem "$shim_path") || rc=$?
	show "$out"
	if [ "$rc" -eq 1 ] && grep -q 'rss error' <<<"$out"; then
		result ok ncdevmem_runs "udmabuf mapped, stopped at RSS as expected"
	else
		result fail ncdevmem_runs "exit $rc, expected 1 with 'rss error'"
	fi

	# 3. With ethtool stubbed, ncdevmem sends its three bind-rx requests: the
	#    two that must fail do (ifindex 0, see above), and the last ends the run at
	#    "Failed to bind". A missing family or socket error shows as "YNL:".
	rc=0
	out=$(run_ncdevmem "$here/stubs:$shim_path") || rc=$?
	show "$out"
	binds=$(grep -c '^netdev_bind_rx: ' <<<"$out" || true)
	if [ "$rc" -eq 1 ] && grep -q 'Failed to bind' <<<"$out" &&
		! grep -qE 'should have failed|^YNL:' <<<"$out" && [ "$binds" -eq 3 ]; then
		result ok ncdevmem_netlink "3 bind-rx requests answered by the kernel"
	else
		result fail ncdevmem_netlink "exit $rc, $binds bind-rx answers, expected 3 then 'Failed to bind'"
	fi
fi

echo "# Totals: pass:$passes fail:$fails skip:$((n - passes - fails))"
if [ "$fails" -gt 0 ]; then
	exit 1
elif [ "$passes" -eq 0 ]; then
	exit 4
fi
exit 0
