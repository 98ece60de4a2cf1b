#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ids of this network namespace's page pools, one line, sorted.

The harness's leak check runs it after every test (and again each second
while it waits for a leak to clear). It speaks generic netlink
itself (the netdev family's page-pool-get dump, attribute id) instead of
loading YNL and its YAML spec, which under TCG took seconds a call.
Exits 1 with a message when netlink says no.
"""

import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
NETDEV_CMD_PAGE_POOL_GET = 5
NETDEV_A_PAGE_POOL_ID = 1


def attrs(buf):
    """(type, payload) of each netlink attribute in @buf."""
    off = 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from('=HH', buf, off)
        if alen < 4:
            break
        yield atype & 0x3fff, buf[off + 4:off + alen]
        off += (alen + 3) & ~3


def request(sock, seq, family, cmd, flags, payload=b''):
    hdr = struct.pack('=IHHII', 16 + 4 + len(payload), family, flags, seq, 0)
    sock.send(hdr + struct.pack('=BBH', cmd, 1, 0) + payload)


def replies(sock, seq):
    """Payloads (after the genl header) of the replies to @seq, to its end."""
    while True:
        data = sock.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, _, mseq, _ = struct.unpack_from('=IHHII', data, off)
            if mlen < 16:
                raise OSError('netlink: bad message length %d' % mlen)
            msg = data[off + 16:off + mlen]
            off += (mlen + 3) & ~3
            if mseq != seq:
                continue
            if mtype == NLMSG_DONE:
                return
            if mtype == NLMSG_ERROR:
                err = struct.unpack_from('=i', msg)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return
            yield msg[4:]


def main():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    name = b'netdev\0'
    nla = struct.pack('=HH', 4 + len(name), CTRL_ATTR_FAMILY_NAME) + name
    nla += b'\0' * (-len(nla) % 4)
    request(sock, 1, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
            NLM_F_REQUEST | NLM_F_ACK, nla)
    family = None
    for msg in replies(sock, 1):
        for atype, val in attrs(msg):
            if atype == CTRL_ATTR_FAMILY_ID:
                family = struct.unpack('=H', val[:2])[0]
    if family is None:
        raise OSError('no netdev generic netlink family')
    request(sock, 2, family, NETDEV_CMD_PAGE_POOL_GET,
            NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP)
    ids = []
    for msg in replies(sock, 2):
        for atype, val in attrs(msg):
            if atype == NETDEV_A_PAGE_POOL_ID:
                ids.append(int.from_bytes(val, sys.byteorder))  # NLA_UINT
    print(' '.join(str(i) for i in sorted(ids)))


if __name__ == '__main__':
    try:
        main()
    except OSError as e:
        print('page_pools: %s' % e, file=sys.stderr)
        sys.exit(1)
