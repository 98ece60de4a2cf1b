#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# refnic-bypass (tools/refnic-bypass, on librefnic's refnic::bypass) against
# the live module, over a refnic pair with 4 queue pairs a side:
#  - tx on A's queue 1 -> rx --verify on B's queue 2 (an ntuple rule takes
#    UDP port 9000 there): every frame arrives, every payload intact, and
#    the JSON summary agrees with the kernel's session counters, and the
#    refnic_bypass_poll tracepoint with both sessions' counters;
#  - the same with header split on the receiving queue;
#  - echo on B's queue 2 returns what A's tx sends, to A's rx --verify on
#    its queue 3 (port 9999 steered there): bypass both ways;
#  - a bypass sender reaches a kernel UDP socket, and a kernel sender
#    reaches a bypass receiver, with the example programs too: the C++ one,
#    and the C one built with pkg-config against an installed prefix;
#  - errors: a busy queue, a missing device, bad arguments (exit 2).
set -u
. "$(dirname "$0")/../net/lib_net.sh"

BYPASS=$REFNIC_REPO/build/cmake/tools/refnic-bypass/refnic-bypass
EXAMPLE=$REFNIC_REPO/build/cmake/lib/examples/refnic_example_bypass_rx
EXAMPLE_C=$REFNIC_REPO/build/cmake/lib/tests/install-check/examples/bypass_rx_ring

