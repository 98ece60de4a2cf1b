#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# refnicctl top against a live pair: with UDP flowing A -> B, B's frames
# (JSON) show packets, interrupts, polls, doorbells per packet and page_pool
# pages; idle, the rates are zero. The ring gauges come from the driver's
# debugfs, which `ip netns exec` hides (it mounts a sysfs of the namespace):
# a pair in the initial namespace shows them. In a real terminal (tmux)
# each frame replaces the last: the screen holds one header and a row per
# queue. An idle port's RX ring is all the device's, none of it waiting for
# the driver. A queue pair a kernel-bypass session holds is marked. Unknown
# devices and bad intervals get one-line errors.
set -u
. "$(dirname "$0")/lib_net.sh"

CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
BYPASS=$REFNIC_REPO/build/cmake/tools/refnic-bypass/refnic-bypass
QUEUES=2

ktap_print_header
net_init
[ -x "$CTL" ] || net_skip_all "$CTL not built (make lib)"
command -v tmux >/dev/null || net_skip_all "needs tmux"
ktap_set_plan 7
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh
net_settle

top_b() { ip netns exec "$NS_B" "$CTL" "$@"; }

# ---- frames while traffic flows ----------------------------------------------------
RX0=$(net_link_stat "$NS_B" "$DEV_B" rx_packets)
net_bg blast net_tool "$NS_A" udp-flows --src "$V4_A" --dst "$V4_B" --flows 16 \
	--count 1000000 --gap 0.001
net_wait_link_stat "$NS_B" "$DEV_B" rx_packets $((RX0 + 200)) 30 ||
	{ net_bg_show blast; net_bail "the UDP flows did not reach $DEV_B"; }
busy() {
	top_b -j top dev "$DEV_B" interval 0.5 count 3 >"$NET_TMP/busy.json" 2>"$NET_TMP/busy.err" ||
		{ sed 's/^/# /' "$NET_TMP/busy.err"; return 1; }
	sed 's/^/# /' "$NET_TMP/busy.json" | cut -c1-300
	python3 - "$NET_TMP/busy.json" "$DEV_B" "$QUEUES" "$NET_SCALE" <<-'EOF'
	import json, sys
	frames = [json.loads(l) for l in open(sys.argv[1])]
	assert len(frames) == 3, 'want 3 frames, got %d' % len(frames)
	# A frame may come late on a slow kernel (7 s once on 7.3's debug
	# kernel), never early.
	for f in frames:
	    assert 0.4e9 < f['interval_ns'] < 5e9 * int(sys.argv[4]), f['interval_ns']
	    (port,) = f['ports']
	    assert port['ifname'] == sys.argv[2], port
	    assert [q['queue'] for q in port['queues']] == list(range(int(sys.argv[3])))
	last = frames[-1]['ports'][0]['queues']
	rx = sum(q['rx_pps'] for q in last)
	assert rx > 0, 'no RX packets in the last frame'
	hot = max(last, key=lambda q: q['rx_pps'])
	for k in ('irqs_per_s', 'polls_per_s', 'packets_per_poll', 'doorbells_per_packet'):
	    assert hot[k] is not None and hot[k] > 0, (k, hot)
	assert hot.get('pp_inflight', 0) > 0, hot
	assert hot['devmem'] is False
	EOF
}
ktap_test_result "top -j with UDP flowing: 3 frames, RX rate, irqs, polls, doorbells per packet, page_pool pages" busy

# ---- in a terminal --------------------------------------------------------------------
SOCK=refnic-top-$$
NET_CLEANUP+=("tmux -L $SOCK kill-server")
screen() { ip netns exec "$NS_B" tmux -L "$SOCK" capture-pane -p -t top | grep -v '^ *$'; }
headers() { screen | grep -c '^refnicctl top '; }
has_rows() { # a row of each queue of B with a number in rx-pps
	local s q
	s=$(screen)
	for ((q = 0; q < QUEUES; q++)); do
		grep -Eq "^$DEV_B +$q +[0-9]" <<<"$s" || return 1
	done
}
refreshed() { [ "$(screen | head -n 1)" != "$FIRST" ]; }
one_frame() { [ "$(headers)" = 1 ] && has_rows; }
terminal() {
	ip netns exec "$NS_B" tmux -L "$SOCK" new-session -d -s top -x 160 -y 30 \
		"$CTL top interval 0.5" || return 1
	wait_until 30 has_rows || { screen | sed 's/^/# /'; return 1; }
	FIRST=$(screen | head -n 1)
	# Another frame: the clock moves, the screen still has one header.
	wait_until 30 refreshed || return 1
	# Checked on a whole frame: a capture can land mid-redraw, which
	# on the debug kernel takes long enough to catch.
	wait_until 30 one_frame || { screen | sed 's/^/# /'; return 1; }
	screen | sed 's/^/# /'
}
ktap_test_result "in tmux: one header and a row per queue, frames replacing each other" terminal
ip netns exec "$NS_B" tmux -L "$SOCK" kill-server 2>/dev/null
net_bg_kill blast

