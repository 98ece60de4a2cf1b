#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The devmem part of `make bench` (run by scripts/bench-guest.py in the VM):
# normal TCP receive against devmem receive over one refnic pair, side by
# side. B has header split on, RSS on queue 0 and the flows steered to
# queue 1; the receivers run on CPU 1, the senders on CPU 0. Normal receive
# is recv() into a 1 MiB buffer (the payload copied to user memory);
# devmem receive is refnic-devmem (payload left in the udmabuf, no
# validation so that it never reads the payload), once releasing tokens one
# frag per SO_DEVMEM_DONTNEED as ncdevmem does and once in batches. Each
# round runs every receiver with rx-gro-hw off, then normal and batched
# devmem again with it on (devmem NICs coalesce; fewer, larger skbs leave
# the copy a larger share of the receiver's work).
# On 7.x two more receivers and a sender pair join: io_uring zero-copy
# receive (refnic-devmem zcrx into its own memory, GRO off and on), and on
# the sending side devmem TX (refnic-devmem tx from a udmabuf, the port
# plugged in with devmem_tx=1) against send() from user memory, each
# sender's own CPU measured, into a normal receiver.
# Per round and receiver: CPU seconds (user + system, getrusage) per GiB,
# syscalls per GiB and throughput; then the medians and ratios. Goals
# (issue 5): devmem receiver CPU per GiB <= 0.7x normal receive; >= 8x
# fewer syscalls than per-frag release; (issue 15) zcrx receiver CPU per
# GiB <= 0.6x normal receive and <= devmem's.
#
#   bench-devmem-guest.sh REPO [ROUNDS] [MIB]    (root, in the VM)
#
# BENCH_DEVMEM_RUNS="off:normal off:zcrx" runs only those (rx-gro-hw:mode;
# default all); BENCH_DEVMEM_PROFILE="off:normal off:zcrx" samples every
# CPU with perf (cpu-clock, scripts/benchprof.py's kinds of work) while the
# first round's receiver runs named there transfer, and reports the
# receiver's CPU and the interrupt's (which also runs the sender) by kind
# and symbol.
set -euo pipefail

repo=$1
rounds=${2:-3}
mib=${3:-128}
devmem=$repo/build/cmake/tools/refnic-devmem/refnic-devmem
ethtool_hds=$repo/build/bin/ethtool
a=bdm-a b=bdm-b
tmp=$(mktemp -d /tmp/bench-devmem.XXXXXX)
# zcrx and devmem TX are Linux 7.x's.
zc=0
[ "$(uname -r | cut -d. -f1)" -ge 7 ] && zc=1
param=/sys/module/refnic/parameters/devmem_tx
tx_was=$(cat "$param" 2>/dev/null || echo N)

