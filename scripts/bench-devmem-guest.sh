#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The devmem part of `make bench` (run by scripts/bench-guest.py in the VM):
# normal TCP receive against devmem receive over one refnic pair, side by
# side. B has header split on, RSS on queue 0 and both flows steered to
# queue 1; the receivers run on CPU 1, the senders on CPU 0. Normal receive
# is recv() into a 1 MiB buffer (the payload copied to user memory);
# devmem receive is refnic-devmem (payload left in the udmabuf, tokens
# returned in batches, no validation so that it never reads the payload).
# Per round and mode: receiver CPU seconds (user + system, getrusage) per
# GiB and throughput; then the medians and devmem/normal ratios. Goal
# (issue 5): devmem receiver CPU per GiB <= 0.7x normal receive.
#
#   bench-devmem-guest.sh REPO [ROUNDS] [MIB]    (root, in the VM)
set -euo pipefail

repo=$1
rounds=${2:-3}
mib=${3:-128}
devmem=$repo/build/cmake/tools/refnic-devmem/refnic-devmem
ethtool_hds=$repo/build/bin/ethtool
a=bdm-a b=bdm-b
tmp=$(mktemp -d /tmp/bench-devmem.XXXXXX)

cleanup() {
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

ip netns add "$a"
ip netns add "$b"
ip -n "$a" link add bd0 type refnic queues 2 peer name bd1 netns "$b"
ip -n "$a" addr add 10.98.0.1/24 dev bd0
ip -n "$b" addr add 10.98.0.2/24 dev bd1
ip -n "$a" link set bd0 up
ip -n "$b" link set bd1 up
for _ in $(seq 100); do
	[ "$(ip netns exec "$b" cat /sys/class/net/bd1/carrier 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
ip netns exec "$b" "$ethtool_hds" -G bd1 tcp-data-split on
ip netns exec "$b" ethtool -X bd1 equal 1
ip netns exec "$b" ethtool -N bd1 flow-type tcp4 dst-port 5301 action 1 >/dev/null
ip netns exec "$b" ethtool -N bd1 flow-type tcp4 dst-port 5302 action 1 >/dev/null
ip netns exec "$a" ping -q -c 2 -w 10 10.98.0.2 >/dev/null

send() { # send PORT
	ip netns exec "$a" taskset -c 0 sh -c \
		"head -c $((mib << 20)) /dev/zero | socat -u - TCP4:10.98.0.2:$1"
}

wait_listen() { # wait_listen PORT
	for _ in $(seq 300); do
		ip netns exec "$b" ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	echo "bench-devmem: nothing listens on $1" >&2
	return 1
}

# normal: prints "cpu_seconds bytes seconds"
normal() {
	ip netns exec "$b" taskset -c 1 python3 - <<'PY' >"$tmp/normal" &
import resource, socket, time
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(('10.98.0.2', 5301))
ls.listen(1)
c, _ = ls.accept()
buf = memoryview(bytearray(1 << 20))
n = 0
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.monotonic()
while True:
    k = c.recv_into(buf)
    if not k:
        break
    n += k
t = time.monotonic() - t0
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(cpu, n, t)
PY
	local pid=$!
	wait_listen 5301
	send 5301
	wait "$pid"
	cat "$tmp/normal"
}

devmem_rx() {
	ip netns exec "$b" taskset -c 1 "$devmem" rx -i bd1 -q 1 -p 5302 -l 10.98.0.2 \
		-r batched -j >"$tmp/devmem" 2>"$tmp/devmem.err" &
	local pid=$!
	wait_listen 5302
	send 5302
	wait "$pid" || { cat "$tmp/devmem.err" >&2; return 1; }
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["cpu_user_seconds"] + d["cpu_system_seconds"], d["bytes"], d["seconds"])' "$tmp/devmem"
}

: >"$tmp/rows"
for ((r = 1; r <= rounds; r++)); do
	for mode in normal devmem; do
		if [ "$mode" = normal ]; then out=$(normal); else out=$(devmem_rx); fi
		echo "$mode $out" >>"$tmp/rows"
		echo "bench-devmem: round $r $mode: $out (cpu s, bytes, s)" >&2
	done
done

python3 - "$tmp/rows" "$mib" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode, cpu, n, t = line.split()
    rows.setdefault(mode, []).append((float(cpu), int(n), float(t)))
gib = lambda n: n / (1 << 30)
def med(mode, f):
    return statistics.median(f(*x) for x in rows[mode])
cpu = {m: med(m, lambda c, n, t: c / gib(n)) for m in rows}
tput = {m: med(m, lambda c, n, t: n * 8 / t / 1e9) for m in rows}
print()
print('devmem receive against normal receive: one refnic pair, header split on, '
      'the flow steered to queue 1, receiver on CPU 1; %s MiB per round, '
      '%d rounds, medians' % (sys.argv[2], len(rows['normal'])))
print('%-22s %18s %16s' % ('receiver', 'CPU s per GiB', 'Gbit/s'))
print('-' * 58)
for m, name in (('normal', 'normal (recv, copy)'), ('devmem', 'devmem (refnic-devmem)')):
    print('%-22s %18.3f %16.3f' % (name, cpu[m], tput[m]))
r = cpu['devmem'] / cpu['normal'] if cpu['normal'] else float('nan')
print('devmem/normal: CPU per GiB %.2fx (goal <= 0.7x: %s), throughput %.2fx' % (
    r, 'meets' if r <= 0.7 else 'below', tput['devmem'] / tput['normal']))
PY
