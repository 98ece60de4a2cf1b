#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# How many refnic cards there may be, and that the memory refnic allocates
# for a user is charged to the user's memory cgroup, bounded, and refused
# with ENOMEM at the cgroup's limit (issue 14, item 2; kmod/refnic_policy.c,
# kmod/model/bus.c, kmod/model/link.c). refnic is reloaded with
# max_cards=2, so that no card of anyone else counts, and left as found.
#  - max_cards=2: two pairs plug in (ip link add, dev-new); a third gets
#    ENOSPC with the extack "card limit reached: 2 cards (module parameter
#    max_cards)" through `ip link add`, raw rtnetlink and dev-new, and the
#    refusal is logged; deleting a pair frees its slot; max_cards=3 written
#    at run time admits one more card, and no fourth.
#  - Memory cgroups, with a request process (privilege_nl.py serve) warmed
#    up outside and then moved into a fresh cgroup, so that the cgroup pays
#    for the requests only:
#    - a pair plugged in from the cgroup is charged to it, at least 2 MiB
#      (the model's two ports and their TX engine buffers, 2.2 MiB), and
#      deleting it gives that back;
#    - with memory.max 512 KiB, plugging a pair in through rtnetlink and
#      dev-new fails with ENOMEM and "not enough memory to plug a card in",
#      leaves no refnic port behind, and the OOM killer is not involved
#      (memory.events oom and oom_kill stay 0);
#    - with memory.max 8 MiB, link-set latency 1 s (a 16 MiB delay line on
#      an unlimited link) fails with ENOMEM and leaves the latency 0;
#      latency 1 ms (a 2.7 MiB line) works and is charged to the cgroup,
#      and latency 0 gives it back.
# The memory cgroup cases skip, saying why, without cgroup v2's memory
# controller.
set -u
# shellcheck source=../net/lib_net.sh
. "$(dirname "$0")/../net/lib_net.sh"

KSRC=$REFNIC_REPO/build/linux-source
YNL_CLI=$KSRC/tools/net/ynl/cli.py
SPEC=$REFNIC_REPO/uapi/refnic.yaml
HELPER=$REFNIC_REPO/selftests/kmod/privilege_nl.py
PARAMS=/sys/module/refnic/parameters
CGROOT=/sys/fs/cgroup
CARD_MSG="refnic: card limit reached: 2 cards (module parameter max_cards)"
MiB=$((1 << 20))
export REFNIC_KSRC=$KSRC REFNIC_SPEC=$SPEC

ktap_print_header
[ -f "$YNL_CLI" ] || net_skip_all "no YNL CLI at $YNL_CLI (scripts/kernel-source.sh not run?)"
net_init
ktap_set_plan 7

# Reload with max_cards=2; back as found at exit (unloaded, or loaded with
# the defaults).
# shellcheck disable=SC2034 # read by the cleanup below (eval)
WAS_LOADED=$((1 - NET_LOADED))
refnic_unload_wait || net_bail "cannot unload refnic to load it with max_cards=2"
out=$(insmod "$REFNIC_KO" max_cards=2 2>&1) || net_bail "insmod $REFNIC_KO max_cards=2: $out"
NET_CLEANUP+=('[ "$WAS_LOADED" = 1 ] && refnic_unload_wait && insmod "$REFNIC_KO"')
NET_CLEANUP+=("ip link del lc1$$; ip link del lc3$$; ip link del lc4$$; ip link del lm$$; ip link del ll$$")

kmsg_mark() {
	echo "refnic-selftest: limits $1" > /dev/kmsg
}
logged() { # logged TAG ERE: the kernel log has a line matching ERE since the mark
	dmesg | sed -n "/refnic-selftest: limits $1\$/,\$p" | grep -Eq "$2" && return 0
	net_msg "kernel log since mark $1 has no line matching: $2"
	return 1
}

ynl_dev_new() {
	python3 "$YNL_CLI" --spec "$SPEC" --no-schema --output-json --do dev-new --json '{}' 2>&1
}

# jfield JSON KEY: one field of a privilege_nl.py reply.
jfield() {
	python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get(sys.argv[2]))' "$1" "$2"
}

# ---- max_cards ------------------------------------------------------------------

DEVNEW_IF=
two_cards() {
	local r
	[ "$(cat "$PARAMS/max_cards")" = 2 ] || { net_msg "max_cards is $(cat "$PARAMS/max_cards")"; return 1; }
	ip link add "lc1$$" type refnic || return 1
	r=$(python3 "$HELPER" devnew) || { net_msg "dev-new: $r"; return 1; }
	DEVNEW_IF=$(jfield "$r" ifindex)
}
ktap_test_result "max_cards=2 given to insmod: two pairs plug in (ip link add, dev-new)" two_cards

