# SPDX-License-Identifier: GPL-2.0
"""Where the CPU time of a bench window goes: `make bench BENCH_ARGS=--profile`.

One `perf record` samples every CPU for the whole run, with its events
disabled except during the measured windows of each workload's first round
(perf's control FIFO turns them on and off, so perf's slow start under TCG
is paid once, before the first workload). Samples carry CLOCK_MONOTONIC
time stamps, so each window is cut out of the one file again by its start
and end (`perf report --time`) and split by CPU: the sender's and the
receiver's, whose shares are reported by symbol and by kind of work.

The VM has no PMU: perf samples on the cpu-clock software event, whose
timer interrupt cannot land where interrupts are off. Time spent with
interrupts disabled is therefore charged to the place that enables them
again (handle_softirqs, _raw_spin_unlock_irqrestore, ...): the "irqs off,
charged at re-enable" kind. The shares of everything else are exact.
"""

import os
import re
import select
import shutil
import subprocess
import time

FREQ = 499  # Hz: prime, so that it does not beat with the 1 kHz tick

# Kinds of work, by symbol (and module): the first that matches.
KINDS = (
    ('idle', r'^(pv_native_safe_halt|cpu_idle_poll|default_idle|'
             r'acpi_idle|intel_idle|do_idle|mwait_idle)'),
    ('irqs off, charged at re-enable',
     r'^(handle_softirqs|__do_softirq|_raw_spin_unlock_irq(restore)?|'
     r'_raw_spin_unlock_bh|__local_bh_enable_ip|finish_task_switch|'
     r'irq_exit_rcu|asm_sysvec_|sysvec_|__irq_exit_rcu)'),
    ('copy', r'(memcpy|memmove|rep_movs|copy_user|copy_page|_copy_to|'
             r'_copy_from|copy_mc|skb_copy_bits|skb_copy_datagram)'),
    ('checksum', r'csum'),
    ('page and slab alloc/free',
     r'(clear_page|clear_highpage|alloc_pages|get_page_from_freelist|'
     r'free_unref|free_pcppages|rmqueue|__free_pages|kmem_cache|kmalloc|'
     r'kfree|slab|page_pool|__page_frag|skb_release_data|napi_pp_put)'),
)
REFNIC = 'refnic (driver and model)'
USER = 'user space'
OTHER = 'rest of the kernel'
ORDER = [k for k, _ in KINDS[:1]] + [REFNIC] + [k for k, _ in KINDS[1:]] + \
    [OTHER, USER]
KIND_RE = [(k, re.compile(r)) for k, r in KINDS]
# perf report -F overhead,sample,cpu,dso,sym: "  5.37%  27  000  [refnic]  [k] sym"
LINE = re.compile(r'^\s*([\d.]+)%\s+(\d+)\s+(\d+)\s+(\S+)\s+\[.\]\s+(.+?)\s*$')


def kind_of(dso, sym):
    if not dso.startswith('['):
        return USER
    for k, r in KIND_RE:
        if r.search(sym):
            return k
    # A module loaded from outside /lib/modules shows as the kernel's.
    return REFNIC if dso == '[refnic]' or sym.startswith('refnic_') \
        else OTHER