ktap_print_header
[ -x "$BYPASS" ] || net_skip_all "$BYPASS not built (make lib)"
net_init
ktap_set_plan 10
net_setup queues 4
net_static_neigh
MAC_B=$(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/address")
ip netns exec "$NS_B" ethtool -N "$DEV_B" flow-type udp4 dst-port 9000 action 2 >/dev/null ||
	net_bail "ethtool -N on $DEV_B"
ip netns exec "$NS_A" ethtool -N "$DEV_A" flow-type udp4 dst-port 9999 action 3 >/dev/null ||
	net_bail "ethtool -N on $DEV_A"

# Fewer frames than the receiver's rings hold (1024 posted buffers): the
# bypass sender outruns any receiver under TCG, and a frame with no buffer
# is dropped by the device, as it would be on a real NIC.
N=1000
T=$NET_TMP

tx_a() { # tx_a COUNT [ARGS...]: A's queue 1 sends COUNT frames to B:9000
	local n=$1
	shift
	ip netns exec "$NS_A" "$BYPASS" tx -i "$DEV_A" -q 1 --dst-mac "$MAC_B" \
		--src-ip "$V4_A" --dst-ip "$V4_B" --dst-port 9000 --count "$n" \
		--batch 32 --quiet "$@"
}

# rx_b OUT [ARGS...]: B's queue 2 receives RX_N frames (N unless set; 30 s at
# most), JSON to OUT.
rx_b() {
	local out=$1
	shift
	ip netns exec "$NS_B" "$BYPASS" rx -i "$DEV_B" -q 2 --count "${RX_N:-$N}" \
		--duration $((30 * NET_SCALE)) --verify --quiet --json "$@" \
		>"$out" 2>"$out.err"
}

# ready FILE MODE DEV Q: the session whose stderr is FILE says it is bound,
# its buffers on the fill ring (the binding line); else it failed to start.
ready() {
	wait_until 30 grep -q "^refnic-bypass: $2 on $3 queue $4 " "$1" ||
		{ net_msg "no binding line in $1: $(cat "$1")"; return 1; }
}

rx_ok() { # rx_ok JSON [COUNT]: COUNT (N) good frames, none bad, kernel agrees
	local f=$1 n=${2:-$N}
	[ "$(jget "$f" "d['packets']")" = "$n" ] && [ "$(jget "$f" "d['good']")" = "$n" ] &&
		[ "$(jget "$f" "d['bad']")" = 0 ] &&
		[ "$(jget "$f" "d['session']['rx_frames']")" = "$n" ] &&
		[ "$(jget "$f" "d['session']['bad_addr'] + d['session']['dup_buf'] + d['session']['bad_index']")" = 0 ] ||
		{ net_msg "$(cat "$f" "$f.err")"; return 1; }
}

# 1: bypass -> bypass, intact; refnic_bypass_poll counted meanwhile.
TRACED=0
if net_trace_init &&
	net_hist_on refnic_bypass_poll "hist:keys=dev,queue:vals=hitcount,tx_posted,rx_done"; then
	TRACED=1
fi
rx_b "$T/rx1.json" &
rx=$!
ready "$T/rx1.json.err" rx "$DEV_B" 2
tx_a "$N" --json >"$T/tx1.json" 2>"$T/tx1.err"
wait $rx
ktap_test_result "tx on A's queue 1 -> rx --verify on B's queue 2: $N frames intact" rx_ok "$T/rx1.json"
ktap_test_result "tx's JSON: $N sent and completed, the kernel counted them" \
	[ "$(jget "$T/tx1.json" "d['packets']")" = "$N" -a \
	"$(jget "$T/tx1.json" "d['session']['tx_frames']")" = "$N" ]

# Every frame B's session took and A's sent went through a traced poll
# (both sessions ended, so each poll's event fired). A session counts a
# poll as it starts and the event fires as it ends: the counters, read
# just before the session ends, may be one poll either side of the trace.
traced_polls() {
	local f=$1 dev=$2 q=$3 kind=$4 polls hits moved
	polls=$(jget "$f" "d['session']['polls']")
	hits=$(net_hist_sum refnic_bypass_poll hitcount "dev=$dev" "queue=$q")
	moved=$(net_hist_sum refnic_bypass_poll "$kind" "dev=$dev" "queue=$q")
	net_msg "$dev queue $q: session polls $polls, traced $hits, $kind $moved"
	[ "$moved" = "$N" ] && [ "$hits" -ge $((polls - 1)) ] && [ "$hits" -le $((polls + 1)) ]
}
if [ "$TRACED" = 1 ]; then
	ktap_test_result "refnic_bypass_poll: B's rx_done and A's tx_posted add up to $N, polls match the sessions'" \
		eval 'traced_polls "$T/rx1.json" "$DEV_B" 2 rx_done &&
			traced_polls "$T/tx1.json" "$DEV_A" 1 tx_posted'
else
	ktap_test_skip "refnic_bypass_poll: no tracefs instance with hist triggers"
fi

# 2: header split on the receiver.
rx_b "$T/rx2.json" --hdr-split &
rx=$!
ready "$T/rx2.json.err" rx "$DEV_B" 2
tx_a "$N"
wait $rx
ktap_test_result "the same with header split: headers in slots, payload intact" rx_ok "$T/rx2.json"

# 3: echo on B, A receives its own frames back on queue 3. Fewer frames
# than a ring holds, so that a slow echo under TCG drops none.
NE=800
ip netns exec "$NS_B" "$BYPASS" echo -i "$DEV_B" -q 2 --count "$NE" \
	--duration $((30 * NET_SCALE)) --quiet --json >"$T/echo.json" 2>"$T/echo.err" &
echo_pid=$!
ip netns exec "$NS_A" "$BYPASS" rx -i "$DEV_A" -q 3 --count "$NE" \
	--duration $((30 * NET_SCALE)) --verify --quiet --json >"$T/back.json" 2>"$T/back.err" &
back=$!
ready "$T/echo.err" echo "$DEV_B" 2
ready "$T/back.err" rx "$DEV_A" 3
ip netns exec "$NS_A" "$BYPASS" tx -i "$DEV_A" -q 1 --dst-mac "$MAC_B" \
	--src-ip "$V4_A" --dst-ip "$V4_B" --src-port 9999 --dst-port 9000 \
	--count "$NE" --batch 32 --quiet
wait $back
wait $echo_pid
echo_ok() {
	[ "$(jget "$T/back.json" "d['good']")" = "$NE" ] &&
		[ "$(jget "$T/back.json" "d['bad']")" = 0 ] ||
		{ net_msg "echo: $(cat "$T/echo.json" "$T/echo.err"); back: $(cat "$T/back.json" "$T/back.err")"; return 1; }
}
ktap_test_result "echo on B returns every frame to A's bypass rx, intact" echo_ok

# 4: --rate paces the generator: four times what the receiver's rings hold
# arrives whole at 2,000 frames a second, and the sender took the 2 s that
# rate needs.
NR=4000
RX_N=$NR rx_b "$T/rx3.json" &
rx=$!
ready "$T/rx3.json.err" rx "$DEV_B" 2
tx_a "$NR" --rate 2000 --json >"$T/tx3.json" 2>"$T/tx3.err"
wait $rx
rate_ok() {
	rx_ok "$T/rx3.json" "$NR" &&
		[ "$(jget "$T/tx3.json" "d['packets']")" = "$NR" ] &&
		[ "$(jget "$T/tx3.json" "d['elapsed_ns'] >= 1.95e9")" = True ] ||
		{ net_msg "tx: $(cat "$T/tx3.json" "$T/tx3.err")"; return 1; }
}
ktap_test_result "tx --rate 2000: $NR frames (4 rings' worth) arrive intact, sent over >= 2 s" rate_ok

# 5: bypass sender -> kernel socket (B's queue 2 is the stack's again).
ip netns exec "$NS_B" python3 - "$V4_B" "$T/sock.ready" >"$T/sock.out" 2>&1 <<'PYEOF' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE: no drops
s.bind((sys.argv[1], 9000))
open(sys.argv[2], 'w').close()  # bound: the sender may start
s.settimeout(20)
n = 0
try:
    while n < 500:
        d = s.recv(4096)
        seq = int.from_bytes(d[:8], 'big')
        if all(d[8 + i] == (seq + i) & 0xff for i in range(len(d) - 8)):
            n += 1
except socket.timeout:
    pass
print(n)
PYEOF
sock=$!
wait_until 30 test -e "$T/sock.ready" || net_msg "the UDP socket never bound: $(cat "$T/sock.out")"
tx_a 500
wait $sock
sock_ok() {
	[ "$(cat "$T/sock.out")" = 500 ] || { net_msg "the socket got: $(cat "$T/sock.out")"; return 1; }
}
ktap_test_result "bypass tx -> a kernel UDP socket: 500 datagrams intact" sock_ok

# 6: kernel sender -> bypass receiver, through the example programs: the
# C++ one from the build tree, and the C one (refnic/bypass.h alone) that
# the host test install.consumer built with pkg-config against an installed
# prefix (make check runs it before the VM).
example_rx() { # example_rx PROGRAM NAME: it receives 1200 datagrams' worth
	local prog=$1 name=$2 ex
	rm -f "$T/$name.out" "$T/$name.err"
	ip netns exec "$NS_B" timeout $((60 * NET_SCALE)) "$prog" "$DEV_B" 2 \
		>"$T/$name.out" 2>"$T/$name.err" &
	ex=$!
	wait_until 30 grep -q "receiving on $DEV_B queue 2" "$T/$name.err" ||
		{ net_msg "$name never said it was receiving: $(cat "$T/$name.err")"; kill $ex; return 1; }
	ip netns exec "$NS_A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(1200):
    s.sendto(bytes(100), (sys.argv[1], 9000))
' "$V4_B"
	wait $ex
	net_msg "$name: $(tail -n 1 "$T/$name.out")"
	grep -q "^1[0-9][0-9][0-9] frames" "$T/$name.out"
}
if [ -x "$EXAMPLE" ]; then
	ktap_test_result "a kernel UDP sender -> the example program bypass_rx" \
		example_rx "$EXAMPLE" bypass_rx
else
	ktap_test_skip "a kernel UDP sender -> the example program (not built)"
fi
if [ -x "$EXAMPLE_C" ]; then
	ktap_test_result "a kernel UDP sender -> bypass_rx_ring, C, built from the installed prefix with pkg-config" \
		example_rx "$EXAMPLE_C" bypass_rx_ring
else
	ktap_test_skip "bypass_rx_ring from an installed prefix: not built (ctest -R install.consumer builds it)"
fi

# 7: errors.
rx_b "$T/busy1.json" &
rx=$!
ready "$T/busy1.json.err" rx "$DEV_B" 2
ip netns exec "$NS_B" "$BYPASS" rx -i "$DEV_B" -q 2 --count 1 --quiet >/dev/null 2>"$T/busy.err"
rc=$?
kill -INT $rx 2>/dev/null
wait $rx 2>/dev/null
ip netns exec "$NS_B" "$BYPASS" rx -i nosuchdev -q 2 --count 1 >/dev/null 2>"$T/nodev.err"
rc2=$?
"$BYPASS" rx >/dev/null 2>&1
rc3=$?
errors_ok() {
	[ $rc = 1 ] && [ $rc2 = 1 ] && [ $rc3 = 2 ] && grep -q "busy" "$T/busy.err" ||
		{ net_msg "busy: rc $rc: $(cat "$T/busy.err"); nodev: rc $rc2: $(cat "$T/nodev.err"); usage: rc $rc3"; return 1; }
}
ktap_test_result "errors: busy queue (exit 1, EBUSY), missing device (exit 1), usage (exit 2)" errors_ok

ktap_finished