# page_pool's put paths, where a returned buffer may take the pool's ring
# lock (page_pool_put_unrefed_netmem: one buffer; the bulk call: many, the
# lock once): kprobes, counting only, in a trace instance of their own.
trace=/sys/kernel/tracing
probes=()
pp_instance=$trace/instances/bench_devmem_$$
pp_probes_add() {
	local p
	[ -w "$trace/kprobe_events" ] || mount -t tracefs nodev "$trace" 2>/dev/null || return 1
	for p in page_pool_put_unrefed_netmem page_pool_put_netmem_bulk page_pool_put_page_bulk; do
		grep -q " $p\$" /proc/kallsyms || continue
		echo "p:bench_devmem/bd_$p $p" >>"$trace/kprobe_events" || return 1
		probes+=("$p")
	done
	mkdir "$pp_instance" && echo 0 >"$pp_instance/tracing_on" &&
		echo 1 >"$pp_instance/events/bench_devmem/enable"
}
pp_probes_remove() { # each step may find nothing to undo (set -e is on)
	local p
	if [ -d "$pp_instance" ]; then
		{ echo 0 >"$pp_instance/events/bench_devmem/enable"; } 2>/dev/null || true
		rmdir "$pp_instance" 2>/dev/null || true
	fi
	for p in "${probes[@]}"; do
		{ echo "-:bench_devmem/bd_$p" >>"$trace/kprobe_events"; } 2>/dev/null || true
	done
}
pp_puts() { # the probes' hits so far (-1 without them)
	[ ${#probes[@]} -gt 0 ] || { echo -1; return; }
	awk '$1 ~ /^bd_/ { n += $2 } END { print n + 0 }' "$trace/kprobe_profile" 2>/dev/null || echo -1
}

# pp_stats: B's page_pool counters from ethtool -S (the driver sums its live
# pools and keeps retired ones), as "refill ring ring_full cached allocated":
# alloc-cache refills from the ring (lock-free: the pool's NAPI is the ring's
# only consumer; one per up to 64 buffers), buffers recycled into the ring
# (a single put takes the ring's producer lock once; a bulk put once for up
# to 16), puts that found the ring full (the buffer freed instead), buffers
# recycled into the lockless per-NAPI cache, and buffers allocated (every
# allocation counts once: fast, slow, high-order slow or refill); all -1
# without CONFIG_PAGE_POOL_STATS (6.12).
pp_stats() {
	ip netns exec "$b" ethtool -S bd1 | awk '
		$1 ~ /^rx_pp_/ { sub(/:$/, "", $1); d[$1] = $2; n++ }
		END {
			if (!n) { print "-1 -1 -1 -1 -1"; exit }
			# (a binary operator cannot end a line in awk)
			alloc = d["rx_pp_alloc_fast"] + d["rx_pp_alloc_slow"]
			alloc += d["rx_pp_alloc_slow_ho"] + d["rx_pp_alloc_refill"]
			print d["rx_pp_alloc_refill"] + 0, d["rx_pp_recycle_ring"] + 0,
			      d["rx_pp_recycle_ring_full"] + 0, d["rx_pp_recycle_cached"] + 0, alloc
		}'
}
pp_stats_delta() { # pp_stats_delta "BEFORE": the counters' growth since
	local -a was now
	local i out=''
	read -ra was <<<"$1"
	read -ra now <<<"$(pp_stats)"
	for i in "${!was[@]}"; do
		if [ "${was[0]}" -lt 0 ]; then
			out+=" -1"
		else
			out+=" $((now[i] - was[i]))"
		fi
	done
	echo "${out# }"
}

cleanup() {
	pp_probes_remove
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
	[ ! -w "$param" ] || echo "$tx_was" >"$param"
	rm -rf "$tmp"
}
trap cleanup EXIT

pp_probes_add || echo "bench-devmem: no kprobes on page_pool's put paths: not counted" >&2

# A port offers netmem TX only if plugged in with devmem_tx set.
[ "$zc" = 0 ] || echo Y >"$param"

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
ip netns exec "$b" ethtool -N bd1 flow-type tcp4 dst-port 5303 action 1 >/dev/null
ip netns exec "$a" ping -q -c 2 -w 10 10.98.0.2 >/dev/null

# B's queue 1 interrupts CPU 0, the senders' and not the receivers'
# CPU, so that their getrusage holds their own work (the syscalls, the copy
# or the token release, TCP's backlog) and not whichever softirq happened
# to interrupt them.
for irq in $(awk -F: '/bd1-q1$/ { print $1 }' /proc/interrupts); do
	echo 0 >"/proc/irq/${irq// /}/smp_affinity_list"
done

send() { # send PORT; under perf record -a when $profile names a file
	local prof=()
	[ -z "${profile:-}" ] ||
		prof=(perf record -q -a -e cpu-clock -F 499 --no-buildid -o "$profile" --)
	"${prof[@]}" ip netns exec "$a" taskset -c 0 sh -c \
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

# normal [PORT [SENDER]]: prints "cpu_seconds bytes seconds syscalls -1" (no
# buffer returns: the kernel frees what recv() copied out)
normal() {
	local port=${1:-5301}
	ip netns exec "$b" taskset -c 1 env PORT="$port" python3 - <<'PY' >"$tmp/normal" &
import os, resource, socket, time
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(('10.98.0.2', int(os.environ['PORT'])))
ls.listen(1)
c, _ = ls.accept()
buf = memoryview(bytearray(1 << 20))
n = calls = 0
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.monotonic()
while True:
    k = c.recv_into(buf)
    calls += 1
    if not k:
        break
    n += k
t = time.monotonic() - t0
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(cpu, n, t, calls, -1)
PY
	local pid=$!
	wait_listen "$port"
	[ -n "${2:-}" ] || send "$port"
	[ -z "${2:-}" ] || "$2" "$port" >"$tmp/sender"
	wait "$pid"
	cat "$tmp/normal"
}

# json_row FILE: "cpu_seconds bytes seconds syscalls batches" of a
# refnic-devmem JSON summary; batches are the buffer returns the process
# made (devmem: SO_DEVMEM_DONTNEED calls; zcrx: refill-ring tail stores;
# -1 for TX).
json_row() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print((d["cpu_user_ns"] + d["cpu_system_ns"]) / 1e9, d["bytes"], d["elapsed_ns"] / 1e9,
      d["syscalls"], d.get("dontneed_calls", d.get("refill_batches", -1)))' "$1"
}

# zcrx_rx: io_uring zero-copy receive into the process's own memory
# (payload never read); prints what normal does.
zcrx_rx() {
	ip netns exec "$b" taskset -c 1 "$devmem" zcrx -f bd1 -t 1 -p 5303 -s 10.98.0.2 -j \
		>"$tmp/zcrx" 2>"$tmp/zcrx.err" &
	local pid=$!
	wait_listen 5303
	send 5303
	wait "$pid" || { cat "$tmp/zcrx.err" >&2; return 1; }
	json_row "$tmp/zcrx"
}

# The senders, measured on their side (into a normal receiver, whose
# numbers are dropped): send() of a 1 MiB user buffer, and devmem TX from a
# udmabuf. Each prints what normal does, for the sender.
send_copy() { # send_copy PORT
	ip netns exec "$a" taskset -c 0 env PORT="$1" BYTES=$((mib << 20)) python3 -c '
import os, resource, socket, time
s = socket.create_connection(("10.98.0.2", int(os.environ["PORT"])))
buf = bytes(1 << 20)
left, calls = int(os.environ["BYTES"]), 0
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.monotonic()
while left:
    left -= s.send(memoryview(buf)[:min(left, len(buf))])
    calls += 1
s.close()
t = time.monotonic() - t0
r1 = resource.getrusage(resource.RUSAGE_SELF)
print((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
      int(os.environ["BYTES"]), t, calls, -1)'
}
send_devmem() { # send_devmem PORT
	ip netns exec "$a" taskset -c 0 "$devmem" tx -f bd0 -s 10.98.0.2 -p "$1" \
		--bytes $((mib << 20)) -j >"$tmp/tx" 2>"$tmp/tx.err" ||
		{ cat "$tmp/tx.err" >&2; return 1; }
	json_row "$tmp/tx"
}

# devmem_rx RELEASE: prints what normal does
devmem_rx() {
	ip netns exec "$b" taskset -c 1 "$devmem" rx -f bd1 -t 1 -p 5302 -s 10.98.0.2 \
		--release "$1" -j >"$tmp/devmem" 2>"$tmp/devmem.err" &
	local pid=$!
	wait_listen 5302
	send 5302
	wait "$pid" || { cat "$tmp/devmem.err" >&2; return 1; }
	json_row "$tmp/devmem"
}

: >"$tmp/rows"
runs="off:normal off:per-frag off:batched on:normal on:batched"
[ "$zc" = 0 ] || runs+=" off:zcrx on:zcrx off:send off:devmem-tx"
runs=${BENCH_DEVMEM_RUNS:-$runs}
profiled=()
for ((r = 1; r <= rounds; r++)); do
	for run in $runs; do
		gro=${run%%:*} mode=${run#*:}
		profile=
		# The receivers' runs (their sender is send()); the two sender
		# runs have senders of their own and are not profiled.
		if [ "$r" = 1 ] && [[ " ${BENCH_DEVMEM_PROFILE:-} " == *" $run "* ]] &&
			[ "$mode" != send ] && [ "$mode" != devmem-tx ]; then
			profile=$tmp/perf-$gro-$mode.data
			profiled+=("$run")
		fi
		ip netns exec "$b" ethtool -K bd1 rx-gro-hw "$gro"
		puts0=$(pp_puts) stats0=$(pp_stats)
		case $mode in
		normal) out=$(normal) ;;
		zcrx) out=$(zcrx_rx) ;;
		send) normal 5304 send_copy >/dev/null && out=$(cat "$tmp/sender") ;;
		devmem-tx) normal 5304 send_devmem >/dev/null && out=$(cat "$tmp/sender") ;;
		*) out=$(devmem_rx "$mode") ;;
		esac
		puts1=$(pp_puts)
		if [ "$puts0" -lt 0 ]; then puts1=-1; else puts1=$((puts1 - puts0)); fi
		out+=" $puts1 $(pp_stats_delta "$stats0")"
		echo "$gro $mode $out" >>"$tmp/rows"
		echo "bench-devmem: round $r rx-gro-hw $gro $mode: $out (cpu s, bytes, s, syscalls," \
			"returns, page_pool puts; B's pp stats: refill, ring, ring_full, cached, allocated)" >&2
	done
