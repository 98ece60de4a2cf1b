#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic generators, receivers and oracles for refnic's net/ selftests.

Run it inside a network namespace (ip netns exec NS python3 nettool.py ...).
Every subcommand prints one JSON object on stdout (diagnostics on stderr)
and exits 0 when it did what it was asked, 1 when a check failed, 2 on a
usage or setup error.

Data streams are deterministic: byte stream SEED is the concatenation of
1 MiB blocks, block i being SEED's base block (1 MiB of SHAKE-128 of SEED)
rotated by an offset of its own (SHAKE-128 of (SEED, i)), so any two
processes agree on every byte without sharing a file, and a receiver can
tell the first wrong byte, not just that a hash differs. A rotation is a
slice of the base block written twice, not a hash of every byte: under TCG
generating the stream cost more than moving it.
"""

import argparse
import ctypes
import errno
import fcntl
import hashlib
import ipaddress
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import termios
import time

BLOCK = 1 << 20
SO_BUSY_POLL = 46  # not in Python's socket module


def log(*args):
    print('nettool:', *args, file=sys.stderr, flush=True)


def jsonable(o):
    """YNL gives flag sets (ethtool rss-get flow-hash) as Python sets."""
    return sorted(o) if isinstance(o, (set, frozenset)) else str(o)


def emit(obj, ok=True):
    print(json.dumps(obj, sort_keys=True, default=jsonable), flush=True)
    sys.exit(0 if ok else 1)


# ---- deterministic data -----------------------------------------------------

def stream_rotation(seed, i):
    """Where block i of stream @seed starts in the base block."""
    digest = hashlib.shake_128(struct.pack('<QQ', seed, i)).digest(4)
    return int.from_bytes(digest, 'little') % BLOCK


class Stream:
    """Sequential reader of byte stream @seed."""

    def __init__(self, seed):
        self.seed = seed
        base = hashlib.shake_128(b'base' + struct.pack('<Q', seed)).digest(BLOCK)
        # Block i is base2[r:r + BLOCK], r its rotation: no copy to make it.
        self.base2 = memoryview(base + base)
        self.index = 0
        self.start = stream_rotation(seed, 0)
        self.off = 0

    def view(self, n):
        """The next @n bytes, or fewer (up to the end of the block), as a
        memoryview: for sending and hashing, which take it without a copy."""
        if self.off == BLOCK:
            self.index += 1
            self.start = stream_rotation(self.seed, self.index)
            self.off = 0
        take = min(n, BLOCK - self.off)
        pos = self.start + self.off
        self.off += take
        return self.base2[pos:pos + take]

    def read(self, n):
        """The next @n bytes, as bytes (== with bytes is a memcmp; with a
        memoryview it goes byte by byte)."""
        out = []
        while n:
            v = self.view(n)
            out.append(v)
            n -= len(v)
        return out[0].tobytes() if len(out) == 1 else b''.join(out)


def cmd_sha(a):
    """sha256 of the first BYTES bytes of stream SEED."""
    h = hashlib.sha256()
    s = Stream(a.seed)
    left = a.bytes
    while left:
        chunk = s.view(left)
        h.update(chunk)
        left -= len(chunk)
    emit({'bytes': a.bytes, 'sha256': h.hexdigest()})


def family_of(addr):
    return socket.AF_INET6 if ':' in addr else socket.AF_INET


# ---- TCP stream: sender and verifying receiver --------------------------------

def cmd_send(a):
    """Connect to ADDR PORT, send BYTES bytes of stream SEED, half-close, wait
    for the receiver to close. --pace-secs spreads the send over at least
    that long (so that a transfer spans a sequence of reconfigurations).
    --sendfile sends with sendfile(2) from a file in /tmp holding the
    stream: every page of it becomes a frag of its own, so the stack builds
    skbs with as many frags as it allows (net.core.max_skb_frags).
    --hold-file holds the last chunk until that file exists: the transfer
    stays open until the test has done what it must do during it, however
    slow the machine."""
    fam = family_of(a.addr)
    deadline = time.monotonic() + a.connect_timeout
    while True:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(a.timeout)
        try:
            s.connect((a.addr, a.port))
            break
        except OSError as e:
            s.close()
            if time.monotonic() > deadline:
                emit({'error': 'connect: %s' % e}, ok=False)
            time.sleep(0.2)
    # No hash here: what the sender sends is the stream by construction;
    # the receiver compares every byte with it and hashes what it got.
    st = Stream(a.seed)
    sent = 0
    t0 = time.monotonic()
    chunk_len = 256 << 10
    spool = None
    if a.sendfile:
        import tempfile
        spool = tempfile.TemporaryFile(dir='/tmp')
    try:
        while sent < a.bytes:
            chunk = st.view(min(chunk_len, a.bytes - sent))
            if a.hold_file and sent + len(chunk) >= a.bytes:
                held = time.monotonic()
                while not os.path.exists(a.hold_file):
                    if time.monotonic() - held > a.timeout:
                        emit({'error': 'no %s after %d s' % (a.hold_file,
                                                             a.timeout),
                              'bytes': sent}, ok=False)
                    time.sleep(0.05)
            if spool:
                # Sent pages stay referenced until acknowledged: each
                # chunk goes to a fresh part of the file, never rewritten.
                spool.write(chunk)
                spool.flush()
                s.sendfile(spool, sent, len(chunk))
            else:
                s.sendall(chunk)
            sent += len(chunk)
            if a.pace_secs:
                due = t0 + a.pace_secs * sent / a.bytes
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
        s.shutdown(socket.SHUT_WR)
        # The receiver closes once it has read everything.
        while s.recv(4096):
            pass
    except OSError as e:
        emit({'error': 'send: %s' % e, 'bytes': sent,
              'secs': time.monotonic() - t0}, ok=False)
    s.close()
    emit({'bytes': sent, 'secs': round(time.monotonic() - t0, 3)})


def cmd_recv(a):
    """Listen on BIND PORT, accept one connection, read to EOF and compare
    every byte with stream SEED. Writes READY once listening."""
    fam = family_of(a.bind)
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.busy_poll:
        ls.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, a.busy_poll)
    ls.bind((a.bind, a.port))
    ls.listen(1)
    ls.settimeout(a.timeout)
    open(a.ready, 'w').close()
    try:
        c, peer = ls.accept()
    except OSError as e:
        emit({'error': 'accept: %s' % e}, ok=False)
    c.settimeout(a.timeout)
    h = hashlib.sha256()
    st = Stream(a.seed)
    got = 0
    mismatch = None
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    t0 = time.monotonic()
    try:
        while True:
            n = c.recv_into(buf)
            if not n:
                break
            data = view[:n]
            h.update(data)
            want = st.read(n)
            # bytes against bytes: a memoryview compares byte by byte.
            if mismatch is None and data.tobytes() != want:
                for i in range(n):
                    if data[i] != want[i]:
                        mismatch = got + i
                        log('first wrong byte at offset %d: got %#x want %#x'
                            % (mismatch, data[i], want[i]))
                        break
            got += n
    except OSError as e:
        emit({'error': 'recv: %s' % e, 'bytes': got,
              'first_mismatch': mismatch}, ok=False)
    c.close()
    ls.close()
    ok = mismatch is None and (a.bytes is None or got == a.bytes)
    emit({'bytes': got, 'sha256': h.hexdigest(), 'first_mismatch': mismatch,
          'secs': round(time.monotonic() - t0, 3)}, ok=ok)


# ---- UDP ------------------------------------------------------------------

def cmd_udp_flows(a):
    """Send COUNT datagrams on each of FLOWS flows SRC:SPORT+i -> DST:DPORT,
    one datagram per flow per round, pausing between rounds so that a slow
    receiver never runs out of RX buffers. With --swap the flows go the
    other way round in port terms: SRC:DPORT -> DST:SPORT+i."""
    fam = family_of(a.dst)
    socks = []
    if a.swap:
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind((a.src, a.dport))
        socks = [s] * a.flows
    else:
        for i in range(a.flows):
            s = socket.socket(fam, socket.SOCK_DGRAM)
            s.bind((a.src, a.sport + i))
            socks.append(s)
    ports = [(a.dport, a.sport + i) if a.swap else (a.sport + i, a.dport)
             for i in range(a.flows)]
    payload = b'refnic-rss' + bytes(a.size - 10)
    # With --vary, flow i sends 2 + (7 i mod 11) datagrams rather than
    # COUNT, so that two flows swapping queues still changes the per-queue
    # totals.
    counts = [2 + (7 * i) % 11 if a.vary else a.count for i in range(a.flows)]
    for r in range(max(counts)):
        for i, s in enumerate(socks):
            if r < counts[i]:
                s.sendto(payload, (a.dst, ports[i][1]))
        time.sleep(a.gap)
    flows = [{'src': a.src, 'dst': a.dst, 'sport': ports[i][0],
              'dport': ports[i][1], 'packets': counts[i]}
             for i in range(a.flows)]
    emit({'flows': flows})


IPV6_HOPOPTS = 54


def pattern(size, start=0):
    """Datagram payload whose every byte depends on its offset (SIZE bytes
    from offset START)."""
    return bytes((i * 7 + 3) % 251 for i in range(start, start + size))


def cmd_udp_blast(a):
    """Send COUNT datagrams of SIZE bytes from one socket, BURST at a time
    with GAP seconds between bursts. Reports what sendto() accepted."""
    fam = family_of(a.dst)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if a.sport:
        s.bind(('::' if fam == socket.AF_INET6 else '0.0.0.0', a.sport))
    if a.hopopts:
        # An IPv6 hop-by-hop header of HOPOPTS bytes holding one option
        # of the experimental type 0x1e (RFC 4727; its top bits say "skip
        # if unknown"). Not PadN: Linux drops PadN longer than 7 bytes.
        n = a.hopopts
        if fam != socket.AF_INET6 or n % 8 or n < 8 or n > 256:
            sys.exit('nettool: --hopopts needs IPv6 and a multiple of 8 <= 256')
        hbh = bytes([0, n // 8 - 1, 0x1e, n - 4]) + bytes(n - 4)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_HOPOPTS, hbh)
    payload = pattern(a.size) if a.pattern else bytes(a.size)
    sent = errors = 0
    t0 = time.monotonic()
    while sent + errors < a.count:
        for _ in range(min(a.burst, a.count - sent - errors)):
            try:
                s.sendto(payload, (a.dst, a.dport))
                sent += 1
            except OSError:
                errors += 1
        if a.gap:
            time.sleep(a.gap)
    emit({'sent': sent, 'errors': errors,
          'secs': round(time.monotonic() - t0, 3)})


def cmd_udp_sink(a):
    """Receive datagrams on BIND PORT until COUNT arrived or IDLE seconds
    passed without one."""
    fam = family_of(a.bind)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    if a.busy_poll:
        s.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, a.busy_poll)
    s.bind((a.bind, a.port))
    open(a.ready, 'w').close()
    if a.busy_poll:
        # A blocking recv() that times out in the kernel (SO_RCVTIMEO):
        # settimeout() would wait in poll() first, which busy-polls only
        # for net.core.busy_poll and then sleeps, so the interrupt path
        # would take nearly every datagram; recv() on an empty queue spins
        # for the socket's SO_BUSY_POLL.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                     struct.pack('ll', int(a.idle), int(a.idle % 1 * 1e6)))
    else:
        s.settimeout(a.idle)
    n = nbytes = bad = 0
    try:
        while a.count is None or n < a.count:
            d = s.recv(65536)
            n += 1
            nbytes += len(d)
            if a.pattern and d != pattern(len(d)):
                bad += 1
    except (socket.timeout, BlockingIOError):
        pass
    emit({'packets': n, 'bytes': nbytes, 'bad': bad})


# ---- crafted TCP runs (hardware GRO's IPv4 ID rules) --------------------------

TCP4_SEQ0 = 1000  # the sequence number of a run's first payload byte

def csum16(data):
    if len(data) % 2:
        data += b'\0'
    total = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def tcp4_frame(a, i, ipid):
    """Segment I of a run: Ethernet, IPv4 with DF and ID IPID, TCP ACK (PSH
    on the last), MSS bytes of pattern() each, checksums computed here."""
    payload = pattern(a.mss, a.mss * i)
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    flags = 0x18 if i == a.segs - 1 else 0x10
    tcp = struct.pack('!HHIIBBHHH', a.sport, a.dport, TCP4_SEQ0 + i * a.mss, 1,
                      5 << 4, flags, 65535, 0, 0)
    pseudo = src + dst + struct.pack('!BBH', 0, socket.IPPROTO_TCP,
                                     len(tcp) + len(payload))
    tcp = tcp[:16] + struct.pack('!H', csum16(pseudo + tcp + payload)) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp) + len(payload),
                     ipid, 0x4000, 64, socket.IPPROTO_TCP, 0, src, dst)
    ip = ip[:10] + struct.pack('!H', csum16(ip)) + ip[12:]
    eth = bytes.fromhex(a.dst_mac.replace(':', '')) + \
        bytes.fromhex(a.src_mac.replace(':', '')) + b'\x08\x00'
    return eth + ip + tcp + payload


def cmd_tcp4_run(a):
    """Send one run of SEGS in-order TCP segments of a flow no socket owns,
    from a packet socket on DEV: IPv4 IDs all ID (--ipid fixed) or ID, ID+1,
    ... (--ipid inc)."""
    # One CPU for the whole run: the TX queue follows the sending CPU (XPS),
    # and a run split over two queues may reach the peer out of order.
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.dev, 0))
    for i in range(a.segs):
        ipid = a.id if a.ipid == 'fixed' else (a.id + i) & 0xffff
        s.send(tcp4_frame(a, i, ipid))
    emit({'sent': a.segs})


def cmd_tcp4_capture(a):
    """Capture COUNT IPv4 TCP frames to DPORT on DEV (a packet socket, so
    after GRO: turn it off to see frames), then print their IP IDs,
    sequence numbers and payload lengths, and whether each payload is the
    sender's (tcp4-run) and each IP checksum good. READY is created once
    the socket is bound."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    s.bind((a.dev, 0x0800))
    s.settimeout(a.timeout)
    open(a.ready, 'w').close()
    ids, seqs, lens = [], [], []
    bad = 0
    try:
        while len(ids) < a.count:
            f = s.recv(65536)
            ip = f[14:]
            if len(ip) < 40 or ip[0] != 0x45 or ip[9] != socket.IPPROTO_TCP:
                continue
            tot = struct.unpack('!H', ip[2:4])[0]
            tcp = ip[20:tot]
            if struct.unpack('!H', tcp[2:4])[0] != a.dport:
                continue
            seq = struct.unpack('!I', tcp[4:8])[0]
            data = tcp[(tcp[12] >> 4) * 4:]
            if csum16(ip[:20]) or data != pattern(len(data), seq - TCP4_SEQ0):
                bad += 1
            ids.append(struct.unpack('!H', ip[4:6])[0])
            seqs.append(seq)
            lens.append(len(data))
    except socket.timeout:
        pass
    emit({'ids': ids, 'seqs': seqs, 'lens': lens, 'bad': bad},
         len(ids) == a.count and not bad)


