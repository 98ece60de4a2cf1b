#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# rss_ctx.py's overlap case under two RSS keys: BAD has key bits 291-300
# zero and 301 set (IPv6 4-tuple: hash bit 1 blind to source-port bits 1-10,
# bit 0 not), GOOD is random. Run from a copy of the installed selftests
# (UPSTREAM_73_KSFT), file in drivers/net/hw/, list line
# "drivers/net/hw/rss_key_probe.py 1500 pair", --queues 8.
from lib.py import ksft_run, ksft_exit, ethtool
from lib.py import NetDrvEpEnv
import rss_ctx

BAD = "6d:25:cf:73:4c:49:a1:dd:27:3e:4d:8f:ab:5f:5b:db:8d:10:99:ec:05:e8:fd:c7:c1:d7:34:77:76:48:ab:73:bd:e2:01:82:40:05:e4:da"
GOOD = "f8:c9:9d:5d:5d:98:31:95:75:04:d9:0e:94:5d:e2:e8:f5:4e:e7:81:cc:75:f6:36:d8:50:99:09:5a:a3:00:16:5a:67:03:6f:9b:54:0d:6b"


def test_overlap_bad_key(cfg):
    ethtool(f"-X {cfg.ifname} hkey {BAD}")
    rss_ctx.test_rss_context_overlap(cfg)


def test_overlap_good_key(cfg):
    ethtool(f"-X {cfg.ifname} hkey {GOOD}")
    rss_ctx.test_rss_context_overlap(cfg)


def main() -> None:
    with NetDrvEpEnv(__file__, nsim_test=False) as cfg:
        cfg.netdevnl = rss_ctx.NetdevFamily()
        cfg.ethnl = rss_ctx.EthtoolFamily()
        ksft_run([test_overlap_bad_key, test_overlap_good_key], args=(cfg, ))
    ksft_exit()


if __name__ == "__main__":
    main()