# ---- idle --------------------------------------------------------------------------
net_settle || net_bail "the links did not go quiet"
idle() {
	top_b -j top "$DEV_B" interval 0.5 once >"$NET_TMP/idle.json" || return 1
	sed 's/^/# /' "$NET_TMP/idle.json" | cut -c1-300
	python3 - "$NET_TMP/idle.json" <<-'EOF'
	import json, sys
	(frame,) = [json.loads(l) for l in open(sys.argv[1])]
	for q in frame['ports'][0]['queues']:
	    assert q['rx_pps'] == 0 and q['tx_pps'] == 0, q
	EOF
}
ktap_test_result "idle: once prints one frame, every rate zero" idle

# ---- the ring gauges, in the initial namespace --------------------------------------------
gauges() {
	local a=rta$$ b=rtb$$
	ip link add "$a" type refnic queues 1 peer name "$b" || return 1
	NET_CLEANUP+=("ip link del $a")
	# No IPv6 on them: no DAD, MLD or router solicitation in flight.
	sysctl -qw "net.ipv6.conf.$a.disable_ipv6=1" "net.ipv6.conf.$b.disable_ipv6=1" || return 1
	ip link set "$a" up && ip link set "$b" up || return 1
	wait_until 30 gauges_idle "$a"
}
gauges_idle() { # the idle port's gauges: buffers posted, no TX descriptor out
	"$CTL" -j top "$1" interval 0.2 once >"$NET_TMP/gauges.json" || return 1
	sed 's/^/# /' "$NET_TMP/gauges.json" | cut -c1-300
	python3 - "$NET_TMP/gauges.json" <<-'EOF'
	import json, sys
	(frame,) = [json.loads(l) for l in open(sys.argv[1])]
	(q,) = frame['ports'][0]['queues']
	assert q['rx_posted'] > 0 and q['tx_inflight'] == 0, q
	# every posted buffer the device's, none waiting for the driver
	assert q['rx_device'] == q['rx_posted'] and q['rx_to_reap'] == 0, q
	assert q['tx_device'] == 0 and q['tx_to_reap'] == 0, q
	EOF
}
ktap_test_result "debugfs gauges: an idle port's RX buffers posted, all the device's; no TX descriptor out" gauges

# A kernel-bypass session on queue 1 of a 2-queue port: top marks that
# queue pair, and only it.
bypass_shown() {
	local a=rba$$ b=rbb$$
	[ -x "$BYPASS" ] || { net_msg "$BYPASS not built"; return 1; }
	ip link add "$a" type refnic queues 2 peer name "$b" || return 1
	NET_CLEANUP+=("ip link del $a")
	sysctl -qw "net.ipv6.conf.$a.disable_ipv6=1" "net.ipv6.conf.$b.disable_ipv6=1" || return 1
	ip link set "$a" up && ip link set "$b" up || return 1
	net_bg bp-rx "$BYPASS" rx -i "$a" -q 1 --duration $((120 * NET_SCALE)) --quiet
	net_bg_wait_text bp-rx "refnic-bypass: rx on $a queue 1 " || return 1
	"$CTL" -j top "$a" interval 0.2 once >"$NET_TMP/bypass.json" || return 1
	sed 's/^/# /' "$NET_TMP/bypass.json" | cut -c1-300
	net_bg_kill bp-rx
	python3 - "$NET_TMP/bypass.json" <<-'EOF'
	import json, sys
	(frame,) = [json.loads(l) for l in open(sys.argv[1])]
	q = frame['ports'][0]['queues']
	assert [x['bypass'] for x in q] == [False, True], q
	EOF
}
ktap_test_result "a bypass session on queue 1: top marks queue 1 bypass, queue 0 not" bypass_shown

# ---- errors ---------------------------------------------------------------------------
one_line() { # one_line STATUS CMD...: fails with STATUS and one "refnicctl: " line
	local want=$1 rc=0
	shift
	top_b "$@" >/dev/null 2>"$NET_TMP/err" || rc=$?
	sed 's/^/# /' "$NET_TMP/err"
	[ "$rc" = "$want" ] && [ "$(wc -l <"$NET_TMP/err")" = 1 ] && grep -q '^refnicctl: ' "$NET_TMP/err"
}
ktap_test_result "an unknown device: exit 1, one line" one_line 1 top nosuchdev0 once
ktap_test_result "interval 0: exit 2, one line" one_line 2 top "$DEV_B" interval 0
ktap_finished
