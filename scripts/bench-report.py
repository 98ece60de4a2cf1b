#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""`make bench`, host side: the paired table of a bench run's JSON
(build/bench/bench.json, written by scripts/bench-guest.py), with each
workload's per-round ratios summarised as median and spread, optionally
beside a baseline run's, where the time went when the run was profiled
(--profile), and the plot of every paired workload.

    bench-report.py BENCH.json [--baseline OLD.json] [--plot FILE.svg|.png]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import benchprof  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('bench', help='the JSON a bench run wrote')
    p.add_argument('--baseline', help='an earlier run\'s JSON to compare with')
    p.add_argument('--plot', help='draw the paired workloads into this file '
                   '(.svg or .png)')
    a = p.parse_args()
    doc = benchlib.load(a.bench)
    base = benchlib.load(a.baseline) if a.baseline else None
    print(doc.get('info', ''))
    if not doc.get('workloads'):
        print('no paired workload (refnic against veth) in this run')
        return 0
    if base:
        print('baseline: %s (%s)' % (a.baseline, base.get('info', '')))
    print('ratio: the median of the per-round ratios refnic / veth (each '
          'round runs both), spread: their min-max')
    for row in benchlib.paired_table(doc, base):
        print(row)
    benchprof.print_report(doc.get('profile'))
    if a.plot:
        benchlib.plot(doc, a.plot, base)
        print('plot: %s' % a.plot)
    return 0


if __name__ == '__main__':
    sys.exit(main())
