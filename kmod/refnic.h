/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * Driver-private state of refnic. One struct refnic_priv per port (netdev);
 * two ports form a card, tied together by struct refnic_pair.
 *
 * Queue memory (rings, buffers, page_pool) lives in struct refnic_txq and
 * struct refnic_rxq, allocated, started, stopped and freed as separate steps
 * (refnic_queues.c) so that a new set can be built beside the running one and
 * swapped in; that is also the shape netdev_queue_mgmt_ops wants. NAPI
 * instances, IRQs and statistics are per queue *index* and live in the priv:
 * they survive such swaps, which keeps page_pool's NAPI pointer stable and
 * the counters monotonic.
 *
 * Locking. "The instance lock" below is netdev->lock of the port, which the
 * 7.3 core holds around every op of an ops-locked device; on 6.12 it is
 * RTNL (refnic_compat.h). It guards the port's control state: queues,
 * vectors, flow rules, bypass sessions. The ring configuration @cfg is also
 * read under RTNL alone (the netlink family), so it is written with both.
 */

#ifndef _REFNIC_H_
#define _REFNIC_H_

#include <linux/dim.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/netmem.h>
#include <net/page_pool/types.h>

#include "refnic_bus.h"
#include "refnic_compat.h"
#include "refnic_hw.h"

#define REFNIC_DRV_NAME		"refnic"

struct dentry;
struct refnic_bp_dmamem;
struct refnic_bypass;

/* Root of the module's debugfs tree; NULL or an error pointer when debugfs
 * is unavailable, which debugfs callers accept as a parent.
 */
extern struct dentry *refnic_debugfs_root;

/* Module parameter recycle_batch: batched (true) or per-buffer driver
 * buffer paths, latched by each RX queue when it is built.
 */
extern bool refnic_recycle_batch;

#define REFNIC_DEFAULT_QUEUES		4
#define REFNIC_DEFAULT_RING_SIZE	512

/* RX payload buffer: half a page, carved from order-0 pages by page_pool's
 * fragment allocator. A 1500-byte frame fits one buffer with a truesize of
 * 2 KiB rather than 4 KiB; a 9000-byte frame spans five buffers, attached
 * as skb frags. Every buffer holds payload only (no headroom or
 * skb_shared_info is reserved in it), because the skb head is a separate
 * small allocation the headers are copied into; that is the skb shape
 * header-data split and devmem need too (headers linear, payload in frags).
 */
#define REFNIC_RX_BUF_LEN		2048
/* Frames up to this size are copied whole into the skb head and their
 * buffer recycled at once; larger ones get their headers copied.
 */
#define REFNIC_RX_COPYBREAK		256
#define REFNIC_RX_HDR_MAX		256
/* Header split: each header buffer is one slot of a header page, so that
 * 16 headers share a 4 KiB page and the page goes back to its pool once,
 * not once per header. 256 bytes holds Ethernet + VLAN + IPv6 with a few
 * extension headers + TCP with options; longer headers are not split.
 */
#define REFNIC_RX_HDR_SLOT		256
/* Refill only once this many descriptors are free, so that each RXQ_TAIL
 * doorbell publishes a batch. At most half the ring (a queue clamps the
 * debugfs setting to that), so that a ring waiting for a batch still holds
 * buffers for the device.
 */
#define REFNIC_RX_REFILL_BATCH		32
#define REFNIC_RX_REFILL_BATCH_MAX	64
/* The largest NAPI weight debugfs napi_weight gives the vectors. On 6.12
 * any weight above NAPI_POLL_WEIGHT gets one KERN_ERR line from the core
 * per boot (netif_napi_add_weight()).
 */
#define REFNIC_NAPI_WEIGHT_MAX		(4 * NAPI_POLL_WEIGHT)
/* With fewer buffers posted than one completion may take, the device may
 * complete nothing at all: a hardware GRO run closes at 16 descriptors, a
 * 9 KiB frame takes 5. A refill that leaves the ring below this because
 * allocation failed backs off (refnic_poll()).
 */
#define REFNIC_RX_MIN_POSTED		16
/* Refill backoff: NAPI runs again this long after a refill left the ring
 * short, the delay doubling while allocation keeps failing.
 */
#define REFNIC_RX_BACKOFF_MIN_US	1000
#define REFNIC_RX_BACKOFF_MAX_US	100000

/* The service task (refnic_service.c) samples the queues this often.
 * An RX queue whose frames arrive and complete nothing for
 * REFNIC_RX_STALL_SAMPLES samples has stalled; one whose completions wait
 * with NAPI idle at REFNIC_LOST_IRQ_SAMPLES samples in a row lost an
 * interrupt; a TX queue whose oldest frame stays undone for the netdev
 * watchdog's timeout has hung.
 */
#define REFNIC_SERVICE_PERIOD		HZ
#define REFNIC_RX_STALL_SAMPLES		3
#define REFNIC_LOST_IRQ_SAMPLES		2

/* The most descriptors one skb needs: the linear part and every frag.
 * MAX_SKB_FRAGS is CONFIG_MAX_SKB_FRAGS, 17 to 45: up to 46 descriptors,
 * which even the smallest ring (REFNIC_MIN_RING_SIZE) holds.
 */
#define REFNIC_TX_DESC_MAX		(MAX_SKB_FRAGS + 1)
/* Stop a TX queue while a worst-case skb would not fit; when it wakes
 * depends on the ring's size (refnic_tx_wake_thresh()).
 */