done

if [ "${#profiled[@]}" -gt 0 ]; then
	python3 - "$repo" "$tmp" "${profiled[@]}" <<'PY'
import os, subprocess, sys
sys.path.insert(0, os.path.join(sys.argv[1], 'scripts'))
import benchprof
print()
print('where the time goes while the first round\'s transfer ran (perf -a, cpu-clock at %d Hz; '
      'CPU 0: B\'s queue 1 interrupt and softirq, and the sender; CPU 1: the receiver; '
      'time with interrupts off is charged where they are enabled again)' % benchprof.FREQ)
cols = []
for run in sys.argv[3:]:
    gro, mode = run.split(':')
    r = subprocess.run(['perf', 'report', '-i', os.path.join(sys.argv[2], 'perf-%s-%s.data' % (gro, mode)),
                        '--stdio', '--no-children', '--sort', 'cpu,dso,sym',
                        '-F', 'overhead,sample,cpu,dso,sym', '--percent-limit', '0'],
                       capture_output=True, text=True)
    cpus = benchprof.parse(r.stdout)
    for cpu in (0, 1):
        cols.append(('%s GRO %s CPU %d' % (mode, gro, cpu), benchprof.summary(cpus, cpu)))
print('%-32s' % '' + ''.join('%22s' % c for c, _ in cols))
benchprof.print_kinds([s for _, s in cols], width=22)
for c, s in cols:
    print('  %s, busiest: %s' % (c, ', '.join('%s %.1f%%' % (sym, 100 * n / s['samples'])
                                             for _, sym, n in s['symbols'][:10])))
