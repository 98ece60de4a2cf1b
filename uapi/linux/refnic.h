/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/refnic.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_REFNIC_H
#define _UAPI_LINUX_REFNIC_H

#define REFNIC_FAMILY_NAME	"refnic"
#define REFNIC_FAMILY_VERSION	1

#define REFNIC_QUEUES_MAX	16
#define REFNIC_RING_MIN		64
#define REFNIC_RING_MAX		4096
#define REFNIC_LATENCY_MAX	10000000
#define REFNIC_PPM_MAX		1000000
#define REFNIC_BUS_NS_MAX	100000

/**
 * enum refnic_queue_type - Which queue of a queue pair counters belong to.
 */
enum refnic_queue_type {
	REFNIC_QUEUE_TYPE_RX,
	REFNIC_QUEUE_TYPE_TX,
};

/**
 * enum refnic_fault - Faults the device model can inject.
 * @REFNIC_FAULT_DROP_COMPLETION: The RX engine consumes posted buffers and
 *   DMAs the frame into them, but writes no completion and raises no
 *   interrupt: the frame is lost. Completions name the ring index of their
 *   frame's first buffer, so the driver sees the gap at the next completion,
 *   gives the skipped buffers back to its page pool and counts rxN_cmpl_lost
 *   (ethtool -S); the queue is not reset. Events: frames about to be completed
 *   on the port's RX queue.
 * @REFNIC_FAULT_CORRUPT_DMA_ADDR: The TX engine reads a frame from a DMA
 *   address with a high bit (55) flipped, which no RAM answers, as a corrupted
 *   descriptor would: the access faults, the queue halts (STATUS.ERROR) and
 *   the misc vector reports an error; the driver restarts the queue pair
 *   (queue_resets) and the frames on the ring are freed. Events: frames the
 *   port's TX queue is about to read.
 * @REFNIC_FAULT_STALL_TXQ: The TX engine stops consuming the queue's
 *   descriptors (doorbells are taken, nothing completes) until the driver
 *   resets the queue, as debugfs fault_tx_hang does: the netdev watchdog's TX
 *   timeout (tx_timeouts, queue_resets). Events: engine runs on the port's TX
 *   queue while it is not hung.
 * @REFNIC_FAULT_FAIL_ALLOC: The driver's RX buffer allocation (page_pool)
 *   fails as if memory ran out: the NAPI refill posts fewer buffers and counts
 *   rxN_alloc_fail once per refill that came up short. Queue bring-up is not
 *   affected. Events: buffer allocations of the refill of the port's RX queue.
 * @REFNIC_FAULT_WEDGE_TXQ: The TX engine wedges inside the queue holding the
 *   DONE write-back of a frame it read: neither a queue disable nor a port
 *   reset gets it out, so the queue never reports STOPPED and the port never
 *   RESET_DONE. The driver's TX timeout recovery cannot stop the queue or
 *   reset the port: it marks the port failed (carrier off, quiesce_failures in
 *   ethtool -S, ip link set up refused) and keeps the memory the device may
 *   still write until the port is deleted. The wedge ends when the fault is
 *   cleared on the queue or the pair is deleted: the held write then lands
 *   where it was aimed, into memory the driver kept (the model's debugfs
 *   counts txq<Q>.late_writes). Events: the first DONE write-back of each
 *   engine run on the port's TX queue.
 * @REFNIC_FAULT_GRO_BAD_LEN: Hardware GRO lies about a coalesced run: every IP
 *   header it writes for the run (both headers of IP-in-IP) says one segment
 *   (gso_size bytes) less than the run has, with IPv4 header checksums to
 *   match; the payload and the completion's lengths and segment count are
 *   true. The driver checks the IP lengths against the frame, drops the run
 *   (kfree_skb reason DEV_HDR), counts it in rxN_drops (ethtool -S) and logs
 *   it; TCP retransmits what was in it. Events: runs of two or more segments
 *   the port's RX queue is about to write, with rx-gro-hw on.
 * @REFNIC_FAULT_STALL_RXQ: The RX engine stops serving the queue: from the
 *   frame the fault strikes on, every frame steered to the queue arrives (the
 *   device counts it in CNT_RX_FRAMES) and is lost without a trace, while the
 *   posted buffers stay posted: no descriptor read, no completion, no
 *   interrupt, no nobuf or cq_full count. The stall lasts until the driver
 *   disables the queue or resets the port; clearing the fault does not end it.
 *   The driver's service task sees frames arriving and no completion for three
 *   of its one-second samples, counts rx_stalls (ethtool -S), logs it and
 *   restarts the queue pair (queue_resets); a queue pair held by a bypass
 *   session ends the session instead. The model's debugfs counts rxq<Q>.stalls
 *   and stall_drops. Events: frames arriving at the port's RX queue while it
 *   is not stalled.
 * @REFNIC_FAULT_LOSE_IRQ: An interrupt of the queue pair's vector is lost on
 *   its way: the vector masks itself as when it fires (MSI-X auto-mask), but
 *   no message reaches the CPU, so NAPI is not scheduled, the completions wait
 *   in their rings and later events are held until the driver unmasks the
 *   vector. The driver's service task finds RX completions waiting and NAPI
 *   idle at two samples a second apart, schedules NAPI and counts lost_irqs
 *   (ethtool -S); nothing is lost. The model's debugfs counts vec<Q>.lost.
 *   Events: batches of completions (RX or TX) signalled to the vector of queue
 *   pair Q; the vector's next interrupt after a strike is lost.
 */