#define REFNIC_TX_STOP_THRESH		REFNIC_TX_DESC_MAX

/* Interrupt moderation defaults (ethtool -C). */
#define REFNIC_DEFAULT_ITR_USECS	20
#define REFNIC_DEFAULT_ITR_FRAMES	32

/* How long a queue may take to report STOPPED, and the port to reset. */
#define REFNIC_STOP_TIMEOUT_US		1000000
#define REFNIC_RESET_TIMEOUT_US		1000000

/**
 * struct refnic_qcfg - ring configuration of a port (ethtool -L, -G)
 * @num_queues: queue pairs in use
 * @tx_ring_size: TX descriptors per queue, a power of two
 * @rx_ring_size: RX descriptors (and completions) per queue, a power of two
 * @tcp_data_split: ETHTOOL_TCP_DATA_SPLIT_ENABLED for header split, else
 *	DISABLED (UNKNOWN, "auto", means disabled)
 */
struct refnic_qcfg {
	u32 num_queues;
	u32 tx_ring_size;
	u32 rx_ring_size;
	u8 tcp_data_split;
};

/* Statistics. Each block has exactly one writer context, so u64_stats_sync
 * needs no lock; readers retry on a concurrent update (32-bit only).
 */

/* Written by the queue pair's NAPI poll (or, with NAPI disabled, by the
 * control path, under the instance lock, that drains the queue).
 */
struct refnic_napi_stats {
	struct u64_stats_sync syncp;
	u64_stats_t rx_packets;
	u64_stats_t rx_bytes;
	u64_stats_t rx_alloc_fail;
	u64_stats_t rx_alloc_backoffs;	/* refill retries put off to a timer */
	u64_stats_t rx_cmpl_lost;	/* completions found missing */
	u64_stats_t rx_drops;		/* bad frames and skb alloc failure */
	u64_stats_t rx_csum_unnecessary;
	u64_stats_t rx_csum_none;
	u64_stats_t rx_csum_bad;
	u64_stats_t rx_doorbells;	/* RXQ_TAIL and RXCQ_HEAD writes */
	u64_stats_t rx_dma_bytes;	/* bytes the device wrote */
	u64_stats_t rx_hds_split;	/* frames with headers split off */
	u64_stats_t rx_hds_unparsed;	/* not TCP/UDP over IP: not split */
	u64_stats_t rx_hds_hdr_too_big;	/* headers over REFNIC_RX_HDR_SLOT */
	u64_stats_t rx_hdr_pages;	/* header pages drawn from the pool */
	u64_stats_t rx_devmem_bytes;	/* payload into dmabuf net_iovs */
	u64_stats_t rx_hw_gro_packets;	/* skbs of coalesced runs (HW GRO) */
	u64_stats_t rx_hw_gro_wire_packets; /* segments in them */
	u64_stats_t rx_hw_gro_bytes;	/* bytes of those skbs */
	u64_stats_t rx_devmem_unsplit;	/* unsplit frame on a bound queue:
					 * its payload is unreadable, dropped
					 */
	u64_stats_t tx_packets;		/* wire packets completed */
	u64_stats_t tx_bytes;		/* wire bytes completed */
	u64_stats_t tx_wakes;
	u64_stats_t polls;
	u64_stats_t full_polls;		/* polls that used the whole budget */
	u64_stats_t unmasks;		/* INTR_UNMASK writes */
};

/* Written by ndo_start_xmit, under the TX queue's lock. */
struct refnic_xmit_stats {
	struct u64_stats_sync syncp;
	u64_stats_t doorbells;		/* TXQ_TAIL writes */
	u64_stats_t stops;
	u64_stats_t busy;		/* NETDEV_TX_BUSY returns */
	u64_stats_t drops;		/* DMA mapping failures, unsent at stop */
	u64_stats_t dma_bytes;		/* bytes handed to the device */
	u64_stats_t devmem_bytes;	/* of those, in dmabuf net_iovs */
	u64_stats_t needs_csum;
	u64_stats_t csum_none;
	u64_stats_t gso_packets;
	u64_stats_t gso_bytes;
	u64_stats_t gso_wire_packets;
	u64_stats_t gso_wire_bytes;
};

/* Written by the vector's hard IRQ handler. */
struct refnic_irq_stats {
	struct u64_stats_sync syncp;
	u64_stats_t irqs;
};

/**
 * struct refnic_drv_fault - a driver-side fault armed by the refnic netlink
 *	family (refnic_fault.c)
 * @rate_ppm: strike on this many events per million, chosen at random
 * @count: with @rate_ppm 0, strike on the next this many events
 * @injected: strikes so far
 *
 * Armed under RTNL, consulted locklessly by the datapath.
 */
struct refnic_drv_fault {
	u32 rate_ppm;
	atomic_t count;
	atomic64_t injected;
};

#define REFNIC_FAULT_PPM		1000000

bool refnic_fault_strike(struct refnic_drv_fault *fault);
void refnic_fault_arm(struct refnic_drv_fault *fault, u32 rate_ppm, u32 count);

/* Does the fault strike this event? Cheap while it is not armed. */
static inline bool refnic_fault_strikes(struct refnic_drv_fault *fault)
{
	if (likely(!READ_ONCE(fault->rate_ppm) &&
		   !atomic_read(&fault->count)))
		return false;
	return refnic_fault_strike(fault);
}

