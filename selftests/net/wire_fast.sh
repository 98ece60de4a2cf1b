#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The wire fast path changes nothing observable. With the model's per-port
# debugfs knob wire_fast on (off by default) and hardware GRO on at B, A's
# TX engine cuts a TSO frame
# through (each segment's payload read from A's buffers straight to where
# B's queue puts it, DONE written after the last) and leaves a segment's
# TCP checksum uncomputed until its header bytes are used: a segment that
# joins one of B's hardware GRO runs is never written whole, so its
# checksum is never needed. Each case sends the same TSO frames from a
# packet socket on A (one send, one doorbell, per frame; a flow no socket
# owns) twice, wire_fast off then on, while a packet socket on B records
# every frame the driver handed the stack (length and a digest of all its
# bytes), and compares:
#   - the frames B got, byte for byte, in order, the payload as sent, and
#     with hardware GRO off every segment's TCP checksum right;
#   - the moves of A's TX queue and B's RX queue counters in the device
#     model (frames, segments, DMA bytes, GRO runs and segments, checksum
#     verdicts, drops) and of B's ethtool -S;
#   - that the fast path ran: txq cut_through moved by the frames sent and
#     csum_elided by exactly the segments that joined a run (gro_segs -
#     gro_runs) with it on, neither with it off (nor csum_elided where no
#     run forms), and neither while the engine must take the slow path:
#     hardware GRO off at B, a link latency, a fault armed on either port,
#     the bus model on, the refnic_hw_tx_done tracepoint on.
# Cases: 8-segment frames each ending with PSH; runs that span two frames
# (PSH on every second); 45-segment (64 KB) frames, whose runs end at the
# device's 64 KiB and 16-buffer limits inside a frame; TCP timestamps; an
# odd MSS and an odd last segment (segments start at odd offsets in A's
# buffers); then the slow-path cases (hardware GRO off, every segment's
# checksum checked; a link latency, whose delay line keeps whole frames; a
# fault armed on B; the bus model; the tracepoint).
# Runs close on their own limits, on a PSH or on a 1 s quiet spell; a
# stall of a second inside a burst (a very loaded host) would cut them
# differently in the two sends and fail the comparison.
# B keeps a run open for up to 1 s (its driver's debugfs hw_gro_idle_us and
# hw_gro_timeout_us) with software GRO off, so that what B's packet socket
# sees is what the device built, the same each time.
set -u
. "$(dirname "$0")/lib_net.sh"

