#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""refnic-lab, guest side: lessons of NIC datapath design as experiments.

Run as root where refnic is loaded: in the VM (scripts/lab.sh boots it,
`make lab EXP=NAME`) or on a host with refnic installed
(`sudo scripts/lab-guest.py NAME`). Each experiment states the lesson it
tests, runs a sweep on a refnic pair between two network namespaces, prints
a table and "confirmed" or "not confirmed" with the numbers behind it, and
writes NAME.json and NAME.svg (matplotlib) to --out.

Experiments (`--list` prints them):

  irq-poll   interrupts against busy polling against threaded NAPI and
             deferred hard IRQs: TCP request/response (sockperf ping-pong,
             64 B) latency percentiles, and CPU and interrupts per
             transaction, for each way of getting from the wire to the
             socket;
  recycle    releasing RX buffers in batches against one by one: page_pool
             calls that may take the pool's ring lock, per 1,000 buffers
             released, and header pages per 1,000 packets with header split
             (the driver's own counters, cross-checked by kprobes);
  doorbell   the RX refill batch (debugfs rx_refill_batch: 1, 4, 16, 32,
             64 buffers at least a doorbell): RX doorbells per packet,
             packets per poll, TCP throughput and the receiver's CPU per
             GiB;
  mmio-read  TX completion learnt from DONE bits in host memory against
             reading the device's HEAD register, as the bus model's read
             round trip grows (0, 20, 100 us): 64 B UDP packet rate,
             register reads and the CPU time they waited per 1,000
             packets;
  napi-budget
             the receiver's NAPI weight (debugfs napi_weight: 8, 16, 64,
             256) with a 64 B UDP flood on one queue and TCP
             request/response on another, both queues interrupting one
             CPU: packets a poll, polls that used the whole budget,
             interrupts per packet, and the requests' round trip;
  placement  where B's interrupts and its receiving application run on a
             VM of two NUMA nodes (three CPUs each, a host thread each),
             the card on node 0, without and with the bus model's
             cross-node charge (0 and 20 us): by smp_affinity, RSS, RPS
             and XPS (RX and TX interrupts on separate cores); TCP
             throughput, the receiver's CPU per GiB, DMA transfers to the
             other node's memory; the winning layout named.

Under TCG only the ratios inside one run mean anything, and both vCPUs are
one host thread: a vCPU that spins (busy polling) takes time from the other.
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The pair, its counters and the TCP/recycle runs are the bench's.
_spec = importlib.util.spec_from_file_location(
    'bench_guest', os.path.join(REPO, 'scripts', 'bench-guest.py'))
bg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bg)

# A claim that one setting does less or more than another holds when their
# medians differ by more than this: rounds under TCG spread by 10-30 %.
MARGIN = 0.10


def clearly_below(a, b):
    return a < (1 - MARGIN) * b


def clearly_above(a, b):
    return a > (1 + MARGIN) * b


def log(*args):
    print('lab:', *args, file=sys.stderr, flush=True)


def die(msg):
    log(msg)
    sys.exit(1)


# ---- irq-poll --------------------------------------------------------------

def sysfs_write(ns, path, value):
    """Write VALUE to a netdev's sysfs file, seen from namespace NS."""
    r = bg.run(*bg.nsx(ns, 'sh', '-c', 'echo %s > %s' % (value, path)),
               check=False)
    if r.returncode:
        die('%s <- %s: %s' % (path, value, r.stderr.strip()))


class IrqPollModes:
    """The ways a frame gets from the device to a waiting socket, set on
    both ports of the pair (each receives one direction of every
    transaction), and undone."""
    NAMES = ('interrupts', 'no-moderation', 'defer-irqs', 'threaded',
             'busy-poll')

    def __init__(self, pair):
        self.pair = pair
        self.ports = ((pair.ns_a, pair.dev_a), (pair.ns_b, pair.dev_b))
        coal = bg.run(*bg.nsx(pair.ns_a, bg.ETHTOOL, '-c', pair.dev_a)).stdout
        self.usecs = re.search(r'^rx-usecs:\s*(\d+)', coal, re.M).group(1)
        self.frames = re.search(r'^rx-frames:\s*(\d+)', coal, re.M).group(1)
        # The modes compare fixed moderation (DIM off); reset() puts back
        # whatever adaptive setting the port had.
        adaptive = re.search(r'^Adaptive RX:\s*(\S+)\s+TX:\s*(\S+)', coal,
                             re.M)
        self.adaptive = adaptive.groups() if adaptive else None
        self.busy = (bg.read('/proc/sys/net/core/busy_read'),
                     bg.read('/proc/sys/net/core/busy_poll'))

    def coalesce(self, usecs, frames, adaptive=('off', 'off')):
        dim = ('adaptive-rx', adaptive[0], 'adaptive-tx', adaptive[1]) \
            if self.adaptive else ()
        for ns, dev in self.ports:
            r = bg.run(*bg.nsx(ns, bg.ETHTOOL, '-C', dev, *dim, 'rx-usecs',
                               usecs, 'rx-frames', frames), check=False)
            out = (r.stderr + r.stdout).strip()
            # Asking for what is set already is not a failure.
            if r.returncode and not re.search(
                    r'unmodified|no .*changed|nothing to change', out, re.I):
                die('ethtool -C %s rx-usecs %s rx-frames %s: %s' % (
                    dev, usecs, frames, out))

    def netdev_files(self, defer, flush, threaded):
        for ns, dev in self.ports:
            base = '/sys/class/net/%s/' % dev
            sysfs_write(ns, base + 'napi_defer_hard_irqs', defer)
            sysfs_write(ns, base + 'gro_flush_timeout', flush)
            sysfs_write(ns, base + 'threaded', threaded)

    def reset(self):
        """Every setting back, the machine-wide sysctls first; a step that
        fails does not keep the others from running."""
        errors = []
        for step in (
                lambda: bg.write_file('/proc/sys/net/core/busy_read',
                                      self.busy[0]),
                lambda: bg.write_file('/proc/sys/net/core/busy_poll',
                                      self.busy[1]),
                lambda: self.coalesce(self.usecs, self.frames),
                lambda: self.netdev_files(0, 0, 0)):
            try:
                step()
            except (OSError, SystemExit) as e:
                errors.append(str(e))
        if errors:
            die('could not restore the settings: %s' % '; '.join(errors))

    def restore(self):
        """reset(), and the port's adaptive moderation as it was."""
        self.reset()
        if self.adaptive:
            self.coalesce(self.usecs, self.frames, self.adaptive)

    def set(self, mode):
        self.reset()
        if mode == 'no-moderation':
            self.coalesce('0', '1')
        elif mode == 'defer-irqs':
            # NAPI keeps polling from a timer (200 us) instead of
            # re-enabling the interrupt, up to 2 empty polls in a row.
            self.netdev_files(2, 200000, 0)
        elif mode == 'threaded':
            self.netdev_files(0, 0, 1)
        elif mode == 'busy-poll':
            # The socket's blocking read spins on its NAPI for up to 50 us.
            bg.write_file('/proc/sys/net/core/busy_read', '50')
            bg.write_file('/proc/sys/net/core/busy_poll', '50')


def rr(b, pair, secs):
    """One request/response run (make bench's tcp-rr, 64 B messages):
    percentiles, rate, CPU and interrupts per transaction."""
    w = b.rr(pair, size=64, secs=secs)
    return {'p50': w['value'], 'p90': w['p90'], 'p99': w['p99'],
            'transactions': w['transactions'], 'rate': w['rate'],
            'cpu_us': w['cpu_us'], 'irqs': w['irqs']}


