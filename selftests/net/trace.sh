#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The trace systems of the device (refnic_hw, kmod/model/hw_trace.h) and of
# the driver (refnic, kmod/refnic_trace.h) tell the story the counters
# tell. In-kernel hist triggers, in a tracefs instance of the test's own,
# count each event (no trace buffer to overflow) while the pair carries TCP
# and pings both ways with header split and hardware GRO on B, one
# interrupt of each of B's queues is lost to the lose-irq fault, and B
# goes down and up. Then each event fired as often as the counter of the
# same step moved:
#   device (model debugfs counters of each port): doorbells by register,
#     TX descriptors fetched and written back, RX descriptors fetched,
#     completions written, split and hardware GRO runs with their
#     segments, interrupts raised and lost, events moderated, fault
#     strikes, resets (none here: wedge.sh makes the driver reset);
#   driver (ethtool -S): NAPI polls (each with the NAPI weight as its
#     budget), full polls and unmasks, RX refills,
#     TX packets and wakes reclaimed, page_pool release calls, and the
#     buffers each drain gave back.
# Elsewhere, on the paths that fire them: refnic_rx_devmem (devmem.sh),
# refnic_tx_devmem (devmem_tx.sh), refnic_bypass_poll (bypass.sh),
# refnic_reset and refnic_hw_reset (wedge.sh), refnic_dim_profile (dim.sh).
set -u
. "$(dirname "$0")/lib_net.sh"

QUEUES=2
CTL=$REFNIC_REPO/build/cmake/tools/refnicctl/refnicctl

ktap_print_header
net_init
[ -d /sys/kernel/tracing/events/refnic_hw ] ||
	net_skip_all "no refnic_hw events: tracefs not mounted, or a refnic without tracepoints"
[ -e /sys/kernel/tracing/events/refnic/refnic_napi_poll/hist ] ||
	net_skip_all "no hist triggers (CONFIG_HIST_TRIGGERS)"
[ -d /sys/kernel/debug/refnic ] || net_skip_all "no debugfs at /sys/kernel/debug/refnic"
[ -x "$CTL" ] || net_skip_all "$CTL not built"
ktap_set_plan 7
net_setup queues "$QUEUES"
net_quiet_v6
net_static_neigh
ip netns exec "$NS_B" ethtool -G "$DEV_B" tcp-data-split on ||
	net_bail "ethtool -G $DEV_B tcp-data-split on"
ip netns exec "$NS_B" ethtool -K "$DEV_B" rx-gro-hw on ||
	net_bail "ethtool -K $DEV_B rx-gro-hw on"
net_wait_link "$NS_B" "$DEV_B" up || net_bail "no carrier after tcp-data-split on"
net_settle

