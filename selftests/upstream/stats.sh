#!/usr/bin/env bash
# Upstream drivers/net/stats.py against the device in NETIF (env contract and
# knobs: see run_driver_test.sh). Skips when NETIF is not set.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run_driver_test.sh" stats.py