def exp_irq_poll(a, b, pair):
    modes = IrqPollModes(pair)
    res = {m: [] for m in IrqPollModes.NAMES}
    try:
        for rnd in range(a.rounds):
            order = IrqPollModes.NAMES if rnd % 2 == 0 else \
                tuple(reversed(IrqPollModes.NAMES))
            for mode in order:
                modes.set(mode)
                w = rr(b, pair, a.secs)
                res[mode].append(w)
                log('irq-poll round %d %-13s p50 %.1f us, p99 %.1f us, '
                    '%.0f/s, CPU %.0f us and %.2f interrupts a transaction'
                    % (rnd + 1, mode, w['p50'], w['p99'] or 0, w['rate'],
                       w['cpu_us'], w['irqs']))
    finally:
        modes.restore()
    med = {m: {k: statistics.median(w[k] for w in res[m])
               for k in ('p50', 'p90', 'p99', 'rate', 'cpu_us', 'irqs')}
           for m in res}
    rows = [(m, med[m]['p50'], med[m]['p90'], med[m]['p99'], med[m]['rate'],
             med[m]['cpu_us'], med[m]['irqs'],
             '%.1f-%.1f' % (min(w['p50'] for w in res[m]),
                            max(w['p50'] for w in res[m])))
            for m in IrqPollModes.NAMES]
    print('%-14s %9s %13s %9s %9s %9s %9s %9s' % (
        'mode', 'p50 us', '(rounds)', 'p90 us', 'p99 us', 'trans/s',
        'CPU us/t', 'irqs/t'))
    print('-' * 88)
    for m, p50, p90, p99, rate, cpu, irqs, spread in rows:
        print('%-14s %9.1f %13s %9.1f %9.1f %9.0f %9.0f %9.2f' % (
            m, p50, spread, p90, p99, rate, cpu, irqs))
    print('a claim holds when the medians differ by more than %d %% '
          '(the rounds\' spread under emulation)' % (100 * MARGIN))
    # Busy polling does not stop the device's interrupts by itself (the
    # handler finds NAPI owned by the poller and does nothing more); with
    # defer-irqs it would, which is the core's IRQ suspension.
    irq, busy = med['interrupts'], med['busy-poll']
    nomod = med['no-moderation']
    checks = [
        ('busy polling answers sooner than interrupts (p50 %.1f against '
         '%.1f us, %.2fx)' % (busy['p50'], irq['p50'],
                              busy['p50'] / irq['p50']),
         clearly_below(busy['p50'], irq['p50'])),
        ('busy polling costs more CPU per transaction (%.0f against %.0f '
         'us, %.2fx)' % (busy['cpu_us'], irq['cpu_us'],
                         busy['cpu_us'] / irq['cpu_us']),
         clearly_above(busy['cpu_us'], irq['cpu_us'])),
        ('moderation delays a lone request (p50 without it %.1f against '
         '%.1f us with the driver\'s rx-usecs %s)' % (
             nomod['p50'], irq['p50'], modes.usecs),
         clearly_below(nomod['p50'], irq['p50'])),
    ]
    return {'rounds': res, 'medians': med,
            'settings': {'rx-usecs': modes.usecs, 'rx-frames': modes.frames,
                         'busy_read': 50, 'busy_poll': 50,
                         'defer_hard_irqs': 2, 'gro_flush_timeout_ns': 200000,
                         'message_bytes': 64, 'secs': a.secs}}, checks


def plot_irq_poll(doc, path, plt):
    med, res = doc['medians'], doc['rounds']
    names = list(IrqPollModes.NAMES)
    fig, (ax, cx) = plt.subplots(1, 2, figsize=(10, 3.8))
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [med[m]['p50'] for m in names], 0.4,
           label='p50', color='C0')
    ax.bar([x + 0.2 for x in xs], [med[m]['p90'] for m in names], 0.4,
           label='p90', color='C1')
    for x, m in zip(xs, names):
        v = [w['p50'] for w in res[m]]
        ax.plot([x - 0.2, x - 0.2], [min(v), max(v)], color='k', lw=1)
    ax.set_xticks(list(xs), names, rotation=20)
    ax.set_ylabel('round trip, us')
    ax.set_title('TCP request/response, 64 B')
    ax.legend()
    cx.bar(xs, [med[m]['cpu_us'] for m in names], 0.5, color='C2',
           label='CPU us per transaction')
    cx.set_xticks(list(xs), names, rotation=20)
    cx.set_ylabel('CPU us per transaction')
    other = cx.twinx()
    other.plot(list(xs), [med[m]['irqs'] for m in names], 'o--', color='C3')
    other.set_ylabel('interrupts per transaction', color='C3')
    other.set_ylim(bottom=0)
    cx.set_title('what it costs')
    fig.tight_layout()
    fig.savefig(path)


# ---- recycle ---------------------------------------------------------------

def exp_recycle(a, b, pair):
    if not os.access(bg.RECYCLE_PARAM, os.W_OK):
        die('no writable %s' % bg.RECYCLE_PARAM)
    if not os.access(bg.ETHTOOL_HDS, os.X_OK):
        die('no %s (make deps builds it: Debian 12\'s ethtool cannot set '
            'tcp-data-split)' % bg.ETHTOOL_HDS)
    was = bg.read(bg.RECYCLE_PARAM)
    probes = bg.PoolProbes()
    probed_ok = probes.add()
    try:
        res = bg.run_recycle(b, pair, a.rounds, probes)
    finally:
        probes.remove()
        bg.write_file(bg.RECYCLE_PARAM, was)
    keys = ('value', 'calls_per_k', 'doorbells_per_pkt', 'hdr_pages_per_k')
    med = {m: {k: statistics.median(w[k] for w in res[m]) for k in keys}
           for m in res}
    probed = {m: [w['probed'] for w in res[m]] for m in res}
    calls = {m: [w['calls'] for w in res[m]] for m in res}
    print('%-22s %12s %14s %14s %12s' % (
        'recycle_batch', 'Gbit/s', 'pp calls/1000', 'header pages', 'doorbells'))
    print('%-22s %12s %14s %14s %12s' % ('', '', 'buffers', '/1000 pkts',
                                        '/pkt'))
    print('-' * 80)
    for m, name in (('N', 'N (one by one)'), ('Y', 'Y (in batches)')):
        print('%-22s %12.3f %14.1f %14.1f %12.3f' % (
            name, med[m]['value'], med[m]['calls_per_k'],
            med[m]['hdr_pages_per_k'], med[m]['doorbells_per_pkt']))
    fewer = med['N']['calls_per_k'] / med['Y']['calls_per_k'] \
        if med['Y']['calls_per_k'] else float('inf')
    agree = all(p == c for m in res for p, c in zip(probed[m], calls[m]))
    checks = [
        ('batched release makes at least %dx fewer page_pool calls, each '
         'taking the ring lock at most once (%.1f against %.1f per 1,000 '
         'buffers: %.1fx)' % (
             bg.RECYCLE_TARGET, med['Y']['calls_per_k'],
             med['N']['calls_per_k'], fewer), fewer >= bg.RECYCLE_TARGET),
        ('batched, header split packs headers: %.1f header pages per 1,000 '
         'packets (under 250, i.e. at least 4 headers a page; one by one '
         'it takes a page each: %.1f)' % (med['Y']['hdr_pages_per_k'],
                                         med['N']['hdr_pages_per_k']),
         med['Y']['hdr_pages_per_k'] < 250),
    ]
    if probed_ok:
        checks.insert(1, (
            'the driver\'s rx_release_calls agree with kprobes on page_pool '
            '(calls/hits, each round: %s)' % '; '.join(
                '%s %s/%s' % (m, c, p) for m in res
                for p, c in zip(probed[m], calls[m])), agree))
    else:
        log('no kprobes on page_pool: rx_release_calls not cross-checked')
    return {'rounds': res, 'medians': med}, checks


