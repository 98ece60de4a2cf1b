#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The refnic authors
"""Decode what ip sent, for test-parse.sh.

    nldecode.py IF_REFNIC_H CAPTURE     print the RTM_NEWLINK+NLM_F_CREATE
                                        request as an indented attribute tree
    nldecode.py IF_REFNIC_H --count CAPTURE
                                        print how many such requests there are
    nldecode.py IF_REFNIC_H --monitor OUT [NAME KIND [ATTR=U32 ...]] ...
                                        write RTM_NEWLINK messages in the
                                        format "ip monitor file" reads

CAPTURE is nlcapture.so's output: records of a native u32 length + bytes.
The IFLA_REFNIC_* numbers come from the uapi header, so the test follows
it.  Lengths are checked strictly: every attribute must fit its parent and
every nest must be exactly covered by its children, so a wrong nest end or
a stray byte is an error (exit 2), not a silently different tree.
"""

import re
import struct
import sys

RTM_NEWLINK = 16
NLM_F_CREATE = 0x400
IFINFOMSG = struct.Struct("=BxHiII")  # family, type, index, flags, change

# linux/if_link.h, fixed ABI; only what the tests pass to ip
IFLA = {
    1: ("IFLA_ADDRESS", "mac"),
    3: ("IFLA_IFNAME", "str"),
    4: ("IFLA_MTU", "u32"),
    13: ("IFLA_TXQLEN", "u32"),
    18: ("IFLA_LINKINFO", "linkinfo"),
    19: ("IFLA_NET_NS_PID", "u32"),
    27: ("IFLA_GROUP", "u32"),
    28: ("IFLA_NET_NS_FD", "fd"),
    31: ("IFLA_NUM_TX_QUEUES", "u32"),
    32: ("IFLA_NUM_RX_QUEUES", "u32"),
}
INFO = {1: ("IFLA_INFO_KIND", "str"), 2: ("IFLA_INFO_DATA", "refnic")}


class DecodeError(Exception):
    pass


def refnic_enum(header):
    """IFLA_REFNIC_* name -> value, from the enum in if_refnic.h."""
    text = open(header).read()
    m = re.search(r"enum\s*{(.*?)};", text, re.S)
    if not m:
        raise DecodeError("no enum in " + header)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    names, val = {}, 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, expl = item.partition("=")
        if expl.strip():
            val = int(expl.strip(), 0)
        names[name.strip()] = val
        val += 1
    return names


def refnic_types(header):
    e = refnic_enum(header)
    types = {}
    for name, val in e.items():
        if name.startswith("__") or name.endswith("_UNSPEC"):
            continue
        types[val] = (name, "peer" if name == "IFLA_REFNIC_PEER" else "u32")
    return types


def attrs(buf, where):
    """Split buf into (type, payload), strictly."""
    out, off = [], 0
    while off < len(buf):
        if len(buf) - off < 4:
            raise DecodeError("%s: %d stray bytes" % (where, len(buf) - off))
        length, typ = struct.unpack_from("=HH", buf, off)
        if length < 4 or off + length > len(buf):
            raise DecodeError("%s: attribute %d has length %d, %d left"
                              % (where, typ, length, len(buf) - off))
        out.append((typ & 0x3FFF, buf[off + 4:off + length]))
        off += (length + 3) & ~3
    if off != (len(buf) + 3) & ~3:
        raise DecodeError("%s: attributes overrun by %d" % (where, off - len(buf)))
    return out


def ifinfomsg(buf, indent):
    if len(buf) < IFINFOMSG.size:
        raise DecodeError("short ifinfomsg")
    fam, typ, idx, flags, change = IFINFOMSG.unpack_from(buf)
    return ["%sifinfomsg family=%d type=%d index=%d flags=%#x change=%#x"
            % ("  " * indent, fam, typ, idx, flags, change)]


