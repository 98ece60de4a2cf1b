#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The RX refill under real page allocation failure: the kernel's
# fail_page_alloc fault injection (CONFIG_FAIL_PAGE_ALLOC and its
# stacktrace filter, on refnic's debug kernel; Debian's kernels lack them
# and the test skips) fails every atomic page allocation made from the
# driver's refill, refnic_rx_post_max() (require-start and require-end are
# its address range, from the module's symbol table and section address),
# and nothing else's: not the skb heads,
# not the device model's, not the rest of the VM's. Process-context refills
# (queue bring-up, GFP_KERNEL) are spared (ignore-gfp-wait).
#
# A pair with 2 queue pairs and rings of 64; B's RSS uses queue 0 alone and
# a flow rule sends UDP to port $PORT to queue $Q, where a socket with a
# large receive buffer holds every datagram without reading it, so that the
# payload pages stay out of the page pool and its refill has to go to the
# page allocator. A streams datagrams to it. Asserted:
#  - fail_page_alloc injects failures (its times counter falls), and the
#    refill comes up short (rx${Q}_alloc_fail) and backs off
#    (rx${Q}_alloc_backoffs);
#  - NAPI does not spin: over 10 backoffs it polls no more than once per
#    backoff and per interrupt, with no full-budget poll, and the stream
#    does not reach the stack;
#  - disarmed, the stream reaches the stack again and the backoffs stop;
#  - no TX timeout, queue reset, stall or lost interrupt on either port;
#  - the holder closed and the pair deleted, no page pool is left in either
#    namespace: nothing leaked (and the harness's kmemleak scan agrees).
set -u
. "$(dirname "$0")/lib_net.sh"

Q=1
PORT=9000
FPA=/sys/kernel/debug/fail_page_alloc
FPA_TIMES=1000000
REFILL_FN=refnic_rx_post_max

ktap_print_header
net_init
[ -d "$FPA" ] ||
	net_skip_all "no $FPA: the kernel lacks CONFIG_FAIL_PAGE_ALLOC (Debian's kernels do; refnic's debug kernel has it: make check-debug)"
[ -e "$FPA/require-start" ] ||
	net_skip_all "no $FPA/require-start: the kernel lacks CONFIG_FAULT_INJECTION_STACKTRACE_FILTER"
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
ktap_set_plan 6
net_setup queues 2 rx-ring 64
net_quiet_v6
net_static_neigh

ip netns exec "$NS_B" ethtool -X "$DEV_B" equal 1 || net_bail "ethtool -X $DEV_B equal 1"
ip netns exec "$NS_B" ethtool -N "$DEV_B" flow-type udp4 dst-port "$PORT" action "$Q" >/dev/null ||
	net_bail "ethtool -N $DEV_B dst-port $PORT action $Q"

# The refill function's address range: its section, offset and size in the
# module's own symbol table, where the kernel loaded that section
# (/sys/module/refnic/sections/). Not /proc/kallsyms: reading all of it
# took most of an hour on the 6.12 debug kernel under TCG.
[ "$(modinfo -F srcversion "$REFNIC_KO" 2>/dev/null)" = "$(cat /sys/module/refnic/srcversion)" ] ||
	net_bail "the loaded refnic is not $REFNIC_KO (srcversion differs)"
read -r REFILL_SECT REFILL_OFF REFILL_SIZE < <(objdump -t "$REFNIC_KO" |
	awk -v f="$REFILL_FN" '$NF == f && $(NF - 3) ~ /F/ { print $(NF - 2), $1, $(NF - 1); exit }')
[ -n "${REFILL_SIZE:-}" ] ||
	net_bail "no function $REFILL_FN in $REFNIC_KO's symbol table (inlined?)"
REFILL_BASE=$(cat "/sys/module/refnic/sections/$REFILL_SECT") ||
	net_bail "no /sys/module/refnic/sections/$REFILL_SECT"
