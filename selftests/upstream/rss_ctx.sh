#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Upstream drivers/net/hw/rss_ctx.py on 6.12 (RSS contexts: traffic steered
# by ntuple rules into each context's queues, contexts removed out of order,
# overlapping tables, the netlink dump, -L against a context's table)
# against the device in NETIF (env contract and knobs: see
# run_driver_test.sh), or, when NETIF is not set, against a fresh refnic pair
# (on_pair.sh refnic: no failures; test_rss_context32 may skip, it wants 66
# queues and refnic has 16). On 7.x, 7.3's own rss_ctx.py runs in the
# upstream 7.3 list (selftests/upstream/7.3/ci.list) instead.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=/dev/null
. "$here/../lib.sh"
if [ "${REFNIC_SERIES%%.*}" -ge 7 ]; then
	printf 'KTAP version 1\n1..1\nok 1 rss_ctx # SKIP on %s it runs as drivers/net/hw/rss_ctx.py in the upstream 7.3 list\n' "$REFNIC_SERIES"
	exit 4
fi
# It runs `ethtool --json -c`, which Debian 12's ethtool 6.1 has not: the
# one make deps builds (scripts/upstream-tools.sh) goes first, alone (that
# directory's ip is not the one the refnic plugin is built for).
ethtool_new=${REFNIC_BUILD:-$REFNIC_REPO/build}/tools/bin/ethtool
if [ ! -x "$ethtool_new" ]; then
	printf 'KTAP version 1\n1..1\nok 1 rss_ctx # SKIP no %s (make upstream-tools)\n' "$ethtool_new"
	exit 4
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$ethtool_new" "$bin/ethtool"
export PATH=$bin:$PATH
# 13 cases, most of them sending 20000 packets a context under TCG.
export UPSTREAM_TIMEOUT=${UPSTREAM_TIMEOUT:-1200}
# test_rss_key_indir wants 3 queues or more.
export ON_PAIR_QUEUES=4
# It wants `ethtool -X hkey` done within 0.2 s while iperf3 runs: under
# TCG starting the ethtool process alone took 0.42 s (7.3's version, with
# 0.15 s, passes on 7.3's 4-vCPU VM).
export REFNIC_UPSTREAM_SKIP_CASES="test_hitless_key_update=under TCG the ethtool process alone takes longer than the 0.2 s the key update is given"
if [ -n "${NETIF:-}" ]; then
	"$here/run_driver_test.sh" hw/rss_ctx.py
else
	"$here/on_pair.sh" refnic hw/rss_ctx.py
fi
