#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Adaptive interrupt moderation (DIM, refnic_dim.c): on by default on both
# ports; a queue pair's vector starts at DIM's start profile (32 us, 64
# frames), which ethtool --per-queue --show-coalesce shows (a queue out of
# range is an error); while adaptive-rx (-tx) is on, rx-usecs (tx-usecs) is
# DIM's and setting it alone is refused with a message; under bulk TCP the
# receiver's moderation rises, under request/response it falls, and the
# bytes arrive intact either way; down and up, or adaptive turned off and on
# again, start DIM over from the start profile; adaptive off restores the
# fixed values (20 us, 32 frames, or what the same request sets); each of
# DIM's decisions is a refnic_dim_profile event. One queue pair, so that
# every frame goes through the vector watched.
#
# DIM climbs and turns on what it measures, so the assertions ask for a
# direction, not a value. DIM's first step from the start profile is always
# down (to 4 us: with nothing measured before, any traffic looks better, and
# leaving the start it heads left); only the steps after it are DIM's
# judgement. Under bulk the vector used a delay above the start: a decision
# traced (refnic_dim_profile, the vector written before the event) or an
# ethtool sample, since a profile DIM leaves after one window of 64
# interrupts can fall between two samples. Under TCG a window's throughput
# varies by more than DIM's 10 % threshold, so bulk can swing between 4 and
# 32 us for a dozen decisions before a longer delay measures better: bulk
# runs up to three transfers, ending once DIM went above the start. Under
# request/response a decision after that first step chose a delay below the
# start again (DIM turned back down on its own); without the trace, an
# ethtool sample below it.
set -u
. "$(dirname "$0")/lib_net.sh"

START_USECS=32
START_FRAMES=64
BYTES=$((96 << 20))
ROUNDS=3000 # DIM decides once per 64 interrupts: not scaled down

ktap_print_header
net_init
ktap_set_plan 12
net_setup queues 1

# coal NS DEV FIELD: a field of ethtool -c ("rx-usecs", "Adaptive RX", ...)
coal() {
	ip netns exec "$1" ethtool -c "$2" | sed -n "s/^$3:[[:space:]]*\([^[:space:]]*\).*/\1/p"
}
# qcoal FIELD: B's queue 0 as its vector uses it now
qcoal() {
	ip netns exec "$NS_B" ethtool --per-queue "$DEV_B" queue_mask 0x1 --show-coalesce |
		sed -n "s/^$1:[[:space:]]*//p"
}
adaptive_on() { # adaptive_on NS DEV
	ip netns exec "$1" ethtool -c "$2" | grep -Eq '^Adaptive RX:[[:space:]]*on[[:space:]]+TX:[[:space:]]*on'
}

ktap_test_result "adaptive-rx and adaptive-tx on by default on both ports" \
	eval 'adaptive_on "$NS_A" "$DEV_A" && adaptive_on "$NS_B" "$DEV_B"'

u=$(qcoal rx-usecs) f=$(qcoal rx-frames)
net_msg "B queue 0: rx-usecs $u, rx-frames $f; ethtool -c: rx-usecs $(coal "$NS_B" "$DEV_B" rx-usecs)"
at_start() { [ "$(qcoal rx-usecs)" = "$START_USECS" ] && [ "$(qcoal rx-frames)" = "$START_FRAMES" ]; }
out_of_range() {
	! ip netns exec "$NS_B" ethtool --per-queue "$DEV_B" queue_mask 0x2 --show-coalesce >/dev/null 2>&1
}
ktap_test_result "per queue: the vector starts at DIM's start profile ($START_USECS us, $START_FRAMES frames); queue 1 of 1 is an error" \
	eval 'at_start && out_of_range'

refused_alone() { # refused_alone rx|tx
	local out
	if out=$(ip netns exec "$NS_B" ethtool -C "$DEV_B" "$1-usecs" 50 2>&1); then
		net_msg "ethtool -C $1-usecs 50 with adaptive-$1 on succeeded"
		return 1
	fi
	net_msg "refused: $out"
	grep -q "adaptive-$1 is on" <<<"$out" && [ "$(coal "$NS_B" "$DEV_B" "$1-usecs")" = 20 ]
}
ktap_test_result "rx-usecs, tx-usecs alone while adaptive is on: refused, saying why, nothing changed" \
	eval 'refused_alone rx && refused_alone tx'