/* A device counter: 32 bits that wrap, folded into 64 on every read. */
struct refnic_hw_counter {
	u32 raw;		/* last value read */
	u64 total;
};

/* The device's port-wide counters, in the order refnic_stats.c reads them. */
enum {
	REFNIC_HW_CNT_RX_OVERSIZE,
	REFNIC_HW_CNT_RX_FILTERED,
	REFNIC_HW_CNT_RX_BAD_QUEUE,
	REFNIC_HW_CNT_RX_MAC_OFF,
	REFNIC_HW_CNT_TX_LINK_DOWN,
	REFNIC_HW_CNT_TX_ERRORS,
	REFNIC_HW_CNT_RX_STEERED,
	REFNIC_HW_CNT_RX_STEER_DROP,
	REFNIC_HW_CNT_NUM
};

/* TX software ring entry, one per descriptor. The fields after @len are
 * valid in a frame's first entry only.
 */
struct refnic_tx_buf {
	dma_addr_t dma;
	u32 len;
	u8 mapped;			/* REFNIC_TX_MAP_* */
	u16 segs;			/* wire packets of the frame */
	u32 eop;			/* ring position of the last descriptor */
	u32 bytes;			/* wire bytes of the frame */
	struct sk_buff *skb;
};

#define REFNIC_TX_MAP_NONE		0
#define REFNIC_TX_MAP_SINGLE		1	/* dma_map_single(): skb head */
#define REFNIC_TX_MAP_PAGE		2	/* skb_frag_dma_map() */
#define REFNIC_TX_MAP_NET_IOV		3	/* a devmem TX binding's mapping */

/**
 * struct refnic_txq - memory and state of one TX queue
 * @desc: descriptor ring (coherent DMA memory)
 * @bufs: software ring, parallel to @desc
 * @mask: ring size - 1
 * @tail: free-running producer position, written by xmit only
 * @head: free-running consumer position, written by NAPI only
 * @db_tail: @tail as last written to the doorbell, by xmit only
 * @nq: the stack's TX queue (BQL, stop and wake)
 * @priv: owning port; NULL once the queue is cut loose from it, with @nq,
 *	@xstats and @nstats (refnic_tx_detach())
 * @dma_dev: device the ring and buffers are mapped for
 * @xstats: xmit-side counters of this queue index
 * @nstats: completion-side counters of this queue index
 * @idx: queue index
 * @size: ring size in descriptors
 * @wake_thresh: free descriptors at which the stopped queue wakes
 *	(refnic_tx_wake_thresh(), from @size)
 * @desc_dma: bus address of @desc
 */
struct refnic_txq {
	struct refnic_tx_desc *desc;
	struct refnic_tx_buf *bufs;
	u32 mask;
	u32 tail;
	u32 head;
	u32 db_tail;
	struct netdev_queue *nq;
	struct refnic_priv *priv;
	struct device *dma_dev;
	struct refnic_xmit_stats *xstats;
	struct refnic_napi_stats *nstats;
	u16 idx;
	u32 size;
	u32 wake_thresh;
	dma_addr_t desc_dma;
};

/* Free descriptors at which a stopped TX queue wakes: room for two
 * worst-case skbs, so that it does not bounce, but at most half the ring
 * (two skbs of 45 frags need 92 descriptors, more than a ring of 64 has:
 * the queue would never wake), and never below the stop threshold, or a
 * woken queue would stop again at once. Every ring holds the stop
 * threshold, so a drained ring always wakes its queue.
 */
static inline u32 refnic_tx_wake_thresh(u32 size)
{
	BUILD_BUG_ON(REFNIC_TX_STOP_THRESH > REFNIC_MIN_RING_SIZE);
	return max_t(u32, REFNIC_TX_STOP_THRESH,
		     min_t(u32, 2 * REFNIC_TX_STOP_THRESH, size / 2));
}

/* RX software ring entry: the buffers posted in the matching descriptor.
 * A buffer the device did not write stays here and is posted again.
 */
struct refnic_rx_buf {
	netmem_ref netmem;
	u32 offset;
	netmem_ref hdr_netmem;
	u32 hdr_offset;
};

/**
 * struct refnic_rxq - memory and state of one RX queue
 * @desc: buffer ring the driver posts on (coherent DMA memory)
 * @bufs: software ring, parallel to @desc
 * @cmpl: completion ring the device writes, same size as @desc
 * @pp: page_pool the payload buffers come from; with a dmabuf bound to the
 *	queue (devmem TCP) it hands out net_iovs the CPU cannot read
 * @hdr_pp: page_pool of the header buffers (header split on), NULL if off;
 *	each page is carved into REFNIC_RX_HDR_SLOT fragments
 * @napi: the queue pair's NAPI instance
 * @netdev: owning netdev
 * @priv: owning port; NULL once the queue is cut loose from it (a failed
 *	port's queue in the card's quarantine)
 * @stats: counters of this queue index
 * @dma_dev: device the rings and buffers are mapped for
 * @mask: ring size - 1 (both rings)
 * @ntu: free-running position of the next descriptor to post
 * @ntc: free-running position of the next descriptor to complete
 * @cq_head: free-running position of the next completion
 * @buf_len: payload bytes per buffer
 * @hdr_len: header buffer bytes, 0 with header split off
 * @hdr_slot: bytes of a header page each header buffer takes:
 *	REFNIC_RX_HDR_SLOT, or PAGE_SIZE without @batch
 * @hdr_pages_new: header pages started since NAPI last counted them
 * @idx: queue index
 * @size: ring size
 * @batch: refnic_recycle_batch when the queue was built
 * @refill_batch: free descriptors a refill waits for before it posts them
 *	all with one doorbell: priv->rx_refill_batch when the queue was built,
 *	at most half the ring; 1 without @batch
 * @alloc_failed: a buffer allocation failed since NAPI last looked
 * @broken: the device wrote a malformed completion; the queue waits for
 *	@reset_work and its NAPI no longer unmasks the vector
 * @pp_napi: @pp recycles directly into @napi's context: set at creation
 *	(pp.napi) and again by refnic_rxq_hook_napi() when the queue starts,
 *	cleared once page_pool_disable_direct_recycling() ran (NAPI disabled)
 * @desc_dma: bus address of @desc
 * @cmpl_dma: bus address of @cmpl
 */