REFILL_START=$(printf '0x%x' $((REFILL_BASE + 0x$REFILL_OFF)))
REFILL_END=$(printf '0x%x' $((REFILL_BASE + 0x$REFILL_OFF + 0x$REFILL_SIZE)))
[ "$REFILL_BASE" != 0x0000000000000000 ] ||
	net_bail "/sys/module/refnic/sections/$REFILL_SECT reads 0 (addresses hidden?)"

estat_b() { net_estat "$NS_B" "$DEV_B" "$1"; }

above() { [ "$("${@:2}")" -gt "$1" ]; }	# above N CMD...: CMD prints more than N

# The fault attributes, restored by the cleanup, injection off first.
FPA_FILES=(interval times space verbose task-filter ignore-gfp-wait ignore-gfp-highmem min-order
	stacktrace-depth require-start require-end reject-start reject-end)
declare -A FPA_SAVED=()
for f in probability "${FPA_FILES[@]}"; do
	FPA_SAVED[$f]=$(cat "$FPA/$f") || net_bail "cannot read $FPA/$f"
done
fpa_restore() {
	local f
	echo 0 >"$FPA/probability"
	for f in "${FPA_FILES[@]}" probability; do
		echo "${FPA_SAVED[$f]}" >"$FPA/$f"
	done
}
NET_CLEANUP+=(fpa_restore)

# The holder: binds B:$PORT, keeps every datagram queued, unread.
cat >"$NET_TMP/holder.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE
s.bind((sys.argv[1], int(sys.argv[2])))
open(sys.argv[3], 'w').close()
time.sleep(3600)
EOF
net_bg holder net_ns "$NS_B" python3 "$NET_TMP/holder.py" "$V4_B" "$PORT" "$NET_TMP/holder.ready"
net_wait_file "$NET_TMP/holder.ready" 30 || net_bail "no holder on $PORT"

steered() {
	local p0 p1
	p0=$(estat_b "rx${Q}_packets")
	net_tool "$NS_A" udp-blast --dst "$V4_B" --dport "$PORT" --count 10 --size 1000 \
		--burst 1 --gap 0.01 >/dev/null || return 1
	wait_until 10 above $((p0 + 9)) estat_b "rx${Q}_packets"
	p1=$(estat_b "rx${Q}_packets")
	net_msg "rx${Q}_packets $p0 -> $p1; $REFILL_FN at $REFILL_START-$REFILL_END"
	[ $((p1 - p0)) = 10 ]
}
ktap_test_result "UDP to $PORT lands on B's queue $Q" steered

# snap: polls irqs full_polls alloc_backoffs alloc_fail packets, from one
# ethtool -S.
snap() {
	ip netns exec "$NS_B" ethtool -S "$DEV_B" | awk -v q="$Q" '
		{ n = $1; sub(/:$/, "", n); v[n] = $2 }
		END {
			print v["q" q "_polls"], v["q" q "_irqs"], v["q" q "_full_polls"],
			      v["rx" q "_alloc_backoffs"], v["rx" q "_alloc_fail"],
			      v["rx" q "_packets"]
		}'
}
injected() { echo $((FPA_TIMES - $(cat "$FPA/times"))); }

arm() {
	local f
	echo 0 >"$FPA/probability" &&
		echo N >"$FPA/task-filter" && echo 1 >"$FPA/interval" &&
		echo "$FPA_TIMES" >"$FPA/times" && echo 0 >"$FPA/space" &&
		echo 0 >"$FPA/verbose" && echo 0 >"$FPA/min-order" &&
		echo Y >"$FPA/ignore-gfp-wait" && echo Y >"$FPA/ignore-gfp-highmem" &&
		echo 32 >"$FPA/stacktrace-depth" && echo 0 >"$FPA/reject-start" &&
		echo 0 >"$FPA/reject-end" && echo "$REFILL_START" >"$FPA/require-start" &&
		echo "$REFILL_END" >"$FPA/require-end" || return 1
	echo 100 >"$FPA/probability" || return 1
	for f in probability interval times min-order require-start require-end; do
		net_msg "fail_page_alloc/$f: $(cat "$FPA/$f")"
	done
	[ "$(cat "$FPA/probability")" = 100 ]
}