# ---- TSO frames from a packet socket (the wire fast path) --------------------

SOL_PACKET = 263
PACKET_VNET_HDR = 15
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
VIRTIO_NET_HDR_GSO_TCPV4 = 1


def tso_frame(a, seq, nbytes, push, ipid):
    """One TSO frame: Ethernet, IPv4 (DF, ID IPID), TCP
    ACK (PSH if PUSH; with --tcp-options a timestamp option) and NBYTES of
    pattern() from stream offset SEQ - TCP4_SEQ0; the TCP checksum field
    holds the pseudo-header sum, as CHECKSUM_PARTIAL has it."""
    payload = pattern(nbytes, seq - TCP4_SEQ0)
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    opts = struct.pack('!BBBBII', 1, 1, 8, 10, seq, 7) if a.tcp_options else b''
    tcp = struct.pack('!HHIIBBHHH', a.sport, a.dport, seq, 1,
                      (5 + len(opts) // 4) << 4, 0x18 if push else 0x10,
                      65535, 0, 0) + opts
    pseudo = src + dst + struct.pack('!BBH', 0, socket.IPPROTO_TCP,
                                     len(tcp) + nbytes)
    tcp = tcp[:16] + struct.pack('!H', ~csum16(pseudo) & 0xffff) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp) + nbytes,
                     ipid, 0x4000, 64, socket.IPPROTO_TCP, 0, src, dst)
    ip = ip[:10] + struct.pack('!H', csum16(ip)) + ip[12:]
    eth = bytes.fromhex(a.dst_mac.replace(':', '')) + \
        bytes.fromhex(a.src_mac.replace(':', '')) + b'\x08\x00'
    hdr_len = len(eth) + len(ip) + len(tcp)
    vnet = struct.pack('<BBHHHH', VIRTIO_NET_HDR_F_NEEDS_CSUM,
                       VIRTIO_NET_HDR_GSO_TCPV4, hdr_len, a.mss,
                       len(eth) + len(ip), 16)
    return vnet + eth + ip + tcp + payload