struct refnic_rxq {
	struct refnic_rx_desc *desc;
	struct refnic_rx_buf *bufs;
	struct refnic_rx_cmpl *cmpl;
	struct page_pool *pp;
	struct page_pool *hdr_pp;
	struct napi_struct *napi;
	struct net_device *netdev;
	struct refnic_priv *priv;
	struct refnic_napi_stats *stats;
	struct device *dma_dev;
	u32 mask;
	u32 ntu;
	u32 ntc;
	u32 cq_head;
	u32 buf_len;
	u32 hdr_len;
	u32 hdr_slot;
	u32 hdr_pages_new;
	u16 idx;
	u32 size;
	u32 refill_batch;
	bool batch;
	bool alloc_failed;
	bool broken;
	bool pp_napi;
	dma_addr_t desc_dma;
	dma_addr_t cmpl_dma;
};

/**
 * struct refnic_vector - interrupt vector and NAPI instance of a queue pair
 * @napi: polls the pair's TX completions and RX completions
 * @priv: owning port
 * @txq: TX queue polled; changed only while @napi is disabled
 * @rxq: RX queue polled; changed only while @napi is disabled
 * @idx: vector (and queue pair) index
 * @added: netif_napi_add() done and the IRQ requested
 * @spread: the IRQ was given its CPU once; later requests keep the user's
 * @enabled: @napi enabled (instance lock)
 * @istats: interrupt counter
 * @bp: bypass session polled instead of @txq and @rxq (refnic_bypass.c);
 *	changed only while @napi is disabled
 * @refill_timer: schedules @napi again after a refill left the RX ring
 *	short of buffers for want of memory (a soft hrtimer, armed by the
 *	poll, cancelled once @napi is disabled)
 * @refill_delay_us: the backoff's current delay, 0 when the last poll
 *	left the ring with buffers enough (NAPI only)
 * @tx_kicked: jiffies of the TX watchdog's last NAPI kick (its TX lock)
 * @dim: adaptive moderation of the vector (refnic_dim.c): sampled by the
 *	poll, its work item cancelled once @napi is disabled
 * @dim_usecs: the delay DIM chose, for the adaptive directions
 *	(priv->itr_lock; read without it by ethtool)
 * @dim_frames: the frame threshold DIM chose, likewise
 * @dim_gen: the priv->dim_gen @dim measures under (NAPI)
 * @name: IRQ name, "<ifname>-q<N>"
 */
struct refnic_vector {
	struct napi_struct napi;
	struct refnic_priv *priv;
	struct refnic_txq *txq;
	struct refnic_rxq *rxq;
	u16 idx;
	bool added;
	bool spread;
	bool enabled;
	struct refnic_irq_stats istats;
	struct refnic_bypass *bp;
	struct hrtimer refill_timer;
	u32 refill_delay_us;
	unsigned long tx_kicked;
	struct dim dim;
	u32 dim_usecs;
	u32 dim_frames;
	u32 dim_gen;
	char name[IFNAMSIZ + 8];
};

/**
 * struct refnic_rx_progress - an RX ring as the service task samples it
 * @cq_head: completions the driver has consumed (free-running)
 * @posted: buffers the driver has posted and not had back
 * @min_posted: with fewer buffers posted the device may complete nothing
 * @pending: a completion waits at @cq_head, not consumed yet (or, set by
 *	the service task, a done frame on the pair's TX ring)
 * @broken: the queue waits for a restart already; nothing to watch
 *
 * Read without the ring's owner (NAPI), a word at a time: each field may be
 * a moment old, which one sample a second shrugs off.
 */
struct refnic_rx_progress {
	u32 cq_head;
	u32 posted;
	u32 min_posted;
	bool pending;
	bool broken;
};

/**
 * struct refnic_queue_watch - the service task's record of one queue pair
 * @valid: the fields below hold a sample of the queue pair as it is now
 *	(reset whenever its vector is enabled: a new ring, or a bypass
 *	session's)
 * @frames: the device's CNT_RX_FRAMES at the last sample
 * @cq_head: RX completions consumed at the last sample
 * @polls: NAPI polls at the last sample
 * @tx_head: the oldest frame on the TX ring at the last sample
 * @tx_stuck_since: when a sample first found that frame waiting, not done,
 *	with the queue not stopped (valid while @tx_stuck)
 * @stall_samples: samples since the last completion in which frames
 *	arrived while buffers were posted and nothing was left to consume
 * @idle_samples: samples in a row that found a completion waiting and no
 *	NAPI poll since the sample before
 * @tx_stuck: the last sample found the TX ring so
 *
 * Service task only, under the instance lock.
 */