third_refused() {
	local out rc raw ynl
	kmsg_mark third
	out=$(ip link add "lc3$$" type refnic 2>&1)
	rc=$?
	raw=$(python3 "$HELPER" newlink "lc3$$")
	ynl=$(ynl_dev_new)
	net_msg "ip link add: status $rc: $out"
	net_msg "raw RTM_NEWLINK: $raw"
	net_msg "dev-new: $(tr '\n\t' '  ' <<<"$ynl")"
	[ "$rc" -ne 0 ] && grep -qF "Error: $CARD_MSG" <<<"$out" &&
		[ "$raw" = "{\"ok\": false, \"errno\": \"ENOSPC\", \"msg\": \"$CARD_MSG\"}" ] &&
		grep -q "Netlink error: No space left on device" <<<"$ynl" &&
		grep -qF "'msg': '$CARD_MSG'" <<<"$ynl" &&
		logged third 'refnic: plugging a card in refused for ip\[[0-9]+\] \(uid 0\): 2 cards plugged in, the most module parameter max_cards=2 allows'
}
ktap_test_result "a third card: ENOSPC and an extack naming max_cards (ip link add, rtnetlink, dev-new), logged" \
	third_refused

slot_freed() {
	local i
	ip link del "lc1$$" || return 1
	# The card goes once both ports are destroyed, normally before
	# ip link del returns.
	for ((i = 0; i < 100 * NET_SCALE; i++)); do
		ip link add "lc3$$" type refnic 2>/dev/null && return 0
		sleep 0.1
	done
	net_msg "ip link add still refused: $(ip link add "lc3$$" type refnic 2>&1)"
	return 1
}
ktap_test_result "deleting a pair frees its slot: the third card plugs in then" slot_freed

raised() {
	local raw
	echo 3 > "$PARAMS/max_cards" || return 1
	ip link add "lc4$$" type refnic || return 1
	raw=$(python3 "$HELPER" newlink "lc5$$")
	net_msg "fourth card: $raw"
	[ "$(jfield "$raw" errno)" = ENOSPC ]
}
ktap_test_result "max_cards=3 written at run time: one more card, not two" raised

python3 "$HELPER" devdel "$DEVNEW_IF" >/dev/null
ip link del "lc3$$"
ip link del "lc4$$"
echo 64 > "$PARAMS/max_cards" || net_bail "cannot write $PARAMS/max_cards"

# ---- memory cgroups ---------------------------------------------------------------

MEMCG_WHY=
if ! grep -qw memory "$CGROOT/cgroup.controllers" 2>/dev/null; then
	MEMCG_WHY="no cgroup v2 memory controller at $CGROOT"
elif ! grep -qw memory "$CGROOT/cgroup.subtree_control" &&
	! echo +memory > "$CGROOT/cgroup.subtree_control"; then
	MEMCG_WHY="cannot enable the memory controller in $CGROOT/cgroup.subtree_control"
fi