def cmd_tso_burst(a):
    """Send FRAMES TSO frames of one flow no socket owns from a packet
    socket on DEV, one send() (one doorbell) each, the stream's sequence
    numbers running on: each frame SEGS segments of MSS bytes, the last one
    --last-short bytes short; PSH on every frame's last segment, or with --push odd
    only on every second frame's, so that runs span frames."""
    nbytes = a.segs * a.mss - a.last_short
    if not 0 <= a.last_short < a.mss or a.segs < 2 or \
            20 + 32 + nbytes > 0xffff:
        sys.exit('tso-burst: want 0 <= --last-short < --mss, --segs >= 2 '
                 'and an IPv4 packet of at most 65535 bytes')
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    seq = TCP4_SEQ0
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
        s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        s.bind((a.dev, 0))
        for i in range(a.frames):
            # IDs count up across frames, as the stack's do, so runs may
            # span them.
            frame = tso_frame(a, seq, nbytes, a.push == 'all' or i % 2 == 1,
                              (0x1000 + i * a.segs) & 0xffff)
            if s.send(frame) != len(frame):
                sys.exit(f'tso-burst: frame {i} sent short')
            seq += nbytes
    emit({'sent': a.frames, 'bytes': seq - TCP4_SEQ0})


def cmd_tcp4_frames(a):
    """Capture IPv4 TCP frames to DPORT arriving on DEV until BYTES of
    payload came (a packet socket: what the driver handed the stack), and
    print per frame its length and a digest of all its bytes, and count the
    frames whose payload is not the sender's (tso-burst) and the frames of
    at most MSS payload bytes (a segment alone) whose TCP checksum is
    wrong; READY is created once bound."""
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                       socket.htons(0x0800)) as s:
        s.bind((a.dev, 0x0800))
        s.settimeout(a.timeout)
        open(a.ready, 'w').close()
        frames, got, bad, csum_bad = [], 0, 0, 0
        try:
            while got < a.bytes:
                f, addr = s.recvfrom(1 << 17)
                ip = f[14:]
                if addr[2] == socket.PACKET_OUTGOING or len(ip) < 40 or \
                        ip[0] != 0x45 or ip[9] != socket.IPPROTO_TCP:
                    continue
                tcp = ip[20:struct.unpack('!H', ip[2:4])[0]]
                if struct.unpack('!H', tcp[2:4])[0] != a.dport:
                    continue
                seq = struct.unpack('!I', tcp[4:8])[0]
                data = tcp[(tcp[12] >> 4) * 4:]
                if data != pattern(len(data), seq - TCP4_SEQ0):
                    bad += 1
                pseudo = ip[12:20] + struct.pack('!BBH', 0, socket.IPPROTO_TCP,
                                                 len(tcp))
                if len(data) <= a.mss and csum16(pseudo + tcp):
                    csum_bad += 1
                got += len(data)
                frames.append([len(f), hashlib.sha256(f).hexdigest()[:16]])
        except socket.timeout:
            pass
    emit({'frames': frames, 'bytes': got, 'bad': bad, 'csum_bad': csum_bad},
         got == a.bytes and not bad and not csum_bad)


# ---- request/response (busy polling) ----------------------------------------

def cmd_rr_server(a):
    fam = family_of(a.bind)
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.bind, a.port))
    ls.listen(1)
    ls.settimeout(a.timeout)
    open(a.ready, 'w').close()
    c, _ = ls.accept()
    c.settimeout(a.timeout)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if a.busy_poll:
        c.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, a.busy_poll)
    n = 0
    while True:
        d = recv_exact(c, a.size)
        if not d:
            break
        c.sendall(d)
        n += 1
    napi_id = sock_napi_id(c)
    emit({'rounds': n, 'napi_id': napi_id})


def recv_exact(c, size):
    out = b''
    while len(out) < size:
        d = c.recv(size - len(out))
        if not d:
            return b''
        out += d
    return out


def sock_napi_id(s):
    SO_INCOMING_NAPI_ID = 56
    try:
        return s.getsockopt(socket.SOL_SOCKET, SO_INCOMING_NAPI_ID)
    except OSError:
        return None


