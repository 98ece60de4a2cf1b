#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A queue vector's interrupts are delivered on the CPU its affinity names.
# Each port has two queue pairs; their vectors (<dev>-q0, <dev>-q1 in
# /proc/interrupts) are pinned through /proc/irq/N/smp_affinity, q0 to one
# CPU and q1 to the other, then swapped. After UDP flows both ways (spread
# over both queues by RSS) every vector's count grew, and only in the
# column of the CPU it is pinned to.
set -u
. "$(dirname "$0")/lib_net.sh"

ktap_print_header
[ "$(nproc)" -ge 2 ] || net_skip_all "needs at least 2 CPUs, have $(nproc)"
net_init
ktap_set_plan 7
net_setup queues 2
net_static_neigh

read -r -a CPUS <<<"$(net_irq_cpus)"
declare -A IRQ
for v in "$DEV_A-q0" "$DEV_A-q1" "$DEV_B-q0" "$DEV_B-q1"; do
	IRQ[$v]=$(net_irq_of "$v")
done
found=1
for v in "${!IRQ[@]}"; do
	[ -n "${IRQ[$v]}" ] || { net_msg "no IRQ named $v in /proc/interrupts"; found=0; }
done
net_msg "vectors: $(for v in "${!IRQ[@]}"; do printf '%s=%s ' "$v" "${IRQ[$v]}"; done)"
ktap_test_result "each queue vector is in /proc/interrupts by name" [ "$found" = 1 ]
[ "$found" = 1 ] || ktap_exit_fail_msg "cannot find the queue vectors"

# pin Q0_CPU Q1_CPU: q0 vectors of both ports to the first, q1 to the second.
pin() {
	local c0=$1 c1=$2 v cpu ok=0 got eff
	for v in "${!IRQ[@]}"; do
		case $v in *-q0) cpu=$c0 ;; *) cpu=$c1 ;; esac
		printf '%x\n' $((1 << cpu)) >"/proc/irq/${IRQ[$v]}/smp_affinity" ||
			{ net_msg "$v: cannot write smp_affinity"; ok=1; continue; }
		got=$(cat "/proc/irq/${IRQ[$v]}/smp_affinity_list")
		eff=$(cat "/proc/irq/${IRQ[$v]}/effective_affinity_list" 2>/dev/null)
		if [ "$got" != "$cpu" ] || { [ -n "$eff" ] && [ "$eff" != "$cpu" ]; }; then
			net_msg "$v: affinity list '$got', effective '$eff', want $cpu"
			ok=1
		fi
	done
	return "$ok"
}

# traffic_check Q0_CPU Q1_CPU: flows both ways; every vector grew, only in
# its CPU's column.
traffic_check() {
	local c0=$1 c1=$2 v cpu col rx_a rx_b ok=0
	declare -A before after
	for v in "${!IRQ[@]}"; do before[$v]=$(net_irq_counts "${IRQ[$v]}"); done
	rx_a=$(net_link_stat "$NS_A" "$DEV_A" rx_packets)
	rx_b=$(net_link_stat "$NS_B" "$DEV_B" rx_packets)
	net_tool "$NS_A" udp-flows --src "$V4_A" --dst "$V4_B" --flows 32 --count 8 \
		--dport 7777 >/dev/null || { net_msg "A -> B flows failed"; ok=1; }
	net_tool "$NS_B" udp-flows --src "$V4_B" --dst "$V4_A" --flows 32 --count 8 \
		--dport 7777 >/dev/null || { net_msg "B -> A flows failed"; ok=1; }
	# Each port has taken at least 256 frames (the datagrams sent to it, and
	# perhaps a few ICMP errors for the other way): its vectors fired.
	net_wait_link_stat "$NS_A" "$DEV_A" rx_packets $((rx_a + 256)) &&
		net_wait_link_stat "$NS_B" "$DEV_B" rx_packets $((rx_b + 256)) ||
		net_msg "datagrams missing: rx_packets A +$(($(net_link_stat "$NS_A" "$DEV_A" rx_packets) - rx_a)), B +$(($(net_link_stat "$NS_B" "$DEV_B" rx_packets) - rx_b))"
	for v in "${!IRQ[@]}"; do after[$v]=$(net_irq_counts "${IRQ[$v]}"); done
	for v in "${!IRQ[@]}"; do
		case $v in *-q0) cpu=$c0 ;; *) cpu=$c1 ;; esac
		local -a b a
		read -r -a b <<<"${before[$v]}"
		read -r -a a <<<"${after[$v]}"
		local grew_on=() col_cpu
		for ((col = 0; col < ${#CPUS[@]}; col++)); do
			col_cpu=${CPUS[col]}
			if [ "${a[col]}" -gt "${b[col]}" ]; then
				grew_on+=("CPU$col_cpu+$((a[col] - b[col]))")
				[ "$col_cpu" = "$cpu" ] || ok=1
			fi
		done
		net_msg "$v (IRQ ${IRQ[$v]}, pinned to CPU$cpu): grew on ${grew_on[*]:-no CPU}"
		[ "${#grew_on[@]}" -gt 0 ] || ok=1
	done
	return "$ok"
}

ktap_test_result "pin q0 vectors to CPU${CPUS[0]}, q1 to CPU${CPUS[1]}" pin "${CPUS[0]}" "${CPUS[1]}"
ktap_test_result "interrupts follow: q0 only on CPU${CPUS[0]}, q1 only on CPU${CPUS[1]}" \
	traffic_check "${CPUS[0]}" "${CPUS[1]}"
ktap_test_result "swap: q0 vectors to CPU${CPUS[1]}, q1 to CPU${CPUS[0]}" pin "${CPUS[1]}" "${CPUS[0]}"
ktap_test_result "interrupts follow: q0 only on CPU${CPUS[1]}, q1 only on CPU${CPUS[0]}" \
	traffic_check "${CPUS[1]}" "${CPUS[0]}"
ktap_test_result "traffic still flows (ping both ways)" \
	eval "ip netns exec $NS_A ping -q -c 3 -i 0.1 -W 5 $V4_B >/dev/null && ip netns exec $NS_B ping -q -c 3 -i 0.1 -W 5 $V4_A >/dev/null"
net_health_test
ktap_finished
