# SPDX-License-Identifier: GPL-2.0-only
"""Scale upstream's fixed readiness deadlines on the debug kernel.

The upstream selftests' lib/py/utils.py waits at most 5 s for a listener
(wait_port_listen) or a file (wait_file). On the debug kernel under TCG
starting socat alone can take longer, so the upstream cases fail on the
harness, not on the device. run_driver_test.sh puts this directory on
PYTHONPATH there with REFNIC_UPSTREAM_DEADLINE_SCALE set; the upstream
sources stay as they are: the functions' default deadline is raised as
the module is loaded.
"""
import importlib.abc
import os
import sys

SCALE = int(os.environ.get('REFNIC_UPSTREAM_DEADLINE_SCALE', '1'))
SCALED = ('wait_port_listen', 'wait_file')


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


class _Loader(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _scale(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if not name.endswith('lib.py.utils'):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader)
                return spec
        return None


if SCALE > 1:
    sys.meta_path.insert(0, _Finder())
