#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make run` (scripts/demo.sh): a refnic pair with one end
# in each of two network namespaces carries ping and a TCP stream, then its
# per-queue counters (the driver's, and the device model's via refnicctl),
# the link model at work, its interrupts and netdev-netlink view are shown,
# then a devmem TCP transfer (on 7.3 also io_uring zero-copy receive and
# devmem TX) and a kernel-bypass queue receiving.
#
#   demo-guest.sh REPO    (root, in the VM; IP_LIB_DIR names the plugin dir,
#                         REFNIC_KO the module, REFNIC_KERNEL its series)
set -euo pipefail

repo=$1
ko=${REFNIC_KO:?set by scripts/demo.sh}
ynl=$repo/build/linux-source/tools/net/ynl/cli.py
spec=$repo/build/linux-source/Documentation/netlink/specs/netdev.yaml
queues=2
refnicctl=$repo/build/cmake/tools/refnicctl/refnicctl
devmem=$repo/build/cmake/tools/refnic-devmem/refnic-devmem
bypass=$repo/build/cmake/tools/refnic-bypass/refnic-bypass
ethtool_hds=$repo/build/bin/ethtool

say() { printf '\n== %s\n' "$*"; }
in_a() { ip netns exec demo-a "$@"; }
in_b() { ip netns exec demo-b "$@"; }
# send32 PORT: the stream refnic-devmem -v 7 validates, 32 MiB, demo-a to r1.
send32() {
	in_a sh -c "yes \"\$(printf '\\001\\002\\003\\004\\005\\006')\" | tr '\\n' '\\0' |
		head -c $((32 << 20)) | socat -u - TCP4:10.99.0.2:$1"
}
# wait_listening FILE: until the receiver writing FILE says it listens.
wait_listening() {
	for _ in $(seq 300); do
		grep -q listening "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# 7.x: devmem TX too, which refnic offers only when asked (docs/devmem.md).
params=()
[ "${REFNIC_KERNEL:-}" = 6.12 ] || params=(devmem_tx=1)
say "kernel ${REFNIC_KERNEL:-?} ($(uname -r)); loading $ko ${params[*]}"
modinfo "$ko" | grep -E '^(version|description):'
insmod "$ko" "${params[@]}"

say "ip link add r0 type refnic queues $queues peer name r1 netns demo-b"
ip -batch - <<EOF
netns add demo-a
netns add demo-b
EOF
ip -n demo-a link add r0 type refnic queues "$queues" peer name r1 netns demo-b
ip -n demo-a -batch - <<EOF
addr add 10.99.0.1/24 dev r0
link set lo up
link set r0 up
EOF
ip -n demo-b -batch - <<EOF
addr add 10.99.0.2/24 dev r1
link set lo up
link set r1 up
EOF
for _ in $(seq 100); do
	[ "$(in_a cat /sys/class/net/r0/carrier 2>/dev/null)" = 1 ] &&
		[ "$(in_b cat /sys/class/net/r1/carrier 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
ip -n demo-a -d link show r0 | sed 's/^/  /'
ip -n demo-b -d link show r1 | sed 's/^/  /'
in_a ethtool -g r0 | sed -n '/^Current/,$p' | sed 's/^/  /'

say "ping -c 3 10.99.0.2 (demo-a -> demo-b)"
in_a ping -c 3 -i 0.2 10.99.0.2 | sed 's/^/  /'

say "TCP: iperf3, 4 streams for 4 s, demo-a -> demo-b (TCG: absolute numbers mean little)"
in_b iperf3 -s -1 -D -I /tmp/demo-iperf.pid
sleep 1
in_a iperf3 -c 10.99.0.2 -P 4 -t 4 -f m | grep -E 'SUM.*(sender|receiver)' | sed 's/^/  /'

# ethtool -S of one end as a table: one row per queue.
per_queue() { # per_queue NS DEV
	ip netns exec "$1" ethtool -S "$2" | awk -v q="$queues" '
		{ gsub(/^ +|:/, ""); v[$1] = $2 }
		END {
			printf "  %-5s %9s %11s %6s %8s %9s %8s %7s %7s %10s\n",
				"queue", "rx pkts", "rx bytes", "nobuf", "rx dbell",
				"tx pkts", "tx dbell", "irqs", "polls", "full polls"
			for (i = 0; i < q; i++)
				printf "  %-5d %9d %11d %6d %8d %9d %8d %7d %7d %10d\n", i,
					v["rx" i "_packets"], v["rx" i "_bytes"], v["rx" i "_nobuf"],
					v["rx" i "_doorbells"], v["tx" i "_packets"],
					v["tx" i "_doorbells"], v["q" i "_irqs"], v["q" i "_polls"],
					v["q" i "_full_polls"]
			printf "  MMIO reads on the hot path: %d (completions are read from host memory)\n",
				v["mmio_reads_hot"]
		}'
}
say "per-queue counters of r0 (sender), from ethtool -S"
per_queue demo-a r0
say "per-queue counters of r1 (receiver)"
per_queue demo-b r1

say "the device model's own counters of r1 (refnicctl stats show r1)"
in_b "$refnicctl" stats show r1 | sed 's/^/  /'

say "the link model: refnicctl link set r0 latency 5ms, then ping (about 5 ms more RTT)"
in_a "$refnicctl" link set r0 latency 5ms
in_a "$refnicctl" link show r0 | sed 's/^/  /'
in_a ping -c 3 -i 0.2 10.99.0.2 | tail -n 1 | sed 's/^/  /'
in_a "$refnicctl" link set r0 latency 0

say "interrupts: one vector per queue pair plus one for the device (/proc/interrupts)"
grep -E 'CPU|refnic|r[01]-' /proc/interrupts | sed 's/^/  /'

say "netdev netlink (ynl): r1's queues, their NAPI instances and page pools"
ifindex=$(in_b cat /sys/class/net/r1/ifindex)
in_b python3 "$ynl" --spec "$spec" --dump queue-get \
	--json "{\"ifindex\": $ifindex}" | sed 's/^/  /'
in_b python3 "$ynl" --spec "$spec" --dump page-pool-get | sed 's/^/  /'

say "devmem TCP: header split on, RSS on queue 0, port 5201 steered to queue 1"
in_b "$ethtool_hds" -G r1 tcp-data-split on
in_b ethtool -X r1 equal 1
in_b ethtool -N r1 flow-type tcp4 dst-port 5201 action 1
in_b "$ethtool_hds" -g r1 | grep 'TCP data split' | sed 's/^/  /'
say "refnic-devmem binds a udmabuf to r1's queue 1; 32 MiB from demo-a land in it, validated"
in_b "$devmem" rx -f r1 -t 1 -p 5201 -s 10.99.0.2 -v 7 >/tmp/demo-devmem.out 2>&1 &
devmem_pid=$!
wait_listening /tmp/demo-devmem.out
send32 5201
wait "$devmem_pid"
sed 's/^/  /' /tmp/demo-devmem.out
say "r1's header-split and devmem counters (ethtool -S)"
in_b ethtool -S r1 | grep -E 'rx[0-9]+_(packets|hds_split|hds_unparsed|hdr_pages|devmem_bytes|devmem_unsplit):' |
	sed 's/^ */  /'

say "kernel bypass: refnic-bypass takes r1's queue pair 1 out of the stack (/dev/refnic); UDP port 9000 steered there"
in_b ethtool -N r1 flow-type udp4 dst-port 9000 action 1
in_b "$bypass" rx -i r1 -q 1 --count 40000 --duration 30 --verify --json >/tmp/demo-bypass.json 2>/tmp/demo-bypass.err &
bypass_pid=$!
sleep 1
say "refnic-bypass tx on r0's queue pair 1 sends 40000 64-byte frames from user memory, 20000 a second; r1's session receives and verifies them"
in_a "$bypass" tx -i r0 -q 1 --dst-mac "$(in_b cat /sys/class/net/r1/address)" \
	--src-ip 10.99.0.1 --dst-ip 10.99.0.2 --dst-port 9000 --count 40000 --rate 20000 --quiet
wait "$bypass_pid"
sed 's/^/  /' /tmp/demo-bypass.err
say "the session's counters, kept by the kernel (REFNIC_BYPASS_IOC_STATS)"
python3 - /tmp/demo-bypass.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['session']
n = max(s['rx_frames'], 1)
print('  frames %d, bytes %d; fill-ring acquisitions %d (%.1f buffers each), '
      'RX doorbells %d (%.2f per frame),' % (
          s['rx_frames'], s['rx_bytes'], s['fill_batches'],
          s['fill_bufs'] / max(s['fill_batches'], 1), s['rx_doorbells'],
          s['rx_doorbells'] / n))
print('  interrupts %d (%.3f per frame), NAPI polls %d, kicks %d; entries '
      'refused: %d' % (s['irqs'], s['irqs'] / n, s['polls'], s['kicks'],
                       sum(s[k] for k in ('bad_addr', 'bad_align', 'bad_len',
                                          'bad_flags', 'dup_buf',
                                          'bad_index'))))
PYEOF

if [ "${REFNIC_KERNEL:-}" != 6.12 ]; then
	say "io_uring zero-copy receive (7.3): refnic-devmem zcrx registers 32 MiB of its own memory for r1's queue 1; 32 MiB land in it, validated"
	in_b "$devmem" zcrx -f r1 -t 1 -p 5201 -s 10.99.0.2 -v 7 >/tmp/demo-zcrx.out 2>&1 &
	zcrx_pid=$!
	wait_listening /tmp/demo-zcrx.out
	send32 5201
	wait "$zcrx_pid"
	sed 's/^/  /' /tmp/demo-zcrx.out

	say "devmem TX (7.3): refnic-devmem tx sends 32 MiB from a udmabuf bound to r0, the NIC reading the payload out of it; a plain socket on r1 receives (port 5202, RSS)"
	in_b sh -c 'socat -u TCP4-LISTEN:5202,reuseaddr - | sha256sum' >/tmp/demo-tx-rx.sum &
	rx_pid=$!
	for _ in $(seq 150); do
		in_b ss -Hltn 'sport = :5202' | grep -q LISTEN && break
		sleep 0.2
	done
	in_a "$devmem" tx -f r0 -s 10.99.0.2 -p 5202 -v 7 --bytes $((32 << 20)) 2>&1 | sed 's/^/  /'
	wait "$rx_pid"
	# yes dies of SIGPIPE once head has its bytes: no pipefail here.
	want=$(
		set +o pipefail
		yes "$(printf '\001\002\003\004\005\006')" | tr '\n' '\0' | head -c $((32 << 20)) | sha256sum
	)
	if [ "$(cat /tmp/demo-tx-rx.sum)" = "$want" ]; then
		echo "  r1 received the 32 MiB intact (sha256 as generated)"
	else
		echo "  r1 received something else: $(cat /tmp/demo-tx-rx.sum)"
		exit 1
	fi
	in_a ethtool -S r0 | grep -E 'tx[0-9]+_(packets|dma_bytes|devmem_bytes):' | sed 's/^ */  /'
fi

say "ip -s link show r1"
ip -n demo-b -s link show r1 | sed 's/^/  /'

say "ip link del r0 (removes both ends); rmmod refnic"
ip -n demo-a link del r0
ip netns del demo-a
ip netns del demo-b
for _ in $(seq 50); do
	rmmod refnic 2>/dev/null && break
	sleep 0.1
done
if grep -q '^refnic ' /proc/modules; then
	echo "refnic is still loaded"
	exit 1
fi
if dmesg | grep -E 'WARNING:|BUG:|Oops|refcount_t:|DMA-API:'; then
	echo "kernel log shows a problem (above)"
	exit 1
fi
echo "  unloaded; kernel log clean"
