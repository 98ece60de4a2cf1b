#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The counters tell one story. Around bulk TCP (64 MiB A -> B, 16 on the
# debug kernel, verified) and then mixed traffic (64 UDP flows A -> B, a UDP
# burst B -> A, pings both ways, IPv4 and IPv6), each port's packet and byte
# totals read the same in ip -s link, the sums of ethtool -S rxN_/txN_
# counters, qstats of the device and the sum of per-queue qstats (netdev
# netlink qstats-get), and each queue's ethtool -S counters equal its
# qstats. Every frame one port sent the other received or counted as
# dropped, and byte for byte when nothing was dropped (drops themselves are
# tcp_integrity.sh's business). The hot path reads no register: the driver's
# count of register reads made in IRQ or softirq context (ethtool -S
# mmio_reads_hot) does not move with traffic (and is zero). Under bulk load
# the queue vectors fire less than once per packet (RX plus TX), counted by
# /proc/interrupts and by the driver.
set -u
. "$(dirname "$0")/lib_net.sh"

ktap_print_header
net_init
ktap_set_plan 7
net_setup queues 4
net_quiet_v6
net_static_neigh
net_settle

snap() { # snap N: stats-all of both ports
	net_tool "$NS_A" stats-all "$DEV_A" >"$NET_TMP/a$1.json" 2>"$NET_TMP/a$1.err" &&
		net_tool "$NS_B" stats-all "$DEV_B" >"$NET_TMP/b$1.json" 2>"$NET_TMP/b$1.err" ||
		{ cat "$NET_TMP/a$1.err" "$NET_TMP/b$1.err" | sed 's/^/# /'; return 1; }
}

snap 0 || ktap_exit_fail_msg "cannot read the counters"
xfer_ok=0
# 16 MiB on the debug kernel, where TCP under TCG moves a few MiB a minute.
BULK_MIB=64
[ "$REFNIC_DEBUG_KERNEL" = 1 ] && BULK_MIB=16
{ net_tcp_start bulk "$NS_A" "$NS_B" "$V4_B" $((BULK_MIB << 20)) 5201 6 &&
	net_tcp_wait bulk 300; } || xfer_ok=1
net_settle
snap 1 || ktap_exit_fail_msg "cannot read the counters"
ktap_test_result "$BULK_MIB MiB TCP A -> B intact" [ "$xfer_ok" = 0 ]

mixed_ok=0
net_tool "$NS_A" udp-flows --src "$V4_A" --dst "$V4_B" --flows 64 --vary >/dev/null || mixed_ok=1
net_tool "$NS_B" udp-blast --dst "$V6_A" --count 500 --size 200 --burst 20 --gap 0.01 >/dev/null || mixed_ok=1
for args in "$NS_A $V4_B" "$NS_B $V4_A" "$NS_A $V6_B" "$NS_B $V6_A"; do
	set -- $args
	ip netns exec "$1" ping -q -c 5 -i 0.05 -W 5 "$2" >/dev/null || mixed_ok=1
done
# The counters are read from four sources one after the other: only once
# no frame moves do they all describe the same moment.
net_settle
snap 2 || ktap_exit_fail_msg "cannot read the counters"
ktap_test_result "mixed UDP and ICMP traffic passes" [ "$mixed_ok" = 0 ]

# Its status is the checks' to judge, from the JSON on its last line.
out=$(python3 "$NETTOOL" reconcile --a "$NET_TMP"/a{0,1,2}.json --b "$NET_TMP"/b{0,1,2}.json 2>&1)
grep '^nettool:' <<<"$out" | sed 's/^nettool: /# /'
echo "${out##*$'\n'}" >"$NET_TMP/reconcile.json"
none() { [ "$(jget "$NET_TMP/reconcile.json" "len(d['errors']['$1'])")" = 0 ]; }
ktap_test_result "ip -s link, ethtool -S sums and qstats (device, per queue) agree on both ports" none totals
ktap_test_result "each port received or counted as dropped what the other sent" none wire
hot_zero() { # mmio_reads_hot did not move, and is zero
	none hot && [ "$(jget "$NET_TMP/reconcile.json" "set(d['hot_values']) == {0}")" = True ]
}
ktap_test_result "no register read on the hot path (mmio_reads_hot: $(jget "$NET_TMP/reconcile.json" "d['hot_values']"))" hot_zero
ktap_test_result "under bulk load, fewer interrupts than packets on each port" none irq
net_health_test
ktap_finished