struct refnic_queue_watch {
	bool valid;
	u32 frames;
	u32 cq_head;
	u64 polls;
	u32 tx_head;
	unsigned long tx_stuck_since;
	u8 stall_samples;
	u8 idle_samples;
	bool tx_stuck;
};

/**
 * struct refnic_qset - the queue memory of one configuration
 * @cfg: the configuration it was built for
 * @txq: TX queues by index
 * @rxq: RX queues by index
 */
struct refnic_qset {
	struct refnic_qcfg cfg;
	struct refnic_txq *txq[REFNIC_MAX_QUEUES];
	struct refnic_rxq *rxq[REFNIC_MAX_QUEUES];
};

/**
 * struct refnic_quarantine - what a failed port's device may still use
 * @dma_dev: the port's DMA device, held while anything is kept (the
 *	platform device is unregistered when the card is unplugged)
 * @txq: TX queues, by index, with the frames on their rings still mapped
 * @rxq: RX queues, by index, with their page_pools and posted buffers
 * @bp: bypass sessions' device memory, by queue (refnic_bypass.c)
 *
 * When a queue pair does not stop and the port reset times out too, the
 * device may go on reading and writing every ring and buffer it was given.
 * The port then fails (refnic_port_fail()) and its queues come here, cut
 * loose from the port (no pointer into its priv or netdev is left, since
 * those are freed before the card), to be freed by
 * refnic_quarantine_release() once the card is unplugged, when no engine
 * runs any more. Filled under the port's instance lock.
 */
struct refnic_quarantine {
	struct device *dma_dev;
	struct refnic_txq *txq[REFNIC_MAX_QUEUES];
	struct refnic_rxq *rxq[REFNIC_MAX_QUEUES];
	struct refnic_bp_dmamem *bp[REFNIC_MAX_QUEUES];
};

/**
 * struct refnic_pair - a card: two ports wired to each other
 * @card: the bus card (hardware)
 * @netdev: the two ports' netdevs (RTNL); NULL once unlinked by dellink
 * @refs: one per registered netdev, plus one held while newlink runs; the
 *	last put unplugs the card
 * @kept: by port index, the memory a failed port's device may still use:
 *	the card keeps it, since the port's priv is freed before the last put
 */
struct refnic_pair {
	struct refnic_bus_card card;
	struct net_device *netdev[2];
	refcount_t refs;
	struct refnic_quarantine kept[2];
};

