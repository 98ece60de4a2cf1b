#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Netlink requests for kmod/privilege.sh that report how they were refused.

`ip link add` prints a refusal's extack message but not its errno; this
prints both, for the requests that plug a refnic card in or size its delay
line:

  privilege_nl.py newlink NAME          RTM_NEWLINK of kind refnic, as
                                        `ip link add NAME type refnic`
  privilege_nl.py devnew                the refnic family's dev-new
  privilege_nl.py devdel IFINDEX        dev-del
  privilege_nl.py devget IFINDEX        dev-get: the port's link latency
  privilege_nl.py linkset IFINDEX US    link-set latency US microseconds
  privilege_nl.py serve                 one such request per line of stdin,
                                        after printing "ready": a process
                                        warmed up before it is moved into a
                                        memory cgroup, so that the cgroup
                                        is charged for the requests only

Each request prints one JSON line: {"ok": true, ...} on success, else
{"ok": false, "errno": "EPERM", "msg": "<extack message>"}. Exit status 0
when every request succeeded, 1 otherwise. The refnic family is driven
through the kernel's YNL library (REFNIC_KSRC: the kernel source tree
holding tools/net/ynl; REFNIC_SPEC: uapi/refnic.yaml).
"""

import ctypes
import errno
import json
import os
import socket
import struct
import sys

NETLINK_EXT_ACK = 11
SOL_NETLINK = 270
NLMSG_ERROR = 2
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLM_F_EXCL, NLM_F_CREATE = 0x200, 0x400
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200
NLMSGERR_ATTR_MSG = 1
RTM_NEWLINK = 16
IFLA_IFNAME, IFLA_LINKINFO, IFLA_INFO_KIND = 3, 18, 1
NLA_F_NESTED = 0x8000


def attr(kind, payload):
    """One netlink attribute, padded to 4 bytes."""
    data = struct.pack('HH', 4 + len(payload), kind) + payload
    return data + b'\0' * (-len(data) % 4)


def refusal(err, msg):
    return {'ok': False, 'errno': errno.errorcode.get(err, str(err)),
            'msg': msg}


def newlink(name):
    """RTM_NEWLINK kind refnic, answered by an ack or an error."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                         socket.NETLINK_ROUTE)
    try:
        sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        body = struct.pack('BBHiII', socket.AF_UNSPEC, 0, 0, 0, 0, 0)
        body += attr(IFLA_IFNAME, name.encode() + b'\0')
        body += attr(IFLA_LINKINFO | NLA_F_NESTED,
                     attr(IFLA_INFO_KIND, b'refnic\0'))
        flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL
        sock.send(struct.pack('IHHII', 16 + len(body), RTM_NEWLINK, flags,
                              1, 0) + body)
        while True:
            reply = sock.recv(65536)
            off = 0
            while off + 16 <= len(reply):
                length, kind, rflags, seq, _ = struct.unpack_from('IHHII',
                                                                  reply, off)
                if kind == NLMSG_ERROR and seq == 1:
                    return parse_error(reply[off:off + length], rflags)
                off += (length + 3) & ~3
    finally:
        sock.close()


def parse_error(msg, flags):
    """An NLMSG_ERROR message: its errno and extack message."""
    (err,) = struct.unpack_from('i', msg, 16)
    if not err:
        return {'ok': True}
    text = ''
    if flags & NLM_F_ACK_TLVS:
        # The request's header follows the errno; its payload too unless
        # capped. Then the extack attributes.
        (req_len,) = struct.unpack_from('I', msg, 20)
        off = 20 + (16 if flags & NLM_F_CAPPED else (req_len + 3) & ~3)
        while off + 4 <= len(msg):
            alen, akind = struct.unpack_from('HH', msg, off)
            if alen < 4:
                break
            if akind & 0x3fff == NLMSGERR_ATTR_MSG:
                text = msg[off + 4:off + alen].split(b'\0')[0].decode()
            off += (alen + 3) & ~3
    return refusal(-err, text)


class Family:
    """The refnic generic netlink family, through the kernel's YNL library."""

    def __init__(self):
        sys.path.insert(0, os.path.join(os.environ['REFNIC_KSRC'],
                                        'tools/net/ynl'))
        from lib import YnlFamily, NlError  # pylint: disable=import-outside-toplevel
        self.error = NlError
        self.ynl = YnlFamily(os.environ['REFNIC_SPEC'], '')

    def do(self, op, req):
        try:
            reply = self.ynl.do(op, req)
        except self.error as e:
            ext = e.nl_msg.extack or {}
            return refusal(e.error, ext.get('msg', ''))
        out = {'ok': True}
        if reply and 'ifindex' in reply:
            out['ifindex'] = reply['ifindex']
        if reply and 'link' in reply:
            out['latency'] = reply['link'].get('latency')
        return out


FAMILY = None


def family():
    global FAMILY  # pylint: disable=global-statement
    if FAMILY is None:
        FAMILY = Family()
    return FAMILY


def run(words):
    """One request, as words of the command line."""
    cmd, args = words[0], words[1:]
    if cmd == 'newlink' and len(args) == 1:
        return newlink(args[0])
    if cmd == 'devnew' and not args:
        return family().do('dev-new', {})
    if cmd == 'devdel' and len(args) == 1:
        return family().do('dev-del', {'ifindex': int(args[0])})
    if cmd == 'devget' and len(args) == 1:
        return family().do('dev-get', {'ifindex': int(args[0])})
    if cmd == 'linkset' and len(args) == 2:
        return family().do('link-set', {'ifindex': int(args[0]),
                                        'link': {'latency': int(args[1])}})
    return {'ok': False, 'errno': 'usage', 'msg': ' '.join(words)}


# prctl(PR_SET_THP_DISABLE): the server sits in a small memory cgroup, where
# khugepaged collapsing its heap into a huge page would charge 2 MiB that
# are not refnic's.
PR_SET_THP_DISABLE = 41


def main():
    if sys.argv[1:] == ['serve']:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)
        family()
        print('ready', flush=True)
        ok = True
        while True:
            line = sys.stdin.readline()
            if not line:
                break
            if not line.split():
                continue
            out = run(line.split())
            ok = ok and out['ok']
            print(json.dumps(out), flush=True)
        return 0 if ok else 1
    if not sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    out = run(sys.argv[1:])
    print(json.dumps(out), flush=True)
    return 0 if out['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
