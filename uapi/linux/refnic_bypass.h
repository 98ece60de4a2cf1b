/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* Copyright (c) 2026 The refnic authors
 *
 * Kernel-bypass queues: the ABI of /dev/refnic.
 *
 * A process opens /dev/refnic and binds one queue pair (RX queue N and TX
 * queue N) of a refnic port to the file descriptor with
 * REFNIC_BYPASS_IOC_BIND. From then on the queue pair belongs to the
 * process: the device writes received frames (raw, from the Ethernet
 * header) into buffers of the process's own memory (the "umem"), and
 * sends frames the process wrote there. Closing the descriptor (or the
 * process dying) gives the queue pair back to the kernel stack and unpins
 * the memory.
 *
 * The umem is a range of the process's memory, page aligned, cut into
 * buffers of buf_size bytes (2048 or 4096). Buffers are named by their
 * byte offset in the umem. The kernel pins the range and maps it for the
 * device while bound; unmapping it from the process does not unpin it.
 *
 * Four single-producer single-consumer rings are mmap()ed from the
 * descriptor at fixed offsets (REFNIC_BYPASS_OFF_*):
 *
 *   fill  process -> kernel  __u64 buffer offsets to receive into
 *   rxc   kernel -> process  struct refnic_bypass_rx_desc, one per buffer
 *                            the device wrote
 *   tx    process -> kernel  struct refnic_bypass_tx_desc, frames to send
 *   txc   kernel -> process  __u64 buffer offsets the device has sent from
 *                            (the tx descriptor's addr, as given)
 *
 * Each ring mapping starts with struct refnic_bypass_ring_hdr: the
 * producer and consumer indices on separate cache lines, then flags. The
 * entries follow at REFNIC_BYPASS_RING_DESC_OFF. Indices are free-running
 * __u32 counts; the slot is the index modulo the ring size (a power of
 * two). A producer writes its entries, then publishes them with a store-
 * release of its index; a consumer reads the producer index with a load-
 * acquire, reads the entries, then releases them with a store-release of
 * its own index.
 *
 * With header split (REFNIC_BYPASS_F_HDR_SPLIT) the device writes the
 * headers of TCP and UDP frames (up to the L4 payload) into a header slot
 * instead of the buffer: slot (rxc index % rxc ring size) of the read-only
 * header area mapped at REFNIC_BYPASS_OFF_HDR, REFNIC_BYPASS_HDR_SLOT bytes
 * each. A slot stays valid until the process releases its rxc entry.
 *
 * Wakeups: the kernel processes the fill and tx rings from the queue's NAPI
 * poll. While the ring header's REFNIC_BYPASS_RING_NEED_WAKEUP flag is
 * clear, NAPI is running and will see new entries by itself; while it is
 * set, tell the kernel with REFNIC_BYPASS_IOC_KICK (or write(2) of any
 * length) after producing fill or tx entries, and after releasing rxc or
 * txc entries while fill or tx entries are still unconsumed: the kernel
 * takes a fill (tx) entry only while the rxc (txc) ring has room for its
 * completion. poll(2) and epoll wait for rxc or txc entries (EPOLLIN) and
 * report a session the kernel tore down (EPOLLERR) and one it has unbound
 * for good (EPOLLHUP: it uses neither the rings nor the queue pair any
 * more, which is the stack's again unless the port went down or failed).
 * After a break EPOLLERR comes first and stays; to sleep until the
 * EPOLLHUP that follows, use epoll with EPOLLET.
 *
 * Validation: the kernel trusts nothing in the rings. An entry with an
 * offset outside the umem, not aligned to buf_size (fill), a length that
 * does not fit its buffer (tx), or a buffer the kernel already owns (given
 * twice) is skipped and counted (struct refnic_bypass_stats). A producer
 * index more than the ring size ahead of the consumer index is a broken
 * session: the kernel stops using the rings, sets REFNIC_BYPASS_RING_BROKEN
 * in every ring header, gives the queue pair back to the stack, and poll(2)
 * returns EPOLLERR (and EPOLLHUP once the queue pair is the stack's) and
 * the kick EPIPE; only close(2) is left.
 *
 * While bound, RSS never selects the queue: flows reach it through ntuple
 * rules (ethtool -N ... action N), or every frame the port receives does
 * with REFNIC_BYPASS_F_WHOLE_PORT. The stack's own transmit avoids the
 * queue. Requires CAP_NET_ADMIN in the port's network namespace.
 */

#ifndef _UAPI_LINUX_REFNIC_BYPASS_H
#define _UAPI_LINUX_REFNIC_BYPASS_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define REFNIC_BYPASS_DEV		"/dev/refnic"
#define REFNIC_BYPASS_ABI_VERSION	1

/* mmap() offsets of the rings and the header area. */
#define REFNIC_BYPASS_OFF_FILL		0x00000000ULL
#define REFNIC_BYPASS_OFF_RXC		0x10000000ULL
#define REFNIC_BYPASS_OFF_TX		0x20000000ULL
#define REFNIC_BYPASS_OFF_TXC		0x30000000ULL
#define REFNIC_BYPASS_OFF_HDR		0x40000000ULL

#define REFNIC_BYPASS_HDR_SLOT		256
#define REFNIC_BYPASS_RING_DESC_OFF	256
#define REFNIC_BYPASS_RING_MIN		64
#define REFNIC_BYPASS_RING_MAX		4096

/* The first REFNIC_BYPASS_RING_DESC_OFF bytes of every ring mapping. */
struct refnic_bypass_ring_hdr {
	__u32 producer;
	__u32 pad0[15];
	__u32 consumer;
	__u32 pad1[15];
	__u32 flags;			/* REFNIC_BYPASS_RING_*, kernel-written */
	__u32 pad2[15];
};

#define REFNIC_BYPASS_RING_NEED_WAKEUP	(1U << 0)
#define REFNIC_BYPASS_RING_BROKEN	(1U << 1)

/* An rxc entry: one buffer the device wrote. */
struct refnic_bypass_rx_desc {
	__u64 addr;		/* umem offset of the buffer */
	__u32 len;		/* bytes in the buffer */
	__u16 hdr_len;		/* bytes in the header slot (split frames) */
	__u16 flags;		/* REFNIC_BYPASS_RX_* */
	__u32 rss_hash;
	__u32 reserved;
};

#define REFNIC_BYPASS_RX_MORE		(1U << 0)	/* frame continues in
							 * the next entry
							 */
#define REFNIC_BYPASS_RX_SPLIT		(1U << 1)	/* headers in the slot */
#define REFNIC_BYPASS_RX_CSUM_OK	(1U << 2)	/* L4 checksum good */
#define REFNIC_BYPASS_RX_CSUM_BAD	(1U << 3)
#define REFNIC_BYPASS_RX_RSS_VALID	(1U << 4)
#define REFNIC_BYPASS_RX_ERROR		(1U << 5)	/* truncated or bad:
							 * drop the frame
							 */

/* A tx entry: one frame in one buffer. */
struct refnic_bypass_tx_desc {
	__u64 addr;		/* umem offset of the frame's first byte */
	__u32 len;		/* 14 bytes up to the port's MTU + 18 */
	__u32 flags;		/* none defined yet: must be 0 */
};

/* REFNIC_BYPASS_IOC_BIND */
struct refnic_bypass_bind {
	__u32 abi_version;	/* in: REFNIC_BYPASS_ABI_VERSION */
	__u32 ifindex;		/* in: refnic port, in the caller's netns */
	__u32 queue;		/* in: queue pair index */
	__u32 flags;		/* in: REFNIC_BYPASS_F_* */
	__u64 umem_addr;	/* in: page aligned */
	__u64 umem_len;		/* in: page multiple, at most 1 GiB */
	__u32 buf_size;		/* in: 2048 or 4096 */
	__u32 fill_size;	/* in: ring entries, powers of two, */
	__u32 rxc_size;		/*     REFNIC_BYPASS_RING_MIN to _MAX */
	__u32 tx_size;
	__u32 txc_size;
	__u32 reserved;		/* must be 0 */
};

#define REFNIC_BYPASS_F_HDR_SPLIT	(1U << 0)
#define REFNIC_BYPASS_F_WHOLE_PORT	(1U << 1)	/* RSS sends every
							 * frame here
							 */

/* REFNIC_BYPASS_IOC_STATS: counters of the session, kernel-written. */
struct refnic_bypass_stats {
	__u64 rx_frames;	/* frames written to rxc */
	__u64 rx_bytes;
	__u64 rx_errors;	/* entries with REFNIC_BYPASS_RX_ERROR */
	__u64 tx_frames;	/* frames the device sent */
	__u64 tx_bytes;
	__u64 fill_batches;	/* fill ring acquisitions with entries */
	__u64 fill_bufs;	/* buffers taken from the fill ring */
	__u64 rx_doorbells;	/* RX tail writes (one per refill batch) */
	__u64 tx_doorbells;
	__u64 polls;		/* NAPI polls of the session */
	__u64 irqs;		/* interrupts of the queue's vector */
	__u64 kicks;		/* REFNIC_BYPASS_IOC_KICK and write(2) */
	__u64 wakeups_avoided;	/* ring entries NAPI found without a kick */
	__u64 bad_addr;		/* offset outside the umem */
	__u64 bad_align;	/* fill offset not a buffer start */
	__u64 bad_len;		/* tx length out of range or past buffer */
	__u64 bad_flags;	/* tx flags not 0 */
	__u64 dup_buf;		/* buffer already owned by the kernel */
	__u64 bad_index;	/* producer index jumped: session broken */
};

#define REFNIC_BYPASS_IOC_MAGIC		0xbf
#define REFNIC_BYPASS_IOC_BIND		_IOW(REFNIC_BYPASS_IOC_MAGIC, 1, \
					     struct refnic_bypass_bind)
#define REFNIC_BYPASS_IOC_KICK		_IO(REFNIC_BYPASS_IOC_MAGIC, 2)
#define REFNIC_BYPASS_IOC_STATS		_IOR(REFNIC_BYPASS_IOC_MAGIC, 3, \
					     struct refnic_bypass_stats)

#endif /* _UAPI_LINUX_REFNIC_BYPASS_H */