/**
 * struct refnic_priv - one port
 * @netdev: this port's netdev
 * @port: the bus port (registers, IRQs, DMA device)
 * @pair: the card this port belongs to
 * @dma_dev: device for DMA mappings and page_pool
 * @dma_dev_lent: the core mapped a dmabuf against @dma_dev (devmem, io_uring
 *	zero-copy receive), so the device is kept for good
 *	(refnic_lend_dma_dev(); instance lock, RTNL on 6.12)
 * @caps: REFNIC_REG_CAPS
 * @max_queues: queue pairs the hardware and the netdev allow
 * @cfg: ring configuration (written under RTNL and the instance lock)
 * @txq: live TX queues; xmit reads them, changed only with TX disabled
 * @rxq: live RX queues (instance lock)
 * @vec: vectors by queue pair
 * @nstats: NAPI-side counters by queue index
 * @xstats: xmit-side counters by queue index
 * @hw_stats_lock: serializes readers of the device's wrapping 32-bit
 *	counters, which fold each read's delta into a 64-bit total
 * @hw_nobuf: frames dropped for lack of RX buffers, by queue index
 * @hw_cq_full: frames dropped for a full completion ring, by queue index
 * @hw_port: the device's port-wide counters, REFNIC_HW_CNT_*
 * @mmio_rd_hot: register reads from hardirq, softirq or BH-disabled context
 *	(where xmit, NAPI and IRQ handlers run): must stay zero
 * @mmio_rd_slow: register reads from process context
 * @tx_timeouts: ndo_tx_timeout calls
 * @tx_hangs: TX queues the service task found hung while not stopped
 * @queue_resets: queue pair restarts done by @reset_work
 * @quiesce_failures: times the device did not stop its DMA: a queue pair
 *	did not stop and the port reset timed out (refnic_port_fail())
 * @rx_stalls: RX queues the service task found stalled (the pair then
 *	restarted, or its bypass session ended)
 * @lost_irqs: lost interrupts the service task or the TX watchdog made up
 *	for (NAPI scheduled)
 * @rx_released: RX buffers the driver released outside NAPI (queue
 *	teardown)
 * @pp_stats_gone: counters of the RX queues' page_pools already destroyed,
 *	so that ethtool -S only counts up across reconfiguration (instance
 *	lock; CONFIG_PAGE_POOL_STATS)
 * @rx_release_calls: the page_pool calls that released @rx_released, each
 *	taking the pool's ring lock at most once (ethtool -S; was
 *	rx_release_locked, which counted calls that took no lock too)
 * @fail_alloc: injected RX buffer allocation failures, by queue index
 *	(NAPI refills only)
 * @itr_lock: serializes computing and writing the vectors' moderation
 *	registers between the control path and DIM's work items, and the
 *	values below they are computed from
 * @rx_usecs: ethtool -C rx-usecs
 * @rx_frames: ethtool -C rx-frames
 * @tx_usecs: ethtool -C tx-usecs
 * @tx_frames: ethtool -C tx-frames
 * @adaptive_rx: ethtool -C adaptive-rx (refnic_dim.c)
 * @adaptive_tx: ethtool -C adaptive-tx
 * @dim_gen: bumped when @adaptive_rx or @adaptive_tx changes, for each
 *	vector's DIM to start over (refnic_dim_sample())
 * @rx_refill_batch: RX refill batch the RX queues take when built
 *	(debugfs rx_refill_batch, REFNIC_RX_REFILL_BATCH at first), for
 *	refnic-lab's doorbell experiment
 * @napi_weight: NAPI weight (the budget of a poll) the vectors take when
 *	added (debugfs napi_weight, NAPI_POLL_WEIGHT at first; at most
 *	REFNIC_NAPI_WEIGHT_MAX), for refnic-lab's napi-budget experiment
 * @tx_clean_mmio: TX completion reads the queue's HEAD register instead
 *	of the DONE bits in host memory (debugfs tx_clean_mmio): a
 *	non-posted read per clean, the design DONE bits exist to avoid, kept
 *	for refnic-lab's mmio-read experiment
 * @rss_key: RSS hash key
 * @rss_indir: RSS indirection table
 * @rss_fields: RSS_FIELDS by flow type (REFNIC_RSS_FT_*), without SYM_XOR
 *	(ethtool -N rx-flow-hash)
 * @rss_input_xfrm: RXH_XFRM_SYM_XOR or 0 (ethtool -X xfrm), written as
 *	RSS_FIELDS.SYM_XOR of every flow type
 * @rss_ctx_indir: the indirection tables of RSS contexts 1 and up (ethtool
 *	-X context N), by context ID; the ethtool core keeps a copy of its
 *	own, which ethtool -x reads, but this one is written to the device
 *	at open, reset and bypass changes without the core's rss_lock
 * @rss_ctx_used: context IDs that exist (instance lock and rss_lock; RTNL
 *	alone while unregistering, the port closed)
 * @flow_rules: ntuple rules (ethtool -N) by location, as ethtool gave them
 *	(instance lock); written to the device's flow steering table while
 *	running
 * @flow_ctx: the RSS context of each rule with FLOW_RSS (instance lock)
 * @flow_used: locations of @flow_rules holding a rule (instance lock)
 * @bypass: bypass sessions holding queue pairs, by index (instance lock)
 * @bypass_mask: queue pairs held by bypass sessions; written under the
 *	instance lock, read locklessly by transmit to keep the stack off them
 * @bypass_whole_port: queue pair RSS sends every frame to (a whole-port
 *	session), or -1 (instance lock)
 * @rx_ctrl_lock: serializes updates of @rx_ctrl: from the instance lock
 *	(open, features) and from the RX mode callback, which on 6.12 is
 *	ndo_set_rx_mode (netif_addr_lock, BH disabled, no instance lock);
 *	on 7.x ndo_set_rx_mode_async runs in process context under RTNL and
 *	the instance lock, so there it only keeps one rule for both kernels
 * @rx_ctrl: shadow of REFNIC_REG_RX_CTRL, so updates need no register read
 * @hw_gro_idle_us: RX_GRO_IDLE the driver programs (RTNL and instance lock)
 * @hw_gro_timeout_us: RX_GRO_TIMEOUT the driver programs (likewise)
 * @misc_name: IRQ name of the misc vector, "<ifname>-misc"
 * @misc_irq: the misc vector's IRQ is requested (instance lock)
 * @link_work: misc vector bottom half: link state, errors; disabled until
 *	the port is registered (refnic_port_registered())
 * @reset_work: restarts queue pairs after a TX timeout or a queue error;
 *	likewise
 * @reset_pending: queue pairs @reset_work should restart (atomic bitops)
 * @reset_all: @reset_work should restart every queue pair
 * @service_task: watches the RX queues for stalls and lost interrupts,
 *	every REFNIC_SERVICE_PERIOD while the port is up (refnic_service.c);
 *	disabled until the port is registered, as @link_work
 * @watch: the service task's record of each queue pair
 * @service_runs: times the service task sampled the port (instance lock)
 * @failed: the device did not stop its DMA: the port's queues are in the
 *	card's quarantine and nothing brings them back until the port is
 *	deleted (refnic_port_fail()). Written and read under the instance
 *	lock (RTNL on 6.12); written once.
 * @debugfs: the port's debugfs directory (refnic_debugfs.c)
 */
struct refnic_priv {
	struct net_device *netdev;
	struct refnic_bus_port *port;
	struct refnic_pair *pair;
	struct device *dma_dev;
	bool dma_dev_lent;
	u32 caps;
	u32 max_queues;
	struct refnic_qcfg cfg;

	struct refnic_txq *txq[REFNIC_MAX_QUEUES];
	struct refnic_rxq *rxq[REFNIC_MAX_QUEUES];
	struct refnic_vector vec[REFNIC_MAX_QUEUES];

	struct refnic_napi_stats nstats[REFNIC_MAX_QUEUES];
	struct refnic_xmit_stats xstats[REFNIC_MAX_QUEUES];

	spinlock_t hw_stats_lock;	/* the refnic_hw_counter below */
	struct refnic_hw_counter hw_nobuf[REFNIC_MAX_QUEUES];
	struct refnic_hw_counter hw_cq_full[REFNIC_MAX_QUEUES];
	struct refnic_hw_counter hw_port[REFNIC_HW_CNT_NUM];

