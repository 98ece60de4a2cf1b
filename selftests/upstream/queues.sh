#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Upstream drivers/net/queues.py against the device in NETIF (env contract and
# knobs: see run_driver_test.sh), or, when NETIF is not set, against a fresh
# refnic pair (on_pair.sh refnic: no failures, no skips but pause/FEC).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
[ -n "${NETIF:-}" ] || exec "$here/on_pair.sh" refnic queues.py
exec "$here/run_driver_test.sh" queues.py