memcg_skip() { # memcg_skip DESC
	echo "ok $KTAP_TESTNO $1 # SKIP $MEMCG_WHY"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

if [ -n "$MEMCG_WHY" ]; then
	memcg_skip "a pair plugged in from a memory cgroup is charged to it"
	memcg_skip "memory.max 512 KiB: plugging a pair in fails with ENOMEM"
	memcg_skip "memory.max 8 MiB: link-set latency 1 s fails with ENOMEM"
	ktap_finished
fi

# The request process, warmed up in our cgroup (the family resolved, one
# pair made and deleted), then moved into each test cgroup in turn.
HOME_CG=$CGROOT$(sed -n 's/^0:://p' /proc/self/cgroup)
CGS=()
NET_CLEANUP+=('for cg in "${CGS[@]}"; do rmdir "$cg"; done')
coproc REQ { exec python3 "$HELPER" serve; }
# First (cleanup runs last first): the cgroups can go once it has.
NET_CLEANUP+=("kill $REQ_PID; wait $REQ_PID")

req() { # req WORDS...: one request, its JSON reply on stdout
	local reply
	echo "$*" >&"${REQ[1]}" || return 1
	read -r -t $((120 * NET_SCALE)) reply <&"${REQ[0]}" || { echo '{"ok": false, "errno": "no reply"}'; return 1; }
	echo "$reply"
}

read -r -t $((120 * NET_SCALE)) line <&"${REQ[0]}"
[ "${line:-}" = ready ] || net_bail "privilege_nl.py serve did not start: ${line:-nothing}"
r=$(req devnew) && [ "$(jfield "$r" ok)" = True ] || net_bail "warm-up dev-new: $r"
r=$(req devdel "$(jfield "$r" ifindex)") || net_bail "warm-up dev-del: $r"

cg_enter() { # cg_enter NAME MAX: a fresh cgroup with memory.max MAX; the request process in it
	CG=$CGROOT/refnic-limits-$$-$1
	mkdir "$CG" && CGS+=("$CG") && echo "$2" > "$CG/memory.max" &&
		echo "$REQ_PID" > "$CG/cgroup.procs"
}
cg_leave() {
	echo "$REQ_PID" > "$HOME_CG/cgroup.procs"
}
# cg_current: the cgroup's kernel memory (memory.stat "kernel": slab,
# vmalloc, percpu, stacks, ...), what refnic charges; the request process's
# own pages are not refnic's.
cg_current() {
	awk '$1 == "kernel" { print $2 }' "$CG/memory.stat"
}
no_oom() { # the OOM killer was not involved in $CG
	local oom kill
	oom=$(awk '$1 == "oom" { print $2 }' "$CG/memory.events")
	kill=$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")
	[ "$oom" = 0 ] && [ "$kill" = 0 ] && kill -0 "$REQ_PID" && return 0
	net_msg "memory.events: oom $oom, oom_kill $kill; request process alive: $(kill -0 "$REQ_PID" 2>/dev/null && echo yes || echo no)"
	return 1
}
# wait_current_below BYTES: kernel memory falls to BYTES (uncharging may
# lag a little).
wait_current_below() {
	local i
	for ((i = 0; i < 100 * NET_SCALE; i++)); do
		[ "$(cg_current)" -le "$1" ] && return 0
		sleep 0.1
	done
	net_msg "kernel memory $(cg_current), want at most $1; memory.stat:" \
		"$(awk '$2 > 0 { printf "%s %s, ", $1, $2 }' "$CG/memory.stat")"
	return 1
}
refnic_ports() {
	ip -o -d link show | grep -c " refnic "
}

charged() {
	local before after r ifindex ok=0
	cg_enter charged max || return 1
	before=$(cg_current)
	r=$(req devnew)
	after=$(cg_current)
	net_msg "dev-new in the cgroup: $r; kernel memory $before -> $after"
	ifindex=$(jfield "$r" ifindex)
	[ "$(jfield "$r" ok)" = True ] && [ $((after - before)) -ge $((2 * MiB)) ] || ok=1
	r=$(req devdel "$ifindex")
	net_msg "dev-del: $r"
	[ "$(jfield "$r" ok)" = True ] && wait_current_below $((before + MiB)) || ok=1
	cg_leave
	return "$ok"
}
ktap_test_result "a pair plugged in from a memory cgroup is charged to it (>= 2 MiB), and given back on dev-del" \
	charged

too_small() {
	local ports r1 r2 ok=0
	ports=$(refnic_ports)
	cg_enter small 512K || return 1
	r1=$(req newlink "lm$$")
	r2=$(req devnew)
	net_msg "memory.max 512K: rtnetlink: $r1; dev-new: $r2"
	[ "$r1" = '{"ok": false, "errno": "ENOMEM", "msg": "refnic: not enough memory to plug a card in"}' ] &&
		[ "$r2" = "$r1" ] && no_oom || ok=1
	cg_leave
	[ "$(refnic_ports)" = "$ports" ] || { net_msg "refnic ports: $ports before, $(refnic_ports) after"; ok=1; }
	return "$ok"
}
ktap_test_result "memory.max 512 KiB: plugging a pair in fails with ENOMEM (rtnetlink, dev-new), nothing left, no OOM kill" \
	too_small

latency() {
	local ifindex before r1 r2 r3 lat mid ok=0
	ip link add "ll$$" type refnic || return 1
	ifindex=$(cat "/sys/class/net/ll$$/ifindex")
	cg_enter latency 8M || return 1
	before=$(cg_current)
	r1=$(req linkset "$ifindex" 1000000)
	lat=$(jfield "$(python3 "$HELPER" devget "$ifindex")" latency)
	r2=$(req linkset "$ifindex" 1000)
	mid=$(cg_current)
	r3=$(req linkset "$ifindex" 0)
	net_msg "memory.max 8M: latency 1 s: $r1 (latency now $lat); 1 ms: $r2 (kernel memory $before -> $mid); 0: $r3"
	[ "$r1" = '{"ok": false, "errno": "ENOMEM", "msg": "not enough memory for the delay line of this latency and rate"}' ] &&
		[ "$lat" = 0 ] && [ "$(jfield "$r2" ok)" = True ] &&
		[ $((mid - before)) -ge $((2 * MiB)) ] && [ "$(jfield "$r3" ok)" = True ] &&
		wait_current_below $((before + MiB)) && no_oom || ok=1
	cg_leave
	ip link del "ll$$"
	return "$ok"
}
ktap_test_result "memory.max 8 MiB: latency 1 s (16 MiB delay line) ENOMEM, 1 ms (2.7 MiB) charged, 0 given back" \
	latency

ktap_finished
