#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the kernel's YNL CLI many times in one Python process.

ynl_cli.sh calls the CLI (tools/net/ynl/cli.py) about sixty times; under TCG
each call's Python start-up, imports and spec parsing cost seconds. This runs
the CLI's own main() once per request instead, with the parsed spec kept.

  ynl_batch.py CLI_PY                      serve requests (below)
  ynl_batch.py --until EXPR CLI_PY ARG...  one CLI call, ARGs with
                                           --subscribe G --sleep SECS

With --until, the CLI's sleep after subscribing ends as soon as the Python
expression EXPR holds over the notifications received so far (as d, a list
as the CLI prints it), or after SECS: a monitor that returns once it has
seen what the caller waits for. "ynl_batch: subscribed" on stderr says the
group is joined.

Requests, one a line on stdin, are JSON arrays:
  ["cli", ARG...]        cli.main() with sys.argv = [CLI_PY, ARG...]
  ["eval", JSON, EXPR...] each Python expression over d = json.loads(JSON),
                         printed one a line (modules json and re at hand)
Each reply is the request's stdout lines prefixed "o ", its stderr lines
prefixed "e ", then "= STATUS" (the exit status the CLI would have had).
"""
import contextlib
import copy
import importlib.util
import io
import json
import os
import re
import select
import sys
import time
import traceback


def evaluate(expr, d):
    """A caller's Python expression over d (modules json and re at hand)."""
    return eval(expr, {'json': json, 're': re}, {'d': d})


def load_cli(path):
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location('ynl_cli_main', path)
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    return cli


class CachedYaml:
    """yaml as the YNL library sees it, with safe_load of a file kept."""

    def __init__(self, yaml):
        self._yaml = yaml
        self._docs = {}

    def __getattr__(self, name):
        return getattr(self._yaml, name)

    def safe_load(self, stream):
        name = getattr(stream, 'name', None)
        if name is None:
            return self._yaml.safe_load(stream)
        key = (name, os.stat(name).st_mtime_ns)
        if key not in self._docs:
            self._docs[key] = self._yaml.safe_load(stream)
        return copy.deepcopy(self._docs[key])


def run_cli(cli_path, cli, args):
    sys.argv = [cli_path] + args
    try:
        cli.main()
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except Exception:  # the CLI's own traceback, as its process would show
        traceback.print_exc()
        return 1
    return 0


class SleepUntil:
    """The CLI's time module, with sleep() waiting for notifications."""

    def __init__(self, cli, expr):
        self.cli = cli
        self.expr = expr
        self.real_family = cli.YnlFamily
        self.families = []

    def __getattr__(self, name):
        return getattr(time, name)

    def family(self, *args, **kwargs):
        ynl = self.real_family(*args, **kwargs)
        self.families.append(ynl)
        return ynl

    def holds(self, ynl):
        d = json.loads(json.dumps(ynl.async_msg_queue, cls=self.cli.YnlEncoder))
        return bool(evaluate(self.expr, d))

    def sleep(self, secs):
        ynl = self.families[-1]
        print('ynl_batch: subscribed', file=sys.stderr, flush=True)
        end = time.monotonic() + secs
        while not self.holds(ynl):
            left = end - time.monotonic()
            if left <= 0:
                return
            readable, _, _ = select.select([ynl.sock], [], [], left)
            if readable:
                ynl.check_ntf()


def run_once(cli_path, cli, expr, args):
    shim = SleepUntil(cli, expr)
    cli.YnlFamily = shim.family
    cli.time = shim
    return run_cli(cli_path, cli, args)


def run_eval(text, exprs):
    d = json.loads(text)
    for e in exprs:
        print(evaluate(e, d))
    return 0


def main():
    if sys.argv[1] == '--until':
        cli = load_cli(sys.argv[3])
        sys.exit(run_once(sys.argv[3], cli, sys.argv[2], sys.argv[4:]))
    cli_path = sys.argv[1]
    cli = load_cli(cli_path)
    nlspec = sys.modules.get('lib.nlspec')
    if nlspec is not None and hasattr(nlspec, 'yaml'):
        nlspec.yaml = CachedYaml(nlspec.yaml)
    # The CLI leaves through exit(), which closes sys.stdin: requests and
    # replies go through their own descriptors.
    requests = open(os.dup(0), 'r', encoding='utf-8')
    replies = open(os.dup(1), 'w', encoding='utf-8')
    for line in requests:
        req = json.loads(line)
        sys.stdin = io.StringIO()
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                if req[0] == 'cli':
                    status = run_cli(cli_path, cli, req[1:])
                else:
                    status = run_eval(req[1], req[2:])
            except Exception:
                traceback.print_exc()
                status = 1
        reply = [f'o {s}' for s in out.getvalue().splitlines()]
        reply += [f'e {s}' for s in err.getvalue().splitlines()]
        reply.append(f'= {status}')
        replies.write('\n'.join(reply) + '\n')
        replies.flush()


if __name__ == '__main__':
    main()