def plot_recycle(doc, path, plt):
    med, res = doc['medians'], doc['rounds']
    fig, (ax, cx) = plt.subplots(1, 2, figsize=(9, 3.6))
    modes = ('N', 'Y')
    labels = ('one by one (N)', 'in batches (Y)')
    ax.bar(labels, [med[m]['calls_per_k'] for m in modes],
           color=['C3', 'C0'])
    for i, m in enumerate(modes):
        v = [w['calls_per_k'] for w in res[m]]
        ax.plot([i, i], [min(v), max(v)], color='k', lw=1)
        ax.text(i, med[m]['calls_per_k'], '%.1f' % med[m]['calls_per_k'],
                ha='center', va='bottom')
    ax.set_yscale('log')
    ax.set_ylim(bottom=1)
    ax.set_ylabel('page_pool calls per 1,000 buffers\n(each may take the '
                  'ring lock)')
    ax.set_title('releasing a ring of RX buffers')
    cx.bar(labels, [med[m]['hdr_pages_per_k'] for m in modes],
           color=['C3', 'C0'])
    cx.axhline(1000, ls='--', color='grey')
    cx.text(0.5, 1000, 'a page per packet', ha='center', va='bottom',
            color='grey')
    cx.set_ylabel('header pages per 1,000 packets')
    cx.set_title('header split: headers packed into pages')
    fig.tight_layout()
    fig.savefig(path)


# ---- mmio-read -------------------------------------------------------------

REFNICCTL = os.path.join(REPO, 'build', 'cmake', 'tools', 'refnicctl',
                         'refnicctl')
MMIO_READ_NS = (0, 20000, 100000)  # the bus model's read round trip
MMIO_MODES = ('done-bits', 'head-register')


def refnicctl(ns, *args):
    """refnicctl ARGS in namespace NS: its stdout; a refusal ends the run."""
    r = bg.run(*bg.nsx(ns, REFNICCTL, *args), check=False)
    if r.returncode:
        die('refnicctl %s: %s' % (' '.join(args), r.stderr.strip()))
    return r.stdout


def drv_knob(ns, dev, name):
    """The driver's debugfs file NAME of port DEV (in namespace NS), found
    by its bus-info; the run ends if it cannot be written."""
    info = bg.run(*bg.nsx(ns, bg.ETHTOOL, '-i', dev)).stdout
    knob = '/sys/kernel/debug/refnic/drv-%s/%s' % (
        re.search(r'^bus-info:\s*(\S+)', info, re.M).group(1), name)
    if not os.access(knob, os.W_OK):
        die('no writable %s (debugfs mounted?)' % knob)
    return knob


def bus_set(pair, *args):
    """refnicctl bus set on the pair's card (both ports): ARGS."""
    refnicctl(pair.ns_a, 'bus', 'set', pair.dev_a, *args)


def bus_counters(pair):
    """The counters of the card's bus model (refnicctl bus show)."""
    return json.loads(refnicctl(pair.ns_a, '-j', 'bus', 'show',
                                pair.dev_a))[0]['bus']


class BusModel:
    """The card's bus model (refnicctl bus set/show) and the sender's TX
    completion mode (debugfs tx_clean_mmio), set and undone."""

    def __init__(self, pair):
        self.pair = pair
        self.knob = drv_knob(pair.ns_a, pair.dev_a, 'tx_clean_mmio')

    def set(self, mode, read_ns):
        bg.write_file(self.knob, 'Y' if mode == 'head-register' else 'N')
        bus_set(self.pair, 'read-ns', str(read_ns))

    def restore(self):
        bg.write_file(self.knob, 'N')
        bus_set(self.pair, 'read-ns', '0')