PY
fi

python3 - "$tmp/rows" "$mib" "${REFNIC_BENCH_OUT:-}" "$repo" <<'PY'
import collections, json, os, statistics, sys
Row = collections.namedtuple('Row', 'cpu n t calls returns puts refill ring ring_full cached '
                             'allocated')
rows = {}
for line in open(sys.argv[1]):
    gro, mode, *f = line.split()
    rows.setdefault((gro, mode), []).append(Row(float(f[0]), int(f[1]), float(f[2]),
                                                *map(int, f[3:])))
gib = lambda n: n / (1 << 30)
mib = lambda n: n / (1 << 20)
def med(key, f):
    v = [f(x) for x in rows[key]]
    return None if None in v else statistics.median(v)
def spread(key, f):
    v = [f(x) for x in rows[key]]
    return '%.1f-%.1f' % (min(v), max(v))
per_gib = lambda x: x.cpu / gib(x.n)
cpu = {k: med(k, per_gib) for k in rows}
sysc = {k: med(k, lambda x: x.calls / gib(x.n)) for k in rows}
tput = {k: med(k, lambda x: x.n * 8 / x.t / 1e9) for k in rows}
# Buffer returns the process made (DONTNEED calls, refill-ring tail stores).
rets = {k: med(k, lambda x: None if x.returns < 0 else x.returns / gib(x.n)) for k in rows}
# page_pool put calls (each may take the pool's ring lock once) per MiB.
puts = {k: med(k, lambda x: None if x.puts < 0 else x.puts / mib(x.n)) for k in rows}
# B's own page_pool counters: recycles per MiB (the kprobes' cross-check,
# one port instead of the machine) and ring-lock takings per buffer.
recycled = lambda x: x.ring + x.cached
recyc = {k: med(k, lambda x: None if x.allocated < 0 else recycled(x) / mib(x.n)) for k in rows}
# Per buffer allocated, each side of the pool's ring: the driver's refills
# of the alloc cache from it (lock-free, the NAPI being its only consumer),
# and the returns into it (ring_full ones included: each took the
# producer lock and found no room), one lock each when put singly.
refill = {k: med(k, lambda x: None if x.allocated <= 0 else x.refill / x.allocated)
          for k in rows}