def cmd_rr_client(a):
    fam = family_of(a.addr)
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.settimeout(a.timeout)
    c.connect((a.addr, a.port))
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if a.busy_poll:
        c.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, a.busy_poll)
    bad = 0
    t0 = time.monotonic()
    for i in range(a.rounds):
        msg = struct.pack('<Q', i) * (a.size // 8)
        c.sendall(msg)
        if recv_exact(c, a.size) != msg:
            bad += 1
    napi_id = sock_napi_id(c)
    c.close()
    emit({'rounds': a.rounds, 'bad': bad, 'napi_id': napi_id,
          'secs': round(time.monotonic() - t0, 3)}, ok=bad == 0)


# ---- a receiver that does not read --------------------------------------------

def fionread(s):
    b = fcntl.ioctl(s.fileno(), termios.FIONREAD, b'\0\0\0\0')
    return struct.unpack('i', b)[0]


def cmd_hold(a):
    """Accept a TCP connection and bind a UDP socket, let data queue up on
    both without reading it, write STATUS (JSON: bytes queued) once TCP has
    BYTES queued and UDP at least one datagram, then wait for GO to exist,
    and only then read everything and check the TCP bytes against stream
    SEED."""
    fam = family_of(a.bind)
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    ls.bind((a.bind, a.port))
    ls.listen(1)
    us = socket.socket(fam, socket.SOCK_DGRAM)
    us.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    us.bind((a.bind, a.port))
    ls.settimeout(a.timeout)
    open(a.ready, 'w').close()
    c, _ = ls.accept()
    deadline = time.monotonic() + a.timeout
    while True:
        tq, uq = fionread(c), fionread(us)
        if tq >= a.bytes and uq > 0:
            break
        if time.monotonic() > deadline:
            emit({'error': 'data did not queue up', 'tcp_queued': tq,
                  'udp_queued': uq}, ok=False)
        time.sleep(0.1)
    with open(a.status + '.tmp', 'w') as f:
        json.dump({'tcp_queued': tq, 'udp_queued': uq}, f)
    os.rename(a.status + '.tmp', a.status)
    while not os.path.exists(a.go):
        if time.monotonic() > deadline + a.timeout:
            emit({'error': 'no go'}, ok=False)
        time.sleep(0.1)
    # Now read what sat in the queues while the device went away.
    c.setblocking(False)
    us.setblocking(False)
    data = bytearray()
    while True:
        try:
            d = c.recv(1 << 20)
        except BlockingIOError:
            break
        except OSError as e:
            log('tcp recv after teardown: %s' % e)
            break
        if not d:
            break
        data += d
    udp = 0
    udp_bad = 0
    while True:
        try:
            d = us.recv(65536)
        except (BlockingIOError, OSError):
            break
        udp += 1
        if d != Stream(a.seed).read(len(d)):
            udp_bad += 1
    want = Stream(a.seed).read(len(data))
    ok = len(data) >= a.bytes and bytes(data) == want and udp > 0 and not udp_bad
    emit({'tcp_read': len(data), 'tcp_intact': bytes(data) == want,
          'udp_read': udp, 'udp_bad': udp_bad}, ok=ok)


def cmd_feed(a):
    """Send BYTES bytes of stream SEED over TCP and COUNT datagrams (each the
    stream's first SIZE bytes) over UDP to ADDR PORT, then sleep until
    killed, keeping the connection open."""
    fam = family_of(a.addr)
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.settimeout(a.timeout)
    c.connect((a.addr, a.port))
    c.sendall(Stream(a.seed).read(a.bytes))
    u = socket.socket(fam, socket.SOCK_DGRAM)
    d = Stream(a.seed).read(a.size)
    for _ in range(a.count):
        u.sendto(d, (a.addr, a.port))
        time.sleep(0.01)
    print(json.dumps({'tcp_sent': a.bytes, 'udp_sent': a.count}), flush=True)
    signal.pause()


# ---- counters -----------------------------------------------------------------

def ethtool_stats(dev):
    """The driver's counters (what ethtool -S prints) by name, through the
    ETHTOOL_GSTRINGS and ETHTOOL_GSTATS ioctls ethtool uses: the ethtool
    netlink family carries no driver-defined counters."""
    for _ in range(5):
        names = ethtool_strings(dev, ETH_SS_STATS)
        if names is None:
            continue
        if not names:
            return {}
        # The kernel writes as many counters as the driver has now,
        # whatever n_stats says: room for more, and a count that changed
        # since GSTRINGS (a channel change) is asked again.
        room = len(names) + ETHTOOL_HEADROOM
        buf = ctypes.create_string_buffer(
            struct.pack('=II', ETHTOOL_GSTATS, len(names)), 8 + 8 * room)
        ethtool_ioctl(dev, buf)
        n = struct.unpack('=II', buf.raw[:8])[1]
        if n == len(names):
            return dict(zip(names, struct.unpack('=%dQ' % n, buf.raw[8:8 + 8 * n])))
    raise SystemExit('%s: the number of ethtool counters kept changing' % dev)


def ethtool_strings(dev, string_set):
    """The names of STRING_SET (ETHTOOL_GSSET_INFO, then ETHTOOL_GSTRINGS);
    [] if the device has none, None if their number changed in between."""
    buf = ctypes.create_string_buffer(
        struct.pack('=IIQI', ETHTOOL_GSSET_INFO, 0, 1 << string_set, 0))
    ethtool_ioctl(dev, buf)
    mask, count = struct.unpack('=QI', buf.raw[8:20])
    if not mask & (1 << string_set) or count == 0:
        return []
    buf = ctypes.create_string_buffer(
        struct.pack('=III', ETHTOOL_GSTRINGS, string_set, count),
        12 + ETH_GSTRING_LEN * (count + ETHTOOL_HEADROOM))
    ethtool_ioctl(dev, buf)
    if struct.unpack('=III', buf.raw[:12])[2] != count:
        return None
    raw = buf.raw[12:12 + ETH_GSTRING_LEN * count]
    return [raw[i:i + ETH_GSTRING_LEN].split(b'\0', 1)[0].decode()
            for i in range(0, len(raw), ETH_GSTRING_LEN)]


def link_stats(dev):
    out = subprocess.run(['ip', '-j', '-s', '-s', 'link', 'show', 'dev', dev],
                         check=True, capture_output=True, text=True).stdout
    j = json.loads(out)[0]
    flat = {}
    for d in ('rx', 'tx'):
        for k, v in j['stats64'][d].items():
            flat['%s_%s' % (d, k)] = v
    flat['ifindex'] = j['ifindex']
    return flat


def per_queue(stats, kind, field):
    """{queue: value} of the ethtool -S counters named KIND<q>_FIELD
    (rx0_packets, q3_irqs, ...)."""
    pat = re.compile(r'^%s(\d+)_%s$' % (re.escape(kind), re.escape(field)))
    res = {}
    for k, v in stats.items():
        m = pat.match(k)
        if m:
            res[int(m.group(1))] = v
    return res


def cmd_stats(a):
    """Snapshot of ethtool -S and ip -s -s link counters of DEV."""
    emit({'ethtool': ethtool_stats(a.dev), 'link': link_stats(a.dev)})


def flat_snap(snap):
    out = {}
    for part in ('ethtool', 'link'):
        for k, v in snap.get(part, {}).items():
            if isinstance(v, int):
                out['%s.%s' % (part, k)] = v
    return out


def cmd_diff(a):
    """Counters that moved between snapshots BEFORE and AFTER (net_snap).
    Fails when one matching a --zero pattern moved, or when the deltas of
    the counters matching a --max pattern sum to more than its bound."""
    b = flat_snap(load(a.before))
    n = flat_snap(load(a.after))
    delta = {k: n[k] - b.get(k, 0) for k in n if n[k] != b.get(k, 0)}
    errs = []
    for pat in a.zero or []:
        moved = {k: v for k, v in delta.items() if re.search(pat, k)}
        if moved:
            errs.append('should not have moved: %s' % moved)
    for pat, bound in a.max or []:
        moved = {k: v for k, v in delta.items() if re.search(pat, k)}
        if sum(moved.values()) > int(bound):
            errs.append('sum %d > %s: %s' % (sum(moved.values()), bound, moved))
    watched = {k: v for k, v in delta.items()
               if any(re.search(p, k) for p in (a.zero or []) +
                      [m[0] for m in a.max or []])}
    log('drop/error counters that moved: %s' % (watched or 'none'))
    for e in errs:
        log(e)
    emit({'delta': delta, 'errors': errs}, ok=not errs)


def load(path):
    with open(path) as f:
        return json.load(f)


# ---- RSS oracle ----------------------------------------------------------------

def toeplitz(key, data):
    """Toeplitz hash as the Microsoft RSS specification defines it: for each
    set bit of the input (most significant bit first), XOR in the 32 bits of
    the key starting at that bit position."""
    k = int.from_bytes(key, 'big')
    kl = len(key) * 8
    h = 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (kl - 32 - (i * 8 + b))) & 0xffffffff
    return h


# The specification's verification suite (IPv4 and IPv6, with and without
# the TCP ports): proves the oracle before it judges the device.
MS_KEY = bytes.fromhex('6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b4'
                       '77cb2da38030f20c6a42b73bbeac01fa')
MS_VECTORS = [
    ('66.9.149.187', 2794, '161.142.100.80', 1766, 0x323e8fc2, 0x51ccc178),
    ('199.92.111.2', 14230, '65.69.140.83', 4739, 0xd718262a, 0xc626b0ea),
    ('24.19.198.95', 12898, '12.22.207.184', 38024, 0xd2d0a5de, 0x5c2b394a),
    ('38.27.205.30', 48228, '209.142.163.6', 2217, 0x82989176, 0xafc7327f),
    ('153.39.163.191', 44251, '202.188.127.2', 1303, 0x5d1809c5, 0x10e828a2),
    ('3ffe:2501:200:1fff::7', 2794, '3ffe:2501:200:3::1', 1766,
     0x2cc18cd5, 0x40207d3d),
    ('3ffe:501:8::260:97ff:fe40:efab', 14230, 'ff02::1', 4739,
     0x0f0c461c, 0xdde51bbf),
    ('3ffe:1900:4545:3:200:f8ff:fe21:67cf', 44251,
     'fe80::200:f8ff:fe21:67cf', 38024, 0x4b61e985, 0x02d1feef),
]


def rss_input(src, dst, sport, dport, fields='sdfn', sym=False):
    """The hash input: the fields ethtool's rx-flow-hash letters select
    (s, d: source and destination address; f, n: L4 bytes 0-1 and 2-3, the
    ports), in wire order. With sym (input-xfrm symmetric-xor), a source
    hashed with its destination is replaced, in both places, by the XOR of
    the two."""
    pairs = [(ipaddress.ip_address(src).packed,
              ipaddress.ip_address(dst).packed, 's', 'd'),
             (struct.pack('>H', sport), struct.pack('>H', dport), 'f', 'n')]
    out = b''
    for a, b, la, lb in pairs:
        if sym and la in fields and lb in fields:
            x = bytes(i ^ j for i, j in zip(a, b))
            out += x + x
            continue
        if la in fields:
            out += a
        if lb in fields:
            out += b
    return out


def cmd_toeplitz_selftest(a):
    bad = []
    for src, sp, dst, dp, h3, h4 in MS_VECTORS:
        l3 = ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed
        if toeplitz(MS_KEY, l3) != h3 or \
                toeplitz(MS_KEY, rss_input(src, dst, sp, dp)) != h4:
            bad.append(src)
    emit({'vectors': len(MS_VECTORS), 'bad': bad}, ok=not bad)