	atomic64_t mmio_rd_hot;
	atomic64_t mmio_rd_slow;
	atomic64_t tx_timeouts;
	atomic64_t tx_hangs;
	atomic64_t queue_resets;
	atomic64_t quiesce_failures;
	atomic64_t rx_stalls;
	atomic64_t lost_irqs;
	atomic64_t rx_released;
	atomic64_t rx_release_calls;
#ifdef CONFIG_PAGE_POOL_STATS
	struct page_pool_stats pp_stats_gone;
#endif
	struct refnic_drv_fault fail_alloc[REFNIC_MAX_QUEUES];

	spinlock_t itr_lock;	/* vectors' ITR: control path vs DIM work */
	u32 rx_usecs;
	u32 rx_frames;
	u32 tx_usecs;
	u32 tx_frames;
	bool adaptive_rx;
	bool adaptive_tx;
	u32 dim_gen;
	u32 rx_refill_batch;
	u32 napi_weight;
	bool tx_clean_mmio;

	u8 rss_key[REFNIC_RSS_KEY_SIZE];
	u32 rss_indir[REFNIC_RSS_TABLE_SIZE];
	u32 rss_fields[REFNIC_RSS_NUM_FT];
	u8 rss_input_xfrm;
	u32 rss_ctx_indir[REFNIC_NUM_RSS_CTX][REFNIC_RSS_TABLE_SIZE];
	DECLARE_BITMAP(rss_ctx_used, REFNIC_NUM_RSS_CTX);

	struct ethtool_rx_flow_spec flow_rules[REFNIC_NUM_FLOW_RULES];
	u32 flow_ctx[REFNIC_NUM_FLOW_RULES];
	DECLARE_BITMAP(flow_used, REFNIC_NUM_FLOW_RULES);

	struct refnic_bypass *bypass[REFNIC_MAX_QUEUES];
	unsigned long bypass_mask;
	int bypass_whole_port;

	spinlock_t rx_ctrl_lock;	/* @rx_ctrl and its register */
	u32 rx_ctrl;
	u32 hw_gro_idle_us;
	u32 hw_gro_timeout_us;

	char misc_name[IFNAMSIZ + 8];
	bool misc_irq;
	struct work_struct link_work;
	struct work_struct reset_work;
	unsigned long reset_pending;
	bool reset_all;
	struct delayed_work service_task;
	struct refnic_queue_watch watch[REFNIC_MAX_QUEUES];
	u64 service_runs;
	bool failed;
	struct dentry *debugfs;
};

/* Hardware GRO timers, as an LRO engine's: an aggregate waits at most
 * 50 us for the next frame and 500 us in all, which TCP does not notice.
 * debugfs (hw_gro_idle_us, hw_gro_timeout_us) sets others.
 */
#define REFNIC_HW_GRO_IDLE_US		50
#define REFNIC_HW_GRO_TIMEOUT_US	500

static inline struct refnic_priv *refnic_priv(const struct net_device *dev)
{
	return netdev_priv(dev);
}

/* refnic_netdev.c */
void refnic_netdev_setup(struct net_device *netdev);
void refnic_port_registered(struct net_device *netdev);
int refnic_port_probe(struct net_device *netdev, struct refnic_pair *pair,
		      unsigned int index, const struct refnic_qcfg *cfg,
		      struct netlink_ext_ack *extack);
void refnic_pair_put(struct refnic_pair *pair);
int refnic_hw_reset(struct refnic_priv *priv);
void refnic_hw_program(struct refnic_priv *priv);
void refnic_write_gro_timers(struct refnic_priv *priv);
void refnic_schedule_reset(struct refnic_priv *priv, int q);
int refnic_netdev_init(void);
void refnic_netdev_exit(void);

/* refnic_queues.c */
extern const struct netdev_queue_mgmt_ops refnic_queue_mgmt_ops;
int refnic_qset_alloc(struct refnic_priv *priv, struct refnic_qset *set,
		      unsigned int first, unsigned int count);
void refnic_qset_free(struct refnic_priv *priv, struct refnic_qset *set,
		      unsigned int first, unsigned int count);
void refnic_qpairs_start(struct refnic_priv *priv, struct refnic_qset *set,
			 unsigned int first, unsigned int count);
int refnic_qpairs_stop(struct refnic_priv *priv, struct refnic_qset *set,
		       unsigned int first, unsigned int count, bool may_reset);
int refnic_up(struct refnic_priv *priv);
void refnic_down(struct refnic_priv *priv);
int refnic_reconfigure(struct refnic_priv *priv,
		       const struct refnic_qcfg *cfg);
int refnic_qpair_restart(struct refnic_priv *priv, unsigned int q);
int refnic_qpair_hw_stop(struct refnic_priv *priv, unsigned int q);
void refnic_port_fail(struct refnic_priv *priv);
int refnic_port_check_failed(struct refnic_priv *priv,
			     struct netlink_ext_ack *extack);
struct refnic_quarantine *refnic_quarantine_get(struct refnic_priv *priv);
void refnic_quarantine_release(struct refnic_quarantine *kept);

/* refnic_irq.c */
void refnic_vector_init(struct refnic_priv *priv, unsigned int v);
int refnic_vectors_add(struct refnic_priv *priv, unsigned int first,
		       unsigned int count);