locks = {k: med(k, lambda x: None if x.allocated <= 0 else
                (x.ring + x.ring_full) / x.allocated) for k in rows}
# The share of recycles that went to the lockless cache (no lock).
cached = {k: med(k, lambda x: None if x.allocated < 0 or not recycled(x) else
                 100 * x.cached / recycled(x)) for k in rows}
names = {'normal': 'normal (recv, copy)', 'per-frag': 'devmem, per-frag release',
         'batched': 'devmem, batched release', 'zcrx': 'io_uring zcrx',
         'send': 'sender: send() (copy)', 'devmem-tx': 'sender: devmem TX'}
fmt = lambda v, f: '-' if v is None else f % v
print()
print('devmem receive against normal receive: one refnic pair, header split on, '
      'the flow steered to queue 1, its IRQ on CPU 0, the receiver on CPU 1; %s MiB per '
      'round, %d rounds, medians (CPU: the receiver\'s getrusage, with the range '
      'over rounds)' % (sys.argv[2], len(next(iter(rows.values())))))
head = ('rx-gro-hw', 'receiver', 'CPU s/GiB', '(rounds)', 'syscalls/GiB', 'returns/GiB',
        'Gbit/s', 'puts/MiB', 'recycles/MiB', 'cached', 'refills/buf', 'ring/buf')
print('%-9s %-25s %9s %10s %12s %11s %7s %9s %12s %6s %10s %8s' % head)
print('-' * 142)
for k in rows:
    print('%-9s %-25s %9.2f %10s %12.0f %11s %7.3f %9s %12s %6s %10s %8s' % (
        k[0], names[k[1]], cpu[k], spread(k, per_gib), sysc[k], fmt(rets[k], '%.0f'),
        tput[k], fmt(puts[k], '%.1f'), fmt(recyc[k], '%.1f'), fmt(cached[k], '%.0f%%'),
        fmt(refill[k], '%.4f'), fmt(locks[k], '%.3f')))
print('returns: the buffer returns the receiver made (devmem: SO_DEVMEM_DONTNEED calls; '
      'zcrx: refill-ring tail stores)')
print('puts/MiB: kprobe hits on page_pool_put_unrefed_netmem and the bulk put, machine-wide, '
      'during the run: calls that may each take a pool\'s ring lock once')
print('recycles/MiB, cached, refills/buf, ring/buf: the receiving port\'s page_pool stats '
      '(ethtool -S rx_pp_*; "-" without CONFIG_PAGE_POOL_STATS): buffers recycled, the share '
      'that went to the lockless per-NAPI cache, and per buffer allocated the refills of the '
      'alloc cache from the ring (lock-free: NAPI is its only consumer) and the puts into '
      'the ring (the producer lock once each when put singly, as sockets and tokens do)')
def ratio(a, b, d):  # NaN when either run was left out (BENCH_DEVMEM_RUNS)
    return d[a] / d[b] if a in d and b in d and d[b] else float('nan')
s = ratio(('off', 'per-frag'), ('off', 'batched'), sysc)
print('batched/per-frag release: %.1fx fewer syscalls (goal >= 8x: %s), CPU per GiB %.2fx, '
      'throughput %.2fx' % (s, 'meets' if s >= 8 else 'below',
                           ratio(('off', 'batched'), ('off', 'per-frag'), cpu),
                           ratio(('off', 'batched'), ('off', 'per-frag'), tput)))
for gro in ('off', 'on'):
    c = ratio((gro, 'batched'), (gro, 'normal'), cpu)
    print('devmem/normal, rx-gro-hw %-3s: CPU per GiB %.2fx (goal <= 0.7x: %s), '
          'throughput %.2fx' % (gro, c, 'meets' if c <= 0.7 else 'below',
                               ratio((gro, 'batched'), (gro, 'normal'), tput)))
for gro in ('off', 'on'):
    if (gro, 'zcrx') not in rows:
        continue
    c = ratio((gro, 'zcrx'), (gro, 'normal'), cpu)
    d = ratio((gro, 'zcrx'), (gro, 'batched'), cpu)
    print('zcrx/normal, rx-gro-hw %-3s: CPU per GiB %.2fx (goal <= 0.6x: %s), zcrx/devmem '
          '%.2fx (goal <= 1x: %s), throughput %.2fx' % (
              gro, c, 'meets' if c <= 0.6 else 'below', d, 'meets' if d <= 1 else 'below',
              ratio((gro, 'zcrx'), (gro, 'normal'), tput)))