def ethtool_rxfh(dev):
    """Key (bytes) and indirection table (list), what ethtool -x prints,
    through the ETHTOOL_GRSSH ioctl: once for the sizes, once for both."""
    fmt = '=IIIIBBBBI'  # struct ethtool_rxfh up to rss_config[]
    head = struct.calcsize(fmt)
    buf = ctypes.create_string_buffer(struct.pack(fmt, ETHTOOL_GRSSH, 0, 0, 0, 0, 0, 0, 0, 0))
    ethtool_ioctl(dev, buf)
    indir_size, key_size = struct.unpack(fmt, buf.raw[:head])[2:4]
    buf = ctypes.create_string_buffer(
        struct.pack(fmt, ETHTOOL_GRSSH, 0, indir_size, key_size, 0, 0, 0, 0, 0),
        head + 4 * indir_size + key_size)
    ethtool_ioctl(dev, buf)
    table = list(struct.unpack('=%dI' % indir_size, buf.raw[head:head + 4 * indir_size]))
    key = buf.raw[head + 4 * indir_size:head + 4 * indir_size + key_size]
    if not key or not table:
        raise SystemExit('%s: ETHTOOL_GRSSH gave a %d-byte key and a %d-entry table'
                         % (dev, key_size, indir_size))
    return key, table


def cmd_rxfh(a):
    key, table = ethtool_rxfh(a.dev)
    emit({'key': key.hex(), 'table': table})


def cmd_rss_check(a):
    """Compare the per-queue RX packet deltas of DEV (BEFORE snapshot vs now)
    with what the device's key and table predict for the flows in FLOWS.
    Packets the flows do not explain (ARP, ND, ...) are tolerated up to
    --noise in total, and only on top of the prediction."""
    before = load(a.before)['ethtool']
    flows = load(a.flows)['flows']
    key, table = ethtool_rxfh(a.dev)
    b = per_queue(before, 'rx', 'packets')
    expect = {}
    errs = []
    if a.key and key.hex() != a.key.replace(':', '').lower():
        errs.append('ethtool -x key %s, want %s' % (key.hex(), a.key))
    if a.table_size and len(table) != a.table_size:
        errs.append('table has %d entries, want %d' % (len(table), a.table_size))
    if a.weights:
        w = [int(x) for x in a.weights.split(',')]
        for q, wq in enumerate(w):
            share = table.count(q)
            ideal = len(table) * wq / sum(w)
            if abs(share - ideal) > 1:
                errs.append('queue %d has %d table entries, weight %d/%d wants %.1f'
                            % (q, share, wq, sum(w), ideal))
        if any(e >= len(w) for e in table):
            errs.append('table names queues beyond the weights: %s' % table)
    for f in flows:
        # No field selected: not hashed, table entry 0 (a hash of 0).
        h = toeplitz(key, rss_input(f['src'], f['dst'], f['sport'],
                                    f['dport'], a.fields, a.sym))
        q = table[h % len(table)] if a.all_to is None else a.all_to
        f['hash'] = '%08x' % h
        f['queue'] = q
        expect[q] = expect.get(q, 0) + f['packets']
    sent = sum(f['packets'] for f in flows)
    # Ready once every queue counted what the flows bring it (or time out,
    # and judge what arrived).
    deadline = time.monotonic() + a.wait
    while True:
        after = ethtool_stats(a.dev)
        n = per_queue(after, 'rx', 'packets')
        delta = {q: n[q] - b.get(q, 0) for q in n}
        if all(delta.get(q, 0) >= e for q, e in expect.items()) or \
                time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for q in n:
        expect.setdefault(q, 0)
    used = {f['queue'] for f in flows}
    if a.min_queues is not None and len(used) < a.min_queues:
        errs.append('the flows hash to %d queue(s) %s, want at least %d'
                    % (len(used), sorted(used), a.min_queues))
    if a.max_queues is not None and len(used) > a.max_queues:
        errs.append('the flows hash to %d queues %s, want at most %d'
                    % (len(used), sorted(used), a.max_queues))
    noise = sum(delta.values()) - sent
    bad = [q for q in sorted(set(delta) | set(expect))
           if not (expect.get(q, 0) <= delta.get(q, 0) <=
                   expect.get(q, 0) + max(noise, 0))]
    drops = {k: after[k] - before.get(k, 0) for k in after
             if re.match(r'^rx\d+_(nobuf|drops|alloc_fail)$', k)
             and after[k] != before.get(k, 0)}
    if noise < 0 or noise > a.noise:
        errs.append('%d packets counted beyond the flows\' (tolerance %d)'
                    % (noise, a.noise))
    if bad:
        errs.append('queues off the prediction: %s' % bad)
    ok = not errs
    for e in errs:
        log(e)
    log('key %s, table (128 entries) by queue: %s' % (
        key.hex(), {q: table.count(q) for q in sorted(set(table))}))
    log('hashed fields %r%s: %d flows on queues %s' % (
        a.fields, ' symmetric-xor' if a.sym else '', len(flows),
        sorted(used)))
    for q in sorted(set(delta) | set(expect)):
        log('queue %d: predicted %d, counted %d%s' % (
            q, expect.get(q, 0), delta.get(q, 0), '  <-- WRONG' if q in bad else ''))
    if noise:
        log('packets not from the flows: %d' % noise)
    if drops:
        log('RX drops during the run: %s' % drops)
    emit({'predicted': expect, 'counted': delta, 'noise': noise,
          'errors': errs, 'drops': drops, 'queues_used': sorted(used),
          'flow_queues': [f['queue'] for f in flows],
          'flows': flows if not ok else len(flows)}, ok=ok)


# ---- ethtool ioctls ---------------------------------------------------------

SIOCETHTOOL = 0x8946
ETHTOOL_GSTRINGS = 0x1b
ETHTOOL_GSTATS = 0x1d
ETHTOOL_GSSET_INFO = 0x37
ETH_SS_STATS = 1
ETH_GSTRING_LEN = 32
# Entries of room beyond the count asked for: GSTRINGS and GSTATS answer
# with the driver's count at the time of the call, not the caller's.
ETHTOOL_HEADROOM = 4096
ETHTOOL_GRXFH = 0x29
ETHTOOL_SRXFH = 0x2a
ETHTOOL_GRSSH = 0x46
ETHTOOL_SRSSH = 0x47
FLOW_TYPES = {'tcp4': 0x01, 'udp4': 0x02, 'sctp4': 0x03, 'ah-esp4': 0x04,
              'tcp6': 0x05, 'udp6': 0x06, 'sctp6': 0x07, 'ah-esp6': 0x08,
              'ah4': 0x09, 'esp4': 0x0a, 'ah6': 0x0b, 'esp6': 0x0c,
              'ip4': 0x10, 'ip6': 0x11, 'ether': 0x12, 'gtpu4': 0x13,
              'gtpu6': 0x14}
# ethtool's rx-flow-hash letters (RXH_*)
RXH = {'m': 1 << 1, 'v': 1 << 2, 't': 1 << 3, 's': 1 << 4, 'd': 1 << 5,
       'f': 1 << 6, 'n': 1 << 7, 'r': 1 << 31}
ETH_RXFH_INDIR_NO_CHANGE = 0xffffffff
RXH_XFRM = {'none': 0, 'sym-xor': 1, 'sym-or-xor': 2}


def ethtool_ioctl(dev, buf):
    """SIOCETHTOOL on DEV with BUF (a ctypes buffer) as ifr_data; a refusal
    prints the errno and exits 1."""
    ifr = struct.pack('16sP', dev.encode(), ctypes.addressof(buf))
    ifr += bytes(40 - len(ifr))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
        except OSError as e:
            emit({'error': errno.errorcode.get(e.errno, str(e.errno)),
                  'strerror': e.strerror}, ok=False)


def cmd_rxfh_fields(a):
    """Hashed fields of flow type FT on DEV, as rx-flow-hash letters,
    through the ETHTOOL_GRXFH/SRXFH ioctls (Debian 12's ethtool 6.1 knows no
    ip4 or ip6 there); --set LETTERS sets them first."""
    # struct ethtool_rxnfc: cmd, flow_type (u32), data (u64), then the
    # rule fields the kernel does not read for these two commands.
    size = 256
    if a.set is not None:
        data = 0
        for c in a.set:
            data |= RXH[c]
        buf = ctypes.create_string_buffer(struct.pack(
            '=IIQ', ETHTOOL_SRXFH, FLOW_TYPES[a.ft], data), size)
        ethtool_ioctl(a.dev, buf)
    buf = ctypes.create_string_buffer(struct.pack(
        '=IIQ', ETHTOOL_GRXFH, FLOW_TYPES[a.ft], 0), size)
    ethtool_ioctl(a.dev, buf)
    data = struct.unpack('=IIQ', buf.raw[:16])[2]
    emit({'data': data,
          'fields': ''.join(c for c in 'mvtsdfnr' if data & RXH[c])})