enum refnic_fault {
	REFNIC_FAULT_DROP_COMPLETION,
	REFNIC_FAULT_CORRUPT_DMA_ADDR,
	REFNIC_FAULT_STALL_TXQ,
	REFNIC_FAULT_FAIL_ALLOC,
	REFNIC_FAULT_WEDGE_TXQ,
	REFNIC_FAULT_GRO_BAD_LEN,
	REFNIC_FAULT_STALL_RXQ,
	REFNIC_FAULT_LOSE_IRQ,
};

enum {
	REFNIC_A_LINK_CARRIER = 1,
	REFNIC_A_LINK_RATE,
	REFNIC_A_LINK_LATENCY,
	REFNIC_A_LINK_LOSS,
	REFNIC_A_LINK_PAD,

	__REFNIC_A_LINK_MAX,
	REFNIC_A_LINK_MAX = (__REFNIC_A_LINK_MAX - 1)
};

enum {
	REFNIC_A_BUS_READ_NS = 1,
	REFNIC_A_BUS_GEN,
	REFNIC_A_BUS_LANES,
	REFNIC_A_BUS_NODE,
	REFNIC_A_BUS_REMOTE_NS,
	REFNIC_A_BUS_READS,
	REFNIC_A_BUS_REMOTE_READS,
	REFNIC_A_BUS_READ_CHARGED_NS,
	REFNIC_A_BUS_WRITES,
	REFNIC_A_BUS_DMA_TLPS,
	REFNIC_A_BUS_DMA_BYTES,
	REFNIC_A_BUS_DMA_REMOTE_TLPS,
	REFNIC_A_BUS_DMA_CHARGED_NS,
	REFNIC_A_BUS_DMA_THROTTLED,
	REFNIC_A_BUS_READ_WAITED_NS,
	REFNIC_A_BUS_PAD,

	__REFNIC_A_BUS_MAX,
	REFNIC_A_BUS_MAX = (__REFNIC_A_BUS_MAX - 1)
};

enum {
	REFNIC_A_DEV_IFINDEX = 1,
	REFNIC_A_DEV_IFNAME,
	REFNIC_A_DEV_PEER_IFINDEX,
	REFNIC_A_DEV_PEER_IFNAME,
	REFNIC_A_DEV_NETNS_FD,
	REFNIC_A_DEV_PEER_NETNS_FD,
	REFNIC_A_DEV_PEER_NETNSID,
	REFNIC_A_DEV_QUEUES,
	REFNIC_A_DEV_RX_RING_SIZE,
	REFNIC_A_DEV_TX_RING_SIZE,
	REFNIC_A_DEV_CARD,
	REFNIC_A_DEV_PORT,
	REFNIC_A_DEV_LINK,
	REFNIC_A_DEV_BUS,