class Profiler:
    """perf record over the run; on() and off() around a window."""

    def __init__(self, tmp, log):
        self.tmp = tmp
        self.log = log
        self.data = os.path.join(tmp, 'perf.data')
        self.windows = []  # (label, cpu_tx, cpu_rx, t0, t1)
        self.proc = None
        self._t0 = None

    @staticmethod
    def available():
        return shutil.which('perf') is not None

    def start(self, secs=300):
        ctl = os.path.join(self.tmp, 'perf.ctl')
        ack = os.path.join(self.tmp, 'perf.ack')
        for f in (ctl, ack):
            if os.path.exists(f):
                os.unlink(f)
            os.mkfifo(f)
        # Opened read-write so that neither open blocks on the other end.
        self.ctl = os.open(ctl, os.O_RDWR)
        self.ack = os.open(ack, os.O_RDWR)
        self.err = open(os.path.join(self.tmp, 'perf.err'), 'w')
        self.proc = subprocess.Popen(
            ['perf', 'record', '-a', '-e', 'cpu-clock', '-F', str(FREQ),
             '-k', 'CLOCK_MONOTONIC', '-D', '-1', '--no-buildid',
             '--control', 'fifo:%s,%s' % (ctl, ack), '-o', self.data],
            stdout=self.err, stderr=self.err)
        # perf answers a command once it has set up (long under TCG: it
        # reads every process's maps first); 6.1 has no ping, so the
        # command is a disable, which changes nothing yet.
        self._command('disable', secs)
        self.log('perf: recording, events off until a window starts')

    def _command(self, cmd, secs=60):
        os.write(self.ctl, (cmd + '\n').encode())
        deadline = time.monotonic() + secs
        got = b''
        # perf acks with "ack\n" and a NUL.
        while b'\n' not in got:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.err.flush()
                with open(self.err.name) as f:
                    said = f.read().strip()
                raise RuntimeError('perf did not answer %r%s: %s' % (
                    cmd, '' if self.proc.poll() is None else
                    ' (exit %d)' % self.proc.returncode, said))
            r, _, _ = select.select([self.ack], [], [], min(left, 1))
            if r:
                got += os.read(self.ack, 64)

    def on(self):
        self._command('enable')
        self._t0 = time.monotonic()

    def off(self, label, cpu_tx, cpu_rx):
        t1 = time.monotonic()
        self._command('disable')
        self.windows.append((label, cpu_tx, cpu_rx, self._t0, t1))

    def stop(self, secs=600):
        if not self.proc:
            return
        self.proc.send_signal(2)  # SIGINT: write the file and exit
        try:
            self.proc.wait(secs)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.ctl)
        os.close(self.ack)
        self.err.close()
        self.proc = None

    def report(self):
        """{label: {'secs', 'cpus': {'tx'|'rx': summary()}}} per window."""
        out = {}
        for label, cpu_tx, cpu_rx, t0, t1 in self.windows:
            r = subprocess.run(
                ['perf', 'report', '-i', self.data, '--stdio', '--no-children',
                 '--time', '%.6f,%.6f' % (t0, t1), '--sort', 'cpu,dso,sym',
                 '-F', 'overhead,sample,cpu,dso,sym', '--percent-limit', '0'],
                capture_output=True, text=True)
            cpus = parse(r.stdout)
            out[label] = {'secs': t1 - t0, 'cpus': {
                'tx': summary(cpus, cpu_tx), 'rx': summary(cpus, cpu_rx)}}
        return out


def parse(text):
    """perf report's lines (-F overhead,sample,cpu,dso,sym) as
    {cpu: {(dso, sym): samples}}."""
    cpus = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        _, n, cpu, dso, sym = m.groups()
        c = cpus.setdefault(int(cpu), {})
        c[(dso, sym)] = c.get((dso, sym), 0) + int(n)
    return cpus


def summary(cpus, cpu):
    """One CPU's samples: their number and every symbol's count, busiest
    first ([dso, symbol, samples]); kinds() sorts them into kinds of work
    when reported, so that a later reader may sort them anew."""
    c = cpus.get(cpu, {})
    return {
        'cpu': cpu, 'samples': sum(c.values()),
        'symbols': [[d, s, n] for (d, s), n in
                    sorted(c.items(), key=lambda x: (-x[1], x[0]))],
    }


def kinds(summ):
    """A summary()'s share of each kind of work."""
    total = summ['samples']
    out = {k: 0.0 for k in ORDER}
    for dso, sym, n in summ['symbols']:
        out[kind_of(dso, sym)] += n / total if total else 0.0
    return out


def print_kinds(summs, p=print, width=11):
    """Rows of a table whose columns are summary()s: each kind of work's
    share of the column's samples, then the samples."""
    for kind in ORDER:
        p('%-32s' % kind + ''.join(
            '%*.1f%%' % (width - 1, 100 * kinds(summ)[kind]) for summ in summs))
    p('%-32s' % 'samples' + ''.join('%*d' % (width, summ['samples'])
                                    for summ in summs))


def print_report(prof, p=print, top=8, columns=('refnic', 'veth')):
    """The report() of a run, as text: per workload the kinds of work on
    each CPU for both devices (or both settings, columns: the labels'
    last parts), then the busiest symbols of each."""
    if not prof:
        return
    p()
    p('where the time goes (perf, cpu-clock at %d Hz, first round of each '
      'workload; shares of each CPU\'s samples; time with interrupts off is '
      'charged where they are enabled again):' % FREQ)
    wls = []
    for label in prof:
        wl = label.rsplit('/', 1)[0]
        if wl not in wls:
            wls.append(wl)
    for wl in wls:
        cols = [(kind, side) for kind in columns
                for side in ('tx', 'rx') if '%s/%s' % (wl, kind) in prof]
        if not cols:
            continue
        p()
        hdr = '%-32s' % wl + ''.join(
            '%11s' % ('%s %s' % (k, s)) for k, s in cols)
        p(hdr)
        p('-' * len(hdr))
        print_kinds([prof['%s/%s' % (wl, k)]['cpus'][s] for k, s in cols], p)
        for kind in columns:
            rf = prof.get('%s/%s' % (wl, kind))
            if not rf or kind == 'veth':
                continue
            for side in ('tx', 'rx'):
                summ = rf['cpus'][side]
                p('  %s %s CPU %d, busiest: %s' % (
                    kind, side, summ['cpu'], ', '.join(
                        '%s %.1f%%' % (sym, 100 * n / summ['samples'])
                        for _, sym, n in summ['symbols'][:top])))