def exp_mmio_read(a, b, pair):
    if not os.access(REFNICCTL, os.X_OK):
        die('no %s (make lib)' % REFNICCTL)
    bus = BusModel(pair)
    # 64 B UDP from one sender: a TX clean every poll, each poll's worth
    # of completions small, as the lesson needs (TCP's 64 KiB TSO frames
    # complete a few hundred times a second).
    if not hasattr(b.a, 'udp_flows'):
        b.a.udp_flows = 1
    configs = [(m, ns) for ns in MMIO_READ_NS for m in MMIO_MODES]
    res = {'%s/%d' % c: [] for c in configs}
    try:
        for rnd in range(a.rounds):
            for mode, ns in (configs if rnd % 2 == 0 else configs[::-1]):
                bus.set(mode, ns)
                c0 = bus_counters(pair)
                w = b.udp(pair, pair.irq_cpus[0])
                c1 = bus_counters(pair)
                pkts = max(w['tx_packets'], 1)
                r = {'kpps': w['value'],
                     'reads_per_k': 1000 * (c1['reads'] - c0['reads']) / pkts,
                     'waited_us_per_k': (c1['read_waited_ns'] -
                                         c0['read_waited_ns']) / pkts,
                     'tx_packets': w['tx_packets']}
                res['%s/%d' % (mode, ns)].append(r)
                log('mmio-read round %d %-13s read %6d ns: %.1f kpps, '
                    '%.1f reads and %.0f us waited per 1,000 packets' % (
                        rnd + 1, mode, ns, r['kpps'], r['reads_per_k'],
                        r['waited_us_per_k']))
    finally:
        bus.restore()
    keys = ('kpps', 'reads_per_k', 'waited_us_per_k')
    med = {k: {f: statistics.median(r[f] for r in v) for f in keys}
           for k, v in res.items()}
    print('%-15s %10s %10s %14s %16s' % ('TX completion', 'read ns',
                                          'kpps', 'reads/1000 pkt',
                                          'us waited/1000'))
    print('-' * 70)
    for mode, ns in configs:
        m = med['%s/%d' % (mode, ns)]
        print('%-15s %10d %10.1f %14.1f %16.0f' % (
            mode, ns, m['kpps'], m['reads_per_k'], m['waited_us_per_k']))
    mid, top = MMIO_READ_NS[1], MMIO_READ_NS[-1]
    dt, hm = med['done-bits/%d' % top], med['head-register/%d' % mid]
    ht = med['head-register/%d' % top]
    # The time per packet is what the reading CPUs waited, by the kernel's
    # clock (read-waited-ns). The packet rate does not show it under
    # single-threaded TCG: a vCPU spinning in udelay() hands the host
    # thread to the other vCPU at each PAUSE.
    checks = [
        ('reading the HEAD register costs a register read per clean: '
         '%.1f reads per 1,000 packets against %.1f with DONE bits (the '
         'driver\'s other reads: its service task, statistics)' % (
             ht['reads_per_k'], dt['reads_per_k']),
         clearly_above(ht['reads_per_k'], dt['reads_per_k'])),
        ('the HEAD-register driver\'s CPUs wait longer per packet as a '
         'read costs more: %.0f us per 1,000 packets at %d us, %.0f at %d '
         'us' % (hm['waited_us_per_k'], mid // 1000, ht['waited_us_per_k'],
                 top // 1000),
         clearly_above(ht['waited_us_per_k'], hm['waited_us_per_k'])),
        ('at %d us a read, the DONE-bit driver\'s CPUs wait less per '
         'packet: %.0f us per 1,000 packets against %.0f' % (
             top // 1000, dt['waited_us_per_k'], ht['waited_us_per_k']),
         clearly_below(dt['waited_us_per_k'], ht['waited_us_per_k'])),
    ]
    return {'rounds': res, 'medians': med,
            'settings': {'read_ns': list(MMIO_READ_NS), 'udp_bytes': 64,
                         'secs': a.secs}}, checks


def plot_mmio_read(doc, path, plt):
    med, res = doc['medians'], doc['rounds']
    read_ns = doc['settings']['read_ns']
    fig, (ax, cx) = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, mode in enumerate(MMIO_MODES):
        ys = [med['%s/%d' % (mode, ns)]['kpps'] for ns in read_ns]
        xs = [ns / 1000 for ns in read_ns]
        ax.plot(xs, ys, 'o-', color='C%d' % i, label=mode)
        for x, ns in zip(xs, read_ns):
            v = [r['kpps'] for r in res['%s/%d' % (mode, ns)]]
            ax.plot([x, x], [min(v), max(v)], color='C%d' % i, lw=1)
        cx.plot(xs, [med['%s/%d' % (mode, ns)]['waited_us_per_k']
                     for ns in read_ns], 'o-', color='C%d' % i, label=mode)
    ax.set_xlabel('register read round trip, us')
    ax.set_ylabel('64 B UDP, kpps received (medians, rounds\' range)')
    ax.set_ylim(bottom=0)
    ax.set_title('TX completion from DONE bits or a register')
    ax.legend()
    cx.set_xlabel('register read round trip, us')
    cx.set_ylabel('us the CPU waited per 1,000 packets')
    cx.set_title('what the reads cost the CPU')
    cx.legend()
    fig.tight_layout()
    fig.savefig(path)


# ---- doorbell --------------------------------------------------------------

REFILL_BATCHES = (1, 4, 16, 32, 64)


def tail_doorbells(pair):
    """RXQ_TAIL writes the receiver's device counted (its RX queues' model
    counters, refnicctl stats): the refill doorbells alone, without the
    completion queue's RXCQ_HEAD ones the driver's rxN_doorbells add; and
    the packets the receiver took, read right after."""
    out = refnicctl(pair.ns_b, '-j', 'stats', 'show', pair.dev_b)
    rings = sum(q['doorbells'] for q in json.loads(out)[0]['queue_stats']
                if q['type'] == 'rx')
    return rings, pair.link_stats(pair.ns_b, pair.dev_b)['rx_packets']


def exp_doorbell(a, b, pair):
    if not os.access(REFNICCTL, os.X_OK):
        die('no %s (make lib)' % REFNICCTL)
    knob = drv_knob(pair.ns_b, pair.dev_b, 'rx_refill_batch')
    was = bg.read(knob)
    ring = bg.rx_ring(pair)
    other = ring // 2 if ring // 2 >= 64 else ring * 2
    res = {n: [] for n in REFILL_BATCHES}
    try:
        for rnd in range(a.rounds):
            order = REFILL_BATCHES if rnd % 2 == 0 else REFILL_BATCHES[::-1]
            for n in order:
                # The RX queues take the batch when rebuilt.
                bg.write_file(knob, str(n))
                bg.rx_ring(pair, other)
                bg.rx_ring(pair, ring)
                t0 = tail_doorbells(pair)
                w = bg.rx_figures(b.tcp(pair, 1500))
                t1 = tail_doorbells(pair)
                c = bg.rx_counters(w)
                r = {'gbit': w['value'], 'cpu_per_gib': w['rx_cpu_per_gib'],
                     # the same CPU time per packet the port received
                     # (its bytes count the headers: at MTU 1500 about
                     # 4 % more than the payload the CPU per GiB is of)
                     'cpu_us_per_pkt': 1e6 * bg.per(
                         w['rx_cpu_per_gib'] * w['rx_bytes'] / (1 << 30),
                         w['rx_packets']),
                     'doorbells_per_pkt': bg.per(t1[0] - t0[0],
                                                 t1[1] - t0[1]),
                     'pkts_per_poll': bg.per(c.get('packets', 0),
                                             w.get('polls_b', 0))}
                res[n].append(r)
                log('doorbell round %d batch %2d: %.3f Gbit/s, %.3f '
                    'doorbells a packet, %.1f packets a poll, receiver '
                    '%.2f CPU s/GiB, %.2f us a packet' % (
                        rnd + 1, n, r['gbit'], r['doorbells_per_pkt'],
                        r['pkts_per_poll'], r['cpu_per_gib'],
                        r['cpu_us_per_pkt']))
    finally:
        bg.write_file(knob, was)
        bg.rx_ring(pair, other)
        bg.rx_ring(pair, ring)
    keys = ('gbit', 'cpu_per_gib', 'cpu_us_per_pkt', 'doorbells_per_pkt',
            'pkts_per_poll')
    med = {n: {k: statistics.median(r[k] for r in res[n]) for k in keys}
           for n in REFILL_BATCHES}
    print('%-12s %10s %16s %16s %18s %18s' % (
        'refill batch', 'Gbit/s', 'doorbells/pkt', 'packets/poll',
        'receiver CPU s/GiB', 'receiver CPU us/pkt'))
    print('-' * 97)
    for n in REFILL_BATCHES:
        m = med[n]
        print('%-12d %10.3f %16.3f %16.1f %18.2f %18.2f' % (
            n, m['gbit'], m['doorbells_per_pkt'], m['pkts_per_poll'],
            m['cpu_per_gib'], m['cpu_us_per_pkt']))
    lo, hi = med[REFILL_BATCHES[0]], med[REFILL_BATCHES[-1]]
    # A batch of 1 still posts every free buffer with one doorbell: one a
    # poll that consumed any, so its doorbells per packet are about one
    # over the packets a poll. Doorbells are the device's RXQ_TAIL writes
    # over the whole TCP run, per packet the receiver took in it.
    checks = [
        ('batches of %d ring %.1fx fewer doorbells than batches of 1 (%.3f '
         'against %.3f a packet, at %.1f packets a poll)' % (
             REFILL_BATCHES[-1],
             lo['doorbells_per_pkt'] / hi['doorbells_per_pkt']
             if hi['doorbells_per_pkt'] else float('inf'),
             hi['doorbells_per_pkt'], lo['doorbells_per_pkt'],
             lo['pkts_per_poll']),
         clearly_below(2 * hi['doorbells_per_pkt'],
                       lo['doorbells_per_pkt'])),
        ('doorbells per packet fall as the batch grows, within the rounds\' '
         'spread (medians: %s)' %
         ', '.join('%d: %.3f' % (n, med[n]['doorbells_per_pkt'])
                   for n in REFILL_BATCHES),
         all(not clearly_above(med[y]['doorbells_per_pkt'],
                               med[x]['doorbells_per_pkt'])
             for x, y in zip(REFILL_BATCHES, REFILL_BATCHES[1:]))),
    ]
    return {'rounds': {str(n): v for n, v in res.items()},
            'medians': {str(n): v for n, v in med.items()},
            'settings': {'batches': list(REFILL_BATCHES), 'ring': ring,
                         'mtu': 1500, 'secs': a.secs}}, checks


def bars_with_range(ax, xs, ns, med, res, key, **kw):
    """Bars of the medians of KEY at XS, one per setting of NS, each with
    the range of its rounds as a line."""
    ax.bar(xs, [med[str(n)][key] for n in ns], 0.6, **kw)
    for x, n in zip(xs, ns):
        v = [r[key] for r in res[str(n)]]
        ax.plot([x, x], [min(v), max(v)], color='k', lw=1)
    ax.set_xticks(xs, [str(n) for n in ns])


def plot_doorbell(doc, path, plt):
    med, res = doc['medians'], doc['rounds']
    ns = doc['settings']['batches']
    fig, (ax, cx) = plt.subplots(1, 2, figsize=(10, 3.8))
    xs = list(range(len(ns)))
    bars_with_range(ax, xs, ns, med, res, 'doorbells_per_pkt', color='C0')
    ax.set_xlabel('RX refill batch (buffers a doorbell at least)')
    ax.set_ylabel('RXQ_TAIL doorbells per packet')
    ax.set_title('doorbells the receiver rings')
    cx.plot(xs, [med[str(n)]['gbit'] for n in ns], 'o-', color='C1',
            label='Gbit/s')
    cx.set_xticks(xs, [str(n) for n in ns])
    cx.set_xlabel('RX refill batch')
    cx.set_ylabel('TCP Gbit/s', color='C1')
    cx.set_ylim(bottom=0)
    other = cx.twinx()
    other.plot(xs, [med[str(n)]['cpu_per_gib'] for n in ns], 's--',
               color='C2')
    other.set_ylabel('receiver CPU s per GiB', color='C2')
    other.set_ylim(bottom=0)
    cx.set_title('what it costs')
    fig.tight_layout()
    fig.savefig(path)


# ---- napi-budget -----------------------------------------------------------

NAPI_WEIGHTS = (8, 16, 64, 256)
BULK_QUEUE, RR_QUEUE = 0, 1


class NapiWeight:
    """The receiver's NAPI weight (debugfs napi_weight, taken by its
    vectors when the port comes up) and its two queues' interrupts on one
    CPU, set and undone."""

    def __init__(self, pair, cpu):
        self.pair, self.cpu = pair, cpu
        self.knob = drv_knob(pair.ns_b, pair.dev_b, 'napi_weight')
        self.was = bg.read(self.knob)
        self.irqs = bg.queue_irqs(pair.dev_b)
        if len(self.irqs) <= RR_QUEUE:
            die('%s has %d queues; napi-budget needs 2' % (
                pair.dev_b, len(self.irqs)))
        self.affinity = [bg.read('/proc/irq/%s/smp_affinity_list' % i)
                         for i in self.irqs]

    def link(self, state):
        bg.run(*bg.nsx(self.pair.ns_b, 'ip', 'link', 'set',
                       self.pair.dev_b, state))

    def set(self, weight):
        bg.write_file(self.knob, str(weight))
        self.link('down')
        self.link('up')
        for q in (BULK_QUEUE, RR_QUEUE):
            bg.write_file('/proc/irq/%s/smp_affinity_list' % self.irqs[q],
                          str(self.cpu))
        # Up once the peer answers (carrier, ARP).
        for _ in range(300):
            if not bg.run(*bg.nsx(self.pair.ns_a, 'ping', '-c', '1', '-W',
                                  '1', self.pair.ip_b), check=False
                          ).returncode:
                return
        die('%s did not come back up' % self.pair.dev_b)

    def restore(self):
        bg.write_file(self.knob, self.was)
        self.link('down')
        self.link('up')
        for irq, aff in zip(self.irqs, self.affinity):
            bg.write_file('/proc/irq/%s/smp_affinity_list' % irq, aff)


def exp_napi_budget(a, b, pair):
    # The receiver's two queues interrupt the CPU its applications do not
    # run on: the bulk flow's polls and the request's poll share it.
    cpu = b.cpu_tx
    weights = NapiWeight(pair, cpu)
    res = {n: [] for n in NAPI_WEIGHTS}
    try:
        for rnd in range(a.rounds):
            for n in (NAPI_WEIGHTS if rnd % 2 == 0 else NAPI_WEIGHTS[::-1]):
                weights.set(n)
                procs = b.udp_start(pair, 1, [BULK_QUEUE])
                try:
                    time.sleep(a.warmup)
                    w = b.rr(pair, size=64, secs=a.secs,
                             sport=b.ports(pair, 1, bg.SOCKPERF_PORT, 0,
                                           [RR_QUEUE]))
                finally:
                    for p in procs[0] + procs[1]:
                        b.stop(p)
                e = w['eth_b']
                q = BULK_QUEUE
                pkts = max(e.get('rx%d_packets' % q, 0), 1)
                polls = max(e.get('q%d_polls' % q, 0), 1)
                r = {'pkts_per_poll': pkts / polls,
                     'full_poll_share': e.get('q%d_full_polls' % q, 0) /
                     polls,
                     'irqs_per_k': 1000 * e.get('q%d_irqs' % q, 0) / pkts,
                     'kpps': pkts / w['secs'] / 1e3,
                     'rr_p50': w['value'], 'rr_p99': w['p99'],
                     'rr_rate': w['rate'],
                     'rr_packets': e.get('rx%d_packets' % RR_QUEUE, 0)}
                res[n].append(r)
                log('napi-budget round %d weight %3d: bulk %.1f kpps, %.1f '
                    'packets a poll, %.0f %% of polls used the budget, %.1f '
                    'interrupts per 1,000; request/response p50 %.0f us, '
                    'p99 %.0f us' % (rnd + 1, n, r['kpps'],
                                     r['pkts_per_poll'],
                                     100 * r['full_poll_share'],
                                     r['irqs_per_k'], r['rr_p50'],
                                     r['rr_p99']))
    finally:
        weights.restore()
    keys = ('pkts_per_poll', 'full_poll_share', 'irqs_per_k', 'kpps',
            'rr_p50', 'rr_p99', 'rr_rate')
    med = {n: {k: statistics.median(r[k] for r in res[n]) for k in keys}
           for n in NAPI_WEIGHTS}
    print('%-7s %10s %12s %12s %14s %12s %12s' % (
        'weight', 'bulk kpps', 'pkts/poll', 'full polls', 'irqs/1000 pkt',
        'rr p50 us', 'rr p99 us'))
    print('-' * 86)
    for n in NAPI_WEIGHTS:
        m = med[n]
        print('%-7d %10.1f %12.1f %11.0f%% %14.1f %12.0f %12.0f' % (
            n, m['kpps'], m['pkts_per_poll'], 100 * m['full_poll_share'],
            m['irqs_per_k'], m['rr_p50'], m['rr_p99']))
    lo, hi = med[NAPI_WEIGHTS[0]], med[NAPI_WEIGHTS[-1]]
    checks = [
        ('a poll takes at most its budget: at weight %d, %.1f packets a '
         'poll and %.0f %% of polls used all of it; at %d, %.1f a poll' % (
             NAPI_WEIGHTS[0], lo['pkts_per_poll'],
             100 * lo['full_poll_share'], NAPI_WEIGHTS[-1],
             hi['pkts_per_poll']),
         lo['pkts_per_poll'] <= NAPI_WEIGHTS[0] and
         clearly_above(hi['pkts_per_poll'], lo['pkts_per_poll'])),
        ('a larger budget lets one queue hold its CPU longer: a request '
         'whose queue interrupts the same CPU as the bulk flow\'s waits '
         'longer (p99 %.0f us at weight %d against %.0f us at %d)' % (
             hi['rr_p99'], NAPI_WEIGHTS[-1], lo['rr_p99'],
             NAPI_WEIGHTS[0]),
         clearly_above(hi['rr_p99'], lo['rr_p99'])),
    ]
    return {'rounds': {str(n): v for n, v in res.items()},
            'medians': {str(n): v for n, v in med.items()},
            'settings': {'weights': list(NAPI_WEIGHTS), 'irq_cpu': cpu,
                         'bulk_queue': BULK_QUEUE, 'rr_queue': RR_QUEUE,
                         'udp_bytes': bg.UDP_PAYLOAD, 'rr_bytes': 64,
                         'secs': a.secs}}, checks


def plot_napi_budget(doc, path, plt):
    med, res = doc['medians'], doc['rounds']
    ns = doc['settings']['weights']
    xs = list(range(len(ns)))
    fig, (ax, cx) = plt.subplots(1, 2, figsize=(10, 3.8))
    bars_with_range(ax, xs, ns, med, res, 'pkts_per_poll', color='C0')
    ax.set_xlabel('NAPI weight (budget of a poll)')
    ax.set_ylabel('bulk queue: packets a poll')
    other = ax.twinx()
    other.plot(xs, [100 * med[str(n)]['full_poll_share'] for n in ns],
               's--', color='C3')
    other.set_ylabel('polls that used the whole budget, %', color='C3')
    other.set_ylim(0, 105)
    ax.set_title('64 B UDP flood on one queue')
    for key, style, label in (('rr_p50', 'o-', 'p50'),
                              ('rr_p99', 's--', 'p99')):
        cx.plot(xs, [med[str(n)][key] for n in ns], style, label=label)
    for x, n in zip(xs, ns):
        v = [r['rr_p99'] for r in res[str(n)]]
        cx.plot([x, x], [min(v), max(v)], color='C1', lw=1)
    cx.set_xticks(xs, [str(n) for n in ns])
    cx.set_xlabel('NAPI weight')
    cx.set_ylabel('round trip, us')
    cx.set_ylim(bottom=0)
    cx.set_title('TCP request/response on another queue, same CPU')
    cx.legend()
    fig.tight_layout()
    fig.savefig(path)


# ---- placement ---------------------------------------------------------------

# The VM: two NUMA nodes of three CPUs (0-2 and 3-5), each vCPU a host
# thread (lab.sh, from PLACEMENT_VM). The card is on node 0; the sender
# (A's iperf3 client, A's interrupts) on CPU 2 of node 0 in every layout.
PLACEMENT_VM = ('--cpus', '6', '--numa', '2', '--tcg', 'multi')
PLACE_SENDER_CPU = 2
PLACE_REMOTE_NS = (0, 20000)  # the bus model's cross-node charge
# name: (what it is, CPU of each of B's two queues' interrupts, receiver CPU
# or None: anywhere)
LAYOUTS = {
    'local-split': ('interrupts and receiver on the card\'s node, separate '
                    'cores', (0, 0), 1),
    'local-same': ('interrupts and receiver on one core of the card\'s '
                   'node', (0, 0), 0),
    'app-remote': ('interrupts on the card\'s node, receiver on the other',
                   (0, 0), 4),
    'irq-remote': ('interrupts on the other node, receiver on the card\'s',
                   (3, 3), 1),
    'all-remote': ('interrupts and receiver on the other node, separate '
                   'cores', (3, 3), 4),
    'rss-spread': ('one queue\'s interrupts on each node, receiver '
                   'anywhere', (0, 3), None),
    # Steering in software (the host's side of "bind RX and TX work to
    # separate NUMA-local cores"): PLACE_STEERING below.
    'rps-remote': ('interrupts on the card\'s node, RPS moves the protocol '
                   'work to the receiver on the other', (0, 0), 4),
    'tx-split': ('RX interrupts on one core, TX (the ACKs, by XPS) and the '
                 'receiver on a second, both on the card\'s node', (0, 1),
                 1),
}
# Software steering of the layouts that use it: 'rps' the CPUs every B RX
# queue hands its packets to (rps_cpus), 'rx_queues' the RX queues RSS
# spreads over (ethtool -X equal), 'xps' B's TX queue for every CPU
# (xps_cpus), so that its transmit completions interrupt that queue's CPU.
PLACE_STEERING = {
    'rps-remote': {'rps': (4,)},
    'tx-split': {'rx_queues': 1, 'xps': 1},
}


def node_of(cpu):
    for d in os.listdir('/sys/devices/system/cpu/cpu%d' % cpu):
        if re.match(r'^node\d+$', d):
            return int(d[4:])
    return 0


class Placement:
    """B's queue interrupts (smp_affinity_list), the card's bus model
    (node 0, the cross-node charge), set and undone."""

    def __init__(self, pair):
        self.pair = pair
        self.irqs_b = bg.queue_irqs(pair.dev_b)
        self.irqs_a = bg.queue_irqs(pair.dev_a)
        if len(self.irqs_b) < 2:
            die('%s has %d queues; placement needs 2' % (pair.dev_b,
                                                         len(self.irqs_b)))
        self.saved = {i: bg.read('/proc/irq/%s/smp_affinity_list' % i)
                      for i in self.irqs_a + self.irqs_b}
        self.ring = bg.rx_ring(pair)
        self.other = self.ring // 2 if self.ring // 2 >= 64 else self.ring * 2
        self.queues = len(self.irqs_b)
        self.saved_xps = bg.run(*bg.nsx(
            pair.ns_b, 'cat', *(self.queue_path('tx', q, 'xps_cpus')
                                for q in range(self.queues)))).stdout.split()

    def queue_path(self, kind, q, name):
        """B's /sys/class/net/DEV/queues/KIND-Q/NAME (seen from B's
        namespace, whose sysfs shows its devices)."""
        return '/sys/class/net/%s/queues/%s-%d/%s' % (self.pair.dev_b, kind,
                                                       q, name)

    def steer(self, layout):
        """RPS, XPS and the RSS spread of LAYOUT (PLACE_STEERING); the
        defaults for the others: no RPS, XPS as the driver set it, RSS over
        every queue. Every queue's files in one shell in B's namespace."""
        st = PLACE_STEERING.get(layout, {})
        rps = '%x' % sum(1 << c for c in st.get('rps', ()))
        every_cpu = '%x' % ((1 << (os.cpu_count() or 1)) - 1)
        writes = []
        for q in range(self.queues):
            xps = self.saved_xps[q]
            if 'xps' in st:
                xps = every_cpu if q == st['xps'] else '0'
            writes += ['echo %s >%s' % (rps, self.queue_path('rx', q, 'rps_cpus')),
                       'echo %s >%s' % (xps, self.queue_path('tx', q, 'xps_cpus'))]
        bg.run(*bg.nsx(self.pair.ns_b, 'sh', '-ec', '; '.join(writes)))
        bg.run(*bg.nsx(self.pair.ns_b, bg.ETHTOOL, '-X', self.pair.dev_b,
                       'equal', str(st.get('rx_queues', self.queues))))

    def set(self, layout, remote_ns):
        irq_cpus = LAYOUTS[layout][1]
        for q, irq in enumerate(self.irqs_b):
            bg.write_file('/proc/irq/%s/smp_affinity_list' % irq,
                          str(irq_cpus[q % len(irq_cpus)]))
        for irq in self.irqs_a:
            bg.write_file('/proc/irq/%s/smp_affinity_list' % irq,
                          str(PLACE_SENDER_CPU))
        bus_set(self.pair, 'node', '0', 'remote-ns', str(remote_ns))
        self.steer(layout)
        self.rebuild_rx(irq_cpus[0])

    def rebuild_rx(self, cpu):
        """Rebuild B's RX rings from CPU: their first fill is done in the
        caller's context, so the buffers start on CPU's node rather than
        on the node of the layout before (page_pool then refills, and keeps
        recycling only pages of, the node NAPI runs on; a short run would
        otherwise still carry the last layout's buffers)."""
        for n in (self.other, self.ring):
            r = bg.run('taskset', '-c', str(cpu),
                       *bg.nsx(self.pair.ns_b, bg.ETHTOOL, '-G',
                               self.pair.dev_b, 'rx', str(n)), check=False)
            if r.returncode:
                die('ethtool -G %s rx %d on CPU %d: %s' % (
                    self.pair.dev_b, n, cpu, r.stderr.strip()))

    def restore(self):
        for irq, aff in self.saved.items():
            bg.write_file('/proc/irq/%s/smp_affinity_list' % irq, aff)
        bus_set(self.pair, 'node', 'none', 'remote-ns', '0')
        self.steer(None)


def exp_placement(a, b, pair):
    if not os.access(REFNICCTL, os.X_OK):
        die('no %s (make lib)' % REFNICCTL)
    ncpu = os.cpu_count() or 1
    if ncpu < 6 or node_of(3) != 1 or node_of(0) != 0:
        die('placement needs two NUMA nodes of three CPUs each (lab.sh '
            'boots such a VM); this machine has %d CPUs' % ncpu)
    place = Placement(pair)
    configs = [(lay, ns) for ns in PLACE_REMOTE_NS for lay in LAYOUTS]
    res = {'%s/%d' % c: [] for c in configs}
    b.cpu_tx = PLACE_SENDER_CPU
    try:
        for rnd in range(a.rounds):
            for lay, ns in (configs if rnd % 2 == 0 else configs[::-1]):
                place.set(lay, ns)
                app = LAYOUTS[lay][2]
                b.cpu_rx = app if app is not None else '0-%d' % (ncpu - 1)
                c0 = bus_counters(pair)
                w = b.tcp(pair, 1500)
                c1 = bus_counters(pair)
                gib = max(w['rx_bytes'], 1) / (1 << 30)
                r = {'gbit': w['value'], 'cpu_per_gib': w['rx_cpu_per_gib'],
                     'remote_tlps_per_mib': (c1['dma_remote_tlps'] -
                                             c0['dma_remote_tlps']) /
                     (gib * 1024),
                     'remote_reads': c1['remote_reads'] - c0['remote_reads'],
                     'throttled': c1['dma_throttled'] - c0['dma_throttled']}
                res['%s/%d' % (lay, ns)].append(r)
                log('placement round %d %-11s remote %5d ns: %.3f Gbit/s, '
                    'receiver %.2f CPU s/GiB, %.0f remote TLPs per MiB, %d '
                    'remote reads' % (rnd + 1, lay, ns, r['gbit'],
                                      r['cpu_per_gib'],
                                      r['remote_tlps_per_mib'],
                                      r['remote_reads']))
    finally:
        place.restore()
    keys = ('gbit', 'cpu_per_gib', 'remote_tlps_per_mib', 'remote_reads')
    med = {k: {f: statistics.median(r[f] for r in v) for f in keys}
           for k, v in res.items()}
    print('%-12s %10s %10s %12s %16s  %s' % (
        'layout', 'remote ns', 'Gbit/s', 'CPU s/GiB', 'remote TLP/MiB',
        'interrupts CPUs, receiver CPU'))
    print('-' * 96)
    for lay, ns in configs:
        m = med['%s/%d' % (lay, ns)]
        what = LAYOUTS[lay]
        print('%-12s %10d %10.3f %12.2f %16.1f  %s, %s' % (
            lay, ns, m['gbit'], m['cpu_per_gib'], m['remote_tlps_per_mib'],
            '+'.join(str(c) for c in sorted(set(what[1]))),
            'any' if what[2] is None else what[2]))
    top = PLACE_REMOTE_NS[-1]
    local = [lay for lay in LAYOUTS if set(LAYOUTS[lay][1]) == {0}]
    remote = [lay for lay in LAYOUTS if set(LAYOUTS[lay][1]) == {3}]
    best = max(LAYOUTS, key=lambda lay: med['%s/%d' % (lay, top)]['gbit'])
    g = {lay: med['%s/%d' % (lay, top)]['gbit'] for lay in LAYOUTS}
    g0 = {lay: med['%s/0' % lay]['gbit'] for lay in LAYOUTS}
    gap = min(g[lay] for lay in local) / max(max(g[lay] for lay in remote),
                                             1e-9)
    gap0 = min(g0[lay] for lay in local) / max(
        max(g0[lay] for lay in remote), 1e-9)
    tlp = {lay: med['%s/%d' % (lay, top)]['remote_tlps_per_mib']
           for lay in LAYOUTS}
    print('winner at %d ns a crossing: %s (%s), %.3f Gbit/s' % (
        top, best, LAYOUTS[best][0], g[best]))
    print('QEMU gives the two nodes no cost of their own: the bus model\'s '
          'cross-node charge (remote-ns, on DMA to the other node\'s '
          'memory and register reads from its CPUs) stands for it; what '
          'differs at 0 ns is the VM\'s own, not a NUMA cost')
    checks = [
        ('RX buffers follow the interrupts: with interrupts on the other '
         'node, DMA crosses to its memory (%s remote TLPs per MiB) and with '
         'them on the card\'s node it does not (%s)' % (
             ', '.join('%s %.0f' % (lay, tlp[lay]) for lay in remote),
             ', '.join('%s %.0f' % (lay, tlp[lay]) for lay in local)),
         min(tlp[lay] for lay in remote) > 10 * max(
             max(tlp[lay] for lay in local), 1)),
        ('at %d ns a crossing, every layout with the interrupts on the '
         'card\'s node moves more than every layout with them on the '
         'other (%s against %s Gbit/s)' % (
             top, ', '.join('%.3f' % g[lay] for lay in local),
             ', '.join('%.3f' % g[lay] for lay in remote)),
         min(g[lay] for lay in local) > (1 + MARGIN) *
         max(g[lay] for lay in remote)),
        ('RPS moves the protocol work, not the buffers: with RPS handing '
         'the packets to the other node, DMA stays on the card\'s '
         '(rps-remote %.0f remote TLPs per MiB, against %s)' % (
             tlp['rps-remote'],
             ', '.join('%s %.0f' % (lay, tlp[lay]) for lay in remote)),
         10 * max(tlp['rps-remote'], 1) < min(tlp[lay] for lay in remote)),
        ('the charge makes most of the difference: the slowest layout with '
         'interrupts on the card\'s node moves %.1fx the fastest with them '
         'on the other at %d ns, %.1fx at 0 ns' % (gap, top, gap0),
         gap > 2 * gap0),
    ]
    return {'rounds': res, 'medians': med, 'winner': best,
            'settings': {'remote_ns': list(PLACE_REMOTE_NS),
                         'layouts': {k: {'what': v[0], 'irq_cpus': v[1],
                                         'receiver_cpu': v[2]}
                                     for k, v in LAYOUTS.items()},
                         'sender_cpu': PLACE_SENDER_CPU, 'mtu': 1500,
                         'secs': a.secs}}, checks


def plot_placement(doc, path, plt):
    med, res = doc['medians'], doc['rounds']
    lays = list(doc['settings']['layouts'])
    nss = doc['settings']['remote_ns']
    xs = list(range(len(lays)))
    fig, (ax, cx) = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(nss)
    for i, ns in enumerate(nss):
        off = (i - (len(nss) - 1) / 2) * width
        ax.bar([x + off for x in xs],
               [med['%s/%d' % (lay, ns)]['gbit'] for lay in lays], width,
               color='C%d' % i, label='cross-node charge %d us' % (ns // 1000))
        for x, lay in zip(xs, lays):
            v = [r['gbit'] for r in res['%s/%d' % (lay, ns)]]
            ax.plot([x + off] * 2, [min(v), max(v)], color='k', lw=1)
        cx.bar([x + off for x in xs],
               [med['%s/%d' % (lay, ns)]['cpu_per_gib'] for lay in lays],
               width, color='C%d' % i)
    ax.set_xticks(xs, lays, rotation=25)
    ax.set_ylabel('TCP Gbit/s (medians, rounds\' range)')
    ax.set_title('where interrupts and the receiver run')
    ax.legend()
    cx.set_xticks(xs, lays, rotation=25)
    cx.set_ylabel('receiver CPU s per GiB')
    cx.set_title('what it costs (winner: %s)' % doc['winner'])
    fig.tight_layout()
    fig.savefig(path)


EXPERIMENTS = {
    'irq-poll': (
        'Busy polling trades CPU for latency: a socket that spins on its '
        'queue answers a request sooner than one woken by an interrupt, '
        'and pays for it in CPU; interrupt moderation delays a lone '
        'packet.', exp_irq_poll, plot_irq_poll, 'sockperf'),
    'recycle': (
        'Returning buffers in batches takes a pool\'s lock once per batch '
        'instead of once per buffer; header split lets many packets\' '
        'headers share a page.', exp_recycle, plot_recycle, 'iperf3'),
    'doorbell': (
        'A doorbell is an MMIO write the device must act on: refilling the '
        'RX ring in batches tells it about many buffers with one write '
        'instead of one write a buffer.', exp_doorbell, plot_doorbell,
        'iperf3'),
    'mmio-read': (
        'A register read is a non-posted PCIe transaction: the CPU waits '
        'for its round trip, so a driver that learns of TX completions by '
        'reading the device\'s HEAD register pays it on every clean, while '
        'one that reads DONE bits the device wrote into host memory pays '
        'nothing.', exp_mmio_read, plot_mmio_read, 'python3'),
    'napi-budget': (
        'The NAPI budget bounds what one queue takes in a poll: a small '
        'budget polls more often for the same packets, a large one lets a '
        'busy queue hold its CPU longer while another queue\'s packet '
        'waits.', exp_napi_budget, plot_napi_budget, 'sockperf'),
    'placement': (
        'Where interrupts and threads run matters on a host of several NUMA '
        'nodes: a queue whose interrupts run on the card\'s node keeps its '
        'buffers and register reads there, one on the other node crosses '
        'the interconnect for every packet.', exp_placement, plot_placement,
        'iperf3'),
}

# What an experiment needs of the VM lab.sh boots (vm.sh's options; --tcg
# is its REFNIC_VM_TCG_THREAD).
VM_SHAPE = {'placement': PLACEMENT_VM}
# Rounds when --rounds is not given: placement's sweep is 16 settings long.
DEFAULT_ROUNDS = {'placement': 2}


def pair_info(pair):
    coal = bg.run(*bg.nsx(pair.ns_a, bg.ETHTOOL, '-c', pair.dev_a)).stdout
    usecs = re.search(r'^rx-usecs:\s*(\S+)', coal, re.M)
    virt = bg.machine()
    return ('%d vCPUs (%s), kernel %s; refnic %s: %s queue pairs, rx-usecs '
            '%s' % (os.cpu_count() or 1, virt,
                    os.uname().release, bg.read('/sys/module/refnic/version'),
                    len(pair.irq_cpus), usecs.group(1) if usecs else '?'))


def run_experiment(a):
    lesson, fn, plot, tool = EXPERIMENTS[a.experiment]
    # A TERM (the VM's guard, a user) unwinds like an error: the finally
    # blocks put the machine's settings back.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if os.geteuid() != 0:
        die('needs root (in the VM: make lab EXP=%s)' % a.experiment)
    if not os.path.isdir('/sys/module/refnic'):
        die('refnic is not loaded')
    if not shutil.which(tool):
        die('%s needs %s (make deps installs it)' % (a.experiment, tool))
    print('%s: %s' % (a.experiment, lesson))
    pair = bg.Pair('refnic', 'lab', '192.0.2',
                   ['type', 'refnic', 'queues', str(os.cpu_count() or 1)])
    b = bg.Bench(argparse.Namespace(warmup=a.warmup, secs=a.secs,
                                    streams=2))
    try:
        pair.destroy()
        pair.create()
        pair.open_counters()
        pair.rss = bg.rss_of(pair)
        pair.irq_cpus = bg.irq_cpus(pair.dev_b)
        info = pair_info(pair)
        log(info)
        doc, checks = fn(a, b, pair)
    finally:
        b.stop_all()
        pair.destroy()
    print(info)
    ok = all(c for _, c in checks)
    for text, c in checks:
        print('  %s %s' % ('yes' if c else 'NO ', text))
    print('%s: %s' % (a.experiment, 'confirmed' if ok else 'not confirmed'))
    doc = {'experiment': a.experiment, 'lesson': lesson, 'info': info,
           'round_count': a.rounds, 'secs': a.secs, **doc,
           'checks': [{'claim': t, 'holds': c} for t, c in checks],
           'verdict': 'confirmed' if ok else 'not confirmed'}
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        path = os.path.join(a.out, a.experiment + '.json')
        with open(path, 'w') as f:
            json.dump(doc, f, indent=1, default=str)
            f.write('\n')
        log('results: %s' % path)
        draw(doc, os.path.join(a.out, a.experiment + '.svg'))
    return 0


def draw(doc, path):
    """Plot DOC (an experiment's JSON) to PATH (.svg or .png); False
    without matplotlib."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        log('no plot: cannot import matplotlib (python3-matplotlib)')
        return False
    EXPERIMENTS[doc['experiment']][2](doc, path, plt)
    log('plot: %s' % path)
    return True


def replot(path, out):
    """Draw an earlier run's JSON again (no refnic, no root needed)."""
    try:
        with open(path) as f:
            doc = json.load(f)
        name = doc['experiment']
    except (OSError, ValueError, KeyError, TypeError) as e:
        die('%s: not an experiment\'s results: %s' % (path, e))
    if name not in EXPERIMENTS:
        die('%s: unknown experiment \'%s\'' % (path, name))
    try:
        return 0 if draw(doc, out or os.path.splitext(path)[0] + '.svg') \
            else 1
    except (KeyError, TypeError, ValueError, IndexError) as e:
        die('%s: not a complete %s result (%s: %s)' % (
            path, name, type(e).__name__, e))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n')[0],
        epilog='experiments: ' + ', '.join(EXPERIMENTS))
    ap.add_argument('experiment', nargs='?', help='the experiment to run')
    ap.add_argument('--list', action='store_true',
                    help='the experiments and their lessons')
    ap.add_argument('--rounds', type=int,
                    help='rounds of the sweep, its order alternating '
                    '(default 3; placement 2)')
    ap.add_argument('--secs', type=int, default=4,
                    help='seconds a run (default 4)')
    ap.add_argument('--warmup', type=int, default=1)
    ap.add_argument('--out', help='directory for NAME.json and NAME.svg '
                    '(with --replot: the plot\'s file, .svg or .png)')
    ap.add_argument('--vm-shape', metavar='NAME',
                    help='the VM NAME needs, as vm.sh options (for lab.sh)')
    ap.add_argument('--replot', metavar='NAME.json',
                    help='draw an earlier run\'s results again, beside them')
    a = ap.parse_args()
    if a.replot:
        return replot(a.replot, a.out)
    if a.vm_shape:
        print(' '.join(VM_SHAPE.get(a.vm_shape, ())))
        return 0
    if a.list:
        for name, (lesson, *_) in EXPERIMENTS.items():
            print('%-12s %s' % (name, lesson))
        return 0
    if not a.experiment:
        ap.error('name an experiment: %s' % ', '.join(EXPERIMENTS))
    if a.experiment not in EXPERIMENTS:
        ap.error('unknown experiment \'%s\'; known: %s' % (
            a.experiment, ', '.join(EXPERIMENTS)))
    if a.rounds is None:
        a.rounds = DEFAULT_ROUNDS.get(a.experiment, 3)
    if a.rounds < 1 or a.secs < 1:
        ap.error('--rounds and --secs must be at least 1')
    return run_experiment(a)


if __name__ == '__main__':
    sys.exit(main())