	__REFNIC_A_DEV_MAX,
	REFNIC_A_DEV_MAX = (__REFNIC_A_DEV_MAX - 1)
};

enum {
	REFNIC_A_QUEUE_STATS_TYPE = 1,
	REFNIC_A_QUEUE_STATS_ID,
	REFNIC_A_QUEUE_STATS_MMIO_READS,
	REFNIC_A_QUEUE_STATS_MMIO_WRITES,
	REFNIC_A_QUEUE_STATS_DOORBELLS,
	REFNIC_A_QUEUE_STATS_CQ_DOORBELLS,
	REFNIC_A_QUEUE_STATS_DESC_FETCHED,
	REFNIC_A_QUEUE_STATS_DESC_WRITTEN,
	REFNIC_A_QUEUE_STATS_FRAMES,
	REFNIC_A_QUEUE_STATS_DMA_READ_BYTES,
	REFNIC_A_QUEUE_STATS_DMA_WRITE_BYTES,
	REFNIC_A_QUEUE_STATS_DROP_NOBUF,
	REFNIC_A_QUEUE_STATS_DROP_CQ_FULL,
	REFNIC_A_QUEUE_STATS_BUSY_NS,
	REFNIC_A_QUEUE_STATS_IRQ_RAISED,
	REFNIC_A_QUEUE_STATS_IRQ_MASKED,
	REFNIC_A_QUEUE_STATS_IRQ_MODERATED,
	REFNIC_A_QUEUE_STATS_PAD,

	__REFNIC_A_QUEUE_STATS_MAX,
	REFNIC_A_QUEUE_STATS_MAX = (__REFNIC_A_QUEUE_STATS_MAX - 1)
};

enum {
	REFNIC_A_STATS_IFINDEX = 1,
	REFNIC_A_STATS_MMIO_READS,
	REFNIC_A_STATS_MMIO_WRITES,
	REFNIC_A_STATS_MMIO_BAD,
	REFNIC_A_STATS_RESETS,
	REFNIC_A_STATS_LINK_DROP_LOSS,
	REFNIC_A_STATS_LINK_DROP_DOWN,
	REFNIC_A_STATS_QUEUE,
	REFNIC_A_STATS_PAD,

	__REFNIC_A_STATS_MAX,
	REFNIC_A_STATS_MAX = (__REFNIC_A_STATS_MAX - 1)
};

enum {
	REFNIC_A_FAULT_IFINDEX = 1,
	REFNIC_A_FAULT_TYPE,
	REFNIC_A_FAULT_QUEUE,
	REFNIC_A_FAULT_RATE,
	REFNIC_A_FAULT_COUNT,
	REFNIC_A_FAULT_INJECTED,
	REFNIC_A_FAULT_PAD,

	__REFNIC_A_FAULT_MAX,
	REFNIC_A_FAULT_MAX = (__REFNIC_A_FAULT_MAX - 1)
};

enum {
	REFNIC_CMD_DEV_GET = 1,
	REFNIC_CMD_DEV_NEW,
	REFNIC_CMD_DEV_DEL,
	REFNIC_CMD_LINK_SET,
	REFNIC_CMD_STATS_GET,
	REFNIC_CMD_FAULT_SET,
	REFNIC_CMD_FAULT_GET,
	REFNIC_CMD_DEV_ADD_NTF,
	REFNIC_CMD_DEV_DEL_NTF,
	REFNIC_CMD_LINK_CHANGE_NTF,
	REFNIC_CMD_FAULT_NTF,
	REFNIC_CMD_BUS_SET,

	__REFNIC_CMD_MAX,
	REFNIC_CMD_MAX = (__REFNIC_CMD_MAX - 1)
};

#define REFNIC_MCGRP_MONITOR	"monitor"

#endif /* _UAPI_LINUX_REFNIC_H */
