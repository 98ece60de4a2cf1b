# SPDX-License-Identifier: GPL-2.0
"""What `make bench` computes from its rounds, shared by the guest (which
prints the table as it measures) and scripts/bench-report.py (which reads
the JSON the guest wrote, compares it with a baseline and draws it).

A paired workload runs refnic and veth alternately, round by round, so
that drift of the machine hits both alike; its ratio is therefore taken
round by round (refnic's value over veth's of the same round), and the
table gives the median of those ratios with their spread (min-max)."""

import json
import math
import statistics
import sys

SCHEMA = 1


def median(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else float('nan')


def paired_ratios(refnic, veth):
    """Per round: refnic's value over veth's (NaN where veth has 0)."""
    return [r / v if v else float('nan') for r, v in zip(refnic, veth)]


def summary(refnic, veth):
    """Medians of each device and of the per-round ratios, and the
    ratios' spread, all over the rounds that pair up (both values there,
    veth's not 0)."""
    ratios = paired_ratios(refnic, veth)
    good = [x for x in ratios if not math.isnan(x)]
    paired = [i for i, x in enumerate(ratios) if not math.isnan(x)]
    return {
        'refnic': median([refnic[i] for i in paired]),
        'veth': median([veth[i] for i in paired]),
        'rounds': len(paired),
        'ratios': ratios,
        'ratio': median(ratios),
        'ratio_min': min(good) if good else float('nan'),
        'ratio_max': max(good) if good else float('nan'),
    }


def jsonable(value):
    """NaN and infinities as null (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def load(path):
    """A bench JSON, checked; a bad one exits with one line."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit('%s: %s' % (path, e)) from None
    if not isinstance(doc, dict):
        raise SystemExit('%s: not a bench JSON (no object)' % path)
    if doc.get('schema') != SCHEMA:
        raise SystemExit('%s: bench JSON schema %r, this reader knows %d'
                         % (path, doc.get('schema'), SCHEMA))
    for name, wl in doc.get('workloads', {}).items():
        ok = (isinstance(wl, dict) and 'unit' in wl and 'target' in wl and
              isinstance(wl.get('refnic'), list) and
              isinstance(wl.get('veth'), list) and
              len(wl['refnic']) == len(wl['veth']))
        if not ok:
            raise SystemExit('%s: workload %s: want unit, target and as many '
                             'refnic as veth rounds' % (path, name))
    return doc


def number(x):
    return float('nan') if x is None else x


def paired_table(doc, baseline=None):
    """The paired workloads as text rows; with BASELINE (another bench
    JSON) the baseline's ratio and the change of the ratio beside each
    (for a latency, better lower, a rise is a loss)."""
    head = '%-16s %-7s %9s %9s %7s %-15s  %-7s %-7s' % (
        'workload', 'unit', 'refnic', 'veth', 'ratio', 'spread min-max',
        'target', 'verdict')
    if baseline:
        head += ' %9s %8s' % ('baseline', 'change')
    rows = [head, '-' * len(head)]
    base = (baseline or {}).get('workloads', {})
    for name, wl in doc['workloads'].items():
        s = summary([number(x) for x in wl['refnic']],
                    [number(x) for x in wl['veth']])
        # A latency is better lower: its target is a ceiling.
        lower = wl.get('better') == 'lower'
        goal = '<=' if lower else '>='
        if math.isnan(s['ratio']):
            row = '%-16s %-7s %9s %9s %7s %-15s  %s %-4.1f %-7s' % (
                name, wl['unit'], 'n/a', 'n/a', 'n/a', 'no paired round',
                goal, wl['target'], 'n/a')
        else:
            met = s['ratio'] <= wl['target'] if lower else \
                s['ratio'] >= wl['target']
            row = '%-16s %-7s %9.3f %9.3f %6.3fx %-15s  %s %-4.1f %-7s' % (
                name, wl['unit'], s['refnic'], s['veth'], s['ratio'],
                '%.3f-%.3f' % (s['ratio_min'], s['ratio_max']),
                goal, wl['target'],
                'meets' if met else 'above' if lower else 'below')
        if baseline:
            if name in base:
                b = summary([number(x) for x in base[name]['refnic']],
                            [number(x) for x in base[name]['veth']])
                if math.isnan(s['ratio']) or math.isnan(b['ratio']) or \
                        not b['ratio']:
                    row += ' %9s %8s' % ('n/a' if math.isnan(b['ratio']) else
                                         '%.3fx' % b['ratio'], '-')
                else:
                    row += ' %8.3fx %+7.1f%%' % (
                        b['ratio'], (s['ratio'] / b['ratio'] - 1) * 100)
            else:
                row += ' %9s %8s' % ('-', '-')
        rows.append(row.rstrip())
    return rows


def plot(doc, path, baseline=None):
    """Every paired workload: each round's value of both devices (left),
    and the per-round ratios with their median and target (right)."""
    try:
        import matplotlib
    except ImportError:
        raise SystemExit('drawing the bench needs matplotlib, which %s cannot '
                         'import: Debian\'s is python3-matplotlib (make deps '
                         'installs it) for /usr/bin/python3' % sys.executable
                         ) from None
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    names = list(doc['workloads'])
    fig, axes = plt.subplots(len(names), 2, squeeze=False,
                             figsize=(10, 2.6 * len(names)))
    for row, name in zip(axes, names):
        wl = doc['workloads'][name]
        refnic = [number(x) for x in wl['refnic']]
        veth = [number(x) for x in wl['veth']]
        rounds = range(1, len(refnic) + 1)
        row[0].plot(rounds, refnic, 'o-', label='refnic')
        row[0].plot(rounds, veth, 's--', label='veth')
        row[0].set_title('%s (%s)' % (name, wl['unit']), fontsize=10)
        row[0].set_xlabel('round')
        row[0].set_xticks(list(rounds))
        row[0].legend(fontsize=8)
        s = summary(refnic, veth)
        row[1].plot(rounds, s['ratios'], 'o', color='C2', label='per round')
        row[1].axhline(s['ratio'], color='C2', label='median %.3f' % s['ratio'])
        row[1].axhline(wl['target'], color='C3', linestyle=':',
                       label='target %s %.1f' % (
                           '<=' if wl.get('better') == 'lower' else '>=',
                           wl['target']))
        if baseline and name in baseline.get('workloads', {}):
            b = baseline['workloads'][name]
            bs = summary([number(x) for x in b['refnic']],
                         [number(x) for x in b['veth']])
            row[1].axhline(bs['ratio'], color='C7', linestyle='--',
                           label='baseline %.3f' % bs['ratio'])
        row[1].set_title('%s: refnic / veth, round by round' % name,
                         fontsize=10)
        row[1].set_xlabel('round')
        row[1].set_xticks(list(rounds))
        row[1].legend(fontsize=8)
    fig.suptitle(doc.get('info', ''), fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