# Each port's number in the device's events (platform device refnic.N)
# and its model counters: N = 2C + P is card C's port P.
port_of() { # port_of NS DEV: "bus=N MODEL_DIR"
	local pdev n
	pdev=$(basename "$(ip netns exec "$1" readlink -f "/sys/class/net/$2/device")")
	n=${pdev#refnic.}
	echo "bus=$n /sys/kernel/debug/refnic/card$((n / 2))/port$((n % 2))"
}
read -r BUS_A MODEL_A <<<"$(port_of "$NS_A" "$DEV_A")"
read -r BUS_B MODEL_B <<<"$(port_of "$NS_B" "$DEV_B")"
[ -r "$MODEL_A/counters" ] && [ -r "$MODEL_B/counters" ] ||
	net_bail "no model counters at $MODEL_A, $MODEL_B"
net_msg "$DEV_A is refnic.${BUS_A#bus=}, $DEV_B is refnic.${BUS_B#bus=}"
# The budget NAPI gives each poll: the driver's NAPI weight (the same on
# both ports; nothing busy-polls here).
WEIGHT=$(cat "/sys/kernel/debug/refnic/drv-refnic.${BUS_A#bus=}/napi_weight") ||
	net_bail "no napi_weight in the driver's debugfs"

net_trace_init || net_bail "cannot create a tracefs instance"

# hist_snap TAG: every event's histograms as they are now, into
# $NET_TMP/TAG/, which net_hist_sum reads while NET_HIST_DIR names it.
hist_snap() {
	local h e
	mkdir -p "$NET_TMP/$1"
	for h in "${HISTS[@]}"; do
		e=${h%% *}
		cp "$(net_event_dir "$e")/hist" "$NET_TMP/$1/$e" || return 1
	done
}
# hist_sum EVENT VAL [KEY=VALUE ...]: net_hist_sum (reg 0 txq_tail, 1
# rxq_tail, 2 rxcq_head; split 1 done).
hist_sum() { net_hist_sum "$@"; }

# counter_in FILE KEY: KEY's value in a file of model "key value" or
# ethtool -S "key: value" lines; 0 when absent.
counter_in() {
	awk -v k="$2" '{ sub(/:$/, "", $1) } $1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"
}

# mcount MODEL_DIR KEY: a model counter (txq0.doorbells, vec1.lost, resets).
mcount() { counter_in "$1/counters" "$2"; }

HISTS=(
	"refnic_hw_doorbell hist:keys=bus,queue,reg:vals=hitcount"
	"refnic_hw_tx_fetch hist:keys=bus,queue:vals=hitcount,count"
	"refnic_hw_tx_done hist:keys=bus,queue:vals=hitcount,count"
	"refnic_hw_rx_fetch hist:keys=bus,queue:vals=hitcount"
	"refnic_hw_rx_cmpl hist:keys=bus,queue,split:vals=hitcount,segs"
	"refnic_hw_rx_cmpl hist:keys=bus,queue:vals=hitcount,segs if segs > 1"
	"refnic_hw_irq hist:keys=bus,vector,lost:vals=hitcount"
	"refnic_hw_irq_moderate hist:keys=bus,vector:vals=hitcount,events"
	"refnic_hw_irq_mask hist:keys=bus,vector,masked:vals=hitcount"
	"refnic_hw_fault hist:keys=bus,queue:vals=hitcount"
	"refnic_hw_reset hist:keys=bus,busy:vals=hitcount"
	"refnic_napi_poll hist:keys=dev,vector,rearmed:vals=hitcount,work"
	"refnic_napi_poll hist:keys=dev,vector,full:vals=hitcount"
	"refnic_napi_poll hist:keys=dev,vector,budget:vals=hitcount"
	"refnic_rx_refill hist:keys=dev,queue:vals=hitcount,posted"
	"refnic_rx_release hist:keys=dev,queue,bulk:vals=hitcount,pages"
	"refnic_rx_drain hist:keys=dev,queue:vals=hitcount,buffers,calls"
	"refnic_tx_clean hist:keys=dev,queue,woken:vals=hitcount,packets,bytes"
)
armed=0
for h in "${HISTS[@]}"; do
	net_hist_on "${h%% *}" "${h#* }" || { net_msg "cannot set: $h"; armed=1; }
done
ktap_test_result "a hist trigger on each of the ${#HISTS[@]} histograms" [ "$armed" = 0 ]

# Counters before and after, side by side with the histograms.
snap() { # snap TAG
	cp "$MODEL_A/counters" "$NET_TMP/ma.$1" && cp "$MODEL_B/counters" "$NET_TMP/mb.$1" &&
		ip netns exec "$NS_A" ethtool -S "$DEV_A" >"$NET_TMP/ea.$1" &&
		ip netns exec "$NS_B" ethtool -S "$DEV_B" >"$NET_TMP/eb.$1"
}
# delta FILE_PREFIX KEY: how far a counter moved between snap 0 and snap 1
# (model "key value" lines or ethtool -S "key: value" lines).
delta() {
	local a b
	a=$(counter_in "$NET_TMP/$1.0" "$2")
	b=$(counter_in "$NET_TMP/$1.1" "$2")
	echo $((b - a))
}
# ---- the traffic ---------------------------------------------------------------
snap 0 || net_bail "cannot read the counters"
declare -A H0
# shellcheck disable=SC2034 # out is a nameref: the caller reads it
hist_all() { # hist_all ARRAY: every sum the checks below use
	local -n out=$1
	local p q v hw dev
	for p in A B; do
		[ "$p" = A ] && hw=$BUS_A dev=$DEV_A || hw=$BUS_B dev=$DEV_B
		for ((q = 0; q < QUEUES; q++)); do
			out[$p.db.tx.$q]=$(hist_sum refnic_hw_doorbell hitcount $hw "queue=$q" reg=0)
			out[$p.db.rx.$q]=$(hist_sum refnic_hw_doorbell hitcount $hw "queue=$q" reg=1)
			out[$p.db.cq.$q]=$(hist_sum refnic_hw_doorbell hitcount $hw "queue=$q" reg=2)
			out[$p.txf.$q]=$(hist_sum refnic_hw_tx_fetch count $hw "queue=$q")
			out[$p.txd.$q]=$(hist_sum refnic_hw_tx_done hitcount $hw "queue=$q")
			out[$p.rxf.$q]=$(hist_sum refnic_hw_rx_fetch hitcount $hw "queue=$q")
			out[$p.cmpl.$q]=$(hist_sum refnic_hw_rx_cmpl hitcount $hw "queue=$q")
			out[$p.split.$q]=$(hist_sum refnic_hw_rx_cmpl hitcount $hw "queue=$q" split=1)
			out[$p.gro.$q]=$(hist_sum refnic_hw_rx_cmpl hitcount $hw "queue=$q" filtered)
			out[$p.grosegs.$q]=$(hist_sum refnic_hw_rx_cmpl segs $hw "queue=$q" filtered)
			out[$p.fault.$q]=$(hist_sum refnic_hw_fault hitcount $hw "queue=$q")
			v=$q
			out[$p.irq.$v]=$(hist_sum refnic_hw_irq hitcount $hw "vector=$v" lost=0)
			out[$p.lost.$v]=$(hist_sum refnic_hw_irq hitcount $hw "vector=$v" lost=1)
			out[$p.mod.$v]=$(hist_sum refnic_hw_irq_moderate events $hw "vector=$v")
			out[$p.unmask.$v]=$(hist_sum refnic_hw_irq_mask hitcount $hw "vector=$v" masked=0)
			out[$p.polls.$v]=$(hist_sum refnic_napi_poll hitcount "dev=$dev" "vector=$v" "rearmed=*")
			out[$p.rearm.$v]=$(hist_sum refnic_napi_poll hitcount "dev=$dev" "vector=$v" rearmed=1)
			out[$p.full.$v]=$(hist_sum refnic_napi_poll hitcount "dev=$dev" "vector=$v" full=1)
			out[$p.budget.$v]=$(hist_sum refnic_napi_poll hitcount "dev=$dev" "vector=$v" "budget=$WEIGHT")
			out[$p.refill.$q]=$(hist_sum refnic_rx_refill hitcount "dev=$dev" "queue=$q")
			out[$p.txp.$q]=$(hist_sum refnic_tx_clean packets "dev=$dev" "queue=$q")
			out[$p.wakes.$q]=$(hist_sum refnic_tx_clean hitcount "dev=$dev" "queue=$q" woken=1)
			out[$p.relcalls.$q]=$(hist_sum refnic_rx_release hitcount "dev=$dev" "queue=$q")
			out[$p.drainbufs.$q]=$(hist_sum refnic_rx_drain buffers "dev=$dev" "queue=$q")
			out[$p.draincalls.$q]=$(hist_sum refnic_rx_drain calls "dev=$dev" "queue=$q")
		done
		out[$p.reset]=$(hist_sum refnic_hw_reset hitcount $hw)
	done
}
hist_snap 0 || net_bail "cannot read the histograms"
# shellcheck disable=SC2034 # net_hist_sum reads it
NET_HIST_DIR=$NET_TMP/0
hist_all H0

xfer_ok=0
{ net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" $((4 << 20)) 5201 3 && net_tcp_wait bulk 300; } || xfer_ok=1
# One interrupt of each of B's queues lost, then traffic on both queues
# (64 UDP flows spread by RSS); the service task finds what waits.
for ((q = 0; q < QUEUES; q++)); do
	ip netns exec "$NS_B" "$CTL" fault set "$DEV_B" lose-irq queue "$q" count 1 >/dev/null || xfer_ok=1
done
net_tool "$NS_A" udp-flows --src "$V4_A" --dst "$V4_B" --flows 64 --vary >/dev/null || xfer_ok=1
for args in "$NS_A $V4_B" "$NS_B $V4_A" "$NS_A $V6_B" "$NS_B $V6_A"; do
	set -- $args
	ip netns exec "$1" ping -q -c 5 -i 0.05 -W 5 "$2" >/dev/null || xfer_ok=1
done
struck() { [ "$(mcount "$MODEL_B" vec0.lost)" -ge 1 ] && [ "$(mcount "$MODEL_B" vec1.lost)" -ge 1 ]; }
wait_until 30 struck || net_msg "lose-irq did not strike on both of B's queues"
# B down and up: its rings drain to page_pool.
net_settle
ip -n "$NS_B" link set "$DEV_B" down && ip -n "$NS_B" link set "$DEV_B" up &&
	net_wait_link "$NS_B" "$DEV_B" up && net_wait_link "$NS_A" "$DEV_A" up || xfer_ok=1
net_settle
snap 1 || net_bail "cannot read the counters"
declare -A H1
hist_snap 1 || net_bail "cannot read the histograms"
# shellcheck disable=SC2034 # net_hist_sum reads it
NET_HIST_DIR=$NET_TMP/1
hist_all H1
ktap_test_result "4 MiB TCP, UDP flows, pings both ways; B down and up" [ "$xfer_ok" = 0 ]

# The histograms as read at the end, for the log of a failure.
hist_show() { # hist_show EVENT...
	local e
	for e in "$@"; do
		grep -v '^#\?$' "$NET_TMP/1/$e" | sed "s/^/# $e: /"
	done
}

# agree NAME PREDICTED TRACED...: one comparison, logged when it fails.
BAD=()
agree() {
	[ "$2" = "$3" ] || BAD+=("$1: counters say $2, the trace $3")
}
hd() { echo $((H1[$1] - H0[$1])); }

check_device() {
	local p m q
	BAD=()
	for p in A B; do
		[ "$p" = A ] && m=ma || m=mb
		for ((q = 0; q < QUEUES; q++)); do
			agree "$p txq$q doorbells" "$(delta $m "txq$q.doorbells")" "$(hd "$p.db.tx.$q")"
			agree "$p rxq$q doorbells" "$(delta $m "rxq$q.doorbells")" "$(hd "$p.db.rx.$q")"
			agree "$p rxq$q cq_doorbells" "$(delta $m "rxq$q.cq_doorbells")" "$(hd "$p.db.cq.$q")"
			agree "$p txq$q desc_fetched" "$(delta $m "txq$q.desc_fetched")" "$(hd "$p.txf.$q")"
			agree "$p txq$q desc_written" "$(delta $m "txq$q.desc_written")" "$(hd "$p.txd.$q")"
			agree "$p rxq$q desc_fetched" "$(delta $m "rxq$q.desc_fetched")" "$(hd "$p.rxf.$q")"
			agree "$p rxq$q cmpl_written" "$(delta $m "rxq$q.cmpl_written")" "$(hd "$p.cmpl.$q")"
			agree "$p rxq$q hdr_split" "$(delta $m "rxq$q.hdr_split")" "$(hd "$p.split.$q")"
			agree "$p rxq$q gro_runs" "$(delta $m "rxq$q.gro_runs")" "$(hd "$p.gro.$q")"
			agree "$p rxq$q gro_segs" "$(delta $m "rxq$q.gro_segs")" "$(hd "$p.grosegs.$q")"
			agree "$p vec$q raised" "$(delta $m "vec$q.raised")" "$(hd "$p.irq.$q")"
			agree "$p vec$q lost" "$(delta $m "vec$q.lost")" "$(hd "$p.lost.$q")"
			agree "$p vec$q moderated" "$(delta $m "vec$q.moderated")" "$(hd "$p.mod.$q")"
		done
		agree "$p resets" "$(delta $m resets)" "$(hd "$p.reset")"
	done
	# Not vacuous: B split headers and ran hardware GRO. (No reset: the
	# driver resets a device only when a queue will not stop; wedge.sh.)
	[ $(($(hd B.split.0) + $(hd B.split.1))) -gt 0 ] || BAD+=("B split no header")
	[ $(($(hd B.gro.0) + $(hd B.gro.1))) -gt 0 ] || BAD+=("B ran no hardware GRO")
	[ "${#BAD[@]}" = 0 ] && return 0
	printf '# %s\n' "${BAD[@]}"
	hist_show refnic_hw_rx_cmpl refnic_hw_doorbell
	return 1
}
ktap_test_result "device events: doorbells, descriptors, completions, split, GRO, interrupts, moderation, resets" check_device

check_faults() {
	local q n
	BAD=()
	for ((q = 0; q < QUEUES; q++)); do
		n=$(ip netns exec "$NS_B" "$CTL" fault show "$DEV_B" |
			sed -n "s/.*: queue $q lose-irq .*injected \([0-9]*\)$/\1/p")
		agree "B queue $q lose-irq injected" "${n:-0}" "$(hd "B.fault.$q")"
	done
	[ "${#BAD[@]}" = 0 ] || printf '# %s\n' "${BAD[@]}"
	[ "${#BAD[@]}" = 0 ] && [ "$(hd B.fault.0)" -ge 1 ]
}
ktap_test_result "refnic_hw_fault: one event per strike refnicctl fault show counts" check_faults

check_napi() {
	local p e q
	BAD=()
	for p in A B; do
		[ "$p" = A ] && e=ea || e=eb
		for ((q = 0; q < QUEUES; q++)); do
			agree "$p q${q}_polls" "$(delta $e "q${q}_polls")" "$(hd "$p.polls.$q")"
			agree "$p q${q}_unmasks" "$(delta $e "q${q}_unmasks")" "$(hd "$p.rearm.$q")"
			agree "$p q${q}_full_polls" "$(delta $e "q${q}_full_polls")" "$(hd "$p.full.$q")"
			agree "$p q${q} polls with budget $WEIGHT (napi_weight)" \
				"$(delta $e "q${q}_polls")" "$(hd "$p.budget.$q")"
		done
	done
	[ "${#BAD[@]}" = 0 ] && [ "$(hd A.polls.0)" -gt 0 ] && return 0
	printf '# %s\n' "${BAD[@]}"
	hist_show refnic_napi_poll
	return 1
}
ktap_test_result "refnic_napi_poll: polls, unmasks and full polls of ethtool -S, each poll's budget the NAPI weight" check_napi

check_irq_mask() {
	local p e q
	BAD=()
	# Every unmask NAPI counts is an INTR_UNMASK write the device sees
	# (a vector coming up is unmasked by its first poll).
	for p in A B; do
		[ "$p" = A ] && e=ea || e=eb
		for ((q = 0; q < QUEUES; q++)); do
			agree "$p q${q}_unmasks" "$(delta $e "q${q}_unmasks")" "$(hd "$p.unmask.$q")"
		done
	done
	[ "${#BAD[@]}" = 0 ] || printf '# %s\n' "${BAD[@]}"
	[ "${#BAD[@]}" = 0 ]
}
ktap_test_result "refnic_hw_irq_mask: one unmask write per unmask the driver counts" check_irq_mask

check_rings() {
	local p e m q up
	BAD=()
	for p in A B; do
		[ "$p" = A ] && e=ea m=ma up=0 || e=eb m=mb up=1
		for ((q = 0; q < QUEUES; q++)); do
			# rxN_doorbells counts NAPI's CQ head writes too; B's
			# up writes each queue's tail and CQ head once more.
			agree "$p refills (model rxq$q.doorbells)" \
				"$(($(delta $m "rxq$q.doorbells") - up))" "$(hd "$p.refill.$q")"
			agree "$p rx${q}_doorbells" "$(delta $e "rx${q}_doorbells")" \
				"$(($(hd "$p.refill.$q") + $(delta $m "rxq$q.cq_doorbells") - up))"
			agree "$p tx${q}_wakes" "$(delta $e "tx${q}_wakes")" "$(hd "$p.wakes.$q")"
			# B's down counts what its drain reclaims, untraced.
			[ "$p" = B ] ||
				agree "$p tx${q}_packets" "$(delta $e "tx${q}_packets")" "$(hd "$p.txp.$q")"
		done
	done
	agree "B rx_release_calls" "$(delta eb rx_release_calls)" "$(($(hd B.relcalls.0) + $(hd B.relcalls.1)))"
	agree "B rx_release_calls (drains)" "$(delta eb rx_release_calls)" \
		"$(($(hd B.draincalls.0) + $(hd B.draincalls.1)))"
	agree "B rx_released (drains)" "$(delta eb rx_released)" \
		"$(($(hd B.drainbufs.0) + $(hd B.drainbufs.1)))"
	[ "${#BAD[@]}" = 0 ] && [ "$(delta eb rx_release_calls)" -gt 0 ] && return 0
	printf '# %s\n' "${BAD[@]}"
	hist_show refnic_rx_refill refnic_rx_release refnic_rx_drain refnic_tx_clean
	return 1
}
ktap_test_result "refnic_rx_refill, refnic_tx_clean, refnic_rx_release: doorbells, packets, wakes, release calls and pages" check_rings
# No net_health_test: the lost interrupts are counted in lost_irqs on
# purpose (rx_stall.sh checks the recovery).
ktap_finished