def cmd_rxfh_xfrm(a):
    """RSS input transform of DEV (struct ethtool_rxfh.input_xfrm) through
    the ioctl, which both kernels have (Debian 12's ethtool 6.1 cannot set
    it): --set changes it first (nothing else changes)."""
    # struct ethtool_rxfh up to rss_config: cmd, rss_context, indir_size,
    # key_size (u32), hfunc, input_xfrm, rsvd8[2] (u8), rsvd32 (u32).
    fmt = '=IIIIBBBBI'
    if a.set is not None:
        buf = ctypes.create_string_buffer(struct.pack(
            fmt, ETHTOOL_SRSSH, 0, ETH_RXFH_INDIR_NO_CHANGE, 0, 0,
            RXH_XFRM[a.set], 0, 0, 0))
        ethtool_ioctl(a.dev, buf)
    buf = ctypes.create_string_buffer(struct.pack(
        fmt, ETHTOOL_GRSSH, 0, 0, 0, 0, 0, 0, 0, 0))
    ethtool_ioctl(a.dev, buf)
    xfrm = struct.unpack(fmt, buf.raw[:struct.calcsize(fmt)])[5]
    names = [k for k, v in RXH_XFRM.items() if v and xfrm & v]
    emit({'input_xfrm': xfrm, 'names': names or ['none']})


# ---- netdev netlink (the kernel's YNL library, as its cli.py uses it) --------

def ynl_family(repo, family='netdev'):
    """FAMILY's YNL spec and library from the source of the kernel the test
    runs on (REFNIC_KSRC, the harness sets it; 6.12's by default): 7.3's
    spec knows attributes and ops 6.12's does not (napi-set, hds-thresh).
    The refnic family's spec is uapi/refnic.yaml."""
    ksrc = os.environ.get('REFNIC_KSRC') or os.path.join(
        repo, 'build/linux-source')
    # The library moved to tools/net/ynl/pyynl/lib in 6.14.
    for sub in ('tools/net/ynl/pyynl', 'tools/net/ynl'):
        if os.path.isdir(os.path.join(ksrc, sub, 'lib')):
            sys.path.insert(0, os.path.join(ksrc, sub))
            break
    spec = os.path.join(ksrc, 'Documentation/netlink/specs/%s.yaml' % family)
    if family == 'refnic':  # refnic's own family: its spec is in the repo
        spec = os.path.join(repo, 'uapi/refnic.yaml')
    # lib_net.sh starts Python without site (-S: 0.4 s less a start under
    # TCG); YNL needs PyYAML from the site packages.
    if sys.flags.no_site:
        import site
        site.main()
    from lib import YnlFamily  # noqa: E402
    return YnlFamily(spec, '')


def cmd_ynl(a):
    """Dump (or with --do, do) OP of netlink FAMILY (netdev by default:
    page-pool-get, queue-get, napi-get, qstats-get) as JSON. A refused
    request prints the kernel's error and extack and exits 1."""
    ynl = ynl_family(a.repo, a.family)
    attrs = json.loads(a.json) if a.json else {}
    try:
        if a.do:
            emit({'reply': ynl.do(a.op, attrs)})
        else:
            emit({'dump': ynl.dump(a.op, attrs)})
    except Exception as e:  # the library's NlError carries the extack
        emit({'error': str(e)}, ok=False)


def cmd_pp_wait(a):
    """Wait until the page pools of the namespace are what the live queues
    need: no destroyed pool (detach-time set) is left holding pages in
    flight, and every live pool of IFINDEX belongs to the NAPI instance of
    one of its current RX queues, each RX queue having as many as the
    others. Reports the pools either way."""
    ynl = ynl_family(a.repo)
    deadline = time.monotonic() + a.timeout
    while True:
        pools = ynl.dump('page-pool-get', {})
        rxq = [q for q in ynl.dump('queue-get', {})
               if q.get('ifindex') == a.ifindex and q['type'] == 'rx']
        napis = {q.get('napi-id') for q in rxq}
        errs = []
        detached = [p for p in pools if 'detach-time' in p]
        if detached:
            errs.append('destroyed pools still hold pages: %s' % detached)
        live = [p for p in pools if 'detach-time' not in p and
                p.get('ifindex') == a.ifindex]
        per_napi = {n: 0 for n in napis}
        for p in live:
            if p.get('napi-id') not in per_napi:
                errs.append('pool %s is bound to no current RX queue' % p)
            else:
                per_napi[p.get('napi-id')] += 1
        if len(set(per_napi.values())) > 1 or 0 in per_napi.values():
            errs.append('pools per RX queue NAPI: %s' % per_napi)
        if a.queues is not None and len(rxq) != a.queues:
            errs.append('%d RX queues, want %d' % (len(rxq), a.queues))
        if not errs:
            break
        if time.monotonic() > deadline:
            for e in errs:
                log(e)
            emit({'errors': errs, 'pools': pools}, ok=False)
        time.sleep(0.5)
    log('%d live pools for %d RX queues, none destroyed with pages left'
        % (len(live), len(rxq)))
    emit({'live': len(live), 'rx_queues': len(rxq), 'pools': pools})


def cmd_stats_all(a):
    """ethtool -S, ip -s link, /proc/interrupts counts of DEV's vectors and
    qstats (device and per queue) of DEV, read back to back, and again until
    the packet counters held still across the reading (a quiet link)."""
    ynl = ynl_family(a.repo)
    for attempt in range(10):
        e0 = ethtool_stats(a.dev)
        link = link_stats(a.dev)
        ifx = link['ifindex']
        qdev = [q for q in ynl.dump('qstats-get', {'ifindex': ifx})
                if q.get('ifindex') == ifx]
        qq = [q for q in ynl.dump('qstats-get', {'ifindex': ifx,
                                                  'scope': ['queue']})
              if q.get('ifindex') == ifx]
        irqs = {}
        with open('/proc/interrupts') as f:
            for line in f:
                parts = line.split()
                if parts and parts[-1].startswith(a.dev + '-'):
                    irqs[parts[-1]] = sum(int(x) for x in parts[1:]
                                          if x.isdigit())
        e1 = ethtool_stats(a.dev)
        link1 = link_stats(a.dev)
        moving = [k for k in e0 if re.match(r'^(rx|tx)\d+_(packets|bytes)$', k)
                  and e0[k] != e1.get(k)]
        if not moving and link == link1:
            break
        log('counters moved while reading (%s); again' % moving)
        time.sleep(1)
    else:
        emit({'error': 'the link never went quiet'}, ok=False)
    emit({'ethtool': e1, 'link': link, 'qdev': qdev[0] if qdev else None,
          'qqueues': qq, 'irqs': irqs})


def totals_agree(name, snap, errs):
    """ip -s link, the ethtool -S per-queue sums and qstats (device scope
    and the per-queue sum) all give the same packet and byte totals, and
    each queue's ethtool -S counters are its qstats."""
    e, link, qdev, qq = snap['ethtool'], snap['link'], snap['qdev'], snap['qqueues']
    if qdev is None:
        errs.append('%s: no device qstats' % name)
        return
    for d in ('rx', 'tx'):
        for f in ('packets', 'bytes'):
            src = {
                'ip -s link': link['%s_%s' % (d, f)],
                'ethtool -S': sum(per_queue(e, d, f).values()),
                'qstats device': qdev.get('%s-%s' % (d, f)),
                'qstats queues': sum(q.get('%s-%s' % (d, f), 0) for q in qq
                                     if q.get('queue-type') == d),
            }
            if len(set(src.values())) != 1:
                errs.append('%s %s_%s disagree: %s' % (name, d, f, src))
            for qid, v in per_queue(e, d, f).items():
                qs = [q for q in qq if q.get('queue-type') == d and
                      q.get('queue-id') == qid]
                if not qs or qs[0].get('%s-%s' % (d, f)) != v:
                    errs.append('%s queue %s%d %s: ethtool %d, qstats %s' % (
                        name, d, qid, f, v, qs[0].get('%s-%s' % (d, f)) if qs else None))