if ('off', 'devmem-tx') in rows:
    print('devmem TX/send(): sender CPU per GiB %.2fx, throughput %.2fx' % (
        ratio(('off', 'devmem-tx'), ('off', 'send'), cpu),
        ratio(('off', 'devmem-tx'), ('off', 'send'), tput)))

out = sys.argv[3]
if not out:
    sys.exit(0)
# The same as JSON (every round's figures, the medians and ranges) and as a
# plot: build/bench/bench-devmem.json and bench-devmem.svg.
sys.path.insert(0, os.path.join(sys.argv[4], 'scripts'))
import benchlib
def rng(key, f):
    v = [f(x) for x in rows[key]]
    return None if None in v else [min(v), max(v)]
keys = {'cpu': 'cpu_s', 'n': 'bytes', 't': 'secs', 'calls': 'syscalls',
        'returns': 'returns', 'puts': 'pp_puts', 'refill': 'pp_refill', 'ring': 'pp_ring',
        'ring_full': 'pp_ring_full', 'cached': 'pp_cached', 'allocated': 'pp_allocated'}
doc = {'schema': benchlib.SCHEMA, 'workload': 'devmem', 'kernel': os.uname().release,
       'mib_per_run': int(sys.argv[2]), 'rounds': len(next(iter(rows.values()))),
       'runs': [{'rx_gro_hw': k[0], 'mode': k[1], 'name': names[k[1]],
                 'rounds': [{keys[f]: v for f, v in x._asdict().items()} for x in rows[k]],
                 'median': {'cpu_s_per_gib': cpu[k], 'syscalls_per_gib': sysc[k],
                            'gbit_s': tput[k], 'returns_per_gib': rets[k],
                            'pp_puts_per_mib': puts[k], 'pp_recycles_per_mib': recyc[k],
                            'pp_cached_pct': cached[k], 'pp_refills_per_buf': refill[k],
                            'pp_ring_per_buf': locks[k]},
                 'range': {'cpu_s_per_gib': rng(k, per_gib),
                           'gbit_s': rng(k, lambda x: x.n * 8 / x.t / 1e9)}}
                for k in rows]}
with open(os.path.join(out, 'bench-devmem.json'), 'w') as f:
    json.dump(benchlib.jsonable(doc), f, indent=1)
    f.write('\n')
print('results: %s' % os.path.join(out, 'bench-devmem.json'))
try:
    import matplotlib
except ImportError:
    print('no plot: %s cannot import matplotlib (python3-matplotlib)' % sys.executable)
    sys.exit(0)
matplotlib.use('Agg')
import matplotlib.pyplot as plt
runs = list(rows)
labels = ['%s\nGRO %s' % (names[k[1]].replace(', ', ',\n').replace(' (', '\n(').replace(': ', ':\n'),
                            k[0])
          for k in runs]
fig, axes = plt.subplots(2, 1, figsize=(9, 6.4), sharex=True)
for ax, f, title in ((axes[0], per_gib, 'CPU s per GiB (the receiver\'s; senders\' own)'),
                     (axes[1], lambda x: x.n * 8 / x.t / 1e9, 'Gbit/s')):
    mids = [statistics.median([f(x) for x in rows[k]]) for k in runs]
    lo = [m - min(f(x) for x in rows[k]) for m, k in zip(mids, runs)]
    hi = [max(f(x) for x in rows[k]) - m for m, k in zip(mids, runs)]
    colors = ['C%d' % ('normal', 'per-frag', 'batched', 'zcrx', 'send', 'devmem-tx').index(k[1])
              for k in runs]
    ax.bar(range(len(runs)), mids, yerr=[lo, hi], capsize=3, color=colors)
    ax.set_ylabel(title, fontsize=8)
axes[1].set_xticks(range(len(runs)))
axes[1].set_xticklabels(labels, fontsize=7)
axes[0].set_title('refnic zero-copy receive and transmit against copying, one pair '
                  '(%d MiB a run; medians of %d rounds, min-max)' % (
                      doc['mib_per_run'], doc['rounds']), fontsize=9)
fig.tight_layout()
fig.savefig(os.path.join(out, 'bench-devmem.svg'))
print('plot: %s' % os.path.join(out, 'bench-devmem.svg'))
PY
