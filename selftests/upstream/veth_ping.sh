#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Upstream drivers/net/ping.py against a veth pair: proves that the upstream
# driver selftests build and run in this environment, independently of refnic.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/on_pair.sh" veth ping.py