def cmd_reconcile(a):
    """Counter consistency over a run: snapshots (stats-all) of port A and B
    before (0), after bulk TCP (1) and after mixed traffic (2). Errors come
    by kind: totals (the four sources disagree), wire (one port's TX is not
    the other's RX), hot (hot-path register reads), irq (interrupts per
    packet under bulk load not below 1)."""
    A = [load(x) for x in a.a]
    B = [load(x) for x in a.b]
    errs = {'totals': [], 'wire': [], 'hot': [], 'irq': []}
    info = {}
    for name, port in (('A', A), ('B', B)):
        for i, snap in enumerate(port):
            totals_agree('%s[%d]' % (name, i), snap, errs['totals'])
    # What one port sent the other received: it is one wire.
    # Every frame one port sent, the other received or counted as dropped
    # (ip -s link rx_dropped, rx_missed_errors, rx_errors); bytes match
    # exactly when nothing was dropped.
    def d(port, k):
        return port[2]['link'][k] - port[0]['link'][k]
    for tx_name, tx, rx_name, rx in (('A', A, 'B', B), ('B', B, 'A', A)):
        sent, got = d(tx, 'tx_packets'), d(rx, 'rx_packets')
        dropped = sum(d(rx, k) for k in ('rx_dropped', 'rx_missed_errors',
                                         'rx_errors'))
        sent_b, got_b = d(tx, 'tx_bytes'), d(rx, 'rx_bytes')
        info['%s->%s' % (tx_name, rx_name)] = {
            'sent': sent, 'received': got, 'dropped': dropped,
            'bytes sent': sent_b, 'bytes received': got_b}
        if sent != got + dropped:
            errs['wire'].append('%s sent %d packets, %s received %d and dropped %d'
                                % (tx_name, sent, rx_name, got, dropped))
        if (dropped == 0 and sent_b != got_b) or got_b > sent_b:
            errs['wire'].append('%s sent %d bytes, %s received %d (%d dropped)'
                                % (tx_name, sent_b, rx_name, got_b, dropped))
    for name, port in (('A', A), ('B', B)):
        hot = [s['ethtool'].get('mmio_reads_hot') for s in port]
        info['%s mmio_reads_hot' % name] = hot
        info['%s mmio_reads_slow' % name] = [
            s['ethtool'].get('mmio_reads_slow') for s in port]
        if None in hot or hot[2] != hot[0]:
            errs['hot'].append('%s: mmio_reads_hot %s moved with traffic'
                               % (name, hot))
        pk = sum(port[1]['link'][k] - port[0]['link'][k]
                 for k in ('rx_packets', 'tx_packets'))
        drv = sum(v - port[0]['ethtool'].get(k, 0)
                  for k, v in port[1]['ethtool'].items()
                  if re.match(r'^q\d+_irqs$', k))
        kern = sum(v - port[0]['irqs'].get(k, 0)
                   for k, v in port[1]['irqs'].items()
                   if re.match(r'.*-q\d+$', k))
        info['%s bulk' % name] = {
            'packets': pk, 'irqs (ethtool)': drv, 'irqs (/proc/interrupts)': kern,
            'irqs/packet': round(kern / pk, 3) if pk else None}
        if not pk or drv >= pk or kern >= pk or kern == 0:
            errs['irq'].append('%s: %d interrupts (driver counted %d) for %d packets'
                               % (name, kern, drv, pk))
    for k, v in info.items():
        log('%s: %s' % (k, v))
    for kind, lst in errs.items():
        for e in lst:
            log('%s: %s' % (kind, e))
    emit({'errors': errs, 'info': info,
          'hot_values': [s['ethtool'].get('mmio_reads_hot') for s in A + B]},
         ok=not any(errs.values()))


def cmd_napi_check(a):
    """Every RX and TX queue of IFINDEX (QUEUES of each) is bound to a NAPI
    instance that has an IRQ; every NAPI instance has a distinct IRQ whose
    /proc/interrupts name is DEV-q<N>; with --threaded every instance has a
    kthread pid (and without it none)."""
    ynl = ynl_family(a.repo)
    queues = [q for q in ynl.dump('queue-get', {})
              if q.get('ifindex') == a.ifindex]
    napis = {n['id']: n for n in ynl.dump('napi-get', {'ifindex': a.ifindex})}
    errs = []
    irq_names = {}
    with open('/proc/interrupts') as f:
        for line in f:
            parts = line.split()
            if parts and parts[0].rstrip(':').isdigit():
                irq_names[int(parts[0].rstrip(':'))] = parts[-1]
    for kind in ('rx', 'tx'):
        ids = sorted(q['id'] for q in queues if q['type'] == kind)
        if ids != list(range(a.queues)):
            errs.append('%s queues %s, want 0..%d' % (kind, ids, a.queues - 1))
    for q in queues:
        nid = q.get('napi-id')
        if nid is None:
            errs.append('%s queue %d has no napi-id' % (q['type'], q['id']))
            continue
        n = napis.get(nid)
        if n is None:
            errs.append('%s queue %d: napi %d not in napi-get' %
                        (q['type'], q['id'], nid))
            continue
        irq = n.get('irq')
        if irq is None:
            errs.append('napi %d has no irq' % nid)
        elif irq_names.get(irq) != '%s-q%d' % (a.dev, q['id']):
            errs.append('%s queue %d: napi %d irq %d is named %r, want %s-q%d' % (
                q['type'], q['id'], nid, irq, irq_names.get(irq), a.dev, q['id']))
        # Once threaded, an instance keeps its kthread (parked) when
        # threading is turned off again: only 1 demands a pid, and only
        # 0 before threading was ever on (--threaded 0) forbids one.
        if a.threaded is not None and ('pid' in n) != a.threaded:
            errs.append('napi %d: pid %s with threaded=%s' %
                        (nid, n.get('pid'), a.threaded))
        if a.threaded and 'pid' in n:
            try:
                with open('/proc/%d/comm' % n['pid']) as f:
                    comm = f.read().strip()
            except OSError:
                comm = None
            # /proc shows a kthread's full name (older kernels cut it to
            # TASK_COMM_LEN - 1 characters).
            want = 'napi/%s-%d' % (a.dev, nid)
            if comm not in (want, want[:15]):
                errs.append('napi %d: pid %d is %r, not its kthread' %
                            (nid, n['pid'], comm))
    # One NAPI per queue pair: RX q and TX q share it, pairs do not.
    by_q = {}
    for q in queues:
        by_q.setdefault(q['id'], set()).add(q.get('napi-id'))
    for qid, ids in by_q.items():
        if len(ids) != 1:
            errs.append('queue pair %d: RX and TX on different NAPIs %s' %
                        (qid, ids))
    nids = [next(iter(ids)) for ids in by_q.values() if len(ids) == 1]
    if len(set(nids)) != len(nids):
        errs.append('queue pairs share a NAPI: %s' % nids)
    irqs = [napis[i].get('irq') for i in set(nids) if i in napis]
    if len(set(irqs)) != len(irqs):
        errs.append('NAPIs share an IRQ: %s' % irqs)
    for e in errs:
        log(e)
    emit({'queues': queues, 'napis': list(napis.values()), 'errors': errs},
         ok=not errs)


