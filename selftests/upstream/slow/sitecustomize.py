# SPDX-License-Identifier: GPL-2.0-only
"""Fit upstream's selftests to a slow machine, their sources unchanged.

- The upstream selftests' lib/py/utils.py waits at most 5 s for a listener
  (wait_port_listen) or a file (wait_file). On the debug kernel under TCG
  starting socat alone can take longer, so the upstream cases fail on the
  harness, not on the device. With REFNIC_UPSTREAM_DEADLINE_SCALE set, the
  functions' default deadline is raised as the module is loaded.
- Upstream's traffic generator (drivers/net/lib/py/load.py,
  GenerateTraffic) waits for a packet count in 50 polls 0.1 s apart: 5 s
  for rss_ctx.py's 20000 packets, which a debug kernel under TCG fell
  short of (19127 on 2026-12-05). With the deadline scale set, that
  module's sleeps are scaled, so its window is too.
- A case that asserts a wall-clock limit no TCG VM meets (6.12's
  rss_ctx.py wants `ethtool -X hkey` done in 0.2 s while traffic runs; the
  ethtool process takes longer than that to start here) is skipped with a
  reason: REFNIC_UPSTREAM_SKIP_CASES="CASE=REASON;..." names them, and
  lib.py.ksft's ksft_run gets each as a case that raises KsftSkipEx.

run_driver_test.sh puts this directory on PYTHONPATH when either is set.
"""
import importlib.abc
import os
import sys
import time

SCALE = int(os.environ.get('REFNIC_UPSTREAM_DEADLINE_SCALE', '1'))
SCALED = ('wait_port_listen', 'wait_file')
SKIPS = dict(item.split('=', 1) for item in
             os.environ.get('REFNIC_UPSTREAM_SKIP_CASES', '').split(';')
             if '=' in item)


def _scale(module):
    for name in SCALED:
        func = getattr(module, name, None)
        code = getattr(func, '__code__', None)
        if code is None or not func.__defaults__:
            continue
        args = code.co_varnames[:code.co_argcount]
        defaults = list(func.__defaults__)
        first = len(args) - len(defaults)
        if 'deadline' in args[first:]:
            defaults[args.index('deadline') - first] *= SCALE
            func.__defaults__ = tuple(defaults)


class _ScaledTime:
    """The time module with sleep() SCALE times as long."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def sleep(secs):
        time.sleep(secs * SCALE)


def _scale_sleeps(module):
    module.time = _ScaledTime()


def _skipping(module, case, reason):
    def skipped(*args, **kwargs):
        raise module.KsftSkipEx(reason)
    skipped.__name__ = case.__name__
    return skipped


def _skip(module):
    run = module.ksft_run

    def ksft_run(cases=None, *args, **kwargs):
        if cases:
            cases = [_skipping(module, c, SKIPS[c.__name__])
                     if getattr(c, '__name__', '') in SKIPS else c
                     for c in cases]
        return run(cases, *args, **kwargs)
    module.ksft_run = ksft_run


# Module name suffix -> what to do to it once loaded.
HOOKS = {}
if SCALE > 1:
    HOOKS['lib.py.utils'] = _scale
    HOOKS['lib.py.load'] = _scale_sleeps
if SKIPS:
    HOOKS['lib.py.ksft'] = _skip


class _Loader(importlib.abc.Loader):
    def __init__(self, loader, hook):
        self.loader = loader
        self.hook = hook

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        self.hook(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        hook = next((h for suffix, h in HOOKS.items()
                     if name.endswith(suffix)), None)
        if hook is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader, hook)
                return spec
        return None


if HOOKS:
    sys.meta_path.insert(0, _Finder())
