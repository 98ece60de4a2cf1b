#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How often rss_ctx.py's overlap cases see every flow in one half of the
queues, for a random RSS key: 16 TCP flows 2001:db8::2 -> 2001:db8::1 to one
port, source ports as 7.3's __inet_hash_connect() hands them out one after
another (each 2 + 2 * random(0..7) above the last), queue = Toeplitz hash & 3
(table "equal 4"). Prints, over KEYS keys: the share of keys for which an
attempt is skewed more often than not; the mean chance per attempt; and the
chance that the test fails, all three of its attempts skewed under one key
(the mean of s**3, s a key's chance per attempt).

    python3 simulate.py [KEYS]
"""
import random
import sys


def toeplitz(key: bytes, data: bytes) -> int:
    k = int.from_bytes(key, "big")
    klen = len(key) * 8
    d = int.from_bytes(data, "big")
    n = len(data) * 8
    h = 0
    for i in range(n):
        if d >> (n - 1 - i) & 1:
            h ^= (k >> (klen - 32 - i)) & 0xFFFFFFFF
    return h


SRC = bytes.fromhex("20010db8000000000000000000000002")
DST = bytes.fromhex("20010db8000000000000000000000001")


def skewed(key: bytes, dport: int) -> bool:
    port = random.randrange(32768, 60999) & ~1
    halves = set()
    for _ in range(16):
        data = SRC + DST + port.to_bytes(2, "big") + dport.to_bytes(2, "big")
        halves.add(toeplitz(key, data) >> 1 & 1)
        port += 2 + 2 * random.randrange(8)
    return len(halves) == 1


def main() -> None:
    keys = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    random.seed(1)
    shares = []
    for _ in range(keys):
        key = random.randbytes(40)
        dport = random.randint(10000, 60000)
        shares.append(sum(skewed(key, dport) for _ in range(200)) / 200)
    bad = sum(s > 0.5 for s in shares) / keys
    fails = sum(s**3 for s in shares) / keys
    print(f"{keys} keys: {bad:.2%} skew most attempts; "
          f"per attempt {sum(shares) / keys:.2%}; "
          f"the test fails (3 attempts) {fails:.2%}")


if __name__ == "__main__":
    main()