def add_frame_addrs(c):
    """The options of a crafted frame's sender: where it leaves, its
    Ethernet and IPv4 addresses and TCP ports."""
    c.add_argument('--dev', required=True)
    c.add_argument('--src-mac', required=True)
    c.add_argument('--dst-mac', required=True)
    c.add_argument('--src', required=True)
    c.add_argument('--dst', required=True)
    c.add_argument('--sport', type=int, default=40000)
    c.add_argument('--dport', type=int, default=5301)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest='cmd', required=True)
    repo = os.environ.get('REFNIC_REPO') or os.path.abspath(
        os.path.join(os.path.dirname(__file__), '../..'))

    c = sub.add_parser('sha')
    c.add_argument('--bytes', type=int, required=True)
    c.add_argument('--seed', type=int, default=1)
    c.set_defaults(fn=cmd_sha)

    c = sub.add_parser('send')
    c.add_argument('addr')
    c.add_argument('port', type=int)
    c.add_argument('--bytes', type=int, required=True)
    c.add_argument('--seed', type=int, default=1)
    c.add_argument('--pace-secs', type=float, default=0)
    c.add_argument('--timeout', type=float, default=120)
    c.add_argument('--connect-timeout', type=float, default=30)
    c.add_argument('--sendfile', action='store_true')
    c.add_argument('--hold-file')
    c.set_defaults(fn=cmd_send)

    c = sub.add_parser('recv')
    c.add_argument('bind')
    c.add_argument('port', type=int)
    c.add_argument('--bytes', type=int)
    c.add_argument('--seed', type=int, default=1)
    c.add_argument('--ready', required=True)
    c.add_argument('--timeout', type=float, default=120)
    c.add_argument('--busy-poll', type=int, default=0)
    c.set_defaults(fn=cmd_recv)

    c = sub.add_parser('udp-flows')
    c.add_argument('--src', required=True)
    c.add_argument('--dst', required=True)
    c.add_argument('--sport', type=int, default=40000)
    c.add_argument('--dport', type=int, default=9)
    c.add_argument('--flows', type=int, default=64)
    c.add_argument('--count', type=int, default=8)
    c.add_argument('--size', type=int, default=64)
    c.add_argument('--gap', type=float, default=0.02)
    c.add_argument('--vary', action='store_true')
    c.add_argument('--swap', action='store_true',
                   help='SRC:DPORT -> DST:SPORT+i instead')
    c.set_defaults(fn=cmd_udp_flows)

    c = sub.add_parser('udp-blast')
    c.add_argument('--dst', required=True)
    c.add_argument('--dport', type=int, default=9)
    c.add_argument('--sport', type=int, default=0)
    c.add_argument('--count', type=int, default=1000)
    c.add_argument('--size', type=int, default=1000)
    c.add_argument('--burst', type=int, default=32)
    c.add_argument('--gap', type=float, default=0.005)
    c.add_argument('--hopopts', type=int, default=0)
    c.add_argument('--pattern', action='store_true')
    c.set_defaults(fn=cmd_udp_blast)

    c = sub.add_parser('tcp4-run')
    add_frame_addrs(c)
    c.add_argument('--segs', type=int, default=8)
    c.add_argument('--mss', type=int, default=1000)
    c.add_argument('--ipid', choices=('fixed', 'inc'), required=True)
    c.add_argument('--id', type=lambda v: int(v, 0), default=0x1234)
    c.set_defaults(fn=cmd_tcp4_run)

    c = sub.add_parser('tcp4-capture')
    c.add_argument('--dev', required=True)
    c.add_argument('--dport', type=int, default=5301)
    c.add_argument('--count', type=int, required=True)
    c.add_argument('--ready', required=True)
    c.add_argument('--timeout', type=float, default=30)
    c.set_defaults(fn=cmd_tcp4_capture)

    c = sub.add_parser('tso-burst')
    add_frame_addrs(c)
    c.add_argument('--frames', type=int, default=4)
    c.add_argument('--segs', type=int, default=8)
    c.add_argument('--mss', type=int, default=1448)
    c.add_argument('--last-short', type=int, default=0)
    c.add_argument('--push', choices=('all', 'odd'), default='all')
    c.add_argument('--tcp-options', action='store_true')
    c.set_defaults(fn=cmd_tso_burst)

    c = sub.add_parser('tcp4-frames')
    c.add_argument('--dev', required=True)
    c.add_argument('--dport', type=int, default=5301)
    c.add_argument('--bytes', type=int, required=True)
    c.add_argument('--mss', type=int, default=1448)
    c.add_argument('--ready', required=True)
    c.add_argument('--timeout', type=float, default=30)
    c.set_defaults(fn=cmd_tcp4_frames)

    c = sub.add_parser('udp-sink')
    c.add_argument('bind')
    c.add_argument('port', type=int)
    c.add_argument('--count', type=int)
    c.add_argument('--idle', type=float, default=10)
    c.add_argument('--ready', required=True)
    c.add_argument('--busy-poll', type=int, default=0)
    c.add_argument('--pattern', action='store_true')
    c.set_defaults(fn=cmd_udp_sink)

    c = sub.add_parser('rr-server')
    c.add_argument('bind')
    c.add_argument('port', type=int)
    c.add_argument('--size', type=int, default=64)
    c.add_argument('--ready', required=True)
    c.add_argument('--timeout', type=float, default=60)
    c.add_argument('--busy-poll', type=int, default=0)
    c.set_defaults(fn=cmd_rr_server)

    c = sub.add_parser('rr-client')
    c.add_argument('addr')
    c.add_argument('port', type=int)
    c.add_argument('--size', type=int, default=64)
    c.add_argument('--rounds', type=int, default=200)
    c.add_argument('--timeout', type=float, default=60)
    c.add_argument('--busy-poll', type=int, default=0)
    c.set_defaults(fn=cmd_rr_client)

    c = sub.add_parser('hold')
    c.add_argument('bind')
    c.add_argument('port', type=int)
    c.add_argument('--bytes', type=int, required=True)
    c.add_argument('--seed', type=int, default=1)
    c.add_argument('--ready', required=True)
    c.add_argument('--status', required=True)
    c.add_argument('--go', required=True)
    c.add_argument('--timeout', type=float, default=120)
    c.set_defaults(fn=cmd_hold)

    c = sub.add_parser('feed')
    c.add_argument('addr')
    c.add_argument('port', type=int)
    c.add_argument('--bytes', type=int, required=True)
    c.add_argument('--seed', type=int, default=1)
    c.add_argument('--count', type=int, default=16)
    c.add_argument('--size', type=int, default=1200)
    c.add_argument('--timeout', type=float, default=60)
    c.set_defaults(fn=cmd_feed)

    c = sub.add_parser('stats')
    c.add_argument('dev')
    c.set_defaults(fn=cmd_stats)

    c = sub.add_parser('diff')
    c.add_argument('before')
    c.add_argument('after')
    c.add_argument('--zero', action='append')
    c.add_argument('--max', nargs=2, action='append')
    c.set_defaults(fn=cmd_diff)

    c = sub.add_parser('toeplitz-selftest')
    c.set_defaults(fn=cmd_toeplitz_selftest)

    c = sub.add_parser('rxfh')
    c.add_argument('dev')
    c.set_defaults(fn=cmd_rxfh)

    c = sub.add_parser('rss-check')
    c.add_argument('dev')
    c.add_argument('--before', required=True)
    c.add_argument('--flows', required=True)
    c.add_argument('--noise', type=int, default=8)
    c.add_argument('--key', help='the key ethtool -x must show (hex)')
    c.add_argument('--table-size', type=int)
    c.add_argument('--weights', help='q0,q1,...: the table must spread so')
    c.add_argument('--all-to', type=int,
                   help='RSS off: every flow lands on this queue')
    c.add_argument('--fields', default='sdfn',
                   type=lambda f: '' if f == 'none' else f,
                   help='hashed fields, in ethtool rx-flow-hash letters '
                   '(none: no field)')
    c.add_argument('--sym', action='store_true',
                   help='input-xfrm symmetric-xor')
    c.add_argument('--min-queues', type=int,
                   help='the flows must hash to at least this many queues')
    c.add_argument('--max-queues', type=int,
                   help='the flows must hash to at most this many queues')
    c.add_argument('--wait', type=float, default=10,
                   help='seconds to wait for the predicted packets')
    c.set_defaults(fn=cmd_rss_check)

    c = sub.add_parser('rxfh-fields')
    c.add_argument('dev')
    c.add_argument('ft', choices=sorted(FLOW_TYPES))
    c.add_argument('--set', help='rx-flow-hash letters (sdfn...)')
    c.set_defaults(fn=cmd_rxfh_fields)

    c = sub.add_parser('rxfh-xfrm')
    c.add_argument('dev')
    c.add_argument('--set', choices=sorted(RXH_XFRM))
    c.set_defaults(fn=cmd_rxfh_xfrm)

    c = sub.add_parser('ynl')
    c.add_argument('op')
    c.add_argument('--json')
    c.add_argument('--family', default='netdev')
    c.add_argument('--do', action='store_true')
    c.set_defaults(fn=cmd_ynl, repo=repo)

    c = sub.add_parser('pp-wait')
    c.add_argument('--ifindex', type=int, required=True)
    c.add_argument('--queues', type=int)
    c.add_argument('--timeout', type=float, default=10)
    c.set_defaults(fn=cmd_pp_wait, repo=repo)

    c = sub.add_parser('stats-all')
    c.add_argument('dev')
    c.set_defaults(fn=cmd_stats_all, repo=repo)

    c = sub.add_parser('reconcile')
    c.add_argument('--a', nargs=3, required=True)
    c.add_argument('--b', nargs=3, required=True)
    c.set_defaults(fn=cmd_reconcile)

    c = sub.add_parser('napi-check')
    c.add_argument('dev')
    c.add_argument('--ifindex', type=int, required=True)
    c.add_argument('--queues', type=int, required=True)
    c.add_argument('--threaded', type=lambda s: s == '1')
    c.set_defaults(fn=cmd_napi_check, repo=repo)

    a = p.parse_args()
    a.fn(a)


if __name__ == '__main__':
    main()