B0=(0 0 0 0 0 0)
B1=(0 0 0 0 0 0)
starved() {
	local polls irqs full backoffs fail pkts
	arm || return 1
	net_bg stream net_tool "$NS_A" udp-blast --dst "$V4_B" --dport "$PORT" --count 1000000 \
		--size 1000 --burst 1 --gap 0.01
	# The pool's cached pages go first; then every refill fails.
	wait_until 120 above 7 estat_b "rx${Q}_alloc_backoffs" ||
		{ net_msg "no backoff: $(snap), $(injected) failures injected"; return 1; }
	read -r polls irqs full backoffs fail pkts < <(snap)
	B0=("$polls" "$irqs" "$full" "$backoffs" "$fail" "$pkts")
	wait_until 60 above $((backoffs + 9)) estat_b "rx${Q}_alloc_backoffs" ||
		{ net_msg "backoffs stopped: $(snap)"; return 1; }
	read -r polls irqs full backoffs fail pkts < <(snap)
	B1=("$polls" "$irqs" "$full" "$backoffs" "$fail" "$pkts")
	net_msg "polls irqs full_polls backoffs alloc_fail packets: ${B0[*]} -> ${B1[*]}; $(injected) page allocation failures injected"
	[ "$(injected)" -gt 0 ] && [ "${B1[4]}" -gt "${B0[4]}" ]
}
ktap_test_result "page allocations fail in the refill: it comes up short and backs off" starved

no_spin() {
	local polls=$((B1[0] - B0[0])) irqs=$((B1[1] - B0[1])) full=$((B1[2] - B0[2]))
	local backoffs=$((B1[3] - B0[3]))
	net_msg "over $backoffs backoffs: $polls polls, $irqs interrupts, $full full-budget polls; packets ${B0[5]} -> ${B1[5]}"
	[ "$backoffs" -ge 10 ] && [ "$polls" -le $((backoffs + irqs + 2)) ] && [ "$full" = 0 ] &&
		[ "${B1[5]}" = "${B0[5]}" ]
}
ktap_test_result "NAPI does not spin: a poll per backoff or interrupt, none with a full budget" no_spin

resumed() {
	local p0 k0 k1
	fpa_restore
	p0=$(estat_b "rx${Q}_packets")
	wait_until 30 above $((p0 + 20)) estat_b "rx${Q}_packets" || { net_msg "still starved: $(snap)"; return 1; }
	k0=$(estat_b "rx${Q}_alloc_backoffs")
	wait_until 30 above $((p0 + 60)) estat_b "rx${Q}_packets" || return 1
	k1=$(estat_b "rx${Q}_alloc_backoffs")
	net_msg "disarmed: rx${Q}_packets $p0 -> $(estat_b "rx${Q}_packets"), backoffs $k0 -> $k1"
	[ "$k1" = "$k0" ]
}
ktap_test_result "disarmed: the stream reaches the stack again, the backoffs stop" resumed
net_bg_kill stream

no_alarm() {
	net_msg "$DEV_B: rx_stalls $(estat_b rx_stalls), lost_irqs $(estat_b lost_irqs)"
	net_healthy && [ "$(estat_b rx_stalls)" = 0 ] && [ "$(estat_b lost_irqs)" = 0 ]
}
ktap_test_result "no TX timeout, queue reset, stall or lost interrupt" no_alarm

deleted() {
	net_bg_kill holder
	ip -n "$NS_A" link del "$DEV_A" || return 1
	net_pools_gone "$NS_A" && net_pools_gone "$NS_B"
}
ktap_test_result "holder closed, pair deleted: no page pool left in either namespace" deleted
ktap_finished
