#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A user in a user namespace of its own cannot plug refnic cards in or bind
# bypass queues unless module parameter allow_userns says so (issue 14,
# item 2; kmod/refnic_policy.c). As uid 65534 without capabilities in
# `unshare -Urn` - where it is root of its user namespace, with
# CAP_NET_ADMIN over its network namespace - every case first proves that
# it can create a veth pair in that namespace, then:
#  - `ip link add ... type refnic` fails with the extack message "refnic:
#    needs CAP_NET_ADMIN in the initial user namespace (module parameter
#    allow_userns)", the same request sent raw gets EPERM with it
#    (privilege_nl.py), and the kernel log says who was refused;
#  - the refnic family's dev-new (YNL CLI) fails with EPERM and that
#    message, logged;
#  - a /dev/refnic bind (refnic-bypass rx) of a refnic port that root moved
#    into the namespace, up and otherwise bindable, fails with EPERM,
#    logged;
#  - with allow_userns=1 written at run time, ip link add and dev-new plug
#    cards in from the namespace and the same bind succeeds;
#  - with allow_userns=1 and devmem_tx=1 (7.x), a card plugged in from the
#    user namespace offers no devmem TX: bind-tx says "Driver does not
#    support netmem TX";
#  - with allow_userns=0 again, ip link add is refused again.
# Skips, saying why, when uid 65534 cannot make a veth pair in a user
# namespace of its own here (a chroot()ed process cannot create one, for
# one). allow_userns is put back as found.
set -u
# shellcheck source=../net/lib_net.sh
. "$(dirname "$0")/../net/lib_net.sh"

KSRC=$REFNIC_REPO/build/linux-source
YNL_CLI=$KSRC/tools/net/ynl/cli.py
SPEC=$REFNIC_REPO/uapi/refnic.yaml
HELPER=$REFNIC_REPO/selftests/kmod/privilege_nl.py
BYPASS=$REFNIC_REPO/build/cmake/tools/refnic-bypass/refnic-bypass
PARAM=/sys/module/refnic/parameters/allow_userns
TX_PARAM=/sys/module/refnic/parameters/devmem_tx
# netdev's bind-tx is 7.x's: its spec, read by the 6.12 YNL CLI.
NETDEV_SPEC_7=$("$REFNIC_REPO/scripts/kernel.sh" --get KSRC 7.3 2>/dev/null)/Documentation/netlink/specs/netdev.yaml
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
EPERM_MSG="refnic: needs CAP_NET_ADMIN in the initial user namespace (module parameter allow_userns)"
# A pair whose port A goes into the user's namespace for the bind cases.
BP_A=rua$$
BP_B=rub$$
export REFNIC_KSRC=$KSRC REFNIC_SPEC=$SPEC

ktap_print_header
[ -f "$YNL_CLI" ] || net_skip_all "no YNL CLI at $YNL_CLI (scripts/kernel-source.sh not run?)"
[ -x "$BYPASS" ] || net_skip_all "$BYPASS not built (make lib)"
command -v setpriv >/dev/null || net_skip_all "needs setpriv"
command -v unshare >/dev/null || net_skip_all "needs unshare"
net_init
[ -w "$PARAM" ] || net_bail "no writable $PARAM: a refnic.ko without allow_userns?"

# in_userns CMD...: CMD as uid 65534 in a user and network namespace of its
# own (unshare -Urn), run once a veth pair could be made there; status 99
# when it could not.
in_userns() {
	(cd / && exec "${NOBODY[@]}" unshare -Urn bash -c '
		ip link add pv0 type veth peer name pv1 >/dev/null 2>&1 || exit 99
		exec "$@"' in_userns "$@")
}

# Load veth, if a module, here: a user namespace may not be able to.
ip link add "rvp$$" type veth peer name "rvq$$" 2>/dev/null && ip link del "rvp$$"
probe=$(in_userns true 2>&1)
rc=$?
[ "$rc" -eq 0 ] ||
	net_skip_all "uid 65534 cannot create a veth pair in a user namespace of its own (unshare -Urn: status $rc${probe:+, $probe}): nothing to refuse"

ktap_set_plan 7
ORIG=$(cat "$PARAM")
NET_CLEANUP+=("echo $ORIG > $PARAM")
[ ! -w "$TX_PARAM" ] || NET_CLEANUP+=("echo $(cat "$TX_PARAM") > $TX_PARAM")
NET_CLEANUP+=("ip link del $BP_B")
echo N > "$PARAM" || net_bail "cannot write $PARAM"

# kmsg_mark TAG / logged TAG ERE: the kernel log has a line matching ERE
# since the mark.
kmsg_mark() {
	echo "refnic-selftest: userns $1" > /dev/kmsg
}
logged() {
	dmesg | sed -n "/refnic-selftest: userns $1\$/,\$p" | grep -Eq "$2" && return 0
	net_msg "kernel log since mark $1 has no line matching: $2"
	return 1
}

# A case's status: 0 pass, 1 fail, 2 skip with SKIP_WHY set.
SKIP_WHY=
case_result() { # case_result DESC FUNC
	local rc=0
	"$2" || rc=$?
	case $rc in
	0) ktap_test_pass "$1" ;;
	2)
		echo "ok $KTAP_TESTNO $1 # SKIP $SKIP_WHY"
		KTAP_TESTNO=$((KTAP_TESTNO + 1))
		KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
		;;
	*) ktap_test_fail "$1" ;;
	esac
}