def value(kind, payload, name):
    if kind == "str":
        return '"%s"' % payload.rstrip(b"\0").decode()
    if kind == "u32":
        if len(payload) != 4:
            raise DecodeError("%s: %d bytes, not 4" % (name, len(payload)))
        return str(struct.unpack("=I", payload)[0])
    if kind == "fd":  # a descriptor number: only its presence is stable
        if len(payload) != 4:
            raise DecodeError("%s: %d bytes, not 4" % (name, len(payload)))
        return "<fd>"
    if kind == "mac":
        return ":".join("%02x" % b for b in payload)
    return payload.hex()


def tree(buf, table, indent, refnic):
    lines = []
    for typ, payload in attrs(buf, "level %d" % indent):
        name, kind = table.get(typ, ("attr%d" % typ, "hex"))
        pad = "  " * indent
        if kind == "linkinfo":
            lines.append(pad + name)
            lines += tree(payload, INFO, indent + 1, refnic)
        elif kind == "refnic":
            lines.append(pad + name)
            lines += tree(payload, refnic, indent + 1, refnic)
        elif kind == "peer":
            lines.append(pad + name)
            lines += ifinfomsg(payload, indent + 1)
            lines += tree(payload[IFINFOMSG.size:], IFLA, indent + 1, refnic)
        else:
            lines.append("%s%s %s" % (pad, name, value(kind, payload, name)))
    return lines


def messages(path):
    data = open(path, "rb").read() if path else b""
    off = 0
    while off < len(data):
        (n,) = struct.unpack_from("=I", data, off)
        rec = data[off + 4:off + 4 + n]
        off += 4 + n
        moff = 0
        while moff + 16 <= len(rec):
            length, typ, flags = struct.unpack_from("=IHH", rec, moff)
            if length < 16 or moff + length > len(rec):
                raise DecodeError("bad nlmsg_len %d" % length)
            yield typ, flags, rec[moff + 16:moff + length]
            moff += (length + 3) & ~3


def creates(path):
    return [body for typ, flags, body in messages(path)
            if typ == RTM_NEWLINK and flags & NLM_F_CREATE]


def rta(typ, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, typ) + payload + b"\0" * (-length % 4)


def monitor(header, out, specs):
    """specs: NAME KIND [ATTR=U32 ...], separated by '--'."""
    e = refnic_enum(header)
    data = b""
    for index, spec in enumerate(specs, start=1):
        name, kind, *kv = spec
        info = rta(1, kind.encode())
        if kv:
            d = b""
            for item in kv:
                attr, val = item.split("=")
                d += rta(e[attr], struct.pack("=I", int(val, 0)))
            info += rta(2, d)
        body = IFINFOMSG.pack(0, 1, index, 0x1003, 0)  # ether, UP|BCAST|MCAST
        body += rta(3, name.encode() + b"\0") + rta(18, info)
        data += struct.pack("=IHHII", 16 + len(body), RTM_NEWLINK, 0, 0, 0)
        data += body
    open(out, "wb").write(data)


def main(argv):
    if len(argv) >= 4 and argv[2] == "--monitor":
        specs, cur = [], []
        for a in argv[4:] + ["--"]:
            if a == "--":
                if cur:
                    specs.append(cur)
                cur = []
            else:
                cur.append(a)
        monitor(argv[1], argv[3], specs)
        return 0
    if len(argv) == 4 and argv[2] == "--count":
        print(len(creates(argv[3])))
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    bodies = creates(argv[2])
    if len(bodies) != 1:
        raise DecodeError("%d RTM_NEWLINK create requests, want 1" % len(bodies))
    body = bodies[0]
    for line in ifinfomsg(body, 0) + tree(body[IFINFOMSG.size:], IFLA, 0,
                                          refnic_types(argv[1])):
        print(line)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (DecodeError, OSError, struct.error) as err:
        print("nldecode: %s" % err, file=sys.stderr)
        sys.exit(2)