# sample NAME: B's queue 0 rx-usecs, one a line, until $NET_TMP/NAME.stop
sample() {
	while [ ! -e "$NET_TMP/$1.stop" ]; do
		qcoal rx-usecs
		sleep 0.2 # a sample, not a wait: ethtool's own load stays small
	done
}
extreme() { # extreme max|min: of the numbers on stdin, one a line (none: nothing)
	sort -n | if [ "$1" = max ]; then tail -n1; else head -n1; fi
}
sampled() { # sampled NAME max|min
	touch "$NET_TMP/$1.stop"
	net_bg_wait "$1" 30 >/dev/null
	extreme "$2" <"$NET_TMP/$1.out"
}
irqs_b() { net_estat "$NS_B" "$DEV_B" q0_irqs; }
pkts_b() { net_estat "$NS_B" "$DEV_B" rx0_packets; }

# ---- bulk ------------------------------------------------------------------------
# DIM's decisions on B, traced (refnic_dim_profile) into the test's own trace
# buffer: a few events a second at most.
TRACED=0
if net_trace_init; then
	d=$(net_event_dir refnic_dim_profile)
	# Reading the trace mid-run must not pause recording, and the events
	# of DIM's work, on either CPU, must come out in the order they were.
	echo global >"$NET_TRACE/trace_clock" &&
		echo 0 >"$NET_TRACE/options/pause-on-trace" &&
		echo "dev == \"$DEV_B\"" >"$d/filter" && echo 1 >"$d/enable" && TRACED=1
	NET_CLEANUP+=("echo 0 >'$d/enable'")
fi
traced_usecs() { # the delays of DIM's decisions on B traced so far, in order
	[ "$TRACED" = 1 ] || return 0
	sed -n 's/.* refnic_dim_profile: .* vector 0 profile [0-9]* usecs \([0-9]*\) frames .*/\1/p' \
		"$NET_TRACE/trace"
}
profiles() { # profiles: how many of the numbers on stdin are each value
	sort -n | uniq -c | awk '{ printf "%s%s us x%s", (NR > 1 ? ", " : ""), $2, $1 }'
}
u0=$(qcoal rx-usecs) i0=$(irqs_b) p0=$(pkts_b)
net_bg bulk-dim sample bulk-dim
bulk_ok=0 transfers=0
for seed in 7 8 9; do
	transfers=$((transfers + 1))
	net_tcp_start "bulk$seed" "$NS_A" "$NS_B" "$V4_B" "$BYTES" 5201 "$seed" &&
		net_tcp_wait "bulk$seed" 300 || { bulk_ok=1 && break; }
	high=$({ traced_usecs && cat "$NET_TMP/bulk-dim.out"; } | extreme max)
	[ "${high:-0}" -gt "$u0" ] && break
done
umax=$(sampled bulk-dim max) i1=$(irqs_b) p1=$(pkts_b)
mapfile -t bulk_usecs < <(traced_usecs)
tmax=$(printf '%s\n' "${bulk_usecs[@]}" | extreme max)
net_msg "bulk: $transfers transfers; B's rx-usecs $u0 -> highest ${tmax:-(not traced)} traced, $umax over $(wc -l <"$NET_TMP/bulk-dim.out") samples; $((p1 - p0)) packets in $((i1 - i0)) interrupts"
ktap_test_result "bulk TCP A -> B intact" [ "$bulk_ok" = 0 ]
uhigh=$(printf '%s\n' "${tmax:-0}" "${umax:-0}" | extreme max)
ktap_test_result "bulk: B's moderation rose (highest $uhigh us over $u0)" [ "$uhigh" -gt "$u0" ]

# Each of DIM's decisions is a refnic_dim_profile event with one of refnic's
# profiles; the last is what the vector uses now (no traffic since), and
# no delay sampled is above both the highest traced and the start.
traced_dim() {
	local -a usecs=("${bulk_usecs[@]}")
	net_msg "refnic_dim_profile on $DEV_B under bulk: ${#usecs[@]} decisions ($(printf '%s\n' "${usecs[@]}" | profiles)), the last 20: ${usecs[*]:$((${#usecs[@]} > 20 ? ${#usecs[@]} - 20 : 0))}; now $(qcoal rx-usecs)"
	[ "${#usecs[@]}" -ge 1 ] || return 1
	printf '%s\n' "${usecs[@]}" | grep -qvxE '4|32|128|512|1024' && return 1
	[ "${usecs[-1]}" = "$(qcoal rx-usecs)" ] &&
		[ "$(printf '%s\n' "${usecs[@]}" "$u0" | extreme max)" -ge "${umax:-0}" ]
}
if [ "$TRACED" = 1 ]; then
	ktap_test_result "refnic_dim_profile: DIM's decisions traced, from refnic's profiles, the last the vector's" traced_dim