ktap_print_header
net_init
net_setup queues 1
net_quiet_v6
net_static_neigh
pdev_of() { basename "$(ip netns exec "$1" readlink -f "/sys/class/net/$2/device")"; }
PDEV_A=$(pdev_of "$NS_A" "$DEV_A")
PDEV_B=$(pdev_of "$NS_B" "$DEV_B")
MODEL_A=/sys/kernel/debug/refnic/card$((${PDEV_A#refnic.} / 2))/port$((${PDEV_A#refnic.} % 2))
MODEL_B=/sys/kernel/debug/refnic/card$((${PDEV_B#refnic.} / 2))/port$((${PDEV_B#refnic.} % 2))
DRV_B=/sys/kernel/debug/refnic/drv-$PDEV_B
[ -w "$MODEL_A/wire_fast" ] && [ -w "$DRV_B/hw_gro_idle_us" ] ||
	net_skip_all "no refnic debugfs at $MODEL_A or $DRV_B"
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl
[ -x "$CTL" ] || net_skip_all "$CTL not built (make lib)"
ktap_set_plan 15
net_settle

etB() { ip netns exec "$NS_B" ethtool "$@"; }
# gro_window FILE: B's driver debugfs FILE at 1 s, put back at the end.
gro_window() {
	local saved
	saved=$(cat "$DRV_B/$1") &&
		NET_CLEANUP+=("echo '$saved' >'$DRV_B/$1'") &&
		echo 1000000 >"$DRV_B/$1"
}
# offload NAME: B's ethtool -k NAME, on or off.
offload() { etB -k "$DEV_B" | awk -v k="$1:" '$1 == k { print $2 }'; }
NET_CLEANUP+=("echo '$(cat "$MODEL_A/wire_fast")' >'$MODEL_A/wire_fast'")
NET_CLEANUP+=("ip netns exec '$NS_B' ethtool -K '$DEV_B' gro $(offload generic-receive-offload) rx-gro-hw $(offload rx-gro-hw) >/dev/null")
gro_window hw_gro_idle_us && gro_window hw_gro_timeout_us &&
	etB -K "$DEV_B" gro off rx-gro-hw on >/dev/null ||
	net_bail "B: software GRO off, hardware GRO on, 1 s GRO windows"

MAC_A=$(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/address")
MAC_B=$(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/address")

# counters: the counters this path may move and nothing else does: the
# device model's of A's TX queue 0 and B's RX queue 0, and B's ethtool -S.
counters() {
	awk '$1 ~ /^txq0\.(frames|segments|csum_elided|cut_through|dma_read_bytes|desc_written|errors|bad_desc)$/ { print "A." $1, $2 }' \
		"$MODEL_A/counters"
	awk '$1 ~ /^rxq0\.(frames|cmpl_written|dma_write_bytes|hdr_split|hdr_not_split|gro_runs|gro_segs|gro_evicted|gro_dropped|csum_ok|csum_bad|drop_[a-z_]+|bad_desc)$/ { print "B." $1, $2 }' \
		"$MODEL_B/counters"
	etB -S "$DEV_B" | awk -F': *' '$1 ~ /rx0_(packets|bytes|hw_gro_packets|hw_gro_wire_packets|drops|csum_[a-z]+)$/ { gsub(/ /, "", $1); print "B." $1, $2 }'
}

a_frames() { awk '$1 == "txq0.frames" { print $2 }' "$MODEL_A/counters"; }
# a_sent FROM N: A's engine has written the DONE of N frames since its
# frames counter read FROM (cut through, DONE follows the last segment).
a_sent() { [ $(($(a_frames) - $1)) -ge "$2" ]; }

# send MODE ARGS...: wire_fast MODE (Y or N), then tso-burst ARGS while B
# records; FRAMES_<MODE> the record, MOVED_<MODE> the counters' moves.
send() {
	local mode=$1 burst frames bytes mss before after moved
	shift
	echo "$mode" >"$MODEL_A/wire_fast" || return 1
	# What the burst sends (tso-burst's defaults unless ARGS say).
	burst=$(python3 - "$@" <<-'EOF'
	import argparse, sys
	p = argparse.ArgumentParser()
	p.add_argument('--frames', type=int, default=4)
	p.add_argument('--segs', type=int, default=8)
	p.add_argument('--mss', type=int, default=1448)
	p.add_argument('--last-short', type=int, default=0)
	a, _ = p.parse_known_args()
	print(a.frames, a.frames * (a.segs * a.mss - a.last_short), a.mss)
	EOF
	) || return 1
	read -r frames bytes mss <<<"$burst"
	rm -f "$NET_TMP/cap.ready"
	net_bg cap net_tool "$NS_B" tcp4-frames --dev "$DEV_B" --bytes "$bytes" \
		--mss "$mss" --ready "$NET_TMP/cap.ready" --timeout $((30 * NET_SCALE))
	net_wait_file "$NET_TMP/cap.ready" 30 || { net_bg_show cap; return 1; }
	before=$(counters)
	net_tool "$NS_A" tso-burst --dev "$DEV_A" --src-mac "$MAC_A" --dst-mac "$MAC_B" \
		--src "$V4_A" --dst "$V4_B" "$@" >/dev/null || return 1
	net_bg_wait cap $((60 * NET_SCALE)) || { net_bg_show cap; return 1; }
	wait_until 30 a_sent "$(awk '$1 == "A.txq0.frames" { print $2 }' <<<"$before")" \
		"$frames" || { net_msg "A's engine did not finish the burst"; return 1; }
	after=$(counters)
	printf -v "FRAMES_$mode" '%s' "$(cat "$NET_TMP/cap.out")"
	moved=$(join <(sort <<<"$before") <(sort <<<"$after") | awk '{ print $1, $3 - $2 }')
	printf -v "MOVED_$mode" '%s' "$moved"
	ALL_MOVED+=$moved$'\n'
}
ALL_MOVED=''

# same NAME ARGS...: the case sent with wire_fast off, then on: the same
# frames and counter moves but the fast path's own: csum_elided must move
# by the joined segments (0 if EXPECT_ELIDED=0) and cut_through by the
# frames sent (0 if EXPECT_CUT=0) with it on, neither with it off.
same() {
	local name=$1 elided_y elided_n cut_y cut_n runs segs frames
	shift
	if ! send N "$@" || ! send Y "$@"; then
		ktap_test_fail "$name"
		return
	fi
	moved() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
	elided_n=$(moved "$MOVED_N" A.txq0.csum_elided)
	elided_y=$(moved "$MOVED_Y" A.txq0.csum_elided)
	cut_n=$(moved "$MOVED_N" A.txq0.cut_through)
	cut_y=$(moved "$MOVED_Y" A.txq0.cut_through)
	frames=$(moved "$MOVED_Y" A.txq0.frames)
	runs=$(moved "$MOVED_Y" B.rxq0.gro_runs)
	segs=$(moved "$MOVED_Y" B.rxq0.gro_segs)
	net_msg "$name: off: $(tr '\n' ' ' <<<"$MOVED_N")"
	net_msg "$name: on:  $(tr '\n' ' ' <<<"$MOVED_Y")"
	net_msg "$name: B got $(python3 -c 'import json, sys; c = json.loads(sys.argv[1]); print(len(c["frames"]), "frames,", c["bytes"], "bytes,", c["bad"], "payloads and", c["csum_bad"], "TCP checksums bad")' "$FRAMES_Y")"
	if [ "$FRAMES_N" != "$FRAMES_Y" ]; then
		net_msg "$name: the frames differ: off $FRAMES_N, on $FRAMES_Y"
		ktap_test_fail "$name"
	elif [ "$(grep -Ev 'csum_elided|cut_through' <<<"$MOVED_N")" != \
		"$(grep -Ev 'csum_elided|cut_through' <<<"$MOVED_Y")" ]; then
		net_msg "$name: the counters moved differently"
		ktap_test_fail "$name"
	elif [ "${elided_n:-x}" != 0 ] ||
		[ "${elided_y:-x}" != "$((${EXPECT_ELIDED:-1} ? segs - runs : 0))" ]; then
		net_msg "$name: csum_elided moved $elided_n (off) and $elided_y (on); runs $runs of $segs segments"
		ktap_test_fail "$name"
	elif [ "${cut_n:-x}" != 0 ] || [ "${cut_y:-x}" != "$((${EXPECT_CUT:-1} ? frames : 0))" ]; then
		net_msg "$name: cut_through moved $cut_n (off) and $cut_y (on) for $frames frames"
		ktap_test_fail "$name"
	else
		ktap_test_pass "$name"
	fi
}

same "8-segment frames, PSH on each: the same frames and counters" --frames 6
same "runs spanning two frames: the same" --frames 6 --push odd
same "45-segment frames, runs cut by the 64 KiB and 16-buffer limits: the same" \
	--frames 4 --segs 45 --push odd
same "a short last segment: the same" --frames 4 --last-short 1000
same "TCP timestamps: the same" --frames 4 --tcp-options --mss 1436
ran_merged() { [ "$(awk '$1 == "B.rxq0.gro_runs" { print $2 }' <<<"${MOVED_Y:-}")" -gt 0 ] 2>/dev/null; }
ktap_test_result "runs were merged (the path under test ran)" ran_merged

same "an odd MSS and an odd last segment: the same" --frames 4 --mss 1447 --last-short 3

etB -K "$DEV_B" rx-gro-hw off >/dev/null
EXPECT_ELIDED=0 EXPECT_CUT=0 same "hardware GRO off, every segment alone, its checksum right: the same" \
	--frames 4 --mss 1447 --last-short 3
etB -K "$DEV_B" rx-gro-hw on >/dev/null

latency() { ip netns exec "$NS_A" "$CTL" link set "$DEV_A" latency "$1"; }
if latency 1ms; then
	NET_CLEANUP+=("ip netns exec '$NS_A' '$CTL' link set '$DEV_A' latency 0")
	EXPECT_ELIDED=0 EXPECT_CUT=0 same "a link latency: whole frames on the delay line, the same" --frames 4
	latency 0
else
	ktap_test_fail "a link latency: whole frames on the delay line, the same"
fi

# A fault armed on a queue no traffic uses: it never strikes, but while it
# is armed the engines take no fast path.
fault() { ip netns exec "$NS_B" "$CTL" fault "$1" "$DEV_B" drop-completion queue 7 "${@:2}"; }
if fault set count 1; then
	NET_CLEANUP+=("ip netns exec '$NS_B' '$CTL' fault clear '$DEV_B' drop-completion queue 7")
	EXPECT_ELIDED=0 EXPECT_CUT=0 same "a fault armed on B: the slow path, the same" --frames 4
	fault clear
else
	ktap_test_fail "a fault armed on B: the slow path, the same"
fi

# The bus model charges each read where it happens: a bandwidth no burst
# here reaches.
bus() { ip netns exec "$NS_A" "$CTL" bus set "$DEV_A" "$@"; }
if bus gen 5 lanes 16; then
	NET_CLEANUP+=("ip netns exec '$NS_A' '$CTL' bus set '$DEV_A' gen 0")
	EXPECT_ELIDED=0 EXPECT_CUT=0 same "the bus model on: the slow path, the same" --frames 4
	bus gen 0
else
	ktap_test_fail "the bus model on: the slow path, the same"
fi

# The tx_done tracepoint shows when DONE is written: on, the slow path.
if net_trace_init && echo 1 >"$(net_event_dir refnic_hw_tx_done)/enable"; then
	EXPECT_ELIDED=0 EXPECT_CUT=0 same "the tx_done tracepoint on: the slow path, the same" \
		--frames 4
	echo 0 >"$(net_event_dir refnic_hw_tx_done)/enable"
else
	ktap_test_skip "the tx_done tracepoint on: no tracefs instance with refnic's events here"
fi

# sum KEY: KEY's moves over every send of every case.
sum() { awk -v k="$1" '$1 == k { n += $2 } END { print n + 0 }' <<<"$ALL_MOVED"; }
ktap_test_result "no frame lost in any case: B's drops did not move" \
	[ "$(awk '$1 ~ /drop/ && $2 != 0' <<<"$ALL_MOVED")" = "" ]
ktap_test_result "B's model and stack agree on the runs: hw_gro_packets moved by gro_runs" \
	[ "$(sum B.rx0_hw_gro_packets)" = "$(sum B.rxq0.gro_runs)" ]
net_health_test
ktap_finished