void refnic_vectors_del(struct refnic_priv *priv, unsigned int first,
			unsigned int count);
void refnic_vector_enable(struct refnic_priv *priv, unsigned int v);
void refnic_vector_disable(struct refnic_priv *priv, unsigned int v);
void refnic_vector_write_itr(struct refnic_priv *priv, unsigned int v);
void refnic_vector_coalesce(struct refnic_priv *priv,
			    struct refnic_vector *vec, u32 *rx_usecs,
			    u32 *rx_frames, u32 *tx_usecs, u32 *tx_frames);

void refnic_dim_init(struct refnic_vector *v);
void refnic_dim_reset(struct refnic_vector *v);
void refnic_dim_start_values(struct refnic_vector *v);
void refnic_dim_stop(struct refnic_vector *v);
void refnic_dim_sample(struct refnic_vector *v, struct refnic_napi_stats *ns);
int refnic_misc_irq_request(struct refnic_priv *priv);
void refnic_misc_irq_free(struct refnic_priv *priv);
void refnic_link_update(struct refnic_priv *priv);
void refnic_link_work(struct work_struct *work);

/* refnic_tx.c */
u16 refnic_select_queue(struct net_device *netdev, struct sk_buff *skb,
			struct net_device *sb_dev);
netdev_tx_t refnic_start_xmit(struct sk_buff *skb, struct net_device *netdev);
netdev_features_t refnic_features_check(struct sk_buff *skb,
					struct net_device *netdev,
					netdev_features_t features);
bool refnic_tx_clean(struct refnic_txq *txq, int budget);
void refnic_tx_drain(struct refnic_txq *txq);
bool refnic_tx_done_at(const struct refnic_txq *txq, u32 head);
bool refnic_tx_done_waiting(const struct refnic_txq *txq);
void refnic_tx_detach(struct refnic_txq *txq);

/* refnic_rx.c */
int refnic_rx_poll(struct refnic_rxq *rxq, int budget, bool *starved);
void refnic_rx_progress(const struct refnic_rxq *rxq,
			struct refnic_rx_progress *p);
u32 refnic_rx_post(struct refnic_rxq *rxq, gfp_t gfp);
int refnic_rxq_bound_any(struct refnic_priv *priv, unsigned int first);
struct device *refnic_lend_dma_dev(struct refnic_priv *priv);
void refnic_rx_drain(struct refnic_rxq *rxq);

/* refnic_rss.c */
void refnic_rss_init(struct refnic_priv *priv);
void refnic_rss_set_queues(struct refnic_priv *priv, unsigned int n);
void refnic_rss_program(struct refnic_priv *priv);
int refnic_rss_get_fields(struct refnic_priv *priv, u32 flow_type, u32 *data);
int refnic_rss_set_fields(struct refnic_priv *priv, u32 flow_type, u64 data,
			  struct netlink_ext_ack *extack);
int refnic_rss_check_xfrm(struct refnic_priv *priv, u8 input_xfrm,
			  struct netlink_ext_ack *extack);
int refnic_rss_ctx_create(struct refnic_priv *priv,
			  struct ethtool_rxfh_context *ctx,
			  const struct ethtool_rxfh_param *rxfh,
			  struct netlink_ext_ack *extack);
int refnic_rss_ctx_modify(struct refnic_priv *priv,
			  struct ethtool_rxfh_context *ctx,
			  const struct ethtool_rxfh_param *rxfh,
			  struct netlink_ext_ack *extack);
int refnic_rss_ctx_remove(struct refnic_priv *priv, u32 c,
			  struct netlink_ext_ack *extack);

/* refnic_ntuple.c */
int refnic_ntuple_get_rxnfc(struct refnic_priv *priv,
			    struct ethtool_rxnfc *cmd, u32 *rule_locs);
int refnic_ntuple_set_rxnfc(struct refnic_priv *priv,
			    struct ethtool_rxnfc *cmd);
void refnic_ntuple_program(struct refnic_priv *priv);
void refnic_ntuple_clear(struct refnic_priv *priv);
bool refnic_ntuple_ctx_in_use(struct refnic_priv *priv, u32 c);

/* refnic_service.c */
void refnic_service_init(struct refnic_priv *priv);
void refnic_service_enable(struct refnic_priv *priv);
void refnic_service_start(struct refnic_priv *priv);
void refnic_service_stop(struct refnic_priv *priv);
void refnic_service_stop_sync(struct refnic_priv *priv);

/* refnic_stats.c */
extern const struct netdev_stat_ops refnic_stat_ops;
void refnic_get_stats64(struct net_device *netdev,
			struct rtnl_link_stats64 *s);
void refnic_hw_stats_init(struct refnic_priv *priv);
void refnic_hw_stats_update(struct refnic_priv *priv);
int refnic_ethtool_stats_count(struct refnic_priv *priv);
void refnic_ethtool_stats_strings(struct refnic_priv *priv, u8 *data);
void refnic_ethtool_stats_fill(struct refnic_priv *priv, u64 *data);
void refnic_pp_stats_retire(struct refnic_priv *priv,
			    const struct refnic_rxq *rxq);

/* refnic_debugfs.c */
void refnic_debugfs_port_init(struct refnic_priv *priv);
void refnic_debugfs_port_exit(struct refnic_priv *priv);

/* refnic_ethtool.c */
extern const struct ethtool_ops refnic_ethtool_ops;

#endif /* _REFNIC_H_ */