else
	ktap_test_skip "refnic_dim_profile: no tracefs instance"
fi
[ "$TRACED" = 1 ] && echo 0 >"$(net_event_dir refnic_dim_profile)/enable"

# ---- starting over ---------------------------------------------------------------
updown() {
	ip -n "$NS_B" link set "$DEV_B" down && ip -n "$NS_B" link set "$DEV_B" up &&
		net_wait_link "$NS_B" "$DEV_B" up 30 && at_start
}
ktap_test_result "down and up: B's vector back at the start profile" updown
# Turned off and on again, DIM starts over too: request/response then
# starts from the start profile, whatever bulk left.
restart() {
	ip netns exec "$NS_B" ethtool -C "$DEV_B" adaptive-rx off adaptive-tx off &&
		ip netns exec "$NS_B" ethtool -C "$DEV_B" adaptive-rx on adaptive-tx on && at_start
}
ktap_test_result "adaptive off and on again: B's vector back at the start profile" restart

# ---- request/response --------------------------------------------------------------
rr() {
	rm -f "$NET_TMP/rr.ready"
	net_bg rr-server net_tool "$NS_B" rr-server "$V4_B" 5202 --ready "$NET_TMP/rr.ready" \
		--timeout $((120 * NET_SCALE))
	net_wait_file "$NET_TMP/rr.ready" 30 &&
		net_tool "$NS_A" rr-client "$V4_B" 5202 --rounds "$ROUNDS" --timeout $((120 * NET_SCALE)) \
			>"$NET_TMP/rr-client.out" &&
		net_bg_wait rr-server 60
}
# The trace from here on holds request/response's decisions alone.
if [ "$TRACED" = 1 ]; then
	echo >"$NET_TRACE/trace"
	echo 1 >"$(net_event_dir refnic_dim_profile)/enable"
fi
u0=$(qcoal rx-usecs) i0=$(irqs_b) p0=$(pkts_b)
net_bg rr-dim sample rr-dim
rr_ok=0
rr || rr_ok=1
umin=$(sampled rr-dim min) i1=$(irqs_b) p1=$(pkts_b)
mapfile -t rr_usecs < <(traced_usecs)
net_msg "request/response: $(cat "$NET_TMP/rr-client.out" 2>/dev/null); B's rx-usecs $u0 -> lowest $umin sampled; $((p1 - p0)) packets in $((i1 - i0)) interrupts"
ktap_test_result "request/response: $ROUNDS rounds intact" [ "$rr_ok" = 0 ]
if [ "$TRACED" = 1 ]; then
	# The first 4 us is DIM's step down from the start, whatever it measured
	# (before it, the trace may hold the start profile the off-and-on
	# above had DIM's work apply at the first poll since).
	net_msg "refnic_dim_profile on $DEV_B under request/response: ${#rr_usecs[@]} decisions ($(printf '%s\n' "${rr_usecs[@]}" | profiles)), the first 20: ${rr_usecs[*]:0:20}"
	ulow=$(printf '%s\n' "${rr_usecs[@]}" | sed '0,/^4$/d' | extreme min)
	ktap_test_result "request/response: B's moderation fell (DIM's decisions after its first step down: lowest ${ulow:-(none)} us, under $u0)" \
		[ "${ulow:-99999}" -lt "$u0" ]
else
	ktap_test_result "request/response: B's moderation fell (lowest $umin us sampled, under $u0)" \
		[ "${umin:-99999}" -lt "$u0" ]
fi

# ---- adaptive off ----------------------------------------------------------------
fixed() {
	ip netns exec "$NS_B" ethtool -C "$DEV_B" adaptive-rx off adaptive-tx off &&
		[ "$(qcoal rx-usecs)" = 20 ] && [ "$(qcoal rx-frames)" = 32 ] &&
		ip netns exec "$NS_B" ethtool -C "$DEV_B" rx-usecs 50 tx-usecs 50 &&
		[ "$(qcoal rx-usecs)" = 50 ] && [ "$(qcoal tx-usecs)" = 50 ] &&
		ip netns exec "$NS_B" ethtool -C "$DEV_B" adaptive-rx on adaptive-tx on rx-usecs 20 tx-usecs 20 &&
		[ "$(coal "$NS_B" "$DEV_B" rx-usecs)" = 20 ] && adaptive_on "$NS_B" "$DEV_B"
}
ktap_test_result "adaptive off: the fixed 20 us and 32 frames, rx-usecs settable; on again with values kept" fixed

net_health_test
ktap_finished