# no_veth RC: true (with SKIP_WHY set) when in_userns said 99.
no_veth() {
	[ "$1" -eq 99 ] || return 1
	SKIP_WHY="uid 65534 could not create a veth pair in its namespace this time"
}

# bind_in_userns OUT: uid 65534, in a user namespace of its own where it
# made a veth pair, waits for port $BP_A of a fresh pair to be moved in
# (by us, here), brings it up and binds its queue pair 1 with refnic-bypass
# rx for a second. The tool's output goes to OUT; returns its status (99:
# no veth pair, 98: the port never came or would not go up).
bind_in_userns() {
	local out=$1 pid i rc
	ip link add "$BP_A" type refnic queues 4 peer name "$BP_B" ||
		{ net_msg "cannot create the pair $BP_A/$BP_B"; return 1; }
	(cd / && exec "${NOBODY[@]}" unshare -Urn bash -c '
		ip link add pv0 type veth peer name pv1 >/dev/null 2>&1 || exit 99
		echo veth-ok
		for ((i = 0; i < 300 * $3; i++)); do
			ip link show dev "$1" >/dev/null 2>&1 && break
			sleep 0.1
		done
		ip link set dev "$1" up || exit 98
		exec "$2" rx -i "$1" -q 1 --duration 1 --quiet' bind \
		"$BP_A" "$BYPASS" "$NET_SCALE") >"$out" 2>&1 &
	pid=$!
	# Its namespace exists once it made the veth pair.
	for ((i = 0; i < 300 * NET_SCALE; i++)); do
		grep -q veth-ok "$out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if grep -q veth-ok "$out"; then
		ip link set dev "$BP_A" netns "$pid" ||
			net_msg "cannot move $BP_A into the namespace of $pid"
	fi
	wait "$pid"
	rc=$?
	# The pair goes with the namespace; the next case makes it anew.
	for ((i = 0; i < 300 * NET_SCALE; i++)); do
		ip link show dev "$BP_B" >/dev/null 2>&1 || break
		sleep 0.1
	done
	ip link del "$BP_B" 2>/dev/null
	return "$rc"
}

# ---- allow_userns=0 ------------------------------------------------------------

link_add_refused() {
	local out raw rc
	kmsg_mark link-add
	out=$(in_userns ip link add pr0 type refnic 2>&1)
	rc=$?
	no_veth "$rc" && return 2
	net_msg "ip link add: status $rc: $out"
	raw=$(in_userns python3 "$HELPER" newlink pr0 2>&1)
	no_veth $? && return 2
	net_msg "raw RTM_NEWLINK: $raw"
	[ "$rc" -ne 0 ] && grep -qF "Error: $EPERM_MSG" <<<"$out" &&
		[ "$raw" = "{\"ok\": false, \"errno\": \"EPERM\", \"msg\": \"$EPERM_MSG\"}" ] &&
		logged link-add 'refnic: link add refused for (ip|python3)\[[0-9]+\] \(uid 65534\): no CAP_NET_ADMIN in the initial user namespace'
}
case_result "ip link add type refnic from unshare -Urn: EPERM with extack \"needs CAP_NET_ADMIN in the initial user namespace\", logged" \
	link_add_refused

dev_new_refused() {
	local out rc
	kmsg_mark dev-new
	out=$(in_userns python3 "$YNL_CLI" --spec "$SPEC" --no-schema --output-json \
		--do dev-new --json '{}' 2>&1)
	rc=$?
	no_veth "$rc" && return 2
	net_msg "dev-new: status $rc: $(tr '\n\t' '  ' <<<"$out")"
	[ "$rc" -ne 0 ] && grep -q "Netlink error: Operation not permitted" <<<"$out" &&
		grep -qF "'msg': '$EPERM_MSG'" <<<"$out" &&
		logged dev-new 'refnic: dev-new refused for python3\[[0-9]+\] \(uid 65534\)'
}
case_result "dev-new (YNL CLI) from unshare -Urn: EPERM with the same extack, logged" \
	dev_new_refused

bind_refused() {
	local rc
	kmsg_mark bind
	bind_in_userns "$NET_TMP/bind1.out"
	rc=$?
	no_veth "$rc" && return 2
	net_msg "refnic-bypass rx in the namespace: status $rc: $(tr '\n' ' ' <"$NET_TMP/bind1.out")"
	[ "$rc" -eq 1 ] &&
		grep -q "refnic-bypass: bind queue 1 of .*Operation not permitted" "$NET_TMP/bind1.out" &&
		logged bind 'refnic: bypass bind refused for refnic-bypass\[[0-9]+\] \(uid 65534\)'
}
case_result "/dev/refnic bind of a port moved into the namespace: EPERM, logged" bind_refused

# ---- allow_userns=1 ------------------------------------------------------------

echo Y > "$PARAM" || net_bail "cannot write $PARAM"

cards_allowed() {
	local out rc
	# Both requests in one namespace: two pairs, four refnic ports.
	out=$(in_userns bash -c '
		ip link add pr0 type refnic || exit 1
		python3 "$1" devnew || exit 1
		ip -o -d link show | grep -c " refnic "' _ "$HELPER" 2>&1)
	rc=$?
	no_veth "$rc" && return 2
	net_msg "ip link add, dev-new, refnic ports: status $rc: $(tr '\n' ' ' <<<"$out")"
	[ "$rc" -eq 0 ] && [ "$(tail -n 1 <<<"$out")" = 4 ]
}
case_result "allow_userns=1 (at run time): ip link add and dev-new plug cards in from unshare -Urn" \
	cards_allowed

bind_allowed() {
	local rc
	bind_in_userns "$NET_TMP/bind2.out"
	rc=$?
	no_veth "$rc" && return 2
	net_msg "refnic-bypass rx in the namespace: status $rc: $(tr '\n' ' ' <"$NET_TMP/bind2.out")"
	[ "$rc" -eq 0 ]
}
case_result "allow_userns=1: the same /dev/refnic bind succeeds" bind_allowed

# 7.x: a card plugged in from the user namespace offers no netmem TX, even
# with devmem_tx=1: its owner could delete it under a TX binding (the 7.3
# core's use-after-free, docs/devmem.md). bind-tx checks that before the
# dmabuf fd, so fd 0 is enough to ask.
tx_refused() {
	local out rc
	if [ "$REFNIC_SERIES" = 6.12 ]; then
		SKIP_WHY="6.12 has no devmem TX"
		return 2
	fi
	[ -r "$NETDEV_SPEC_7" ] || { net_msg "no netdev spec at $NETDEV_SPEC_7"; return 1; }
	echo 1 > "$TX_PARAM" || return 1
	out=$(in_userns bash -c '
		ip link add pt0 type refnic peer name pt1 && ip link set pt0 up || exit 1
		ifindex=$(ip -o link show pt0 | cut -d: -f1)
		python3 "$1" --spec "$2" --do bind-tx --json "{\"ifindex\": $ifindex, \"fd\": 0}"' \
		_ "$YNL_CLI" "$NETDEV_SPEC_7" 2>&1)
	rc=$?
	echo 0 > "$TX_PARAM"
	no_veth "$rc" && return 2
	net_msg "bind-tx in the namespace: $(tr '\n' ' ' <<<"$out")"
	grep -q "Driver does not support netmem TX" <<<"$out"
}
case_result "allow_userns=1, devmem_tx=1: a card plugged in from unshare -Urn offers no devmem TX" \
	tx_refused

# ---- allow_userns=0 again -------------------------------------------------------

echo N > "$PARAM" || net_bail "cannot write $PARAM"

refused_again() {
	local raw
	raw=$(in_userns python3 "$HELPER" newlink pr0 2>&1)
	no_veth $? && return 2
	net_msg "raw RTM_NEWLINK: $raw"
	[ "$raw" = "{\"ok\": false, \"errno\": \"EPERM\", \"msg\": \"$EPERM_MSG\"}" ]
}
case_result "allow_userns=0 again: refused again (EPERM)" refused_again

ktap_finished
