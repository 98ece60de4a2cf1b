#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bypass part of `make bench` (run by scripts/bench-guest.py in the VM).

One refnic pair, A -> B. The sender is the same for every receiver:
refnic-bypass tx on A's queue 1 (cheaper per frame than any kernel sender,
so that it can outrun the receivers), pinned to CPU 0. On B an ntuple rule
sends UDP to port 9000 to queue 1, whose vector is on CPU 1, where the
receiver runs too. Receivers, each for SECS seconds:

  kernel   recvmmsg() of 256 datagrams per call on a UDP socket (the
           kernel's receive path: NAPI, skb, UDP, socket, copy);
  bypass   refnic-bypass rx on B's queue 1 (blocking in poll(2) when
           idle), at 64 B and 1500 B frames;
  sweep    refnic-bypass rx at 64 B with its batch (buffers returned to
           the fill ring per submit) from 1 to 256.

Per run: packets received per second, Mbit/s, CPU 1's busy time (user,
system, irq, softirq from /proc/stat) per packet, and for bypass runs the
session's counters per packet (RX doorbells, fill-ring acquisitions,
kicks, interrupts). page_pool calls (kprobes on its alloc and recycle
functions) are counted over every run: a bypass queue's refill takes
none, so no page_pool ring lock. The sweep is also drawn as an SVG plot.
Goal (issue 6): 64 B bypass receive >= 2x kernel receive.

  bench-bypass-guest.py REPO [--secs S] [--rounds N] [--out DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import benchlib

A, B = 'bpa', 'bpb'
DEV_A, DEV_B = 'bp0', 'bp1'
IP_A, IP_B = '10.97.0.1', '10.97.0.2'
PORT = 9000
QUEUE = 1
SWEEP = (1, 2, 4, 8, 16, 32, 64, 128, 256)
TARGET = 2.0
TRACE = '/sys/kernel/tracing'
# The bulk release is page_pool_put_page_bulk() on 6.12 and
# page_pool_put_netmem_bulk() on 7.3: Probes takes the ones the kernel has.
PROBES = ('page_pool_alloc_pages', 'page_pool_alloc_frag_netmem',
          'page_pool_put_unrefed_netmem', 'page_pool_put_page_bulk',
          'page_pool_put_netmem_bulk')


def log(*args):
    print('bench-bypass:', *args, file=sys.stderr, flush=True)


def run(*cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def nsx(ns, *cmd):
    return ('ip', 'netns', 'exec', ns) + cmd


def proc_cpu(pid):
    """User + system jiffies of process pid (its own work: ring handling
    and syscalls, plus any softirq that interrupted it)."""
    with open('/proc/%d/stat' % pid) as f:
        w = f.read().rsplit(')', 1)[1].split()
    return int(w[11]) + int(w[12])


def cpu_busy(cpu):
    """Busy jiffies of CPU cpu: user, nice, system, irq, softirq."""
    with open('/proc/stat') as f:
        for line in f:
            if line.startswith('cpu%d ' % cpu):
                v = [int(x) for x in line.split()[1:]]
                return v[0] + v[1] + v[2] + v[5] + v[6]
    raise RuntimeError('no cpu%d in /proc/stat' % cpu)


def trace_write(name, text):
    """Write to a tracefs file (os.write: Python's append mode seeks,
    which tracefs refuses)."""
    fd = os.open(os.path.join(TRACE, name), os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


class Probes:
    """kprobes on page_pool's alloc and recycle functions, read from
    kprobe_profile; best effort (a function may be inlined away)."""

    def __init__(self):
        self.names = []
        if not os.path.exists(TRACE + '/kprobe_events'):
            run('mount', '-t', 'tracefs', 'nodev', TRACE, check=False)
        with open('/proc/kallsyms') as f:
            syms = set(line.split()[2] for line in f)
        for p in PROBES:
            if p not in syms:
                continue
            try:
                trace_write('kprobe_events', 'p:bpbench/%s %s\n' % (p, p))
                self.names.append(p)
            except OSError as e:
                log('no kprobe on %s: %s' % (p, e))
        if self.names:
            trace_write('events/bpbench/enable', '1')

    def hits(self):
        n = 0
        try:
            with open(TRACE + '/kprobe_profile') as f:
                for line in f:
                    w = line.split()
                    if len(w) >= 2 and w[0] in self.names:
                        n += int(w[1])
        except OSError:
            return None
        return n if self.names else None

    def remove(self):
        if not self.names:
            return
        trace_write('events/bpbench/enable', '0')
        for p in self.names:
            trace_write('kprobe_events', '-:bpbench/%s\n' % p)


def queue_packets():
    """Frames B's stack queue 1 took in (ethtool -S rx1_packets)."""
    out = run(*nsx(B, 'ethtool', '-S', DEV_B)).stdout
    m = re.search(r'^\s*rx%d_packets:\s*(\d+)' % QUEUE, out, re.M)
    return int(m.group(1)) if m else 0


def irq_of(dev, q):
    with open('/proc/interrupts') as f:
        for line in f:
            if line.rstrip().endswith('%s-q%d' % (dev, q)):
                return line.split(':')[0].strip()
    return None


def pin_irq(dev, q, cpu):
    irq = irq_of(dev, q)
    if irq:
        with open('/proc/irq/%s/smp_affinity_list' % irq, 'w') as f:
            f.write(str(cpu))


def setup():
    cleanup()
    run('ip', 'netns', 'add', A)
    run('ip', 'netns', 'add', B)
    run('ip', '-n', A, 'link', 'add', DEV_A, 'type', 'refnic', 'queues', '2',
        'peer', 'name', DEV_B, 'netns', B)
    run('ip', '-n', A, 'addr', 'add', IP_A + '/24', 'dev', DEV_A)
    run('ip', '-n', B, 'addr', 'add', IP_B + '/24', 'dev', DEV_B)
    run('ip', '-n', A, 'link', 'set', DEV_A, 'up')
    run('ip', '-n', B, 'link', 'set', DEV_B, 'up')
    for _ in range(100):
        if run(*nsx(B, 'cat', '/sys/class/net/%s/carrier' % DEV_B),
               check=False).stdout.strip() == '1':
            break
        time.sleep(0.1)
    run(*nsx(B, 'ethtool', '-N', DEV_B, 'flow-type', 'udp4', 'dst-port',
             str(PORT), 'action', str(QUEUE)))
    pin_irq(DEV_B, QUEUE, 1)
    pin_irq(DEV_A, QUEUE, 0)
    mac_b = run(*nsx(B, 'cat', '/sys/class/net/%s/address' % DEV_B)
                ).stdout.strip()
    return mac_b


def cleanup():
    for ns in (A, B):
        run('ip', 'netns', 'del', ns, check=False)


class Bench:
    def __init__(self, a, repo, mac_b):
        self.a = a
        self.tool = os.path.join(repo, 'build/cmake/tools/refnic-bypass/'
                                 'refnic-bypass')
        self.guest = os.path.join(repo, 'scripts/bench-guest.py')
        self.mac_b = mac_b
        self.probes = Probes()

    def sender(self, size):
        return subprocess.Popen(nsx(A, 'taskset', '-c', '0', self.tool, 'tx',
                                    '-i', DEV_A, '-q', str(QUEUE), '--dst-mac',
                                    self.mac_b, '--src-ip', IP_A,
                                    '--dst-ip', IP_B, '--dst-port',
                                    str(PORT), '--size', str(size),
                                    '--batch', '64', '--quiet'),
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)

    def measure(self, mode, size, batch=64):
        """One run: the sender, then the receiver for secs seconds."""
        tx = self.sender(size)
        time.sleep(1.5)
        if tx.poll() is not None:
            raise RuntimeError('sender died: ' + tx.stderr.read())
        stats = {}
        if mode == 'kernel':
            ready = '/tmp/bench-bypass.ready'
            if os.path.exists(ready):
                os.unlink(ready)
            rx = subprocess.Popen(nsx(B, 'taskset', '-c', '1', 'python3',
                                      self.guest, 'udp-sink', '--bind', IP_B,
                                      '--port', str(PORT), '--batch', '256',
                                      '--ready', ready),
                                  stdout=subprocess.PIPE, text=True)
            while not os.path.exists(ready):
                time.sleep(0.05)
            q0 = queue_packets()
            busy0, probes0, t0 = cpu_busy(1), self.probes.hits(), time.time()
            time.sleep(self.a.secs)
            t1, busy1, probes1 = time.time(), cpu_busy(1), self.probes.hits()
            stats['arrived'] = queue_packets() - q0
            rx.terminate()
            out = finish(rx, 'udp-sink')[0]
            packets = json.loads(out.strip().splitlines()[-1])['received']
        else:
            # The window lies inside the session's life: binding parks
            # the stack's queue (its buffers go back to their page_pool)
            # and closing brings it back, which is not the datapath.
            rx = subprocess.Popen(nsx(B, 'taskset', '-c', '1', self.tool,
                                      'rx', '-i', DEV_B, '-q', str(QUEUE),
                                      '--duration',
                                      str(self.a.secs + 30), '--batch',
                                      str(batch), '--quiet', '--json'),
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
            # Bound once the stack's queue 1 stops counting frames: under
            # the flood the receiver's CPU starts it slowly.
            last, deadline = queue_packets(), time.time() + 20
            while time.time() < deadline:
                time.sleep(0.3)
                now = queue_packets()
                if now == last:
                    break
                last = now
            busy0, probes0, t0 = cpu_busy(1), self.probes.hits(), time.time()
            own0 = proc_cpu(rx.pid)
            time.sleep(self.a.secs)
            t1, busy1, probes1 = time.time(), cpu_busy(1), self.probes.hits()
            own = proc_cpu(rx.pid) - own0
            rx.terminate()  # ends the run with its summary
            out, err = finish(rx, 'refnic-bypass rx')
            if rx.returncode:
                raise RuntimeError('refnic-bypass rx: ' + err.strip())
            res = json.loads(out.strip().splitlines()[-1])
            stats = dict(res.get('session') or {}, own=own)
            # The session's rate, over its whole life, for the window.
            packets = int((res['rate_pps'] or 0) * (t1 - t0))
        tx.terminate()
        tx.wait(timeout=60)
        secs = t1 - t0
        hz = os.sysconf('SC_CLK_TCK')
        w = {
            'mode': mode, 'size': size, 'batch': batch, 'packets': packets,
            'secs': secs, 'pps': packets / secs,
            'mbits': packets * size * 8 / secs / 1e6,
            'cpu_us_per_pkt': ((busy1 - busy0) / hz * 1e6 / packets
                               if packets else float('nan')),
            'pp_calls': (probes1 - probes0
                         if probes0 is not None and probes1 is not None
                         else None),
        }
        if 'own' in stats and packets:
            w['own_us_per_pkt'] = stats['own'] / hz * 1e6 / packets
        if 'arrived' in stats:
            w['arrived_pps'] = stats['arrived'] / secs
        for k in ('rx_doorbells', 'fill_batches', 'kicks', 'irqs',
                  'fill_bufs', 'wakeups_avoided'):
            if k in stats and stats.get('rx_frames'):
                w[k + '_per_pkt'] = stats[k] / stats['rx_frames']
        log('%s %d B batch %d: %d pkts in %.1f s, %.0f pps, %.2f us CPU/pkt,'
            ' page_pool calls %s' % (mode, size, batch, packets, secs,
                                     w['pps'], w['cpu_us_per_pkt'],
                                     w['pp_calls']))
        return w


def finish(proc, name):
    """PROC's output once it has ended after SIGTERM. A hang guard, not a
    budget: under the sender's flood on a TCG vCPU shared with other VMs a
    receiver took over a minute to get to its signal (2026-12-01)."""
    try:
        return proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise RuntimeError('%s did not end within 600 s of SIGTERM' % name) from None


def med(ws, key):
    xs = sorted(w[key] for w in ws)
    return xs[len(xs) // 2] if xs else float('nan')


def paired(res, size, key):
    """Bypass against kernel receive of SIZE-byte frames in KEY, paired
    round by round (benchlib.summary, its sides named)."""
    s = benchlib.summary([w[key] for w in res[('bypass', size)]],
                         [w[key] for w in res[('kernel', size)]])
    s['bypass'], s['kernel'] = s.pop('refnic'), s.pop('veth')
    return s


def plot_sweep(sweep, path):
    """The receiver's CPU time per packet and the doorbells plus kicks per
    packet against the batch size (log2 axis), each the median of the
    rounds with their range (min-max) as error bars, with matplotlib (make
    deps installs python3-matplotlib; the VM runs the host's Debian
    python)."""
    try:
        import matplotlib
    except ImportError:
        print('no plot: %s cannot import matplotlib (python3-matplotlib)'
              % sys.executable)
        return False
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    def series(f):
        mids, lo, hi = [], [], []
        for batch in SWEEP:
            vs = sorted(v for v in map(f, sweep[batch]) if v == v)
            if not vs:
                vs = [float('nan')]
            m = vs[len(vs) // 2]
            mids.append(m)
            lo.append(m - vs[0])
            hi.append(vs[-1] - m)
        return mids, [lo, hi]

    xs = list(SWEEP)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    nan = float('nan')
    mids, err = series(lambda w: w.get('own_us_per_pkt', nan))
    ax.errorbar(xs, mids, yerr=err, fmt='o-', color='C0', capsize=3)
    ax.set_xscale('log', base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    ax.set_xlabel('batch (buffers returned per fill-ring submit)')
    ax.set_ylabel('receiver CPU µs per packet', color='C0')
    ax.set_ylim(bottom=0)
    other = ax.twinx()
    mids, err = series(lambda w: w.get('rx_doorbells_per_pkt', nan) +
                       w.get('kicks_per_pkt', nan))
    other.errorbar(xs, mids, yerr=err, fmt='s--', color='C3', capsize=3)
    other.set_ylabel('doorbells + kicks per packet', color='C3')
    other.set_ylim(bottom=0)
    ax.set_title('refnic bypass receive, 64 B frames: cost per packet vs '
                 'batch size (medians, min-max)', fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('repo')
    ap.add_argument('--secs', type=int, default=4)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--out', help='directory for bypass-batch.svg')
    a = ap.parse_args()
    mac_b = setup()
    b = Bench(a, a.repo, mac_b)
    res = {}
    try:
        for rnd in range(a.rounds):
            for mode, size in (('kernel', 60), ('bypass', 60),
                               ('kernel', 1514), ('bypass', 1514)):
                res.setdefault((mode, size), []).append(
                    b.measure(mode, size))
        sweep = {}
        for rnd in range(a.rounds):
            for batch in SWEEP:
                sweep.setdefault(batch, []).append(
                    b.measure('bypass', 60, batch))
    finally:
        b.probes.remove()
        cleanup()

    print()
    print('Bypass receive against kernel receive (one refnic pair, sender '
          'refnic-bypass tx on CPU 0, receiver and its vector on CPU 1; '
          'medians of %d rounds of %d s)' % (a.rounds, a.secs))
    print()
    print('| frame | receiver | packets/s received | Mbit/s | CPU µs/packet | '
          'page_pool calls/packet | RX doorbells/packet |')
    print('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
    for (mode, size), ws in res.items():
        pp = [w['pp_calls'] for w in ws if w['pp_calls'] is not None]
        pkts = sum(w['packets'] for w in ws)
        print('| %d B | %s | %.0f | %.1f | %.2f | %s | %s |' % (
            size + 4, 'refnic-bypass rx' if mode == 'bypass' else
            'recvmmsg (256)', med(ws, 'pps'), med(ws, 'mbits'),
            med(ws, 'cpu_us_per_pkt'),
            '%.3f' % (sum(pp) / pkts) if pp and pkts else 'n/a',
            '%.3f' % med(ws, 'rx_doorbells_per_pkt')
            if 'rx_doorbells_per_pkt' in ws[0] else '-'))
    print()
    for size in (60, 1514):
        ws = res[('kernel', size)]
        if 'arrived_pps' in ws[0]:
            print('%d B kernel receive: %.0f frames/s reached the stack '
                  'queue, %.0f/s the socket (the rest dropped: socket '
                  'full)' % (size + 4, med(ws, 'arrived_pps'),
                             med(ws, 'pps')))
    print()
    ratios = {}
    for size in (60, 1514):
        # Paired round by round, as the kernel and bypass runs of a round
        # alternate: the median of the rounds' ratios, and their spread.
        rate = paired(res, size, 'pps')
        cpu = paired(res, size, 'cpu_us_per_pkt')
        ratios['%d' % (size + 4)] = {'packet_rate': rate,
                                     'cpu_per_packet': cpu}
        line = ('%d B frames: bypass/kernel packet rate %.2fx (rounds '
                '%.2f-%.2f), CPU per packet %.2fx (%.2f-%.2f)' % (
                    size + 4, rate['ratio'], rate['ratio_min'],
                    rate['ratio_max'], cpu['ratio'], cpu['ratio_min'],
                    cpu['ratio_max']))
        if size == 60:
            line += ' (goal >= %.1fx rate: %s)' % (
                TARGET, 'met' if rate['ratio'] >= TARGET else 'NOT met')
        print(line)
    print()
    print('Batch-size sweep, 64 B frames, refnic-bypass rx --batch N:')
    print()
    print('| batch | packets/s | receiver µs/packet | CPU 1 µs/packet | '
          'RX doorbells/packet | fill acquisitions/packet | kicks/packet | '
          'interrupts/packet |')
    print('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for batch in SWEEP:
        ws = sweep[batch]
        row = [med(ws, k) for k in ('pps', 'own_us_per_pkt',
                                     'cpu_us_per_pkt',
                                     'rx_doorbells_per_pkt',
                                     'fill_batches_per_pkt',
                                     'kicks_per_pkt', 'irqs_per_pkt')]
        print('| %d | %.0f | %.2f | %.2f | %.3f | %.3f | %.4f | %.4f |' % (
            (batch,) + tuple(row)))
    print()
    print('receiver: the refnic-bypass process\'s own CPU time (user + '
          'system); CPU 1: all of the receiving CPU, which also runs the '
          'device model\'s engine for these frames')
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        path = os.path.join(a.out, 'bypass-batch.svg')
        print()
        if plot_sweep(sweep, path):
            print('plot: %s' % path)
        path = os.path.join(a.out, 'bench-bypass.json')
        with open(path, 'w') as f:
            json.dump(benchlib.jsonable({
                'schema': benchlib.SCHEMA, 'workload': 'bypass',
                'kernel': os.uname().release, 'rounds': a.rounds,
                'secs': a.secs, 'goal_packet_rate_64': TARGET,
                'compare': [{'frame': size + 4, 'receiver': mode,
                             'rounds': ws}
                            for (mode, size), ws in res.items()],
                'ratios': ratios,
                'sweep': [{'batch': batch, 'rounds': sweep[batch]}
                          for batch in SWEEP]}), f, indent=1, default=str)
            f.write('\n')
        print('results: %s' % path)
    return 0


if __name__ == '__main__':
    sys.exit(main())
